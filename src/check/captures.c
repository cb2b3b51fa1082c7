/* captures.c - what the body of each parallel loop uses from outside it, computed once per
 * checked program (docs/analysis.md, "Captures"): the lets and loop indices defined
 * outside the loop that its body names, and every memory its body accesses, with how (load,
 * store, atomic). The C renderer and the LLVM lowering build an outlined body's context
 * from it; render-cuda and ptx take a kernel's parameters (the buffers it uses) and its
 * read-only buffers from it.
 *
 * One walk per `thread` or `global` loop body, in program order; each name and memory is
 * listed at its first use (an expression's load before the loads in its offset, a
 * statement's expressions before its own store). Seen-marks are cleared after each loop
 * by walking the lists, so the cost is linear in the bodies' sizes.
 */
#include "uir_internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct CapCtx {
	UirProgram *p;
	const Stmt *loop;
	Captures *c;
	int *sym_at;      /* by Sym.slot: 1 + index in c->syms, 0 when not listed */
	int *mem_at;      /* by memory key: 1 + index in c->mems */
	int capsyms, capmems;
} CapCtx;

static int key(const UirProgram *p, const Mem *m)
{
	return m->is_alloc ? p->nbufs + m->index : m->index;
}

/* V (an arena array of N elements of SIZE bytes, room for *CAP) with room for one more. */
static void *grow(Arena *a, void *v, int n, int *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 8;
	void *w = arena_alloc(a, (size_t)*cap * size);
	if (n)
		memcpy(w, v, (size_t)n * size);
	return w;
}

static void use_mem(CapCtx *x, Mem *m, unsigned how)
{
	Captures *c = x->c;
	int k = key(x->p, m);
	if (!x->mem_at[k]) {
		int cap = x->capmems;
		c->mems = grow(&x->p->arena, c->mems, c->nmems, &cap, sizeof *c->mems);
		c->use = grow(&x->p->arena, c->use, c->nmems, &x->capmems, sizeof *c->use);
		c->mems[c->nmems] = m;
		c->use[c->nmems] = 0;
		x->mem_at[k] = ++c->nmems;
	}
	c->use[x->mem_at[k] - 1] |= (unsigned char)how;
}

static void use_sym(CapCtx *x, Sym *y)
{
	Captures *c = x->c;
	if (x->sym_at[y->slot] || stmt_inside(y->def, x->loop))
		return;
	c->syms = grow(&x->p->arena, c->syms, c->nsyms, &x->capsyms, sizeof *c->syms);
	c->syms[c->nsyms] = y;
	x->sym_at[y->slot] = ++c->nsyms;
}

static void expr(CapCtx *x, Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_NAME) {
		if (e->sym && e->sym->kind != SYM_MEM)
			use_sym(x, e->sym);
		return;
	}
	if (e->kind != EX_OP)
		return;
	if (e->op == OP_LOAD && e->mem)
		use_mem(x, e->mem, CAP_LOAD);
	for (int i = 0; i < e->nargs; i++)
		expr(x, e->args[i]);
}

static void stmts(CapCtx *x, Stmt *s)
{
	for (; s; s = s->next) {
		expr(x, s->value);
		expr(x, s->off);
		expr(x, s->val);
		expr(x, s->cond);
		if (s->kind == ST_STORE)
			use_mem(x, s->mem, CAP_STORE);
		else if (s->kind == ST_ATOMIC)
			use_mem(x, s->mem, CAP_ATOMIC);
		stmts(x, s->body);
		stmts(x, s->then_);
		stmts(x, s->else_);
	}
}

static int by_key(const void *a, const void *b)
{
	int x = ((const CapKey *)a)->key, y = ((const CapKey *)b)->key;
	return (x > y) - (x < y);
}

/* Fills S->cap: the captures of loop S's body. */
static void capture(CapCtx *x, Stmt *s)
{
	Captures *c = arena_alloc(&x->p->arena, sizeof *c);
	memset(c, 0, sizeof *c);
	x->c = c;
	x->loop = s;
	x->capsyms = x->capmems = 0;
	stmts(x, s->body);
	for (int i = 0; i < c->nsyms; i++)
		x->sym_at[c->syms[i]->slot] = 0;
	for (int i = 0; i < c->nmems; i++)
		x->mem_at[key(x->p, c->mems[i])] = 0;
	/* the lookup table: memory keys sorted, each with its place in the list */
	c->sorted = arena_alloc(&x->p->arena, (size_t)c->nmems * sizeof *c->sorted + 1);
	for (int i = 0; i < c->nmems; i++)
		c->sorted[i] = (CapKey){ key(x->p, c->mems[i]), i };
	qsort(c->sorted, (size_t)c->nmems, sizeof *c->sorted, by_key);
	s->cap = c;
}

static void loops(CapCtx *x, Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			loops(x, s->then_);
			loops(x, s->else_);
		}
		if (s->kind != ST_LOOP)
			continue;
		if (s->axis == AX_THREAD || s->axis == AX_GLOBAL)
			capture(x, s);
		loops(x, s->body); /* a parallel loop inside (a phase's, or a thread loop's) */
	}
}

/* A walk's seen-marks, for every name and memory of P; free with ctx_close(). */
static CapCtx ctx_open(UirProgram *p)
{
	CapCtx x = { p, NULL, NULL, NULL, NULL, 0, 0 };
	x.sym_at = xcalloc((size_t)p->nslots + 1, sizeof *x.sym_at);
	x.mem_at = xcalloc((size_t)(p->nbufs + p->nallocs) + 1, sizeof *x.mem_at);
	return x;
}

static void ctx_close(CapCtx *x)
{
	free(x->sym_at);
	free(x->mem_at);
}

void captures_compute(UirProgram *p)
{
	CapCtx x = ctx_open(p);
	loops(&x, p->top);
	ctx_close(&x);
}

const Captures *loop_captures(UirProgram *p, Stmt *loop)
{
	if (!loop->cap) {
		CapCtx x = ctx_open(p);
		capture(&x, loop);
		ctx_close(&x);
	}
	return loop->cap;
}

unsigned loop_uses(const UirProgram *p, const Stmt *loop, const Mem *m)
{
	const Captures *c = loop->cap;
	if (!c)
		return 0;
	int k = key(p, m), lo = 0, hi = c->nmems - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, km = c->sorted[mid].key;
		if (km == k)
			return c->use[c->sorted[mid].at];
		if (km < k)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}
