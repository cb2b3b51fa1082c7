/* render_c.c - `uir render`: the checked program as one portable C11 translation unit
 * (docs/language.md 8.1), compiled with `cc -std=c11 -O2 -pthread FILE -lm` and nothing else.
 *
 * Layout of the output: the FP_CONTRACT pragma, includes, `#define UIR_FN static inline`,
 * the runtime helpers the program calls (pasted from runtime/uir_*.h), the renderer's support
 * code (the thread pool of runtime/uir_parallel.c, bounds checks, atomics), one outlined
 * function per thread or global loop, `void kernel(T *b0, ...)`, and with --main a main()
 * that sets up the buffers, calls kernel and prints every buffer as `run` does.
 *
 * Memory (docs/language.md 5.2, 5.4): an alloc with no home lives in kernel, zeroed once (on the
 * heap when large). The body of a thread or global loop is outlined into
 * `static void uir_thread_p(void *ctx, int32_t lo, int32_t hi)`, which runs iterations
 * lo .. hi-1 and declares the allocs whose home is that loop inside its iteration, zeroed
 * for every iteration (allocs above 64 KiB: on the heap, one copy per chunk, zeroed with
 * memset per iteration). Names the body uses from outside (buffers, allocs, lets, loop
 * indices) travel in a context struct. `local` loops are plain loops, so consecutive phases
 * are separated by construction; `unroll` loops are unrolled (stmt.c). A grid of 2 or 3
 * dimensions (nested global loops, docs/language.md 6.5) is one outlined body over the flat
 * block number, x fastest: each loop's index is recovered from it by div and mod where the
 * loop stands, its lets between them evaluated per block.
 */
#include "render_int.h"
#include <stdlib.h>
#include <string.h>

enum { STACK_ALLOC_MAX = 64 * 1024, STACK_TOTAL_MAX = 1024 * 1024 };

typedef struct CState {
	Str funcs;        /* context structs and outlined functions */
	NameSet fnames;   /* names of outlined functions */
	const char *flat; /* in the outlined body of a grid of 2 or 3 dimensions: the flat block
	                   * number */
} CState;

/* In the outlined body of a nest: `int32_t NAME = FLAT / STRIDE % BOUND;`, the index of
 * loop S of the nest, then S's body (its lets and the next loop of the nest). */
static void nest_index(Emitter *E, const Stmt *s)
{
	CState *cs = E->ctx;
	const Stmt *top = s->nest;
	SymInfo *si = sym_info(E, s->sym);
	int64_t stride = nest_stride(top, s->dim);
	if (s->dim == top->ndims - 1)
		line(E, "int32_t %s = %s / %lld; /* loop %s %lld global: the %c index */", si->cname, cs->flat,
		     (long long)stride, s->sym->name, (long long)s->bound_lit, "xyz"[s->dim]);
	else if (s->dim == 0)
		line(E, "int32_t %s = %s %% %lld; /* loop %s %lld global: the x index */", si->cname, cs->flat,
		     (long long)s->bound_lit, s->sym->name, (long long)s->bound_lit);
	else
		line(E, "int32_t %s = %s / %lld %% %lld; /* loop %s %lld global: the %c index */", si->cname, cs->flat,
		     (long long)stride, (long long)s->bound_lit, s->sym->name, (long long)s->bound_lit, "xyz"[s->dim]);
	int before = si->refs;
	emit_block(E, s->body);
	mark_unused(E, s->sym, before);
}

/* ---- the context of an outlined body ---- */

/* What the outlined body of a parallel loop gets from its caller: the loop's captures
 * (check/captures.c) less an unrolled index fixed in this copy (a literal here) and the
 * allocs the loop homes (declared in the body). */
typedef struct Context {
	const Sym **syms;
	int nsyms;
	const Mem **mems;
	int nmems;
} Context;

static void context_of(Emitter *E, const Stmt *loop, Context *c)
{
	const Captures *cap = loop->cap;
	c->syms = xmalloc((size_t)cap->nsyms * sizeof *c->syms + 1);
	c->mems = xmalloc((size_t)cap->nmems * sizeof *c->mems + 1);
	c->nsyms = c->nmems = 0;
	for (int i = 0; i < cap->nsyms; i++)
		if (!sym_info(E, cap->syms[i])->fixed)
			c->syms[c->nsyms++] = cap->syms[i];
	for (int i = 0; i < cap->nmems; i++)
		if (cap->mems[i]->home != loop)
			c->mems[c->nmems++] = cap->mems[i];
}

/* ---- allocs ---- */

/* Declares alloc M at the current indentation, zeroed: an array when it is small and the
 * stack budget *STACK allows, else on the heap (returns true: the caller frees it). */
static bool declare_alloc(Emitter *E, const Mem *m, int64_t *stack, const char *note)
{
	const char *n = mem_cname(E, m);
	int64_t bytes = mem_bytes(m);
	if (bytes <= STACK_ALLOC_MAX && *stack + bytes <= STACK_TOTAL_MAX) {
		*stack += bytes;
		line(E, "%s %s[%lld] = { 0 }; /* %s */", ctype(m->ty), n, (long long)m->size, note);
		if (!stmts_load_mem(E->p->top, m) && !stmts_atomic_on(E->p->top, m))
			line(E, "(void)&%s; /* stored, never loaded: not 'set but not used' */", n);
		return false;
	}
	E->need |= NEED_ZALLOC;
	line(E, "%s *%s = uir_zalloc(%lld, sizeof *%s, \"%s\"); /* %s */", ctype(m->ty), n, (long long)m->size, n,
	     m->name, note);
	return true;
}

/* ---- outlining ---- */

static const char *unique_fname(Emitter *E, CState *cs, const char *base)
{
	const char *n = base;
	for (int k = 2; nameset_has(&cs->fnames, n); k++)
		n = fmt_str(E->a, "%s_%d", base, k);
	nameset_add(&cs->fnames, n);
	return n;
}

/* The declaration of captured name S as a struct field or local ("int32_t n", "float q[4]"). */
static const char *sym_decl(Emitter *E, const Sym *s)
{
	SymInfo *si = sym_info(E, s);
	if (s->lanes > 1)
		return fmt_str(E->a, "%s %s[%d]", ctype(s->ty), si->cname, s->lanes);
	return fmt_str(E->a, "%s %s", ctype(s->kind == SYM_LOOP ? UIR_I32 : s->ty), si->cname);
}

static void outline(Emitter *E, const Stmt *s)
{
	CState *cs = E->ctx;
	UirProgram *p = E->p;
	SymInfo *si = sym_info(E, s->sym);
	const char *kind = s->axis == AX_THREAD ? "thread" : "block";
	const char *fname = unique_fname(E, cs, fmt_str(E->a, "uir_%s_%s", kind, si->cname));
	E->need |= NEED_PARALLEL;

	/* the call, where the loop stands; a grid of 2 or 3 dimensions runs its blocks by one
	 * flat number */
	bool grid = s->axis == AX_GLOBAL && s->ndims > 1;
	const char *n = grid ? fmt_str(E->a, "%lld", (long long)nest_stride(s, s->ndims)) : loop_bound(E, s);
	Context c;
	context_of(E, s, &c);
	Str init = { 0 };
	for (int i = 0; i < c.nmems; i++)
		str_printf(&init, "%s%s", i ? ", " : "", mem_cname(E, c.mems[i]));
	for (int i = 0; i < c.nsyms; i++) {
		const Sym *y = c.syms[i];
		const char *cn = sym_info(E, y)->cname;
		str_printf(&init, "%s", init.n ? ", " : "");
		if (y->lanes > 1) {
			str_put(&init, "{ ");
			for (int l = 0; l < y->lanes; l++)
				str_printf(&init, "%s%s[%d]", l ? ", " : "", cn, l);
			str_put(&init, " }");
		} else {
			str_put(&init, cn);
		}
	}
	const char *ctxname = NULL;
	if (grid) {
		Str shape = { 0 };
		for (int d = s->ndims - 1; d >= 0; d--)
			str_printf(&shape, "%s%s %lld", d == s->ndims - 1 ? "" : ", ", s->dims[d]->sym->name,
				   (long long)s->dims[d]->bound_lit);
		line(E, "/* loops %s global, a grid of %d dimensions: blocks 0 .. %s-1 on CPU threads */",
		     str_cstr(&shape), s->ndims, n);
		str_free(&shape);
	} else {
		line(E, "/* loop %s %s: %s 0 .. %s-1 on CPU threads */", s->sym->name, axis_name[s->axis],
		     s->axis == AX_THREAD ? "iterations" : "blocks", n);
	}
	if (c.nmems + c.nsyms > 0) {
		ctxname = temp_name(E, "c");
		line(E, "struct %s_ctx %s = { %s };", fname, ctxname, str_cstr(&init));
		E->decls++;
		line(E, "uir_parallel_loop(%s, %s, &%s);", n, fname, ctxname);
	} else {
		line(E, "uir_parallel_loop(%s, %s, NULL);", n, fname);
	}
	str_free(&init);

	/* the outlined function */
	Str fn = { 0 }, *out = E->out;
	int indent = E->indent, decls = E->decls;
	E->out = &fn;
	E->indent = 0;
	str_put(E->out, "\n");
	line(E, "/* The body of loop %s (line %d), %s axis: iterations lo .. hi-1. */", s->sym->name, s->loc.line,
	     axis_name[s->axis]);
	if (ctxname) {
		line(E, "struct %s_ctx {", fname);
		for (int i = 0; i < c.nmems; i++)
			line(E, "\t%s *%s;", ctype(c.mems[i]->ty), mem_cname(E, c.mems[i]));
		for (int i = 0; i < c.nsyms; i++)
			line(E, "\t%s;", sym_decl(E, c.syms[i]));
		line(E, "};");
		str_put(E->out, "\n");
	}
	line(E, "static void %s(void *uir_ctx, int32_t uir_lo, int32_t uir_hi)", fname);
	line(E, "{");
	E->indent = 1;
	int *before = xcalloc((size_t)c.nsyms + 1, sizeof *before);
	if (ctxname) {
		line(E, "const struct %s_ctx *uir_c = uir_ctx;", fname);
		for (int i = 0; i < c.nmems; i++) {
			const char *mn = mem_cname(E, c.mems[i]);
			line(E, "%s *%s = uir_c->%s;", ctype(c.mems[i]->ty), mn, mn);
		}
		for (int i = 0; i < c.nsyms; i++) {
			const Sym *y = c.syms[i];
			const char *cn = sym_info(E, y)->cname;
			before[i] = sym_info(E, y)->refs;
			if (y->lanes > 1)
				line(E, "const %s *%s = uir_c->%s;", ctype(y->ty), cn, cn);
			else
				line(E, "const %s = uir_c->%s;", sym_decl(E, y), cn);
		}
	} else {
		line(E, "(void)uir_ctx;");
	}
	/* allocs homed here: big ones once per chunk, on the heap */
	int64_t stack = 0;
	bool *heap = xcalloc((size_t)s->nhomed + 1, sizeof *heap);
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		if (mem_info(E, m)->used && mem_bytes(m) > STACK_ALLOC_MAX) {
			heap[i] = true;
			declare_alloc(E, m, &(int64_t){ STACK_TOTAL_MAX }, "one per chunk, zeroed per iteration");
		}
	}
	const char *i = grid ? temp_name(E, "b") : si->cname;
	line(E, "for (int32_t %s = uir_lo; %s < uir_hi; %s++) {", i, i, i);
	E->indent = 2;
	E->decls = 0;
	for (int k = 0; k < s->nhomed; k++) {
		const Mem *m = s->homed[k];
		if (!mem_info(E, m)->used)
			continue;
		if (heap[k]) {
			line(E, "memset(%s, 0, sizeof *%s * %lld);", mem_cname(E, m), mem_cname(E, m), (long long)m->size);
		} else if (declare_alloc(E, m, &stack, s->axis == AX_GLOBAL ? "shared memory of the block" : "private to the iteration")) {
			heap[k] = true; /* over the stack budget: on the heap, one per iteration */
		}
	}
	int *mem_before = xcalloc((size_t)c.nmems + 1, sizeof *mem_before);
	for (int k = 0; k < c.nmems; k++)
		mem_before[k] = mem_info(E, c.mems[k])->refs;
	if (grid) {
		const char *outer_flat = cs->flat;
		cs->flat = i;
		nest_index(E, s);
		cs->flat = outer_flat;
	} else {
		emit_block(E, s->body);
	}
	for (int k = 0; k < c.nmems; k++) /* named only in lanes that `lane` dropped */
		if (mem_info(E, c.mems[k])->refs == mem_before[k])
			line(E, "(void)%s;", mem_cname(E, c.mems[k]));
	free(mem_before);
	for (int k = 0; k < s->nhomed; k++)
		if (heap[k] && mem_bytes(s->homed[k]) <= STACK_ALLOC_MAX && mem_info(E, s->homed[k])->used)
			line(E, "free(%s);", mem_cname(E, s->homed[k]));
	E->indent = 1;
	line(E, "}");
	for (int k = 0; k < c.nsyms; k++)
		mark_unused(E, c.syms[k], before[k]);
	free(before);
	for (int k = 0; k < s->nhomed; k++)
		if (heap[k] && mem_bytes(s->homed[k]) > STACK_ALLOC_MAX)
			line(E, "free(%s);", mem_cname(E, s->homed[k]));
	E->indent = 0;
	line(E, "}");
	free(heap);
	str_put(&cs->funcs, str_cstr(&fn));
	str_free(&fn);
	E->out = out;
	E->indent = indent;
	E->decls = decls;
	free(c.syms);
	free(c.mems);
	(void)p;
}

static bool c_loop_hook(Emitter *E, const Stmt *s)
{
	if (s->axis == AX_GLOBAL && s->nest != s) {
		nest_index(E, s); /* an inner loop of a grid's nest: in its outlined body */
		return true;
	}
	if (s->axis == AX_THREAD || s->axis == AX_GLOBAL) {
		outline(E, s);
		return true;
	}
	return false; /* local: a plain loop */
}

/* ---- the whole file ---- */

static void write_prelude(Emitter *E, Str *o, const RenderOptions *opt)
{
	bool par = E->need & NEED_PARALLEL;
	str_put(o, "#pragma GCC diagnostic ignored \"-Wunknown-pragmas\" /* gcc: ISO C mode never contracts */\n");
	str_put(o, "#pragma STDC FP_CONTRACT OFF\n");
	str_put(o, "/* ");
	str_put_comment(o, E->p->path, strlen(E->p->path)); /* a path may hold * / and newlines */
	str_printf(o, ", rendered by `uir render%s`: portable C11.\n", opt->main ? " --main" : "");
	str_put(o, " * Build: cc -std=c11 -O2 -pthread FILE.c -lm */\n");
	if (par)
		str_put(o, "#define _POSIX_C_SOURCE 200809L\n");
	str_put(o, "#include <math.h>\n");
	if (par)
		str_put(o, "#include <setjmp.h>\n"); /* the pool brings its own headers (support.c) */
	str_put(o, "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
	str_put(o, "\n#define UIR_FN static inline\n");
}

static void write_kernel(Emitter *E, Str *o, const Str *body)
{
	UirProgram *p = E->p;
	str_put(o, "\n/* The program: buffers b0, b1, ... in declaration order, each its own array (restrict). */\n");
	str_put(o, "void kernel(");
	if (!p->nbufs)
		str_put(o, "void");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%s%s *restrict %s /* b%d%s%s */", i ? ", " : "", ctype(p->bufs[i]->ty), E->bufs[i].cname, i,
			   strcmp(E->bufs[i].cname, p->bufs[i]->name) ? ": " : "",
			   strcmp(E->bufs[i].cname, p->bufs[i]->name) ? p->bufs[i]->name : "");
	str_put(o, ")\n{\n");
	for (int i = 0; i < p->nbufs; i++)
		if (!E->bufs[i].used)
			str_printf(o, "\t(void)%s;\n", E->bufs[i].cname);
	str_put(o, str_cstr(body));
	str_put(o, "}\n");
}

static void write_main(Emitter *E, Str *o)
{
	UirProgram *p = E->p;
	bool file = false;
	for (int i = 0; i < p->nbufs; i++)
		file |= p->bufs[i]->init == INIT_FILE;
	if (!p->nbufs) {
		str_put(o, "\nint main(void)\n{\n\tkernel();\n\treturn 0;\n}\n");
		return;
	}
	main_buffer_alloc(E, o);
	str_put(o, "\n/* Sets up the buffers as `uir run` does, runs the program, prints every buffer. */\n");
	str_put(o, "int main(void)\n{\n");
	if (file)
		str_put(o, "\tchar uir_why[256];\n");
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		const char *n = E->bufs[i].cname;
		str_printf(o, "\t%s *%s = uir_buffer(%lld, sizeof *%s, \"", ctype(m->ty), n, (long long)m->size, n);
		str_put_cstring(o, m->name, strlen(m->name));
		str_put(o, "\");\n");
	}
	for (int i = 0; i < p->nbufs; i++)
		main_init_buffer(E, o, p->bufs[i], E->bufs[i].cname);
	str_put(o, "\tsetvbuf(stdout, NULL, _IOFBF, (size_t)1 << 20);\n");
	str_put(o, "\tkernel(");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%s%s", i ? ", " : "", E->bufs[i].cname);
	str_put(o, ");\n");
	for (int i = 0; i < p->nbufs; i++)
		main_print_buffer(E, o, p->bufs[i], E->bufs[i].cname);
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "\tfree(%s);\n", E->bufs[i].cname);
	str_put(o, "\treturn fflush(stdout) != 0 || ferror(stdout);\n}\n");
}

int render_c(UirProgram *p, const RenderOptions *opt, Str *out)
{
	Emitter E;
	CState cs = { 0 };
	emit_init(&E, p, false);
	E.ctx = &cs;
	E.loop_hook = c_loop_hook;

	/* the kernel's body: allocs without a home, then the program */
	Str body = { 0 };
	E.out = &body;
	E.indent = 1;
	int64_t stack = 0;
	bool *heap = xcalloc((size_t)p->nallocs + 1, sizeof *heap);
	for (int i = 0; i < p->nallocs; i++) {
		const Mem *m = p->allocs[i];
		if (!m->home && E.allocs[i].used)
			heap[i] = declare_alloc(&E, m, &stack, "no home: zeroed once");
	}
	emit_block(&E, p->top);
	for (int i = 0; i < p->nallocs; i++)
		if (heap[i])
			line(&E, "free(%s);", E.allocs[i].cname);
	free(heap);

	/* main first, so that its helpers are known */
	Str mainfn = { 0 };
	if (opt->main)
		write_main(&E, &mainfn);

	write_prelude(&E, out, opt);
	NameSet all = { 0 };
	for (int i = 0; i < E.helpers.n; i++)
		nameset_add(&all, E.helpers.v[i]);
	for (int i = 0; i < E.host_helpers.n; i++)
		nameset_add(&all, E.host_helpers.v[i]);
	if (all.n) {
		str_put(out, "\n/* ---- runtime helpers: the single definitions of runtime/uir_*.h ---- */\n");
		helpers_write(out, &all, NULL, NULL);
	}
	free(all.v);
	Str sup = { 0 };
	support_write(&E, &sup);
	if (sup.n) {
		str_put(out, "\n/* ---- support: parallel loops, bounds checks, atomics ---- */\n");
		str_put(out, str_cstr(&sup));
	}
	str_free(&sup);
	str_put(out, str_cstr(&cs.funcs));
	write_kernel(&E, out, &body);
	str_put(out, str_cstr(&mainfn));
	str_free(&mainfn);
	str_free(&body);
	str_free(&cs.funcs);
	free(cs.fnames.v);
	emit_free(&E);
	return 0;
}
