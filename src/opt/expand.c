/* expand.c - scalar expansion with loop distribution, a decision of the loop optimiser
 * (opt.c) that opt/rewrite.c carries out on the program's text (docs/llvm.md, "Scalar
 * expansion"). It turns
 *
 *     loop j N {                       loop j N { LETS  store m_x j INIT }
 *       LETS                           loop j N { LETS  loop k K { S[m -> m_x j] } }
 *       store m 0 INIT          into   loop j N { LETS  REST[m -> m_x j] }
 *       loop k K { S }
 *       REST
 *     }
 *
 * with m_x a new alloc of N elements: each iteration of j keeps its own copy of the scalar
 * m, and the statements after the first store are cut into loops over j of their own, at
 * every loop of the body. The k loop of an in-order reduction into m then runs inside a
 * loop over j that the interchange (interchange.c) can put inside it, so that it vectorises
 * over j, each lane keeping its own k order (a naive matrix product accumulating into a
 * scalar ran 29 times faster, measured).
 *
 * Legality (sufficient, checked conservatively):
 *   - j is plain with an integer-literal bound, holds no loop with an axis but `unroll`, and
 *     every loop in it has a bound invariant in j (a literal, or an expression of names
 *     outside j that loads nothing: the same value in every distributed loop); every access
 *     in its body is proven in bounds (no fault can move);
 *   - m is an alloc private to j (private.c): every iteration writes it before reading it,
 *     and no value j leaves in it is read; it is scalar (every access one element at a constant
 *     offset), so m_x[j * size + c] is iteration j's element c;
 *   - no two iterations of j conflict on any other memory (loop_independent(), the
 *     checker's exact analysis): statement instances of different iterations then touch
 *     different data once m is expanded, and any order that keeps each iteration's own
 *     order -- the distributed loops keep it -- gives the same bits;
 *   - no let in the body reads memory the body writes; LETS, before the first store, are
 *     recomputed in each distributed loop and take the same values; a let after it stands
 *     between loops and is used only up to the next one (it stays in one distributed loop
 *     with its uses).
 * Unroll-and-jam: when the reduction would not vectorise over j (it reads a row of a matrix
 * that j walks down: a matrix-vector product), and it is the body's one loop, j is cut into
 * blocks of OPT_JAM iterations instead, `loop j_o N/U { ... loop k K { loop j_u U unroll {
 * S } } ... }` with `let j = j_o * U + j_u` first in each body and m_x of U elements: the U
 * rows' reductions run side by side, U independent chains of additions in registers where
 * there was one (each element's order kept), the same legality as the expansion's (the
 * interchange of j_u and k is legal because no two iterations of j meet once m is
 * expanded). Opt_jam on the loop says so.
 *
 * Distribution alone (distribute_candidate(), Stmt.opt_distribute): the same cut with no
 * alloc, where the iterations of j are independent with nothing exempt and some loop of
 * the body then interchanges to stride 1 -- a reduction into memory followed by a store of
 * the element it reduced (PolyBench's trmm, covariance). Legal for the same reason: any
 * order that keeps each iteration's own order gives the same bits.
 *
 * Profitability: some loop of the body after the first store accesses m (the reduction),
 * with more than OPT_EXPAND_MIN_TRIPS iterations in all, and would vectorise over j once
 * interchanged (interchange_pays()). A smaller reduction (a 3 x 3 stencil's) LLVM unrolls
 * whole, and then vectorises j itself with m in a register per lane: expanded, the 3x3
 * convolution of 2048 x 2048 ran 3.7 ms instead of 2.3 (9 passes over a row of sums).
 */
#include "opt.h"
#include <stdlib.h>

typedef struct Ex {
	const Mem *m;
	const Stmt *j;   /* the loop expanded over */
	bool ok;
	bool *written; /* by mem key: stored or updated in the body */
	const UirProgram *p;
} Ex;

static int key(const UirProgram *p, const Mem *m)
{
	return m->is_alloc ? p->nbufs + m->index : m->index;
}

static void expr_ok(Ex *x, const Expr *e)
{
	if (e->kind != EX_OP || !x->ok)
		return;
	for (int i = 0; i < e->nargs; i++)
		expr_ok(x, e->args[i]);
	if (e->op != OP_LOAD)
		return;
	const Range r = e->args[0]->rng;
	if (!e->in_bounds || (e->mem == x->m && (e->width > 1 || !r.known || r.lo != r.hi)))
		x->ok = false;
}

static void body_ok(Ex *x, const Stmt *s)
{
	for (; s && x->ok; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			expr_ok(x, s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			expr_ok(x, s->off);
			expr_ok(x, s->val);
			x->written[key(x->p, s->mem)] = true;
			if (!s->in_bounds || (s->mem == x->m && (s->kind == ST_ATOMIC || s->width > 1 || !s->off->rng.known ||
								  s->off->rng.lo != s->off->rng.hi)))
				x->ok = false;
			break;
		case ST_LOOP:
			if ((s->axis != AX_NONE && s->axis != AX_UNROLL) || !invariant_bound(s->value, x->j))
				x->ok = false;
			else
				body_ok(x, s->body);
			break;
		case ST_IF:
			expr_ok(x, s->cond);
			body_ok(x, s->then_);
			body_ok(x, s->else_);
			break;
		default:
			break;
		}
	}
}

static bool loads_written(const Ex *x, const Expr *e)
{
	if (e->kind != EX_OP)
		return false;
	if (e->op == OP_LOAD && x->written[key(x->p, e->mem)])
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (loads_written(x, e->args[i]))
			return true;
	return false;
}

/* Whether the statements S (and below) use the value of Y. */
static bool stmts_name(const Stmt *s, const Sym *y)
{
	for (; s; s = s->next) {
		if ((s->value && expr_refers_to(s->value, y)) || (s->off && expr_refers_to(s->off, y)) ||
		    (s->val && expr_refers_to(s->val, y)) || (s->cond && expr_refers_to(s->cond, y)) ||
		    stmts_name(s->body, y) || stmts_name(s->then_, y) || stmts_name(s->else_, y))
			return true;
	}
	return false;
}

/* Whether let L, after the first store in the loop's body, is used only up to the next
 * loop (or the body's end): the distribution keeps it in one loop with its uses. */
static bool let_stays(const Stmt *l)
{
	const Stmt *t = l->next;
	while (t && t->kind != ST_LOOP)
		t = t->next;
	return !t || !stmts_name(t, l->sym);
}

/* The legality conditions on the body of loop J that the expansion of M (NULL: the
 * distribution alone) asks for itself: every access in bounds, M scalar, no axis but
 * `unroll`, bounds invariant in j, no let reading memory the body writes. */
static bool body_legal(const UirProgram *p, const Stmt *j, const Mem *m)
{
	Ex x = { .m = m, .j = j, .ok = true, .p = p };
	x.written = xcalloc((size_t)(p->nbufs + p->nallocs) + 1, sizeof *x.written);
	body_ok(&x, j->body);
	for (const Stmt *t = j->body; x.ok && t; t = t->next)
		if (t->kind == ST_LET && loads_written(&x, t->value))
			x.ok = false;
	free(x.written);
	return x.ok;
}

typedef struct Only {
	const Mem *m;
} Only;

/* The iterations of the innermost bodies of loop nest S (a bound that is not a literal at
 * its largest): a nest of 3 x 3 counts 9. */
static int64_t nest_trips(const Stmt *s)
{
	int64_t inner = 0;
	bool any = false;
	for (const Stmt *t = s->body; t; t = t->next)
		if (t->kind == ST_LOOP) {
			inner += nest_trips(t);
			any = true;
		}
	int64_t n = s->bound_lit > 0 ? s->bound_lit : s->value->rng.known && s->value->rng.hi > 0 ? s->value->rng.hi : 1;
	return n * (any ? (inner > 0 ? inner : 1) : 1);
}

static bool only_m(void *ctx, const Mem *m)
{
	return ((Only *)ctx)->m == m;
}

Mem *expand_candidate(OptCtx *o, Stmt *j)
{
	UirProgram *p = o->p;
	if (j->kind != ST_LOOP || j->axis != AX_NONE || j->bound_lit < 1)
		return NULL;
	const Stmt *s1 = j->body;
	while (s1 && s1->kind == ST_LET)
		s1 = s1->next;
	if (!s1 || s1->kind != ST_STORE || !s1->mem->is_alloc || s1->mem->size > OPT_EXPAND_SCALAR ||
	    s1->mem->size * j->bound_lit > OPT_EXPAND_ELEMENTS)
		return NULL;
	Mem *m = s1->mem;
	bool reduction = false;
	const Stmt *only_loop = NULL; /* the one loop after the first store, if one */
	int nloops = 0;
	for (const Stmt *t = s1->next; t; t = t->next) {
		if (t->kind == ST_LET && !let_stays(t))
			return NULL; /* used past the next loop: it would leave its distributed loop */
		bool big = t->kind == ST_LOOP && t->axis == AX_NONE && invariant_bound(t->value, j) &&
			   t->value->rng.known && t->value->rng.hi >= 1 && nest_trips(t) > OPT_EXPAND_MIN_TRIPS &&
			   mem_accesses(t->body, m) > 0;
		if (big && interchange_pays(p, j, t))
			reduction = true;
		if (t->kind == ST_LOOP) {
			nloops++;
			only_loop = big ? t : NULL;
		}
	}
	j->opt_jam = 0;
	if (!reduction && nloops == 1 && only_loop) {
		/* unroll-and-jam: OPT_JAM rows at once, when the bound divides, the copies of
		 * the reduction's body stay small and the unroll loops stay within their limit */
		int u = j->bound_lit % OPT_JAM == 0 && j->bound_lit >= 2 * OPT_JAM && jam_fits(j, only_loop->body) ? OPT_JAM : 0;
		if (u && rewrite_layout_ok(p, only_loop, m)) {
			j->opt_jam = u;
			reduction = true;
		}
	}
	if (!reduction)
		return NULL;
	bool outside, peel; /* other uses of m keep it: the expansion replaces j's alone */
	if (!body_legal(p, j, m) || !rewrite_layout_ok(p, j, m) || !mem_private(o, j, m, &outside, &peel) || peel)
		return NULL;
	Only only = { m };
	if (!loop_independent(p, j, only_m, &only))
		return NULL;
	return m;
}

bool distribute_candidate(OptCtx *o, Stmt *j)
{
	UirProgram *p = o->p;
	if (j->kind != ST_LOOP || j->axis != AX_NONE || !invariant_bound(j->value, j) || !j->value->rng.known ||
	    j->value->rng.hi < 2)
		return false; /* the bound is evaluated again by each distributed loop */
	const Stmt *s1 = j->body;
	while (s1 && s1->kind == ST_LET)
		s1 = s1->next;
	int groups = 0;
	bool pays = false, in_run = false;
	for (const Stmt *t = s1; t; t = t->next) {
		if (t->kind == ST_LET && !let_stays(t))
			return false;
		if (t->kind != ST_LOOP) {
			groups += !in_run;
			in_run = true;
			continue;
		}
		in_run = false;
		groups++;
		if (t->axis == AX_NONE && invariant_bound(t->value, j) && t->value->rng.known && t->value->rng.hi >= 1 &&
		    nest_trips(t) > OPT_EXPAND_MIN_TRIPS && interchange_pays(p, j, t))
			pays = true;
	}
	if (!pays || groups < 2)
		return false; /* one group: the interchange alone (interchange.c) */
	return body_legal(p, j, NULL) && rewrite_layout_ok(p, j, NULL) && loop_independent(p, j, NULL, NULL);
}
