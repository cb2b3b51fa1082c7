/* ranges.c - the value-range analysis of a checked program, computed once and read by
 * every back end (docs/analysis.md, "Value ranges"):
 *
 *   Expr.rng       the values a scalar bool/i8/u8/i32/u32 expression may take;
 *   Expr.nowrap    an add, sub, mul, neg or shl whose exact result always fits its type,
 *                  so the LLVM lowering may mark it nsw/nuw and the renderers may use the
 *                  plain C operator;
 *   in_bounds      a load (Expr), store or atomic (Stmt) whose every element lies in its
 *                  memory, so no back end needs a bounds check there.
 *
 * An interval analysis: literals are exact; a loop index lies in [0, largest bound - 1]
 * (empty when the bound is never positive: the body never runs); a let has its value's
 * range; inside the branches of an `if` the names its condition compares are narrowed
 * (`if (lt x 300)` gives x <= 299 in the then-branch, x >= 300 in the else-branch). Each
 * op's interval follows the op's definition in docs/language.md, its wrapping included:
 * a result whose exact value may leave its type's range gets the whole range. A load claims
 * nothing beyond its type, but in a run whose INITs stand (UirProgram.inits_stand) one from
 * a buffer never stored and not replaced by --input, which has its INIT's values
 * (init_range()); everything that is not a small scalar integer claims nothing.
 *
 * An access inside loops that the intervals do not show in bounds is then asked of ISL
 * (check/conflict_isl.c), when its offset is quasi-affine in the loop indices and loads
 * nothing: the loops' bounds and the ifs' conditions as constraints, so a triangular nest,
 * `loop jj (sub N i) { let j = add jj i ... }`, has j < N (at most RANGE_ISL_QUESTIONS
 * questions a program, under the checker's ISL operation budget).
 *
 * The analysis only proves: a fact is set only when it holds on every run, for every input
 * the run can be given.
 * One pass over the tree, an undo list for the narrowed names: linear in the program.
 */
#include "uir_internal.h"
#include "conflict_isl.h"
#include <stdlib.h>
#include <string.h>

static const int64_t I32_MIN = -2147483647 - 1, I32_MAX = 2147483647;

static bool type_range(UirType t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case UIR_BOOL: *lo = 0; *hi = 1; return true;
	case UIR_I8: *lo = -128; *hi = 127; return true;
	case UIR_U8: *lo = 0; *hi = 255; return true;
	case UIR_I32: *lo = I32_MIN; *hi = I32_MAX; return true;
	case UIR_U32: *lo = 0; *hi = 4294967295LL; return true;
	default: return false;
	}
}

Range range_full(UirType t)
{
	Range r = { 0, 0, false };
	r.known = type_range(t, &r.lo, &r.hi);
	return r;
}

bool range_empty(Range r)
{
	return r.known && r.lo > r.hi;
}

bool range_within(Range r, int64_t lo, int64_t hi)
{
	return r.known && r.lo <= r.hi && r.lo >= lo && r.hi <= hi;
}

static const Range NONE = { 0, 0, false };
static const Range EMPTY = { 0, -1, true };

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

/* [LO, HI] (exact values, in 128 bits) when it lies in T's range: the op cannot wrap
 * (*NOWRAP set); else T's whole range. */
static Range fit(UirType t, __int128 lo, __int128 hi, bool *nowrap)
{
	Range f = range_full(t);
	if (f.known && lo >= f.lo && hi <= f.hi && lo <= hi) {
		if (nowrap)
			*nowrap = true;
		return (Range){ (int64_t)lo, (int64_t)hi, true };
	}
	return f;
}

/* The hull of the four products of the corners of A and B. */
static Range mul_range(UirType t, Range a, Range b, bool *nowrap)
{
	__int128 p[4] = { (__int128)a.lo * b.lo, (__int128)a.lo * b.hi, (__int128)a.hi * b.lo, (__int128)a.hi * b.hi };
	__int128 lo = p[0], hi = p[0];
	for (int i = 1; i < 4; i++) {
		lo = p[i] < lo ? p[i] : lo;
		hi = p[i] > hi ? p[i] : hi;
	}
	return fit(t, lo, hi, nowrap);
}

/* Truncating division, x / 0 = 0, T_MIN / -1 wrapping (docs/language.md, `div`): for a
 * fixed divisor of one sign the quotient is monotone in each operand, so the extremes lie
 * at the corners of each sign's part of B; 0 joins when B holds 0. */
static Range div_range(UirType t, Range a, Range b)
{
	__int128 lo = 0, hi = 0;
	bool any = false;
	Range part[2] = { { max2(b.lo, 1), b.hi, true }, { b.lo, min2(b.hi, -1), true } };
	for (int k = 0; k < 2; k++) {
		Range d = part[k];
		if (d.lo > d.hi)
			continue;
		__int128 q[4] = { (__int128)a.lo / d.lo, (__int128)a.lo / d.hi, (__int128)a.hi / d.lo, (__int128)a.hi / d.hi };
		for (int i = 0; i < 4; i++) {
			if (!any || q[i] < lo)
				lo = q[i];
			if (!any || q[i] > hi)
				hi = q[i];
			any = true;
		}
	}
	if (b.lo <= 0 && b.hi >= 0) {
		lo = !any || lo > 0 ? 0 : lo;
		hi = !any || hi < 0 ? 0 : hi;
	}
	return fit(t, lo, hi, NULL);
}

/* Remainder with the sign of the dividend, |x % d| <= min(|x|, |d| - 1), x % 0 = x. */
static Range mod_range(UirType t, Range a, Range b)
{
	if (b.lo <= 0 && b.hi >= 0)
		return fit(t, min2(a.lo, 0), max2(a.hi, 0), NULL);
	int64_t m = max2(b.lo < 0 ? -b.lo : b.lo, b.hi < 0 ? -b.hi : b.hi) - 1;
	return fit(t, a.lo >= 0 ? 0 : max2(a.lo, -m), a.hi <= 0 ? 0 : min2(a.hi, m), NULL);
}

/* A shift count as the op uses it: taken modulo the bit width N. */
static Range count_range(Range c, int n)
{
	if (c.lo >= 0 && c.hi <= n - 1)
		return c;
	if (c.lo == c.hi)
		return (Range){ c.lo & (n - 1), c.lo & (n - 1), true };
	return (Range){ 0, n - 1, true };
}

/* a >> k rounding toward minus infinity (arithmetic shift of the value). */
static int64_t shr_floor(int64_t a, int64_t k)
{
	return a >= 0 ? a >> k : -((-a - 1) >> k) - 1;
}

/* The smallest 2^n - 1 that is >= v (v >= 0). */
static int64_t ones_above(int64_t v)
{
	int64_t m = 0;
	while (m < v)
		m = m * 2 + 1;
	return m;
}

static Range shift_range(const Expr *e, Range a, Range c, bool *nowrap)
{
	UirType t = e->ty;
	Range k = count_range(c, type_bits(t));
	if (e->op == OP_SHL) {
		__int128 lo = a.lo >= 0 ? (__int128)a.lo << k.lo : (__int128)a.lo * ((__int128)1 << k.hi);
		__int128 hi = a.hi <= 0 ? (__int128)a.hi * ((__int128)1 << k.lo) : (__int128)a.hi << k.hi;
		return fit(t, lo, hi, nowrap);
	}
	/* shr: arithmetic on signed types, logical on unsigned ones (whose values are >= 0) */
	int64_t lo = a.lo >= 0 ? a.lo >> k.hi : shr_floor(a.lo, k.lo);
	int64_t hi = a.hi >= 0 ? a.hi >> k.lo : shr_floor(a.hi, k.hi);
	return fit(t, lo, hi, NULL);
}

static Range bits_range(const Expr *e, Range a, Range b)
{
	UirType t = e->ty;
	if (t == UIR_BOOL) {
		switch (e->op) {
		case OP_AND: return (Range){ a.lo & b.lo, a.hi & b.hi, true };
		case OP_OR: return (Range){ a.lo | b.lo, a.hi | b.hi, true };
		default: return range_full(t);
		}
	}
	if (e->op == OP_AND) {
		if (a.lo >= 0 && b.lo >= 0)
			return (Range){ 0, min2(a.hi, b.hi), true };
		if (a.lo >= 0)
			return (Range){ 0, a.hi, true };
		if (b.lo >= 0)
			return (Range){ 0, b.hi, true };
		return range_full(t);
	}
	if (a.lo >= 0 && b.lo >= 0)
		return fit(t, e->op == OP_OR ? max2(a.lo, b.lo) : 0, ones_above(max2(a.hi, b.hi)), NULL);
	return range_full(t);
}

/* A compare whose outcome the ranges decide: [1, 1] or [0, 0], else [0, 1]. */
static Range compare_range(Op op, Range a, Range b)
{
	bool t = false, f = false; /* always true / always false */
	switch (op) {
	case OP_LT: t = a.hi < b.lo; f = a.lo >= b.hi; break;
	case OP_LE: t = a.hi <= b.lo; f = a.lo > b.hi; break;
	case OP_GT: t = a.lo > b.hi; f = a.hi <= b.lo; break;
	case OP_GE: t = a.lo >= b.hi; f = a.hi < b.lo; break;
	case OP_EQ: t = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo; f = a.hi < b.lo || b.hi < a.lo; break;
	case OP_NE: f = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo; t = a.hi < b.lo || b.hi < a.lo; break;
	default: break;
	}
	return t ? (Range){ 1, 1, true } : f ? (Range){ 0, 0, true } : range_full(UIR_BOOL);
}

/* The range of op E from its operands' ranges A; *NOWRAP as for Expr.nowrap. */
static Range op_range(const Expr *e, const Range *a, bool *nowrap)
{
	UirType t = e->ty;
	*nowrap = false;
	if (e->lanes != 1)
		return NONE;
	int n = e->nargs < 3 ? e->nargs : 3;
	switch (e->op) {
	case OP_LOAD:
	case OP_LANE:
		return range_full(t);
	case OP_VEC:
	case OP_SPLAT:
		return NONE;
	default:
		break;
	}
	for (int i = 0; i < n; i++)
		if (range_empty(a[i]))
			return EMPTY;
	Range full = range_full(t);
	if (!full.known)
		return NONE;
	switch (e->op) {
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
		if (!a[0].known || !a[1].known)
			return full;
		return compare_range(e->op, a[0], a[1]);
	case OP_SELECT:
		if (!a[1].known || !a[2].known)
			return full;
		if (a[0].known && a[0].lo == a[0].hi)
			return a[0].lo ? a[1] : a[2];
		return (Range){ min2(a[1].lo, a[2].lo), max2(a[1].hi, a[2].hi), true };
	case OP_CAST:
		if (!a[0].known)
			return full;
		return fit(t, a[0].lo, a[0].hi, NULL);
	case OP_BITCAST:
		return full;
	default:
		break;
	}
	for (int i = 0; i < n; i++)
		if (!a[i].known)
			return full;
	if (t == UIR_BOOL) {
		if (e->op == OP_NOT)
			return (Range){ 1 - a[0].hi, 1 - a[0].lo, true };
		if (e->op == OP_AND || e->op == OP_OR)
			return bits_range(e, a[0], a[1]);
		return full;
	}
	Range x = a[0], y = n > 1 ? a[1] : a[0];
	switch (e->op) {
	case OP_ADD: return fit(t, (__int128)x.lo + y.lo, (__int128)x.hi + y.hi, nowrap);
	case OP_SUB: return fit(t, (__int128)x.lo - y.hi, (__int128)x.hi - y.lo, nowrap);
	case OP_MUL: return mul_range(t, x, y, nowrap);
	case OP_NEG: return fit(t, -(__int128)x.hi, -(__int128)x.lo, nowrap);
	case OP_DIV: return div_range(t, x, y);
	case OP_MOD: return mod_range(t, x, y);
	case OP_ABS:
		if (x.lo >= 0)
			return x;
		if (x.hi <= 0)
			return fit(t, -(__int128)x.hi, -(__int128)x.lo, NULL);
		return fit(t, 0, max2(-x.lo, x.hi), NULL);
	case OP_MIN: return (Range){ min2(x.lo, y.lo), min2(x.hi, y.hi), true };
	case OP_MAX: return (Range){ max2(x.lo, y.lo), max2(x.hi, y.hi), true };
	case OP_NOT: /* ~x: -x - 1 on signed types, (2^N - 1) - x on unsigned ones */
		return type_is_signed(t) ? (Range){ -x.hi - 1, -x.lo - 1, true } : (Range){ full.hi - x.hi, full.hi - x.lo, true };
	case OP_AND:
	case OP_OR:
	case OP_XOR: return bits_range(e, x, y);
	case OP_SHL:
	case OP_SHR: return shift_range(e, x, y, nowrap);
	default: return full;
	}
}

/* ---- the walk ---- */

typedef struct Undo { int slot; Range r; } Undo;

/* The values a load of M may give: those of its INIT, when the check is for a run whose
 * INITs stand (UirProgram.inits_stand: `run`, `uir opt`), M is a buffer the program never
 * stores and no --input replaces it -- `zeros`, `fill V`, `iota`, `random SEED LO HI` (--seed
 * draws in the same range); else its type's. */
static Range init_range(const UirProgram *p, const Mem *m)
{
	Range full = range_full(m->ty);
	if (!full.known || !p->inits_stand || m->is_alloc || m->stored || m->replaced)
		return full;
	switch (m->init) {
	case INIT_ZEROS:
		return (Range){ 0, 0, true };
	case INIT_FILL: {
		const Expr *v = m->fill;
		if (!v || v->kind != EX_LIT || v->ty != m->ty)
			return full;
		int64_t x = m->ty == UIR_BOOL ? v->val.u != 0 : type_is_signed(m->ty) ? v->val.i : (int64_t)v->val.u;
		return range_within((Range){ x, x, true }, full.lo, full.hi) ? (Range){ x, x, true } : full;
	}
	case INIT_IOTA:
		return m->size - 1 <= full.hi ? (Range){ 0, m->size - 1, true } : full;
	case INIT_RANDOM: {
		if (!m->has_range || m->rwidth == 0 || m->rwidth > (uint64_t)(full.hi - full.lo))
			return full;
		int64_t lo = type_is_signed(m->ty) ? (int64_t)m->rlo : (int64_t)(uint64_t)m->rlo;
		int64_t hi = lo + (int64_t)m->rwidth - 1;
		return lo >= full.lo && hi <= full.hi ? (Range){ lo, hi, true } : full;
	}
	default:
		return full;
	}
}

typedef struct RangeCtx {
	UirProgram *p;
	Range *env;      /* by Sym.slot: the range of each let and loop index in scope */
	Undo *undo;      /* narrowed names, to restore after a branch */
	int nundo, capundo;
} RangeCtx;

static Range expr(RangeCtx *c, Expr *e);

static Range expr_range(RangeCtx *c, Expr *e)
{
	switch (e->kind) {
	case EX_LIT:
		if (e->lanes != 1 || !range_full(e->ty).known)
			return NONE;
		if (e->ty == UIR_BOOL)
			return (Range){ e->val.u != 0, e->val.u != 0, true };
		{
			int64_t v = type_is_signed(e->ty) ? e->val.i : (int64_t)e->val.u;
			return (Range){ v, v, true };
		}
	case EX_NAME:
		if (!e->sym || e->sym->kind == SYM_MEM || e->lanes != 1)
			return NONE;
		return c->env[e->sym->slot];
	case EX_OP:
		break;
	}
	Range a[3] = { NONE, NONE, NONE };
	for (int i = 0; i < e->nargs; i++) {
		Range r = expr(c, e->args[i]);
		if (i < 3)
			a[i] = r;
	}
	if (e->op == OP_LOAD) {
		e->in_bounds = range_within(a[0], 0, e->mem->size - e->width);
		if (e->lanes == 1 && e->nargs == 1)
			return init_range(c->p, e->mem);
	}
	return op_range(e, a, &e->nowrap);
}

static Range expr(RangeCtx *c, Expr *e)
{
	e->rng = expr_range(c, e);
	return e->rng;
}

static void set_slot(RangeCtx *c, int slot, Range r)
{
	if (c->nundo == c->capundo) {
		c->capundo = c->capundo ? 2 * c->capundo : 16;
		c->undo = xrealloc(c->undo, (size_t)c->capundo * sizeof *c->undo);
	}
	c->undo[c->nundo++] = (Undo){ slot, c->env[slot] };
	c->env[slot] = r;
}

static void restore(RangeCtx *c, int mark)
{
	while (c->nundo > mark) {
		c->nundo--;
		c->env[c->undo[c->nundo].slot] = c->undo[c->nundo].r;
	}
}

/* Narrows the name X (if it is a scalar integer let or loop index) to [LO, HI]. */
static void narrow(RangeCtx *c, const Expr *x, int64_t lo, int64_t hi)
{
	if (x->kind != EX_NAME || !x->sym || x->sym->kind == SYM_MEM || x->lanes != 1 || x->ty == UIR_BOOL)
		return;
	Range r = c->env[x->sym->slot];
	if (!r.known || range_empty(r))
		return;
	r.lo = max2(r.lo, lo);
	r.hi = min2(r.hi, hi);
	if (r.lo > r.hi)
		r = EMPTY; /* the branch cannot run */
	set_slot(c, x->sym->slot, r);
}

/* Narrows with X < Y (STRICT) or X <= Y, from the ranges the operands had. */
static void less(RangeCtx *c, const Expr *x, const Expr *y, bool strict)
{
	Range rx = x->rng, ry = y->rng;
	if (!rx.known || !ry.known || range_empty(rx) || range_empty(ry))
		return;
	int64_t d = strict ? 1 : 0;
	narrow(c, x, INT64_MIN / 4, ry.hi - d);
	narrow(c, y, rx.lo + d, INT64_MAX / 4);
}

/* What condition COND being TRUTH says about the names it compares. */
static void refine(RangeCtx *c, const Expr *cond, bool truth)
{
	if (cond->kind != EX_OP || cond->lanes != 1)
		return;
	switch (cond->op) {
	case OP_AND:
		if (truth && cond->ty == UIR_BOOL) {
			refine(c, cond->args[0], true);
			refine(c, cond->args[1], true);
		}
		return;
	case OP_OR:
		if (!truth && cond->ty == UIR_BOOL) {
			refine(c, cond->args[0], false);
			refine(c, cond->args[1], false);
		}
		return;
	case OP_NOT:
		if (cond->ty == UIR_BOOL)
			refine(c, cond->args[0], !truth);
		return;
	default:
		break;
	}
	if (cond->nargs != 2 || !range_full(cond->args[0]->ty).known || cond->args[0]->ty == UIR_BOOL)
		return;
	const Expr *x = cond->args[0], *y = cond->args[1];
	switch (cond->op) { /* not (x < y) is y <= x, and so on */
	case OP_LT: truth ? less(c, x, y, true) : less(c, y, x, false); return;
	case OP_LE: truth ? less(c, x, y, false) : less(c, y, x, true); return;
	case OP_GT: truth ? less(c, y, x, true) : less(c, x, y, false); return;
	case OP_GE: truth ? less(c, y, x, false) : less(c, x, y, true); return;
	case OP_EQ:
	case OP_NE:
		if ((cond->op == OP_EQ) == truth) {
			less(c, x, y, false);
			less(c, y, x, false);
		}
		return;
	default:
		return;
	}
}

/* The range of a loop index whose bound has range B: [0, B.hi - 1], empty when the bound
 * is never positive. */
static Range index_range(Range b)
{
	int64_t hi = b.known ? min2(b.hi, I32_MAX) : I32_MAX;
	if (range_empty(b) || hi < 1)
		return EMPTY;
	return (Range){ 0, hi - 1, true };
}

/* The range of `add v L` (E, range R), v the index of a loop with bound `sub H L`, L a
 * let: inside the loop 0 <= v < H - L, so L <= v + L < H when neither op wraps (the loops
 * of a time skew, docs/llvm.md "Time skewing"). R otherwise. */
static Range offset_in_loop(RangeCtx *c, Range r, const Expr *e)
{
	if (e->kind != EX_OP || e->op != OP_ADD || e->nargs != 2 || !e->nowrap || !r.known || range_empty(r))
		return r;
	for (int k = 0; k < 2; k++) {
		const Expr *v = e->args[k], *l = e->args[1 - k];
		if (v->kind != EX_NAME || !v->sym || v->sym->kind != SYM_LOOP || l->kind != EX_NAME || !l->sym ||
		    l->sym->kind != SYM_LET)
			continue;
		const Expr *b = v->sym->def->value;
		if (b->kind != EX_OP || b->op != OP_SUB || b->nargs != 2 || !b->nowrap || b->args[1]->kind != EX_NAME ||
		    b->args[1]->sym != l->sym || !b->args[0]->rng.known || !c->env[l->sym->slot].known)
			continue;
		r.lo = max2(r.lo, c->env[l->sym->slot].lo);
		r.hi = min2(r.hi, b->args[0]->rng.hi - 1);
		if (r.lo > r.hi)
			r = EMPTY;
		return r;
	}
	return r;
}

static void stmts(RangeCtx *c, Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			c->env[s->sym->slot] = offset_in_loop(c, expr(c, s->value), s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC: {
			Range r = expr(c, s->off);
			expr(c, s->val);
			s->in_bounds = range_within(r, 0, s->mem->size - (s->kind == ST_STORE ? s->width : 1));
			break;
		}
		case ST_LOOP:
			c->env[s->sym->slot] = index_range(expr(c, s->value));
			stmts(c, s->body);
			break;
		case ST_IF: {
			expr(c, s->cond);
			int mark = c->nundo;
			refine(c, s->cond, true);
			stmts(c, s->then_);
			restore(c, mark);
			refine(c, s->cond, false);
			stmts(c, s->else_);
			restore(c, mark);
			break;
		}
		case ST_BUFFER:
		case ST_ALLOC:
			break;
		}
	}
}

/* ---- accesses shown in bounds by ISL ---- */

enum { RANGE_ISL_QUESTIONS = 256, RANGE_ISL_DEPTH = 64 };

typedef struct Exact {
	UirProgram *p;
	struct isl_ctx *ctx;
	int asked;
	Stmt *loops[RANGE_ISL_DEPTH];
	int nloops;
	const Stmt *ifs[RANGE_ISL_DEPTH];
	bool thens[RANGE_ISL_DEPTH];
	int nifs;
	bool deep; /* inside more than RANGE_ISL_DEPTH loops: nothing asked */
} Exact;

/* Whether E, lets inlined, loads nothing: an offset that loads is never shown in bounds
 * (isl_in_bounds() translates no load), so it is not asked and spends no question. */
static bool loads_nothing(const Expr *e, int depth)
{
	if (depth > 64)
		return false;
	if (e->kind == EX_NAME)
		return !(e->sym && e->sym->kind == SYM_LET && e->sym->def) || loads_nothing(e->sym->def->value, depth + 1);
	if (e->kind != EX_OP)
		return true;
	if (e->op == OP_LOAD)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!loads_nothing(e->args[i], depth + 1))
			return false;
	return true;
}

static bool ask_in_bounds(Exact *x, const Expr *off, int width, int64_t size)
{
	if (x->deep || x->nloops == 0 || x->asked >= RANGE_ISL_QUESTIONS || off->lanes != 1 || !loads_nothing(off, 0))
		return false;
	if (!x->ctx)
		x->ctx = isl_budget_ctx();
	x->asked++;
	IslAccess a = { .off = off, .width = width, .loops = x->loops, .nloops = x->nloops,
			.ifs = x->ifs, .thens = x->thens, .nifs = x->nifs };
	return isl_in_bounds(x->p, x->ctx, &a, size);
}

static void exact_expr(Exact *x, Expr *e)
{
	if (e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		exact_expr(x, e->args[i]);
	if (e->op == OP_LOAD && !e->in_bounds)
		e->in_bounds = ask_in_bounds(x, e->args[0], e->width > 1 ? e->width : 1, e->mem->size);
}

static void exact_stmts(Exact *x, Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			exact_expr(x, s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			exact_expr(x, s->off);
			exact_expr(x, s->val);
			if (!s->in_bounds)
				s->in_bounds = ask_in_bounds(x, s->off, s->kind == ST_STORE && s->width > 1 ? s->width : 1,
							     s->mem->size);
			break;
		case ST_LOOP: {
			exact_expr(x, s->value);
			if (x->nloops == RANGE_ISL_DEPTH) { /* its index could not be named */
				bool deep = x->deep;
				x->deep = true;
				exact_stmts(x, s->body);
				x->deep = deep;
				break;
			}
			x->loops[x->nloops++] = s;
			exact_stmts(x, s->body);
			x->nloops--;
			break;
		}
		case ST_IF:
			/* past RANGE_ISL_DEPTH an if is left out, which only makes the set larger; so
			 * is a condition that loads (isl_in_bounds() never translates a load) */
			exact_expr(x, s->cond);
			for (int b = 0; b < 2; b++) {
				bool push = x->nifs < RANGE_ISL_DEPTH;
				if (push) {
					x->ifs[x->nifs] = s;
					x->thens[x->nifs++] = b == 0;
				}
				exact_stmts(x, b == 0 ? s->then_ : s->else_);
				if (push)
					x->nifs--;
			}
			break;
		default:
			break;
		}
	}
}

void ranges_compute(UirProgram *p)
{
	RangeCtx c = { p, NULL, NULL, 0, 0 };
	c.env = xmalloc((size_t)p->nslots * sizeof *c.env + 1);
	for (int i = 0; i < p->nslots; i++)
		c.env[i] = NONE;
	stmts(&c, p->top);
	free(c.env);
	free(c.undo);
	Exact x = { .p = p };
	exact_stmts(&x, p->top);
	if (x.ctx)
		isl_budget_free(x.ctx);
}
