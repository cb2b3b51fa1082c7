/* opt.c - the command `uir opt` (docs/commands.md): the program as the loop optimiser
 * (src/opt/) lets `run` execute it, printed as .uir: the program's own text, with `thread`
 * on every loop that runs on the thread pool, and a comment above every loop nest that
 * runs interchanged. The text checks, and runs to the same bits.
 *
 *   uir opt FILE
 */
#include "../uir_internal.h"
#include "../opt/opt.h"
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* An insertion of TEXT before byte AT of the source. */
typedef struct Edit {
	size_t at;
	const char *text;
} Edit;

typedef struct Edits {
	UirProgram *p;
	Edit *v;
	int n, cap;
} Edits;

static void add(Edits *e, size_t at, const char *text)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 8;
		e->v = xrealloc(e->v, (size_t)e->cap * sizeof *e->v);
	}
	e->v[e->n++] = (Edit){ at, text };
}


/* The `{` that opens the body of the loop at byte AT (a bound has no braces; comments run
 * from `#` to the end of the line). */
static size_t brace_after(const UirProgram *p, size_t at)
{
	for (size_t i = at; i < p->srclen; i++) {
		if (p->src[i] == '#')
			while (i < p->srclen && p->src[i] != '\n')
				i++;
		else if (p->src[i] == '{')
			return i;
	}
	return p->srclen;
}

static void walk(Edits *e, const Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			walk(e, s->then_);
			walk(e, s->else_);
			continue;
		}
		if (s->kind != ST_LOOP)
			continue;
		size_t bol = diag_line_offset(e->p, s->loc.line);
		size_t at = bol + (size_t)(s->loc.col > 0 ? s->loc.col - 1 : 0);
		if (s->opt_parallel)
			add(e, brace_after(e->p, at), "thread ");
		else if (s->opt_inner) {
			size_t n = 0;
			while (bol + n < at && (e->p->src[bol + n] == ' ' || e->p->src[bol + n] == '\t'))
				n++;
			const char *indent = arena_strndup(&e->p->arena, e->p->src + bol, n);
			add(e, bol, fmt_str(&e->p->arena, "%s# uir opt: run as loop %s outside loop %s (interchange; the order of "
					    "each element's updates is kept)\n", indent, s->opt_inner->sym->name, s->sym->name));
		}
		walk(e, s->body);
	}
}

static int by_offset(const void *a, const void *b)
{
	size_t x = ((const Edit *)a)->at, y = ((const Edit *)b)->at;
	return (x > y) - (x < y);
}

int cmd_opt(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: uir opt FILE\n\nPrints the program as `uir run` executes it after the loop optimiser:\n"
			       "`thread` on the loops it runs on the thread pool, a comment on the nests it\n"
			       "interchanges (docs/llvm.md, \"Loop optimisation\").\n");
			return 0;
		default: return cli_bad_option("opt", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("opt", "expected one FILE");
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	if (uir_check(p, 0, stderr)) {
		uir_free(p);
		return UIR_EXIT_ERROR;
	}
	opt_program(p);
	UirProgram *q = opt_rewrite(p, true);
	if (q) {
		uir_free(p);
		p = q;
	} else if (p->opt_rewrites) {
		fprintf(stderr, "uir opt: internal error: the rewritten program does not check (UIR_OPT_DEBUG=1 shows it)\n");
		uir_free(p);
		return UIR_EXIT_INTERNAL;
	}
	Edits e = { p, NULL, 0, 0 };
	walk(&e, p->top);
	qsort(e.v, (size_t)e.n, sizeof *e.v, by_offset);
	size_t from = 0;
	for (int i = 0; i < e.n; i++) {
		fwrite(p->src + from, 1, e.v[i].at - from, stdout);
		fputs(e.v[i].text, stdout);
		from = e.v[i].at;
	}
	fwrite(p->src + from, 1, p->srclen - from, stdout);
	free(e.v);
	uir_free(p);
	return fflush(stdout) ? UIR_EXIT_ERROR : UIR_EXIT_OK;
}
