/* private.c - privatisation, a fact the loop optimiser (opt.c) needs: an alloc that every
 * iteration of a loop writes before it reads can be given a copy per iteration without
 * changing any result (docs/llvm.md, "Privatisation").
 *
 * Memory M is private to loop L when
 *   - M has no home (no thread or global loop gives it copies already), and no value L
 *     leaves in M is read: either M is an alloc and every load, store and atomic of M is in
 *     L's body (allocs are never printed), or on every path from L's end M is written
 *     before it is read (dead_after(); the caller then gives L's accesses an alloc of their
 *     own); or else the values L leaves are the last iteration's alone: every iteration
 *     certainly writes every element of M (buffers too), so the last one runs apart, after
 *     the others, on M itself (peeling), the others on an alloc of their own;
 *   - no atomic updates M, and every element a load of M reads in an iteration was written
 *     earlier in that iteration. Shown by walking the body in order with the set of
 *     elements certainly written so far: a store counts when nothing conditional stands
 *     between it and L (no `if`, only loops that run at least once); a store at a constant
 *     offset writes that element, a store at offset `v + c` inside loop `v` with a constant
 *     bound n writes `c .. c + n - 1` once loop v is over, and within an iteration of v it
 *     writes the element a load at offset `v + c` then reads. The walk follows the first
 *     iteration of every inner loop; a later iteration has written at least as much.
 * Then the copy per iteration, zero-filled or not, is read only where the iteration wrote
 * it: the values read are the ones the shared alloc would have held.
 */
#include "opt.h"
#include <stdlib.h>

enum { MAX_INTERVALS = 64 };

typedef struct Iv {
	int64_t lo, hi;
} Iv;

/* A store at offset V + C that runs in every iteration of loop V. */
typedef struct Pend {
	const Sym *v;
	int64_t c;
} Pend;

typedef struct Cover {
	const Mem *m;
	Iv iv[MAX_INTERVALS]; /* disjoint, not adjacent */
	int niv;
	Pend *pend;
	int npend, cappend;
	bool ok;
} Cover;

static void add_interval(Cover *c, int64_t lo, int64_t hi)
{
	/* merge every interval that overlaps or touches [lo, hi] into it */
	int k = 0;
	for (int i = 0; i < c->niv; i++) {
		if (c->iv[i].hi + 1 >= lo && c->iv[i].lo <= hi + 1) {
			lo = c->iv[i].lo < lo ? c->iv[i].lo : lo;
			hi = c->iv[i].hi > hi ? c->iv[i].hi : hi;
		} else {
			c->iv[k++] = c->iv[i];
		}
	}
	if (k == MAX_INTERVALS) {
		c->ok = false; /* too many scattered elements to follow: not shown */
		return;
	}
	c->iv[k++] = (Iv){ lo, hi };
	c->niv = k;
}

static bool covered(const Cover *c, int64_t lo, int64_t hi)
{
	for (int i = 0; i < c->niv; i++)
		if (c->iv[i].lo <= lo && hi <= c->iv[i].hi)
			return true;
	return false;
}

/* Whether offset E is `v + c` for a loop index V (an integer literal C): sets *V, *C. */
static bool var_plus(const Expr *e, const Sym **v, int64_t *c)
{
	if (e->kind == EX_NAME && e->sym && e->sym->kind == SYM_LOOP) {
		*v = e->sym;
		*c = 0;
		return true;
	}
	if (e->kind == EX_OP && e->op == OP_ADD && e->nargs == 2 && e->lanes <= 1) {
		for (int i = 0; i < 2; i++) {
			const Expr *a = e->args[i], *b = e->args[1 - i];
			if (a->kind == EX_NAME && a->sym && a->sym->kind == SYM_LOOP && b->kind == EX_LIT && b->rng.known &&
			    b->rng.lo == b->rng.hi && e->nowrap) {
				*v = a->sym;
				*c = b->rng.lo;
				return true;
			}
		}
	}
	return false;
}

static bool pending(const Cover *c, const Expr *off)
{
	const Sym *v;
	int64_t k;
	if (!var_plus(off, &v, &k))
		return false;
	for (int i = 0; i < c->npend; i++)
		if (c->pend[i].v == v && c->pend[i].c == k)
			return true;
	return false;
}

/* The loads of M in E read only written elements. */
static void loads(Cover *c, const Expr *e)
{
	if (!c->ok || e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		loads(c, e->args[i]);
	if (e->op != OP_LOAD || e->mem != c->m)
		return;
	const Range r = e->args[0]->rng;
	int64_t w = e->width > 1 ? e->width : 1;
	if (!(r.known && r.lo <= r.hi && covered(c, r.lo, r.hi + w - 1)) && !(w == 1 && pending(c, e->args[0])))
		c->ok = false;
}

static void walk(Cover *c, const Stmt *s, const Stmt *stop, bool cond);

/* One statement S; COND: something conditional stands between it and the walk's start. */
static void walk_one(Cover *c, const Stmt *s, bool cond)
{
	switch (s->kind) {
	case ST_LET:
		loads(c, s->value);
		break;
	case ST_STORE:
	case ST_ATOMIC: {
		loads(c, s->off);
		loads(c, s->val);
		if (s->mem != c->m || !c->ok)
			break;
		if (s->kind == ST_ATOMIC) {
			c->ok = false; /* an atomic reads the element */
			break;
		}
		if (cond)
			break;
		Range r = s->off->rng;
		int64_t w = s->width > 1 ? s->width : 1;
		const Sym *v;
		int64_t k;
		if (r.known && r.lo == r.hi) {
			add_interval(c, r.lo, r.hi + w - 1);
		} else if (w == 1 && var_plus(s->off, &v, &k)) {
			if (c->npend == c->cappend) {
				c->cappend = c->cappend ? 2 * c->cappend : 8;
				c->pend = xrealloc(c->pend, (size_t)c->cappend * sizeof *c->pend);
			}
			c->pend[c->npend++] = (Pend){ v, k };
		}
		break;
	}
	case ST_LOOP: {
		loads(c, s->value);
		Range b = s->value->rng;
		bool runs = b.known && b.lo >= 1;
		int from = c->npend;
		walk(c, s->body, NULL, cond || !runs);
		/* this loop's index leaves scope: its pending stores become elements */
		int k = from;
		for (int i = from; i < c->npend; i++) {
			if (c->pend[i].v != s->sym)
				c->pend[k++] = c->pend[i];
			else if (b.known && b.lo == b.hi)
				add_interval(c, c->pend[i].c, c->pend[i].c + b.lo - 1);
		}
		c->npend = k;
		break;
	}
	case ST_IF:
		loads(c, s->cond);
		walk(c, s->then_, NULL, true);
		walk(c, s->else_, NULL, true);
		break;
	default:
		break;
	}
}

/* The statements from S on, up to STOP (not included; NULL: to the end of the block). */
static void walk(Cover *c, const Stmt *s, const Stmt *stop, bool cond)
{
	for (; s && s != stop && c->ok; s = s->next)
		walk_one(c, s, cond);
}

/* Whether the statements from S up to STOP read M only where they wrote it first; *FULL
 * (when not NULL): and they certainly write every element of M. */
static bool covered_run_full(const Mem *m, const Stmt *s, const Stmt *stop, bool *full)
{
	Cover c = { .m = m, .ok = true };
	walk(&c, s, stop, false);
	free(c.pend);
	if (full)
		*full = c.ok && covered(&c, 0, m->size - 1);
	return c.ok;
}

static bool covered_run(const Mem *m, const Stmt *s, const Stmt *stop)
{
	return covered_run_full(m, s, stop, NULL);
}

/* Whether no value that LOOP leaves in M is ever read: on every path from the loop's end, M
 * is written before it is read. Each stretch of code that can follow it is asked alone,
 * from nothing written (sufficient): the statements after it in its block; when its block
 * is a loop's body, that body's statements before it (the next iteration); then the same
 * one level up, to the end of the program. */
static bool dead_after(const Stmt *loop, const Mem *m)
{
	for (const Stmt *cur = loop; cur; cur = cur->parent) {
		if (!covered_run(m, cur->next, NULL))
			return false;
		const Stmt *par = cur->parent;
		if (par && par->kind == ST_LOOP && !covered_run(m, par->body, cur))
			return false;
	}
	return true;
}

/* The loads, stores and atomics of M in E. */
static int64_t expr_accesses(const Expr *e, const Mem *m)
{
	if (e->kind != EX_OP)
		return 0;
	int64_t n = e->op == OP_LOAD && e->mem == m;
	for (int i = 0; i < e->nargs; i++)
		n += expr_accesses(e->args[i], m);
	return n;
}

int64_t mem_accesses(const Stmt *s, const Mem *m)
{
	int64_t n = 0;
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET: n += expr_accesses(s->value, m); break;
		case ST_STORE:
		case ST_ATOMIC: n += (s->mem == m) + expr_accesses(s->off, m) + expr_accesses(s->val, m); break;
		case ST_LOOP: n += expr_accesses(s->value, m) + mem_accesses(s->body, m); break;
		case ST_IF: n += expr_accesses(s->cond, m) + mem_accesses(s->then_, m) + mem_accesses(s->else_, m); break;
		case ST_BUFFER: case ST_ALLOC: break;
		}
	}
	return n;
}

/* The accesses of alloc M in the whole program, counted once (OptCtx.accesses). */
static int64_t all_accesses(OptCtx *o, const Mem *m)
{
	int key = o->p->nbufs + m->index;
	if (o->accesses[key] < 0)
		o->accesses[key] = mem_accesses(o->p->top, m);
	return o->accesses[key];
}

bool mem_private(OptCtx *o, const Stmt *loop, const Mem *m, bool *outside, bool *peel)
{
	*peel = false;
	if (m->home || (int64_t)uir_type_size(m->ty) * m->size > OPT_PRIVATE_BYTES)
		return false;
	if (m->is_alloc) {
		*outside = mem_accesses(loop->body, m) != all_accesses(o, m);
	} else {
		*outside = true; /* a buffer's values after the program are printed */
	}
	bool full;
	if (!covered_run_full(m, loop->body, NULL, &full))
		return false;
	if (!*outside || (m->is_alloc && dead_after(loop, m)))
		return true;
	/* the values LOOP leaves are read: they are the last iteration's when it writes every
	 * element, so that iteration runs apart, after the others, on M itself */
	*peel = full && loop->bound_lit >= 2;
	return *peel;
}

bool thread_homes_ok(OptCtx *o, Stmt *loop, const Mem *skip)
{
	if (loop->bound_lit < 0)
		return false; /* a thread loop checks its offsets on entry (docs/language.md 4.8.3) */
	const Captures *cap = loop_captures(o->p, loop);
	for (int i = 0; i < cap->nmems; i++) {
		const Mem *m = cap->mems[i];
		if (!m->is_alloc || m->home || m == skip)
			continue;
		if (mem_accesses(loop->body, m) == all_accesses(o, m) && !covered_run(m, loop->body, NULL))
			return false; /* it would be homed there, and an iteration reads what another left */
	}
	return true;
}
