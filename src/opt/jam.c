/* jam.c - unroll-and-jam of in-order reductions into memory, a decision of the loop
 * optimiser (opt.c) that opt/rewrite.c carries out on the program's text (docs/llvm.md,
 * "Unroll-and-jam"). It turns
 *
 *     loop j N {                      loop j_o N/U {
 *       LETS                            loop k K {
 *       loop k K {            into        loop j_u U unroll {
 *         S                                 let j = add (mul j_o U) j_u
 *       }                                   LETS  S
 *     }                                   } } }
 *
 * (then `loop j_r N%U { let j = add j_r N-N%U  LETS  loop k K { S } }` for the rest),
 * where S reduces into memory at an offset that depends on j and not on k -- a product
 * accumulated in B[r,s] over t, a matrix-vector product into y[i] -- and the interchange of
 * j and k is legal but does not make the inner loop stride 1 (then interchange.c runs it
 * instead). Each reduction is an in-order chain of float additions of a few cycles'
 * latency; U of them side by side keep the adders busy, each element's order unchanged.
 *
 * Legality: that of the interchange (interchange_legal(): the only dependences are between
 * iterations with the same j, whose k order is kept; the bounds are invariant; every access
 * in bounds): the jammed order is an interchange within each block of U iterations of j.
 *
 * The outer jam (Stmt.opt_jam_outer): when such a j loop is itself the body of a loop r,
 *
 *     loop r N {                      loop r_o N/U {
 *       LETS1                           loop j M {
 *       loop j M {            into        loop k K {
 *         LETS2                             loop r_u U unroll {
 *         loop k K {                          let r = add (mul r_o U) r_u
 *           S                                 LETS1  LETS2  S
 *         }                             } } } }
 *       }
 *     }
 *
 * (the N % U left over as written), U iterations of r side by side instead of U of j. Each
 * block of U iterations of r then reads what j selects (A[s,t] of the product above, every
 * row of A) once instead of U times: for PolyBench's L L^T over 2000^3, 8 GB from memory
 * instead of 64. Legality: the iterations of r are independent (loop_independent(): no
 * element one writes is read or written by another), so they may interleave in
 * any way; within each, j and k keep their order. LETS1 load nothing (nothing in them can
 * fault, and the accesses of j's body are proven in bounds: interchange_legal()) and the
 * bounds of j and k are literals (they move outside r_u, with no check on entry); no scalar
 * alloc is used (no privatisation or expansion is in play).
 *
 * The swapped jam (Stmt.opt_jam_swap): the same blocks of j for a nest written with k
 * outside, `loop k K { loop j J { S } }` where S reads a column (a stride other than 1 in
 * j: PolyBench's syrk, C[i,j] += A[i,k] A[j,k]), as `loop j_o (div J U) { loop k K { loop
 * j_u U unroll { let j = ...  S } } }` and the J mod U values of j left over, the last ones,
 * in `loop k K { loop j_r (mod J U) { ... } }`. Legality: interchange_swap_legal() (every
 * written element belongs to one j, so distinct j may run in any order; J is invariant in
 * k, which lets it be triangular, `(add i 1)`).
 *
 * The sunk jam (Stmt.opt_jam_sink): a reduction loop written outside two loops whose inner
 * one reads a column, `loop t T { loop r R { loop s S { BODY } } }` -- PolyBench's set-up
 * of cholesky, lu and ludcmp, B[r,s] += A[r,t] A[s,t], which sweeps the whole of B for
 * every t and gathers A[s,t] down a column -- runs as the outer jam of r over the nest with
 * t innermost:
 *
 *     loop r_o R/U { loop s S { loop t T { loop r_u U unroll { let r = add (mul r_o U) r_u
 *       BODY } } } }
 *     loop r_r R%U { let r = add r_r R-R%U  loop s S { loop t T { BODY } } }
 *
 * Legality: interchange_sink_legal() (each written element belongs to one (r, s), so
 * instances of distinct (r, s) may run in any order and side by side, and each element
 * keeps its t order; the bounds are invariant in the nest). It pays when every access that
 * uses t reads along a row in it.
 */
#include "opt.h"

/* The unroll loops nested in statements S multiply to at most this (docs/language.md
 * 6.2.2 allows UIR_UNROLL_MAX_NESTED). */
static int64_t unroll_inside(const Stmt *s)
{
	int64_t most = 1;
	for (; s; s = s->next) {
		int64_t n = 1;
		if (s->kind == ST_LOOP) {
			n = (s->axis == AX_UNROLL ? s->bound_lit : 1) * unroll_inside(s->body);
		} else if (s->kind == ST_IF) {
			int64_t t = unroll_inside(s->then_), e = unroll_inside(s->else_);
			n = t > e ? t : e;
		}
		if (n > most)
			most = n;
	}
	return most;
}

/* Whether a jam of loop J, which adds an unroll loop of OPT_JAM around statements COPIED
 * (J's body, or the body of the loop inside it), leaves a program that checks and stays
 * small: the OPT_JAM copies of COPIED stay under an eighth of the unrolling limit, the
 * unroll loops around and inside J times OPT_JAM stay within docs/language.md 6.2.2's
 * UIR_UNROLL_MAX_NESTED, and J is not in a grid or a block (where the left-over loop's
 * second form of each offset would need the exact analysis on the kernel, which may not
 * decide it). */
bool jam_fits(const Stmt *j, const Stmt *copied)
{
	if (stmts_code_size(copied) * OPT_JAM > UIR_UNROLL_MAX_SIZE / 8)
		return false;
	int64_t around = 1;
	for (const Stmt *a = j->parent; a; a = a->parent) {
		if (a->kind != ST_LOOP)
			continue;
		if (a->axis == AX_GLOBAL || a->axis == AX_LOCAL)
			return false;
		if (a->axis == AX_UNROLL)
			around *= a->bound_lit;
	}
	return around * unroll_inside(j->body) * OPT_JAM <= UIR_UNROLL_MAX_NESTED;
}

int jam_candidate(UirProgram *p, const Stmt *j)
{
	if (j->kind != ST_LOOP || j->axis != AX_NONE || j->bound_lit < 2 * OPT_JAM || !jam_fits(j, j->body))
		return 0;
	bool red = false;
	const Stmt *k = interchange_legal(p, j, &red);
	if (!k || !red || !k->value->rng.known || k->value->rng.hi <= OPT_EXPAND_MIN_TRIPS)
		return 0;
	if (!rewrite_layout_ok(p, j, NULL) || !rewrite_layout_ok(p, k, NULL))
		return 0;
	return OPT_JAM;
}

/* Whether E or an expression inside it has HIT. */
static bool expr_any(const Expr *e, bool (*hit)(const Expr *))
{
	if (e->kind != EX_OP)
		return false;
	if (hit(e))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_any(e->args[i], hit))
			return true;
	return false;
}

static bool is_load(const Expr *e)
{
	return e->op == OP_LOAD;
}

/* Whether M is an alloc the scalar expansion may take (opt.h, OPT_EXPAND_SCALAR). */
static bool small_alloc(const Mem *m)
{
	return m && m->is_alloc && m->size <= OPT_EXPAND_SCALAR;
}

static bool loads_small_alloc(const Expr *e)
{
	return e->op == OP_LOAD && small_alloc(e->mem);
}

static bool expr_uses_alloc(const Expr *e)
{
	return expr_any(e, loads_small_alloc);
}

/* Whether statements S use no alloc the scalar expansion may take, and hold only lets,
 * stores and plain loops. */
static bool plain_buffers_only(const Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			if (expr_uses_alloc(s->value))
				return false;
			break;
		case ST_STORE:
			if (small_alloc(s->mem) || expr_uses_alloc(s->off) || expr_uses_alloc(s->val))
				return false;
			break;
		case ST_LOOP:
			if ((s->axis != AX_NONE && s->axis != AX_UNROLL) || expr_uses_alloc(s->value) ||
			    !plain_buffers_only(s->body))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

int jam_outer_candidate(UirProgram *p, const Stmt *r)
{
	if (r->kind != ST_LOOP || r->axis != AX_NONE || r->bound_lit < 2 * OPT_JAM || !jam_fits(r, r->body))
		return 0;
	const Stmt *j = r->body;
	for (; j && j->kind == ST_LET; j = j->next)
		if (expr_any(j->value, is_load))
			return 0;
	if (!j || j->kind != ST_LOOP || j->next || j->value->kind != EX_LIT || !plain_buffers_only(r->body))
		return 0;
	/* j would be jammed over its k loop, which is the body of j after its lets */
	if (interchange_inner(p, j) || !jam_candidate(p, j))
		return 0;
	const Stmt *k = j->body;
	while (k->kind == ST_LET)
		k = k->next;
	if (k->kind != ST_LOOP || k->next || k->value->kind != EX_LIT)
		return 0;
	if (!rewrite_layout_ok(p, r, NULL))
		return 0;
	return loop_independent(p, (Stmt *)r, NULL, NULL) ? OPT_JAM : 0;
}

int jam_sink_candidate(UirProgram *p, const Stmt *t)
{
	if (t->kind != ST_LOOP || t->axis != AX_NONE || !t->value->rng.known || t->value->rng.hi <= OPT_EXPAND_MIN_TRIPS)
		return 0;
	bool pays;
	const Stmt *s = interchange_sink_legal(p, t, &pays), *r = t->body;
	if (!s || !pays || r->bound_lit < 2 * OPT_JAM || !jam_fits(r, s->body))
		return 0;
	if (!rewrite_layout_ok(p, t, NULL) || !rewrite_layout_ok(p, r, NULL) || !rewrite_layout_ok(p, s, NULL))
		return 0;
	return OPT_JAM;
}

int jam_swap_candidate(UirProgram *p, const Stmt *k)
{
	if (k->kind != ST_LOOP || k->axis != AX_NONE || !k->value->rng.known || k->value->rng.hi <= OPT_EXPAND_MIN_TRIPS)
		return 0;
	const Stmt *j = interchange_swap_legal(p, k);
	if (!j || j->value->rng.hi < 2 * OPT_JAM || !jam_fits(j, j->body))
		return 0;
	if (!rewrite_layout_ok(p, k, NULL) || !rewrite_layout_ok(p, j, NULL) || !rewrite_bound_ok(p, j))
		return 0;
	return OPT_JAM;
}

/* ---- the row jam ---- */

/* Whether E and the expressions inside it load only proven in bounds. */
static bool loads_in_bounds(const Expr *e)
{
	if (e->kind != EX_OP)
		return true;
	if (e->op == OP_LOAD && !e->in_bounds)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!loads_in_bounds(e->args[i]))
			return false;
	return true;
}

/* Whether the statements S hold only lets, stores, ifs and plain or unroll loops, every
 * access proven in bounds (no fault can move when the rows interleave), no atomic update
 * (a float sum's bits depend on the order of the updates). */
static bool rows_body_ok(const Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			if (!loads_in_bounds(s->value))
				return false;
			break;
		case ST_STORE:
			if (!s->in_bounds || !loads_in_bounds(s->off) || !loads_in_bounds(s->val))
				return false;
			break;
		case ST_LOOP:
			if ((s->axis != AX_NONE && s->axis != AX_UNROLL) || !loads_in_bounds(s->value) ||
			    !rows_body_ok(s->body))
				return false;
			break;
		case ST_IF:
			if (!loads_in_bounds(s->cond) || !rows_body_ok(s->then_) || !rows_body_ok(s->else_))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Whether the loads of E include one whose offset uses J's index and not I's (read alike by
 * every row). */
static bool shared_load(const Expr *e, const Stmt *i, const Stmt *j)
{
	if (e->kind != EX_OP)
		return false;
	if (e->op == OP_LOAD && expr_refers_to(e->args[0], j->sym) && !expr_refers_to(e->args[0], i->sym))
		return true;
	for (int k = 0; k < e->nargs; k++)
		if (shared_load(e->args[k], i, j))
			return true;
	return false;
}

static bool stmts_share(const Stmt *s, const Stmt *i, const Stmt *j)
{
	for (; s; s = s->next)
		if ((s->kind == ST_LET && shared_load(s->value, i, j)) ||
		    (s->kind == ST_STORE && (shared_load(s->off, i, j) || shared_load(s->val, i, j))) ||
		    (s->kind == ST_IF && (shared_load(s->cond, i, j) || stmts_share(s->then_, i, j) || stmts_share(s->else_, i, j))))
			return true;
	return false;
}

static bool holds_loop(const Stmt *s)
{
	for (; s; s = s->next)
		if (s->kind == ST_LOOP || (s->kind == ST_IF && (holds_loop(s->then_) || holds_loop(s->else_))))
			return true;
	return false;
}

/* The statements S after their lets, when each of those lets loads nothing; else NULL. */
static const Stmt *after_plain_lets(const Stmt *s)
{
	for (; s && s->kind == ST_LET; s = s->next)
		if (expr_any(s->value, is_load))
			return NULL;
	return s;
}

bool jam_row_nest(UirProgram *p, const Stmt *i, const Stmt *n, const Stmt **kp, const Stmt **jp)
{
	if (n->kind != ST_LOOP || n->axis != AX_NONE)
		return false;
	const Stmt *k, *j, *body;
	if ((k = n->opt_inner ? n->opt_inner : interchange_inner(p, n)) != NULL) {
		/* `loop j { LETS loop k { S } }`, run with k outside */
		j = n;
		body = k->body;
	} else { /* `loop k { LETS loop j { S } }`, j already inside */
		k = n;
		j = after_plain_lets(k->body);
		if (!j || j->kind != ST_LOOP || j->next || j->axis != AX_NONE || !row_vectorises(p, j))
			return false;
		body = j->body;
	}
	if (holds_loop(body))
		return false; /* one level of rows: a nest jammed already holds its unroll loop */
	if (!invariant_bound(k->value, i) || !invariant_bound(j->value, i) || !k->value->rng.known ||
	    k->value->rng.hi <= OPT_EXPAND_MIN_TRIPS || !j->value->rng.known || j->value->rng.hi < 2 * OPT_JAM ||
	    !jam_fits(i, body) || !rewrite_layout_ok(p, k, NULL) || !rewrite_layout_ok(p, j, NULL))
		return false;
	*kp = k;
	*jp = j;
	return true;
}

int jam_row_candidate(UirProgram *p, const Stmt *i)
{
	if (i->kind != ST_LOOP || (i->axis != AX_NONE && i->axis != AX_THREAD) || i->value->kind != EX_LIT)
		return 0;
	int u = i->bound_lit % OPT_JAM == 0 ? OPT_JAM : i->bound_lit % 4 == 0 ? 4 : 0;
	if (!u || i->bound_lit < 2 * u || !rows_body_ok(i->body))
		return 0;
	const Stmt *s = after_plain_lets(i->body);
	if (!s)
		return 0;
	bool reuse = false;
	for (; s; s = s->next) {
		const Stmt *k, *j;
		if (s->kind == ST_LET)
			return 0; /* its scope would be cut */
		if (jam_row_nest(p, i, s, &k, &j))
			reuse |= stmts_share(k == s ? j->body : k->body, i, j);
	}
	if (!reuse)
		return 0;
	for (int h = 0; h < i->nhomed; h++) {
		const Mem *m = i->homed[h];
		if ((int64_t)uir_type_size(m->ty) * m->size * u > OPT_ROW_HOMED_BYTES || !rewrite_layout_ok(p, i, m))
			return 0;
	}
	if (!rewrite_layout_ok(p, i, NULL))
		return 0;
	/* a plain loop's iterations must be independent as they are; a `thread` loop's are
	 * (the checker proved it race free), but for the allocs it homes, each row its own */
	if (i->axis == AX_NONE && (i->nhomed || !loop_independent(p, (Stmt *)i, NULL, NULL)))
		return 0;
	return u;
}
