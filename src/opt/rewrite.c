/* rewrite.c - the loop optimiser's decisions that change the program's shape, carried out
 * on its text (docs/llvm.md, "Loop optimisation"): `thread` on the loops it runs in
 * parallel (opt_parallel, and opt_private, whose allocs then have that loop as their home,
 * docs/language.md 5.2), and scalar expansion with distribution (opt_expand, expand.c).
 * The text is parsed and checked again -- the checker proves the new `thread` loops race
 * free -- and optimised again (the interchange of the loops the expansion made), then run.
 * `uir opt` prints that text. Every piece of the new text comes from a place in the old
 * one (a copy, or the statement a generated piece stands for), so the rewritten program
 * reports a fault with the original file's line and column.
 *
 * Source and the kinds of rewrite: PPCG and Polly's source-to-source outputs show their
 * transformations the same way, as a program the user can read and run.
 */
#include "opt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A piece of the new text: from AT on, until the next piece, it is a copy of the old text
 * from SRC on (COPY) or was written for the old text's place SRC. */
typedef struct Seg {
	size_t at, src;
	bool copy;
} Seg;

/* A name token of the old text at AT (LEN bytes) written as NAME wherever it is copied. */
typedef struct Ren {
	size_t at, len;
	const char *name;
} Ren;

typedef struct Out {
	UirProgram *p;
	char *s;
	size_t n, cap;
	Seg *seg;
	int nseg, capseg;
	Ren *ren; /* sorted by AT */
	int nren, capren;
	struct Alias {
		const Mem *of;    /* the memory that the new alloc NAME stands for */
		const char *name;
	} *alias;
	int nalias;
	size_t *fixed;    /* where the new text has the loops over the tiles of a time skew */
	int nfixed;
	size_t *proven;   /* where it has the `thread` loops of a split (Stmt.opt_proven) */
	int nproven;
} Out;

static void out_free(Out *o)
{
	free(o->seg);
	free(o->ren);
	free(o->alias);
	free(o->fixed);
	free(o->proven);
}

/* Notes that the new text has a loop at its end now, in *AT: O->fixed (the loops over a
 * time skew's tiles and a split's) or O->proven (a split's `thread` loops). */
static void mark_here(size_t **at, int *n, const Out *o)
{
	*at = xrealloc(*at, (size_t)(*n + 1) * sizeof **at);
	(*at)[(*n)++] = o->n;
}

static void put(Out *o, const char *s, size_t n, size_t src, bool copy)
{
	if (!n)
		return;
	if (o->n + n + 1 > o->cap) {
		while (o->n + n + 1 > o->cap)
			o->cap = o->cap ? 2 * o->cap : 4096;
		o->s = xrealloc(o->s, o->cap);
	}
	memcpy(o->s + o->n, s, n);
	if (o->nseg == o->capseg) {
		o->capseg = o->capseg ? 2 * o->capseg : 64;
		o->seg = xrealloc(o->seg, (size_t)o->capseg * sizeof *o->seg);
	}
	o->seg[o->nseg++] = (Seg){ o->n, src, copy };
	o->n += n;
	o->s[o->n] = 0;
}

static void copy_plain(Out *o, size_t from, size_t to)
{
	if (to > from)
		put(o, o->p->src + from, to - from, from, true);
}

/* The old text [FROM, TO), with the renamed tokens in it written as their new names. */
static void copy(Out *o, size_t from, size_t to)
{
	int lo = 0, hi = o->nren; /* the first rename at or after FROM */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (o->ren[mid].at < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int k = lo; k < o->nren && o->ren[k].at + o->ren[k].len <= to; k++) {
		copy_plain(o, from, o->ren[k].at);
		put(o, o->ren[k].name, strlen(o->ren[k].name), o->ren[k].at, false);
		from = o->ren[k].at + o->ren[k].len;
	}
	copy_plain(o, from, to);
}

/* New text written for the old text's place AT. */
static void gen(Out *o, const char *text, size_t at)
{
	put(o, text, strlen(text), at, false);
}

/* ---- places in the old text ---- */

static size_t pos(UirProgram *p, Loc l)
{
	return diag_line_offset(p, l.line) + (size_t)(l.col > 0 ? l.col - 1 : 0);
}

static size_t line_start(UirProgram *p, size_t at)
{
	while (at > 0 && p->src[at - 1] != '\n')
		at--;
	return at;
}

/* Just after the end of the line holding AT (its '\n' included). */
static size_t next_line(UirProgram *p, size_t at)
{
	while (at < p->srclen && p->src[at] != '\n')
		at++;
	return at < p->srclen ? at + 1 : at;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Skips a comment or string at I: the index after it, or I when there is none. */
static size_t skip(const UirProgram *p, size_t i)
{
	if (p->src[i] == '#') {
		while (i < p->srclen && p->src[i] != '\n')
			i++;
	} else if (p->src[i] == '"') {
		for (i++; i < p->srclen && p->src[i] != '"' && p->src[i] != '\n'; i++)
			;
		if (i < p->srclen)
			i++;
	}
	return i;
}

/* The `{` opening the body of the statement at AT. */
static size_t brace_after(UirProgram *p, size_t at)
{
	for (size_t i = at; i < p->srclen;) {
		size_t j = skip(p, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (p->src[i] == '{')
			return i;
		i++;
	}
	return p->srclen;
}

/* The bracket closing the one at OPEN (`{` or `(`). */
static size_t matching(UirProgram *p, size_t open)
{
	char o = p->src[open], c = o == '{' ? '}' : ')';
	int depth = 0;
	for (size_t i = open; i < p->srclen;) {
		size_t j = skip(p, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (p->src[i] == o)
			depth++;
		else if (p->src[i] == c && --depth == 0)
			return i;
		i++;
	}
	return p->srclen;
}

/* Whether only blanks, then a comment or the line's end, follow AT on its line. */
static bool rest_blank(const UirProgram *p, size_t at)
{
	while (at < p->srclen && blank(p->src[at]))
		at++;
	return at >= p->srclen || p->src[at] == '\n' || p->src[at] == '#';
}

/* The blanks that start the line holding AT, in P's arena. */
static const char *line_indent(UirProgram *p, size_t at)
{
	size_t ls = line_start(p, at), e = ls;
	while (blank(p->src[e]))
		e++;
	return arena_strndup(&p->arena, p->src + ls, e - ls);
}

/* Whether only blanks precede AT on its line. */
static bool starts_line(UirProgram *p, size_t at)
{
	for (size_t i = line_start(p, at); i < at; i++)
		if (!blank(p->src[i]))
			return false;
	return true;
}

/* The text of argument E: [*B, *E). False when it cannot be placed. */
static bool arg_span(UirProgram *p, const Expr *e, size_t *b, size_t *end)
{
	size_t at = pos(p, e->loc);
	if (at >= p->srclen)
		return false;
	if (e->kind == EX_OP) {
		size_t k = at;
		while (k > 0 && (blank(p->src[k - 1]) || p->src[k - 1] == '\n'))
			k--;
		if (k == 0 || p->src[k - 1] != '(')
			return false;
		*b = k - 1;
		*end = matching(p, k - 1) + 1;
		return *end <= p->srclen;
	}
	size_t i = at;
	while (i < p->srclen && !blank(p->src[i]) && !strchr("\n()[]{}#", p->src[i]))
		i++;
	*b = at;
	*end = i;
	return i > at;
}

/* ---- scalar expansion ---- */

/* A replacement inside the expanded loop: [AT, END) by TEXT. */
typedef struct Sub {
	size_t at, end;
	const char *text;
} Sub;

typedef struct Subs {
	UirProgram *p;
	const Mem *m;
	const char *name;       /* the new alloc's name */
	const char *off, *off0; /* the new offset's text, "%lld" the element; for element 0 */
	const char *wrap;       /* else the old offset's text goes inside this and ")" (the row jam) */
	Sub *v;
	int n, cap;
	bool ok;
} Subs;

static void sub(Subs *x, size_t at, size_t end, const char *text)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 8;
		x->v = xrealloc(x->v, (size_t)x->cap * sizeof *x->v);
	}
	x->v[x->n++] = (Sub){ at, end, text };
}

/* The access of the expanded alloc with its memory name at NAME_AT and offset OFF. */
static void access(Subs *x, Loc name_at, const Expr *off)
{
	size_t b, e;
	if (!arg_span(x->p, off, &b, &e)) {
		x->ok = false;
		return;
	}
	if (!x->name)
		return; /* only placing */
	size_t at = pos(x->p, name_at);
	sub(x, at, at + strlen(x->m->name), x->name);
	if (x->wrap) {
		sub(x, b, b, x->wrap);
		sub(x, e, e, ")");
		return;
	}
	sub(x, b, e, off->rng.lo == 0 ? x->off0 : fmt_str(&x->p->arena, x->off, (long long)off->rng.lo));
}

static void subs_expr(Subs *x, const Expr *e)
{
	if (e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		subs_expr(x, e->args[i]);
	if (e->op == OP_LOAD && e->mem == x->m)
		access(x, e->mem_loc, e->args[0]);
}

static void subs_stmts(Subs *x, const Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET: subs_expr(x, s->value); break;
		case ST_STORE:
		case ST_ATOMIC:
			subs_expr(x, s->off);
			subs_expr(x, s->val);
			if (s->mem == x->m)
				access(x, s->mem_loc, s->off);
			break;
		case ST_LOOP: subs_expr(x, s->value); subs_stmts(x, s->body); break;
		case ST_IF: subs_expr(x, s->cond); subs_stmts(x, s->then_); subs_stmts(x, s->else_); break;
		default: break;
		}
	}
}

static int by_at(const void *a, const void *b)
{
	size_t x = ((const Sub *)a)->at, y = ((const Sub *)b)->at;
	return (x > y) - (x < y);
}

bool rewrite_layout_ok(UirProgram *p, const Stmt *j, const Mem *m)
{
	size_t j0 = pos(p, j->loc);
	size_t ob = brace_after(p, j0);
	if (ob >= p->srclen || !starts_line(p, j0) || !rest_blank(p, ob + 1))
		return false;
	size_t cb = matching(p, ob);
	if (cb >= p->srclen || !starts_line(p, cb))
		return false;
	int ob_line = diag_loc_of(p, ob).line, cb_line = diag_loc_of(p, cb).line;
	for (const Stmt *t = j->body; t; t = t->next) {
		size_t at = pos(p, t->loc);
		if (t->loc.line <= ob_line || !starts_line(p, at) || (t->next ? t->next->loc.line : cb_line) <= t->loc.line)
			return false;
	}
	Subs x = { .p = p, .m = m, .ok = true };
	subs_stmts(&x, j->body);
	return x.ok;
}

bool rewrite_bound_ok(UirProgram *p, const Stmt *loop)
{
	size_t b, end, ob = brace_after(p, pos(p, loop->loc));
	return arg_span(p, loop->value, &b, &end) && ob < p->srclen && matching(p, ob) < p->srclen;
}

/* A name for something new made of BASE: BASE_SUFFIX, BASE_SUFFIX2, ... that the text
 * holds nowhere (SUFFIX "x" for an expansion, "p" for a privatised copy, "o" and "u" for the
 * loops of an unroll-and-jam). */
static const char *new_name(UirProgram *p, const char *base, const char *suffix, const char **taken, int ntaken)
{
	for (int k = 1;; k++) {
		const char *c = k == 1 ? fmt_str(&p->arena, "%s_%s", base, suffix)
				       : fmt_str(&p->arena, "%s_%s%d", base, suffix, k);
		bool used = strstr(p->src, c) != NULL;
		for (int i = 0; i < ntaken && !used; i++)
			used = !strcmp(taken[i], c);
		if (!used)
			return c;
	}
}

/* Copies the old text [FROM, TO) with the replacements X->v from *K on that lie in it. */
static void copy_subs(Out *o, const Subs *x, int *k, size_t from, size_t to)
{
	for (; *k < x->n && x->v[*k].at < to; (*k)++) {
		copy(o, from, x->v[*k].at);
		gen(o, x->v[*k].text, x->v[*k].at);
		from = x->v[*k].end;
	}
	copy(o, from, to);
}

/* The same, from the first replacement at or after FROM on. */
static void copy_subs_at(Out *o, const Subs *x, size_t from, size_t to)
{
	int lo = 0, hi = x->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (x->v[mid].at < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	copy_subs(o, x, &lo, from, to);
}

/* The same, each line of it N columns further in. */
static void copy_subs_indented(Out *o, const Subs *x, size_t from, size_t to, int n)
{
	while (from < to) {
		size_t end = next_line(o->p, from);
		if (end > to)
			end = to;
		if (o->p->src[from] != '\n')
			gen(o, fmt_str(&o->p->arena, "%*s", n, ""), from);
		copy_subs_at(o, x, from, end);
		from = end;
	}
}

/* Writes loop J, whose alloc opt_expand is expanded as NAME, by unroll-and-jam of
 * U = opt_jam iterations (expand.c): JO over the blocks, JU within one, J a let. */
static void jammed_loop(Out *o, const Stmt *j, const char *name, const char *jo, const char *ju)
{
	UirProgram *p = o->p;
	const Mem *m = j->opt_expand;
	int u = j->opt_jam;
	size_t j0 = pos(p, j->loc);
	size_t ob = brace_after(p, j0), hdr_end = next_line(p, ob);
	size_t cb = matching(p, ob), cb_ls = line_start(p, cb);
	const Stmt *s1 = j->body, *t = NULL;
	while (s1->kind == ST_LET)
		s1 = s1->next;
	for (const Stmt *g = s1; g; g = g->next)
		if (g->kind == ST_LOOP)
			t = g;
	size_t t0 = pos(p, t->loc), t_ls = line_start(p, t0);
	size_t t_ob = brace_after(p, t0), t_hdr_end = next_line(p, t_ob);
	size_t t_cb = matching(p, t_ob), t_cb_ls = line_start(p, t_cb), t_end = next_line(p, t_cb);
	Subs x = { .p = p, .m = m, .name = name, .ok = true };
	x.off = fmt_str(&p->arena, "(add (mul %s %lld) %%lld)", ju, (long long)m->size);
	x.off0 = m->size == 1 ? ju : fmt_str(&p->arena, "(mul %s %lld)", ju, (long long)m->size);
	subs_stmts(&x, j->body);
	qsort(x.v, (size_t)x.n, sizeof *x.v, by_at);
	int k = 0;
	size_t pre = line_start(p, pos(p, s1->loc));
	const char *ind = line_indent(p, j0); /* the loop starts its line (rewrite_layout_ok()) */
	const char *jn = j->sym->name;
	const char *let = fmt_str(&p->arena, "let %s = add (mul %s %d) %s\n", jn, jo, u, ju);
	gen(o, fmt_str(&p->arena, "loop %s %lld %s{\n%s  loop %s %d {\n%s    %s", jo, (long long)(j->bound_lit / u),
		       j->opt_jam_thread ? "thread " : "", ind, ju, u, ind, let), j0);
	copy(o, hdr_end, pre);
	copy_subs(o, &x, &k, pre, t_ls);        /* the first store and what follows it */
	gen(o, fmt_str(&p->arena, "%s  }\n", ind), t0);
	copy(o, t_ls, t_hdr_end);                /* loop k K { */
	gen(o, fmt_str(&p->arena, "%s    loop %s %d unroll {\n%s      %s", ind, ju, u, ind, let), t0);
	copy(o, hdr_end, pre);
	copy_subs(o, &x, &k, t_hdr_end, t_cb_ls); /* the reduction's body */
	gen(o, fmt_str(&p->arena, "%s    }\n", ind), t_cb);
	copy(o, t_cb_ls, t_end);                 /* } of loop k */
	gen(o, fmt_str(&p->arena, "%s  loop %s %d {\n%s    %s", ind, ju, u, ind, let), t_cb);
	copy(o, hdr_end, pre);
	copy_subs(o, &x, &k, t_end, cb_ls);      /* what follows the reduction */
	gen(o, fmt_str(&p->arena, "%s  }\n%s}", ind, ind), cb);
	free(x.v);
}

/* Where loop S's text lies: its start, the start of its line, the end of its header line
 * (after the `{`), its `}`, the start of that line and the end of it. */
typedef struct Span {
	size_t at, ls, hdr_end, cb, cb_ls, end;
} Span;

static Span loop_span(UirProgram *p, const Stmt *s)
{
	Span x;
	x.at = pos(p, s->loc);
	x.ls = line_start(p, x.at);
	size_t ob = brace_after(p, x.at);
	x.hdr_end = next_line(p, ob);
	x.cb = matching(p, ob);
	x.cb_ls = line_start(p, x.cb);
	x.end = next_line(p, x.cb);
	return x;
}

/* The first statement of S's body after its lets. */
static const Stmt *after_lets(const Stmt *s)
{
	const Stmt *t = s->body;
	while (t->kind == ST_LET)
		t = t->next;
	return t;
}

/* Writes `loop JO N/U {`, the loop over the blocks of jammed loop J (spanning JS). */
static void jam_head(Out *o, const Stmt *j, const Span *js, const char *jo)
{
	UirProgram *p = o->p;
	gen(o, fmt_str(&p->arena, "loop %s %lld {\n", jo, (long long)(j->bound_lit / j->opt_jam_mem)), js->at);
}

/* Writes the N % U iterations of jammed loop J (spanning JS) left over, as written:
 * `loop JR N%U { let j = add JR N-N%U  BODY }`; nothing when U divides N. */
static void jam_rest(Out *o, const Stmt *j, const Span *js, const char *jr)
{
	UirProgram *p = o->p;
	int u = j->opt_jam_mem;
	int64_t n = j->bound_lit, full = n / u * u;
	if (full == n)
		return;
	const char *ind = line_indent(p, js->at);
	gen(o, fmt_str(&p->arena, "\n%sloop %s %lld {\n%s  let %s = add %s %lld\n", ind, jr, (long long)(n - full), ind,
		       j->sym->name, jr, (long long)full), js->at);
	copy(o, js->hdr_end, js->cb_ls); /* the body */
	gen(o, fmt_str(&p->arena, "%s}", ind), js->cb);
}

/* Writes `loop JU U unroll {` and J's index as a let, at the depth of DEPTH loops inside
 * J's line (the loop starts its line: rewrite_layout_ok()). */
static void jam_unrolled(Out *o, const Stmt *j, const Span *js, const char *jo, const char *ju, int depth, size_t at)
{
	UirProgram *p = o->p;
	const char *ind = line_indent(p, js->at);
	int u = j->opt_jam_mem;
	gen(o, fmt_str(&p->arena, "%s%*s  loop %s %d unroll {\n%s%*s    let %s = add (mul %s %d) %s\n", ind, 2 * depth, "", ju,
		       u, ind, 2 * depth, "", j->sym->name, jo, u, ju), at);
}

/* Writes loop J, `loop j N { LETS loop k K { S } }`, by unroll-and-jam of U = opt_jam_mem
 * iterations (jam.c): JO over the blocks, JU within one inside k, J a let; JR over the N % U
 * iterations left, as written. */
static void jam_mem_loop(Out *o, const Stmt *j, const char *jo, const char *ju, const char *jr)
{
	UirProgram *p = o->p;
	Span js = loop_span(p, j), ks = loop_span(p, after_lets(j));
	const char *ind = line_indent(p, js.at);
	jam_head(o, j, &js, jo);
	copy(o, ks.ls, ks.hdr_end);       /* loop k K { */
	jam_unrolled(o, j, &js, jo, ju, 1, ks.at);
	copy(o, js.hdr_end, ks.ls);       /* LETS */
	copy(o, ks.hdr_end, ks.cb_ls);    /* S */
	gen(o, fmt_str(&p->arena, "%s    }\n", ind), ks.cb);
	copy(o, ks.cb_ls, ks.end);        /* } of loop k */
	gen(o, fmt_str(&p->arena, "%s}", ind), js.cb);
	jam_rest(o, j, &js, jr);
}

/* Writes loop R, `loop r N { LETS1 loop j M { LETS2 loop k K { S } } }`, by the outer jam
 * of U = opt_jam_mem iterations (jam.c): RO over the blocks, RU within one inside k, R a
 * let; RR over the N % U iterations left, as written. */
static void jam_outer_loop(Out *o, const Stmt *r, const char *ro, const char *ru, const char *rr)
{
	UirProgram *p = o->p;
	const Stmt *j = after_lets(r);
	Span rs = loop_span(p, r), js = loop_span(p, j), ks = loop_span(p, after_lets(j));
	const char *ind = line_indent(p, rs.at);
	jam_head(o, r, &rs, ro);
	copy(o, js.ls, js.hdr_end);       /* loop j M { */
	copy(o, ks.ls, ks.hdr_end);       /* loop k K { */
	jam_unrolled(o, r, &rs, ro, ru, 2, ks.at);
	copy(o, rs.hdr_end, js.ls);       /* LETS1 */
	copy(o, js.hdr_end, ks.ls);       /* LETS2 */
	copy(o, ks.hdr_end, ks.cb_ls);    /* S */
	gen(o, fmt_str(&p->arena, "%s      }\n", ind), ks.cb);
	copy(o, ks.cb_ls, ks.end);        /* } of loop k */
	copy(o, js.cb_ls, js.end);        /* } of loop j */
	gen(o, fmt_str(&p->arena, "%s}", ind), rs.cb);
	jam_rest(o, r, &rs, rr);
}

/* Writes loop K, `loop k K { loop j J { S } }`, by the swapped jam of U = opt_jam_mem
 * iterations of j (jam.c): `loop JO (div J U) { loop k K { loop JU U unroll { let j = add
 * (mul JO U) JU  S } } }`, then the J mod U values of j left over in the loops as written,
 * `loop k K { loop JR (mod J U) { let j = max 0 (sub (sub J 1) JR)  S } }`: the last values,
 * counted down (distinct j touch distinct elements, so any order of them keeps every
 * bit; the max, never taken, keeps j's range within [0, J) for check/ranges.c). */
static void jam_swap_loop(Out *o, const Stmt *k, const char *jo, const char *ju, const char *jr)
{
	UirProgram *p = o->p;
	const Stmt *j = k->body;
	Span ks = loop_span(p, k), js = loop_span(p, j);
	const char *ind = line_indent(p, ks.at), *jn = j->sym->name;
	int u = k->opt_jam_mem;
	size_t b0, b1;
	arg_span(p, j->value, &b0, &b1); /* J's text, placed: rewrite_bound_ok() */
	gen(o, fmt_str(&p->arena, "loop %s (div ", jo), ks.at);
	copy(o, b0, b1); /* J */
	gen(o, fmt_str(&p->arena, " %d) {\n%s  ", u, ind), ks.at);
	copy(o, ks.at, ks.hdr_end); /* loop k K { */
	gen(o, fmt_str(&p->arena, "%s    loop %s %d unroll {\n%s      let %s = add (mul %s %d) %s\n", ind, ju, u, ind, jn, jo,
		       u, ju), js.at);
	copy(o, js.hdr_end, js.cb_ls); /* S */
	gen(o, fmt_str(&p->arena, "%s    }\n%s  }\n%s}\n%s", ind, ind, ind, ind), js.cb);
	copy(o, ks.at, ks.hdr_end); /* loop k K { */
	gen(o, fmt_str(&p->arena, "%s  loop %s (mod ", ind, jr), js.at);
	copy(o, b0, b1);
	gen(o, fmt_str(&p->arena, " %d) {\n%s    let %s = max 0 (sub (sub ", u, ind, jn), js.at);
	copy(o, b0, b1);
	gen(o, fmt_str(&p->arena, " 1) %s)\n", jr), js.at);
	copy(o, js.hdr_end, js.cb_ls); /* S */
	gen(o, fmt_str(&p->arena, "%s  }\n%s}", ind, ind), ks.cb);
}

/* Writes `loop s S {` and `loop t T {` inside it (spanning SS and TS), one level and two
 * inside indentation IND. */
static void sink_heads(Out *o, const Span *ts, const Span *ss, const char *ind)
{
	UirProgram *p = o->p;
	gen(o, fmt_str(&p->arena, "%s  ", ind), ss->at);
	copy(o, ss->at, ss->hdr_end);
	gen(o, fmt_str(&p->arena, "%s    ", ind), ts->at);
	copy(o, ts->at, ts->hdr_end);
}

/* Writes loop T, `loop t T { loop r R { loop s S { BODY } } }`, by the sunk jam of U =
 * opt_jam_mem iterations of r (jam.c): `loop RO R/U { loop s S { loop t T { loop RU U unroll
 * { let r = add (mul RO U) RU  BODY } } } }`, then the R % U iterations of r left over,
 * `loop RR R%U { let r = add RR R-R%U  loop s S { loop t T { BODY } } }`. */
static void jam_sink_loop(Out *o, const Stmt *t, const char *ro, const char *ru, const char *rr)
{
	UirProgram *p = o->p;
	const Stmt *r = t->body, *s = r->body;
	Span ts = loop_span(p, t), ss = loop_span(p, s);
	const char *ind = line_indent(p, ts.at), *rn = r->sym->name;
	int u = t->opt_jam_mem;
	int64_t n = r->bound_lit, full = n / u * u;
	gen(o, fmt_str(&p->arena, "loop %s %lld {\n", ro, (long long)(n / u)), pos(p, r->loc));
	sink_heads(o, &ts, &ss, ind);
	gen(o, fmt_str(&p->arena, "%s      loop %s %d unroll {\n%s        let %s = add (mul %s %d) %s\n", ind, ru, u, ind, rn,
		       ro, u, ru), pos(p, r->loc));
	copy(o, ss.hdr_end, ss.cb_ls); /* BODY */
	gen(o, fmt_str(&p->arena, "%s      }\n%s    }\n%s  }\n%s}", ind, ind, ind, ind), ss.cb);
	if (full == n)
		return;
	gen(o, fmt_str(&p->arena, "\n%sloop %s %lld {\n%s  let %s = add %s %lld\n", ind, rr, (long long)(n - full), ind,
		       rn, rr, (long long)full), pos(p, r->loc));
	sink_heads(o, &ts, &ss, ind);
	copy(o, ss.hdr_end, ss.cb_ls); /* BODY */
	gen(o, fmt_str(&p->arena, "%s    }\n%s  }\n%s}", ind, ind, ind), ss.cb);
}

/* Writes loop I by the row jam of U = opt_jam_row iterations (jam.c): `loop IO N/U {`
 * (`thread` when I is), and for each statement of I's body after its lets, either a loop
 * over the U rows, `loop IU U { let i = add (mul IO U) IU  LETS  STATEMENT }`, or, for a
 * nest (jam_row_nest()), `loop k K { loop j J { loop IU U unroll { let i = ...  LETS
 * LETS2  S } } }`, LETS2 the lets of the nest's outer loop. The allocs I homes become
 * NAMES, a row of each per IU: every offset OFF there is `(add (mul IU SIZE) OFF)`. */
static void rows_loop(Out *o, const Stmt *i, const char *io, const char *iu, const char **names)
{
	UirProgram *p = o->p;
	Span is = loop_span(p, i);
	const char *ind = line_indent(p, is.at);
	int u = i->opt_jam_row;
	Subs x = { .p = p, .ok = true };
	for (int h = 0; h < i->nhomed; h++) {
		x.m = i->homed[h];
		x.name = names[h];
		x.wrap = fmt_str(&p->arena, "(add (mul %s %lld) ", iu, (long long)x.m->size);
		subs_stmts(&x, i->body);
	}
	qsort(x.v, (size_t)x.n, sizeof *x.v, by_at);
	const Stmt *s1 = i->body;
	while (s1->kind == ST_LET)
		s1 = s1->next;
	size_t lets_end = line_start(p, pos(p, s1->loc)); /* I's lets: [is.hdr_end, lets_end) */
	const char *let = fmt_str(&p->arena, "let %s = add (mul %s %d) %s\n", i->sym->name, io, u, iu);
	gen(o, fmt_str(&p->arena, "loop %s %lld %s{\n", io, (long long)(i->bound_lit / u), i->axis == AX_THREAD ? "thread " : ""),
	    is.at);
	for (const Stmt *s = s1; s; s = s->next) {
		size_t at = pos(p, s->loc);
		const Stmt *k, *j;
		if (!jam_row_nest(p, i, s, &k, &j)) {
			size_t to = s->next ? line_start(p, pos(p, s->next->loc)) : is.cb_ls;
			gen(o, fmt_str(&p->arena, "%s  loop %s %d {\n%s    %s", ind, iu, u, ind, let), at);
			copy_subs_indented(o, &x, is.hdr_end, lets_end, 2);
			copy_subs_indented(o, &x, line_start(p, at), to, 2);
			gen(o, fmt_str(&p->arena, "%s  }\n", ind), at);
			continue;
		}
		Span ks = loop_span(p, k), js = loop_span(p, j);
		const Span *outer = k == s ? &ks : &js, *inner = k == s ? &js : &ks;
		gen(o, fmt_str(&p->arena, "%s  ", ind), ks.at);
		copy(o, ks.at, ks.hdr_end); /* loop k K { */
		gen(o, fmt_str(&p->arena, "%s    ", ind), js.at);
		copy(o, js.at, js.hdr_end); /* loop j J { */
		gen(o, fmt_str(&p->arena, "%s      loop %s %d unroll {\n%s        %s", ind, iu, u, ind, let), inner->at);
		copy_subs_indented(o, &x, is.hdr_end, lets_end, 6);
		copy_subs_indented(o, &x, outer->hdr_end, inner->ls, 4); /* LETS2 */
		copy_subs_indented(o, &x, inner->hdr_end, inner->cb_ls, 2); /* S */
		gen(o, fmt_str(&p->arena, "%s      }\n%s    }\n", ind, ind), inner->cb);
		gen(o, fmt_str(&p->arena, "%s  }\n", ind), outer->cb);
	}
	gen(o, fmt_str(&p->arena, "%s}", ind), is.cb);
	free(x.v);
}

/* The first and the last-plus-one value of sweep SW's index (the S-th of M) in a part of
 * time loop T, as text (skew_loop(), split_phase()). */
typedef struct Edges {
	const char *lo, *hi;
} Edges;
typedef Edges (*EdgeFn)(UirProgram *p, const Stmt *t, const Stmt *sw, int s, int m, const void *ctx);

/* Writes the sweeps of time loop T from after its header to its closing brace, each over
 * its part, `let i_loS = LO  let i_hiS = HI  loop i_s (sub i_hiS i_loS) { let i = add i_s
 * i_loS  BODY }`, LO and HI from EDGE (check/ranges.c then shows i within [LO, HI), so the
 * body's accesses stay proven in bounds). */
static void sweeps_in_part(Out *o, const Stmt *t, EdgeFn edge, const void *ctx)
{
	UirProgram *p = o->p;
	Span ts = loop_span(p, t);
	int m = 0;
	for (const Stmt *sw = t->body; sw; sw = sw->next)
		m++;
	size_t from = ts.hdr_end;
	int s = 0;
	for (const Stmt *sw = t->body; sw; sw = sw->next, s++) {
		Span ss = loop_span(p, sw);
		copy(o, from, ss.ls);         /* what stands between the sweeps */
		const char *v = sw->sym->name, *sind = line_indent(p, ss.at), *is = new_name(p, v, "s", NULL, 0);
		const char *lo = new_name(p, v, fmt_str(&p->arena, "lo%d", s), NULL, 0);
		const char *hi = new_name(p, v, fmt_str(&p->arena, "hi%d", s), NULL, 0);
		Edges e = edge(p, t, sw, s, m, ctx);
		gen(o, fmt_str(&p->arena, "%slet %s = %s\n%slet %s = %s\n%sloop %s (sub %s %s) {\n%s  let %s = add %s %s\n",
			       sind, lo, e.lo, sind, hi, e.hi, sind, is, hi, lo, sind, v, is, lo), ss.at);
		copy(o, ss.hdr_end, ss.end);  /* the sweep's body and its } */
		from = ss.end;
	}
	copy(o, from, ts.cb + 1);         /* } of loop t */
}

/* The first value of sweep SW's index (N iterations, step S of M a time step, skew C) in
 * tile TK of width W of time loop T: clamp(TK * W - C * (M * t + S), 0, N), as text;
 * NEXT: of tile TK + 1 (opt/skew.c). */
static const char *skew_edge(UirProgram *p, const Stmt *t, const Stmt *sw, const char *tk, int s, int m, bool next)
{
	int c = t->opt_skew - 1;
	const char *tile = next ? fmt_str(&p->arena, "(mul (add %s 1) %lld)", tk, (long long)t->opt_skew_width)
				: fmt_str(&p->arena, "(mul %s %lld)", tk, (long long)t->opt_skew_width);
	const char *at = c == 0 ? tile : fmt_str(&p->arena, "(sub %s (add (mul %d %s) %d))", tile, c * m, t->sym->name, c * s);
	return fmt_str(&p->arena, "(max 0 (min %lld %s))", (long long)sw->bound_lit, at);
}

static Edges skew_edges(UirProgram *p, const Stmt *t, const Stmt *sw, int s, int m, const void *tk)
{
	return (Edges){ skew_edge(p, t, sw, tk, s, m, false), skew_edge(p, t, sw, tk, s, m, true) };
}

/* Writes time loop T, whose body is sweeps, by time skewing (opt/skew.c): TK over the
 * tiles outside T, each sweep over its part of the tile (sweeps_in_part()). */
static void skew_loop(Out *o, const Stmt *t, const char *tk)
{
	UirProgram *p = o->p;
	Span ts = loop_span(p, t);
	const char *ind = line_indent(p, ts.at);
	mark_here(&o->fixed, &o->nfixed, o);
	gen(o, fmt_str(&p->arena, "loop %s %lld {\n%s", tk, (long long)t->opt_skew_tiles, ind), ts.at);
	copy(o, ts.at, ts.hdr_end);       /* loop t T { */
	sweeps_in_part(o, t, skew_edges, tk);
	gen(o, fmt_str(&p->arena, "\n%s}", ind), ts.cb);
}

/* The edge of sweep SW's part (N iterations, step S of M a time step, cone C) of split
 * tile TK at local step TV of time loop T (opt/skew.c): E - O + SIGN (C (M TV + S)), E = TK *
 * W, or (TK + 1) * W with NEXT, O the band's offset C M Bt, as text; with CLAMP < 0 at least
 * 0, with CLAMP > 0 at most N. Each edge needs one clamp at most (a tile's first value is at
 * most N or its part is empty, a triangle's is at least W - 2 O > 0), and ISL, asked by `uir
 * check` of the text, splits each clamp in two pieces. */
static const char *split_edge(UirProgram *p, const Stmt *t, const Stmt *sw, const char *tk, const char *tv, int s,
			      int m, bool next, int sign, int clamp)
{
	int c = t->opt_skew - 1;
	long long off = (long long)c * m * t->opt_split;
	const char *tile = next ? fmt_str(&p->arena, "(mul (add %s 1) %lld)", tk, (long long)t->opt_split_width)
				: fmt_str(&p->arena, "(mul %s %lld)", tk, (long long)t->opt_split_width);
	const char *e = fmt_str(&p->arena, "(%s (sub %s %lld) (add (mul %d %s) %d))", sign > 0 ? "add" : "sub", tile, off,
				c * m, tv, c * s);
	return clamp < 0 ? fmt_str(&p->arena, "(max 0 %s)", e)
	       : clamp > 0 ? fmt_str(&p->arena, "(min %lld %s)", (long long)sw->bound_lit, e) : e;
}

typedef struct SplitPart {
	const char *tk, *tv; /* the tile loop's index, the local step's name */
	bool triangles;
} SplitPart;

/* A tile shrinks by C a sweep on either side; a triangle grows as much. */
static Edges split_edges(UirProgram *p, const Stmt *t, const Stmt *sw, int s, int m, const void *ctx)
{
	const SplitPart *x = ctx;
	return (Edges){ split_edge(p, t, sw, x->tk, x->tv, s, m, x->triangles, x->triangles ? -1 : 1, x->triangles ? 0 : -1),
			split_edge(p, t, sw, x->tk, x->tv, s, m, true, x->triangles ? 1 : -1, 1) };
}

/* Writes one phase of split tiling (opt/skew.c) of time loop T: TRIANGLES, the triangles
 * between the tiles, else the tiles, as a `thread` loop TK whose iterations each run the
 * band's steps (the time loop itself when NB is 1, else TT over the band's steps of band
 * TB, `let t` its step, under `if (lt t T)` when the bands overrun T) over their part of
 * every sweep, as skew_loop() writes them. */
static void split_phase(Out *o, const Stmt *t, const char *tk, const char *tb, const char *tt, int64_t nb,
			bool triangles)
{
	UirProgram *p = o->p;
	Span ts = loop_span(p, t);
	const char *ind = line_indent(p, ts.at), *tv = nb > 1 ? tt : t->sym->name;
	int64_t band = t->opt_split, n = t->opt_split_tiles - (triangles ? 1 : 0);
	bool guard = nb * band != t->bound_lit;
	mark_here(&o->proven, &o->nproven, o);
	mark_here(&o->fixed, &o->nfixed, o);
	gen(o, fmt_str(&p->arena, "loop %s %lld thread {\n%s", tk, (long long)n, ind), ts.at);
	if (nb > 1)
		gen(o, fmt_str(&p->arena, "loop %s %lld {\n%s  let %s = add (mul %s %lld) %s\n%s", tt, (long long)band, ind,
			       t->sym->name, tb, (long long)band, tt, guard ? fmt_str(&p->arena, "%s  if (lt %s %lld) {\n", ind,
				       t->sym->name, (long long)t->bound_lit) : ""), ts.at);
	else
		copy(o, ts.at, ts.hdr_end); /* loop t T { */
	SplitPart part = { tk, tv, triangles };
	sweeps_in_part(o, t, split_edges, &part);
	if (guard)
		gen(o, fmt_str(&p->arena, "\n%s}", ind), ts.cb);
	gen(o, fmt_str(&p->arena, "\n%s}", ind), ts.cb);
}

/* Writes time loop T by split tiling (opt/skew.c): the band loop TB when there is more than
 * one band, in it the tiles, then the triangles between them. */
static void split_loop(Out *o, const Stmt *t, const char *tk, const char *tb, const char *tt)
{
	UirProgram *p = o->p;
	Span ts = loop_span(p, t);
	const char *ind = line_indent(p, ts.at);
	int64_t nb = (t->bound_lit + t->opt_split - 1) / t->opt_split;
	if (nb > 1) {
		mark_here(&o->fixed, &o->nfixed, o);
		gen(o, fmt_str(&p->arena, "loop %s %lld {\n%s", tb, (long long)nb, ind), ts.at);
	}
	split_phase(o, t, tk, tb, tt, nb, false);
	gen(o, fmt_str(&p->arena, "\n%s", ind), ts.at);
	split_phase(o, t, tk, tb, tt, nb, true);
	if (nb > 1)
		gen(o, fmt_str(&p->arena, "\n%s}", ind), ts.cb);
}

/* Writes loop J, whose alloc opt_expand is expanded as NAME, distributed: one loop over j
 * for the first store with the statements up to the next loop, one for each loop, one for
 * each run of statements between loops (expand.c); distributed alone when J is
 * opt_distribute (no alloc). */
static void expanded_loop(Out *o, const Stmt *j, const char *name)
{
	UirProgram *p = o->p;
	const Mem *m = j->opt_expand;
	size_t j0 = pos(p, j->loc), ls = line_start(p, j0);
	size_t ob = brace_after(p, j0), hdr_end = next_line(p, ob);
	size_t cb = matching(p, ob), cb_ls = line_start(p, cb);
	const Stmt *s1 = j->body;
	while (s1->kind == ST_LET)
		s1 = s1->next;
	Subs x = { .p = p, .m = m, .name = name, .ok = true };
	if (m) { /* else distribution alone (opt_distribute) */
		x.off = fmt_str(&p->arena, "(add (mul %s %lld) %%lld)", j->sym->name, (long long)m->size);
		x.off0 = m->size == 1 ? j->sym->name : fmt_str(&p->arena, "(mul %s %lld)", j->sym->name, (long long)m->size);
		subs_stmts(&x, j->body);
	}
	qsort(x.v, (size_t)x.n, sizeof *x.v, by_at);
	int k = 0; /* the next replacement */
	size_t pre = pos(p, s1->loc);
	pre = line_start(p, pre);
	for (const Stmt *g = s1; g;) {
		/* the group: G and what follows up to the next loop, or the loop G alone */
		const Stmt *end = g->next;
		if (g->kind != ST_LOOP)
			while (end && end->kind != ST_LOOP)
				end = end->next;
		if (g != s1) {
			copy(o, ls, j0);
		}
		copy(o, j0, hdr_end);
		copy(o, hdr_end, pre);
		size_t from = line_start(p, pos(p, g->loc)), to = end ? line_start(p, pos(p, end->loc)) : cb_ls;
		copy_subs(o, &x, &k, from, to);
		copy(o, cb_ls, cb + 1);
		if (end)
			gen(o, "\n", cb);
		g = end;
	}
	free(x.v);
}

/* ---- the whole text ---- */

typedef enum { ED_THREAD, ED_ALLOC, ED_COMMENT, ED_EXPAND, ED_BOUND, ED_PEEL, ED_JAM, ED_ROWS, ED_SKEW } EditKind;

typedef struct Edit {
	size_t at;
	EditKind kind;
	const Stmt *s;    /* ED_EXPAND: the loop */
	const Mem *m;     /* ED_ALLOC: the alloc expanded */
	const char *name; /* ED_ALLOC, ED_EXPAND: the expansion's name */
	const char *jo, *ju; /* ED_EXPAND by unroll-and-jam, ED_JAM, ED_ROWS: the loops' names */
	const char **names;  /* ED_ROWS: the rows of the allocs the loop homes */
	int64_t size;     /* ED_ALLOC; ED_BOUND: the new bound */
	size_t end;       /* ED_BOUND: the end of the old bound's text */
} Edit;

typedef struct Edits {
	UirProgram *p;
	Out *o;        /* the renames go there */
	bool comments; /* a comment above every interchanged nest */
	Edit *v;
	int n, cap;
	const char **names;
	int nnames, capnames;
} Edits;

static void add(Edits *e, Edit d)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 8;
		e->v = xrealloc(e->v, (size_t)e->cap * sizeof *e->v);
	}
	e->v[e->n++] = d;
}

static const char *take_name(Edits *e, const char *base, const char *suffix)
{
	const char *name = new_name(e->p, base, suffix, e->names, e->nnames);
	if (e->nnames == e->capnames) {
		e->capnames = e->capnames ? 2 * e->capnames : 8;
		e->names = xrealloc(e->names, (size_t)e->capnames * sizeof *e->names);
	}
	e->names[e->nnames++] = name;
	return name;
}

static void ren(Out *o, const UirProgram *p, Loc at, const Mem *m, const char *name)
{
	if (o->nren == o->capren) {
		o->capren = o->capren ? 2 * o->capren : 16;
		o->ren = xrealloc(o->ren, (size_t)o->capren * sizeof *o->ren);
	}
	o->ren[o->nren++] = (Ren){ pos((UirProgram *)p, at), strlen(m->name), name };
}

static void ren_expr(Out *o, const UirProgram *p, const Expr *e, const Mem *m, const char *name)
{
	if (!e || e->kind != EX_OP)
		return;
	if (e->op == OP_LOAD && e->mem == m)
		ren(o, p, e->mem_loc, m, name);
	for (int i = 0; i < e->nargs; i++)
		ren_expr(o, p, e->args[i], m, name);
}

/* Every access of M in the statements S is written as NAME. */
static void ren_stmts(Out *o, const UirProgram *p, const Stmt *s, const Mem *m, const char *name)
{
	for (; s; s = s->next) {
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && s->mem == m)
			ren(o, p, s->mem_loc, m, name);
		ren_expr(o, p, s->value, m, name);
		ren_expr(o, p, s->off, m, name);
		ren_expr(o, p, s->val, m, name);
		ren_expr(o, p, s->cond, m, name);
		ren_stmts(o, p, s->body, m, name);
		ren_stmts(o, p, s->then_, m, name);
		ren_stmts(o, p, s->else_, m, name);
	}
}

/* The accesses of M in the statements S that no expansion of M (opt_expand) replaces. */
static int64_t unexpanded_accesses(const Stmt *s, const Mem *m)
{
	int64_t n = 0;
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && s->opt_expand == m)
			continue;
		if (s->kind == ST_LOOP || s->kind == ST_IF) {
			const Stmt *body = s->body, *then_ = s->then_, *else_ = s->else_;
			Stmt copy = *s; /* the statement's own expressions alone */
			copy.next = copy.body = copy.then_ = copy.else_ = NULL;
			n += mem_accesses(&copy, m) + unexpanded_accesses(body, m) + unexpanded_accesses(then_, m) +
			     unexpanded_accesses(else_, m);
		} else {
			Stmt copy = *s;
			copy.next = NULL;
			n += mem_accesses(&copy, m);
		}
	}
	return n;
}

static int by_ren(const void *a, const void *b)
{
	size_t x = ((const Ren *)a)->at, y = ((const Ren *)b)->at;
	return (x > y) - (x < y);
}

static void find_edits(Edits *e, const Stmt *s)
{
	UirProgram *p = e->p;
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			find_edits(e, s->then_);
			find_edits(e, s->else_);
			continue;
		}
		if (s->kind != ST_LOOP)
			continue;
		size_t at = pos(p, s->loc);
		if (s->opt_skew) {
			add(e, (Edit){ .at = at, .kind = ED_SKEW, .s = s, .name = take_name(e, s->sym->name, "k"),
				       .jo = s->opt_split ? take_name(e, s->sym->name, "b") : NULL,
				       .ju = s->opt_split ? take_name(e, s->sym->name, "t") : NULL });
			continue; /* its sweeps are decided on the rewritten program */
		}
		if (s->opt_jam_row) {
			Edit d = { .at = at, .kind = ED_ROWS, .s = s, .jo = take_name(e, s->sym->name, "o"),
				   .ju = take_name(e, s->sym->name, "u") };
			d.names = arena_alloc(&p->arena, (size_t)(s->nhomed + 1) * sizeof *d.names);
			for (int h = 0; h < s->nhomed; h++) {
				const Mem *m = s->homed[h];
				d.names[h] = take_name(e, m->name, "r");
				add(e, (Edit){ .at = next_line(p, pos(p, m->loc)), .kind = ED_ALLOC, .m = m, .name = d.names[h],
					       .size = m->size * s->opt_jam_row });
				Out *o = e->o; /* a row stands for M in messages */
				o->alias = xrealloc(o->alias, (size_t)(o->nalias + 1) * sizeof *o->alias);
				o->alias[o->nalias++] = (struct Alias){ m, d.names[h] };
			}
			add(e, d);
			continue; /* its loops are decided on the rewritten program */
		}
		if (s->opt_jam_mem) {
			/* the loop jammed */
			const char *v = s->opt_jam_swap || s->opt_jam_sink ? s->body->sym->name : s->sym->name;
			add(e, (Edit){ .at = at, .kind = ED_JAM, .s = s, .jo = take_name(e, v, "o"),
				       .ju = take_name(e, v, "u"), .name = take_name(e, v, "r") });
			continue; /* its loops are decided on the rewritten program */
		}
		if ((s->opt_parallel && s->opt_thread_ok) || s->opt_private)
			add(e, (Edit){ .at = brace_after(p, at), .kind = ED_THREAD, .s = s });
		else if ((s->opt_inner || s->opt_parallel) && e->comments)
			add(e, (Edit){ .at = line_start(p, at), .kind = ED_COMMENT, .s = s });
		if (s->opt_peel) {
			/* `loop i N thread {B}` over N - 1 iterations, then the last one apart:
			 * `loop i_l 1 { let i = add i_l N-1 B }` on the memories themselves */
			size_t b, end;
			arg_span(p, s->value, &b, &end); /* placed: rewrite_bound_ok() */
			add(e, (Edit){ .at = b, .kind = ED_BOUND, .s = s, .size = s->bound_lit - 1, .end = end });
			add(e, (Edit){ .at = matching(p, brace_after(p, at)) + 1, .kind = ED_PEEL, .s = s,
				       .name = take_name(e, s->sym->name, "l") });
		}
		for (int i = 0; s->opt_private && i < s->nopt_rename; i++) {
			/* used outside the loop too: the loop's accesses get an alloc of their own */
			const Mem *m = s->opt_rename[i];
			if (!unexpanded_accesses(s->body, m))
				continue; /* expansions inside take every access */
			const char *name = take_name(e, m->name, "p");
			add(e, (Edit){ .at = next_line(p, pos(p, m->loc)), .kind = ED_ALLOC, .m = m, .name = name, .size = m->size });
			/* the copy of the same size stands for M in messages (a fault in the loop) */
			Out *o = e->o;
			o->alias = xrealloc(o->alias, (size_t)(o->nalias + 1) * sizeof *o->alias);
			o->alias[o->nalias++] = (struct Alias){ m, name };
			ren_stmts(e->o, p, s->body, m, name);
		}
		if (s->opt_distribute) {
			add(e, (Edit){ .at = at, .kind = ED_EXPAND, .s = s });
			continue; /* its loops are decided on the rewritten program */
		}
		if (s->opt_expand) {
			const Mem *m = s->opt_expand;
			const char *name = take_name(e, m->name, "x");
			add(e, (Edit){ .at = next_line(p, pos(p, m->loc)), .kind = ED_ALLOC, .m = m, .name = name,
				       .size = m->size * (s->opt_jam ? s->opt_jam : s->bound_lit) });
			Edit d = { .at = at, .kind = ED_EXPAND, .s = s, .name = name };
			if (s->opt_jam) {
				d.jo = take_name(e, s->sym->name, "o");
				d.ju = take_name(e, s->sym->name, "u");
			}
			add(e, d);
			continue; /* its body is decided on the rewritten program */
		}
		find_edits(e, s->body);
	}
}

static int by_place(const void *a, const void *b)
{
	const Edit *x = a, *y = b;
	if (x->at != y->at)
		return (x->at > y->at) - (x->at < y->at);
	return (x->kind > y->kind) - (x->kind < y->kind); /* declarations before a loop there */
}

static void build(Out *o, bool comments)
{
	UirProgram *p = o->p;
	Edits e = { .p = p, .o = o, .comments = comments };
	find_edits(&e, p->top);
	qsort(o->ren, (size_t)o->nren, sizeof *o->ren, by_ren);
	qsort(e.v, (size_t)e.n, sizeof *e.v, by_place);
	size_t from = 0;
	for (int i = 0; i < e.n; i++) {
		const Edit *d = &e.v[i];
		copy(o, from, d->at);
		from = d->at;
		switch (d->kind) {
		case ED_THREAD: /* `loop i 8{` too */
			gen(o, d->at > 0 && !blank(p->src[d->at - 1]) ? " thread " : "thread ", d->at);
			break;
		case ED_COMMENT: {
			size_t at = pos(p, d->s->loc), ind = d->at;
			while (blank(p->src[ind]))
				ind++;
			copy(o, d->at, ind);
			if (d->s->opt_parallel) /* not written `thread` (opt_thread_ok) */
				gen(o, fmt_str(&p->arena, "# uir opt: loop %s runs on the thread pool (its iterations are "
						"independent; not written `thread`, which would give its allocs a copy per iteration or check its "
						"offsets on entry)\n",
						d->s->sym->name), at);
			else
				gen(o, fmt_str(&p->arena, "# uir opt: run as loop %s outside loop %s (interchange; the order of "
						"each element's updates is kept)\n", d->s->opt_inner->sym->name, d->s->sym->name), at);
			break;
		}
		case ED_ALLOC: {
			size_t decl = pos(p, d->m->loc), ls = line_start(p, decl);
			if (d->at == p->srclen && (p->srclen == 0 || p->src[p->srclen - 1] != '\n'))
				gen(o, "\n", decl);
			size_t ind = ls;
			while (blank(p->src[ind]))
				ind++;
			copy(o, ls, ind);
			gen(o, fmt_str(&p->arena, "alloc %s %s %lld\n", d->name, uir_type_name(d->m->ty), (long long)d->size),
			    decl);
			break;
		}
		case ED_BOUND:
			gen(o, fmt_str(&p->arena, "%lld", (long long)d->size), d->at);
			from = d->end;
			break;
		case ED_PEEL: {
			size_t at = pos(p, d->s->loc), ob = brace_after(p, at);
			size_t cb = d->at - 1, b0 = ob + 1;
			const char *in = line_indent(p, at);
			gen(o, fmt_str(&p->arena, "\n%sloop %s 1 {\n%s  let %s = add %s %lld\n", in, d->name, in,
				       d->s->sym->name, d->name, (long long)d->s->bound_lit - 1), at);
			if (rest_blank(p, b0))
				b0 = next_line(p, b0);
			copy_plain(o, b0, cb);
			gen(o, "}", cb);
			break;
		}
		case ED_JAM:
			if (d->s->opt_jam_swap)
				jam_swap_loop(o, d->s, d->jo, d->ju, d->name);
			else if (d->s->opt_jam_sink)
				jam_sink_loop(o, d->s, d->jo, d->ju, d->name);
			else if (d->s->opt_jam_outer)
				jam_outer_loop(o, d->s, d->jo, d->ju, d->name);
			else
				jam_mem_loop(o, d->s, d->jo, d->ju, d->name);
			from = matching(p, brace_after(p, d->at)) + 1;
			break;
		case ED_ROWS:
			rows_loop(o, d->s, d->jo, d->ju, d->names);
			from = matching(p, brace_after(p, d->at)) + 1;
			break;
		case ED_SKEW:
			if (d->s->opt_split)
				split_loop(o, d->s, d->name, d->jo, d->ju);
			else
				skew_loop(o, d->s, d->name);
			from = matching(p, brace_after(p, d->at)) + 1;
			break;
		case ED_EXPAND: {
			if (d->s->opt_jam)
				jammed_loop(o, d->s, d->name, d->jo, d->ju);
			else
				expanded_loop(o, d->s, d->name);
			size_t ob = brace_after(p, d->at);
			from = matching(p, ob) + 1;
			break;
		}
		}
	}
	copy(o, from, p->srclen);
	free(e.v);
	free(e.names);
}

char *opt_text(UirProgram *p, size_t *len)
{
	Out o = { .p = p };
	build(&o, true);
	out_free(&o);
	*len = o.n;
	return o.s ? o.s : xcalloc(1, 1);
}

/* ---- the rewritten program, located in the old text ---- */

typedef struct Remap {
	UirProgram *p, *q;
	const Out *o;
} Remap;

static void remap(const Remap *r, Loc *l)
{
	if (l->line <= 0)
		return;
	size_t at = pos(r->q, *l);
	int lo = 0, hi = r->o->nseg - 1; /* the last piece starting at or before AT */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (r->o->seg[mid].at <= at)
			lo = mid;
		else
			hi = mid - 1;
	}
	const Seg *s = &r->o->seg[lo];
	size_t src = s->copy ? s->src + (at - s->at) : s->src;
	*l = diag_loc_of(r->p, src < r->p->srclen ? src : r->p->srclen);
}

static void remap_expr(const Remap *r, Expr *e)
{
	if (!e)
		return;
	remap(r, &e->loc);
	remap(r, &e->mem_loc);
	for (int i = 0; i < e->nargs; i++)
		remap_expr(r, e->args[i]);
}

static void remap_stmts(const Remap *r, Stmt *s)
{
	for (; s; s = s->next) {
		remap(r, &s->loc);
		remap(r, &s->mem_loc);
		remap(r, &s->axis_loc);
		if (s->sym)
			remap(r, &s->sym->loc);
		remap_expr(r, s->value);
		remap_expr(r, s->off);
		remap_expr(r, s->val);
		remap_expr(r, s->cond);
		for (int i = 0; i < s->novf; i++)
			remap(r, &s->ovf[i].at);
		remap_stmts(r, s->body);
		remap_stmts(r, s->then_);
		remap_stmts(r, s->else_);
	}
}

/* Marks the loops of S that stand at one of the N places AT of Q's text: opt_proven (of a
 * `thread` loop) with PROVEN, else opt_fixed. */
static void mark_loops(UirProgram *q, const size_t *at, int n, Stmt *s, bool proven)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && (!proven || s->axis == AX_THREAD))
			for (int k = 0; k < n; k++)
				if (pos(q, s->loc) == at[k]) {
					if (proven)
						s->opt_proven = true;
					else
						s->opt_fixed = true;
				}
		mark_loops(q, at, n, s->body, proven);
		mark_loops(q, at, n, s->then_, proven);
		mark_loops(q, at, n, s->else_, proven);
	}
}

/* Clears the decisions that need a rewrite below S (the rewritten program's: not carried
 * out, so neither run nor printed), but for the row jam's with KEEP_ROWS; returns whether
 * one of those is left. */
static bool clear_rewrites(Stmt *s, bool keep_rows)
{
	bool rows = false;
	for (; s; s = s->next) {
		s->opt_private = false;
		s->opt_expand = NULL;
		s->opt_jam = 0;
		s->opt_jam_thread = false;
		s->nopt_rename = 0;
		s->opt_peel = false;
		s->opt_jam_mem = 0;
		s->opt_jam_outer = false;
		s->opt_jam_swap = false;
		s->opt_jam_sink = false;
		s->opt_distribute = false;
		s->opt_skew = 0;
		s->opt_split = 0;
		if (!keep_rows)
			s->opt_jam_row = 0;
		rows |= s->opt_jam_row != 0;
		rows |= clear_rewrites(s->body, keep_rows);
		rows |= clear_rewrites(s->then_, keep_rows);
		rows |= clear_rewrites(s->else_, keep_rows);
	}
	return rows;
}

/* Optimised program P's rewrite, its text and pieces in O: a new checked program, or NULL
 * when that text does not check (a bug: UIR_OPT_DEBUG=1 prints why, with REPORT; without,
 * the text holds a split, which may not check: opt_rewrite() then skews instead). */
static UirProgram *rewrite_once(UirProgram *p, Out *o, bool report)
{
	build(o, false);
	char *diag_text = NULL;
	size_t diag_len = 0;
	FILE *err = open_memstream(&diag_text, &diag_len);
	UirProgram *q = err ? uir_load_text(p->path, o->s, o->n, err) : NULL;
	if (q) {
		q->inits_stand = p->inits_stand;
		for (int i = 0; i < p->nbufs && i < q->nbufs; i++) {
			q->bufs[i]->check_data = p->bufs[i]->check_data;
			q->bufs[i]->replaced = p->bufs[i]->replaced;
		}
		/* the `thread` loops of a split, which the optimiser proved, are checked once:
		 * the verdict of this text is kept in the answer cache (docs/llvm.md, "Split
		 * tiling") */
		Hash128 key;
		int verdict = -1;
		bool keyed = o->nproven > 0 && answer_key(p, &key, "split text");
		if (keyed) {
			cache_hash_add(&key, o->s, o->n);
			if (answer_get(&key, &verdict) && verdict == 1)
				mark_loops(q, o->proven, o->nproven, q->top, true);
		}
		if (verdict == 0 || uir_check(q, 0, err) != 0) {
			uir_free(q);
			q = NULL;
		}
		if (keyed && verdict != 1)
			answer_put(&key, q != NULL);
	}
	if (err)
		fclose(err);
	const char *dbg = getenv("UIR_OPT_DEBUG");
	if (!q && report && dbg && *dbg == '1')
		fprintf(stderr, "uir: the optimiser's rewrite of %s does not check; it runs as written:\n%s\n%s", p->path,
			diag_text ? diag_text : "", o->s ? o->s : "");
	free(diag_text);
	return q;
}

/* Places Q's locations, Q a rewrite of P with pieces O, in P's text, which becomes Q's
 * source, so that a fault is reported where P has the access. */
static void locate(UirProgram *p, UirProgram *q, const Out *o)
{
	Remap r = { p, q, o };
	remap_stmts(&r, q->top);
	for (int i = 0; i < q->nbufs; i++)
		remap(&r, &q->bufs[i]->loc);
	for (int i = 0; i < q->nallocs; i++)
		remap(&r, &q->allocs[i]->loc);
	/* a privatised copy is the user's memory: a fault names that */
	for (int k = 0; k < o->nalias; k++)
		for (int i = 0; i < q->nallocs; i++)
			if (!strcmp(q->allocs[i]->name, o->alias[k].name))
				q->allocs[i]->name = arena_strndup(&q->arena, o->alias[k].of->name, strlen(o->alias[k].of->name));
	free(q->src);
	q->src = xmalloc(p->srclen + 1);
	memcpy(q->src, p->src, p->srclen + 1);
	q->srclen = p->srclen;
	q->line_start = NULL; /* in the arena: made again for the old text */
	q->nlines = 0;
}

/* Whether a loop of S is to be split (Stmt.opt_split). */
static bool has_split(const Stmt *s)
{
	for (; s; s = s->next)
		if ((s->kind == ST_LOOP && s->opt_split) || has_split(s->body) || has_split(s->then_) || has_split(s->else_))
			return true;
	return false;
}

/* Turns every split of S (Stmt.opt_split) into its fallback, the time skew on one thread,
 * or no rewrite where the skew's arithmetic would not fit (opt/skew.c). `uir check` of a
 * split's text can run past ISL's budget where the optimiser's own question did not (a
 * three-sweep stencil in an outer loop). */
static void unsplit(Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && s->opt_split) {
			s->opt_split = 0;
			if (s->opt_skew_width == 0)
				s->opt_skew = 0;
		}
		unsplit(s->body);
		unsplit(s->then_);
		unsplit(s->else_);
	}
}

/* Whether a loop of S is to be row-jammed. */
static bool has_rows(const Stmt *s)
{
	for (; s; s = s->next)
		if (s->opt_jam_row || has_rows(s->body) || has_rows(s->then_) || has_rows(s->else_))
			return true;
	return false;
}

UirProgram *opt_rewrite(UirProgram *p, bool own_text)
{
	opt_program(p);
	if (!p->opt_rewrites)
		return NULL;
	Out o = { .p = p };
	bool wide = has_rows(p->top);
	bool splits = has_split(p->top);
	UirProgram *q = rewrite_once(p, &o, !splits);
	if (!q && splits) { /* a split's text that does not check: the skew instead */
		unsplit(p->top);
		free(o.s);
		out_free(&o);
		o = (Out){ .p = p };
		q = rewrite_once(p, &o, true);
	}
	if (!q) { /* P runs, and `uir opt` prints it, with the decisions that need no rewrite */
		clear_rewrites(p->top, false);
		p->opt_rewrites = false;
		free(o.s);
		out_free(&o);
		return NULL;
	}
	q->opt_no_rewrite = true;
	q->opt_rows = o.nfixed == 0; /* (a time skew's tiles are marked in Q alone) */
	mark_loops(q, o.fixed, o.nfixed, q->top, false);
	opt_program(q);
	q->opt_rewrites = false;
	/* one more rewrite, for the row jam alone: the rows of the loops that the first one
	 * expanded or made `thread` */
	Out o2 = { .p = q };
	UirProgram *q2 = clear_rewrites(q->top, true) ? rewrite_once(q, &o2, true) : NULL;
	clear_rewrites(q->top, false);
	if (q2) {
		q2->opt_no_rewrite = true;
		opt_program(q2);
		clear_rewrites(q2->top, false);
		q2->opt_rewrites = false;
		if (!own_text)
			locate(q, q2, &o2);
	}
	free(o2.s);
	out_free(&o2);
	if (q2) {
		q2->err = p->err;
		if (!own_text)
			locate(p, q2, &o);
		uir_free(q);
		q = q2;
		wide = true;
	} else {
		q->err = p->err;
		if (!own_text)
			locate(p, q, &o);
	}
	q->opt_wide = wide;
	free(o.s);
	out_free(&o);
	return q;
}
