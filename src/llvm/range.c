/* range.c - interval arithmetic on the small integer values of a program (bool, i8, u8,
 * i32, u32), used by the LLVM lowering to leave out bounds checks that cannot fail and to
 * mark arithmetic that cannot wrap (nsw/nuw), which lets LLVM's loop analyses see affine
 * offsets.
 *
 * Every interval is sound: it holds every value the expression can take when it runs,
 * with i32 arithmetic wrapping exactly as the program defines it (an op whose exact result
 * may leave its type's range gets the whole range). Loop indices run over 0 .. bound - 1;
 * an `if` narrows the names its condition compares (rng_refine), so `if (lt x 300)`
 * proves `x <= 299` inside its then-branch.
 */
#include "lower.h"

static const int64_t I32_MIN = -2147483647 - 1, I32_MAX = 2147483647;

/* The range of type T, false for types without one here. */
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

Rng rng_full(UirType t)
{
	Rng r = { 0, 0, false };
	r.known = type_range(t, &r.lo, &r.hi);
	return r;
}

Rng rng_lit(UirType t, Scalar v)
{
	Rng r = rng_full(t);
	if (!r.known)
		return r;
	int64_t x = type_is_signed(t) ? v.i : (int64_t)v.u;
	if (t == UIR_BOOL)
		x = v.u != 0;
	r.lo = r.hi = x;
	return r;
}

/* [LO, HI] when it lies inside T's range (the op did not wrap), else T's whole range. */
static Rng fit(UirType t, int64_t lo, int64_t hi, bool *exact)
{
	Rng f = rng_full(t);
	if (f.known && lo >= f.lo && hi <= f.hi && lo <= hi) {
		if (exact)
			*exact = true;
		return (Rng){ lo, hi, true };
	}
	return f;
}

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t mag(int64_t a) { return a < 0 ? -a : a; }

/* a >> k rounding toward minus infinity, without shifting a negative number. */
static int64_t shr_floor(int64_t a, int k)
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

/* The literal value of a shift count or divisor operand, if it is a known single value. */
static bool single(Rng r, int64_t *v)
{
	if (!r.known || r.lo != r.hi)
		return false;
	*v = r.lo;
	return true;
}

static Rng arith(const Expr *e, const Rng *a, bool *exact)
{
	UirType t = e->ty;
	Rng x = a[0], y = e->nargs > 1 ? a[1] : a[0];
	int64_t k;
	switch (e->op) {
	case OP_ADD:
		return fit(t, x.lo + y.lo, x.hi + y.hi, exact);
	case OP_SUB:
		return fit(t, x.lo - y.hi, x.hi - y.lo, exact);
	case OP_MUL: {
		/* products stay below 2^62 */
		if (max2(mag(x.lo), mag(x.hi)) > ((int64_t)1 << 31) || max2(mag(y.lo), mag(y.hi)) > ((int64_t)1 << 31))
			return rng_full(t);
		int64_t p[4] = { x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi };
		int64_t lo = p[0], hi = p[0];
		for (int i = 1; i < 4; i++) {
			lo = min2(lo, p[i]);
			hi = max2(hi, p[i]);
		}
		return fit(t, lo, hi, exact);
	}
	case OP_DIV:
		if (y.lo <= 0)
			return rng_full(t);
		{
			int64_t q[4] = { x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi };
			int64_t lo = q[0], hi = q[0];
			for (int i = 1; i < 4; i++) {
				lo = min2(lo, q[i]);
				hi = max2(hi, q[i]);
			}
			return fit(t, lo, hi, NULL);
		}
	case OP_MOD:
		if (y.lo <= 0)
			return rng_full(t);
		if (x.lo >= 0)
			return fit(t, 0, min2(x.hi, y.hi - 1), NULL);
		if (x.hi <= 0)
			return fit(t, max2(x.lo, -(y.hi - 1)), 0, NULL);
		return fit(t, -(y.hi - 1), y.hi - 1, NULL);
	case OP_NEG:
		return fit(t, -x.hi, -x.lo, exact);
	case OP_ABS:
		if (!type_is_signed(t) || x.lo >= 0)
			return x;
		if (x.hi <= 0)
			return fit(t, -x.hi, -x.lo, NULL);
		return fit(t, 0, max2(-x.lo, x.hi), NULL);
	case OP_MIN:
		return (Rng){ min2(x.lo, y.lo), min2(x.hi, y.hi), true };
	case OP_MAX:
		return (Rng){ max2(x.lo, y.lo), max2(x.hi, y.hi), true };
	case OP_AND:
		if (x.lo >= 0 && y.lo >= 0)
			return (Rng){ 0, min2(x.hi, y.hi), true };
		if (x.lo >= 0)
			return (Rng){ 0, x.hi, true };
		if (y.lo >= 0)
			return (Rng){ 0, y.hi, true };
		return rng_full(t);
	case OP_OR:
	case OP_XOR:
		if (x.lo >= 0 && y.lo >= 0)
			return fit(t, 0, ones_above(max2(x.hi, y.hi)), NULL);
		return rng_full(t);
	case OP_SHL:
		if (!single(y, &k) || k < 0 || k >= type_bits(t))
			return rng_full(t);
		if (max2(mag(x.lo), mag(x.hi)) > ((int64_t)1 << 32) || k > 30)
			return rng_full(t);
		return fit(t, x.lo * ((int64_t)1 << k), x.hi * ((int64_t)1 << k), exact);
	case OP_SHR:
		if (!single(y, &k) || k < 0 || k >= type_bits(t))
			return rng_full(t);
		return fit(t, shr_floor(x.lo, (int)k), shr_floor(x.hi, (int)k), NULL);
	default:
		return rng_full(t);
	}
}

Rng rng_op(const Expr *e, const Rng *a, bool *exact)
{
	if (exact)
		*exact = false;
	if (e->lanes != 1)
		return (Rng){ 0, 0, false };
	UirType t = e->ty;
	switch (e->op) {
	case OP_LOAD:
		return rng_full(e->mem->ty);
	case OP_SELECT: {
		Rng b = a[1], c = a[2];
		if (!b.known || !c.known)
			return rng_full(t);
		return (Rng){ min2(b.lo, c.lo), max2(b.hi, c.hi), true };
	}
	case OP_CAST: {
		Rng x = a[0];
		UirType from = e->args[0]->ty;
		if (from == UIR_BOOL)
			return fit(t, 0, 1, NULL);
		if (!type_is_int(from) || !x.known || !type_is_int(t))
			return rng_full(t);
		return fit(t, x.lo, x.hi, NULL);
	}
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
		return rng_full(UIR_BOOL);
	default:
		break;
	}
	if (!type_is_int(t) || !rng_full(t).known)
		return rng_full(t);
	for (int i = 0; i < e->nargs && i < 3; i++)
		if (!a[i].known)
			return rng_full(t);
	return arith(e, a, exact);
}

Rng rng_index(Rng b)
{
	int64_t hi = b.known ? min2(b.hi, I32_MAX) : I32_MAX;
	if (hi < 1)
		return (Rng){ 0, 0, true };
	return (Rng){ 0, hi - 1, true };
}

Rng rng_expr(const Expr *e, const Rng *rng)
{
	switch (e->kind) {
	case EX_LIT:
		return e->lanes == 1 ? rng_lit(e->ty, e->val) : (Rng){ 0, 0, false };
	case EX_NAME:
		if (e->sym && e->sym->kind != SYM_MEM && e->lanes == 1)
			return rng[e->sym->slot];
		return (Rng){ 0, 0, false };
	case EX_OP:
		break;
	}
	if (e->lanes != 1)
		return (Rng){ 0, 0, false };
	if (e->op == OP_LANE || e->op == OP_VEC || e->op == OP_SPLAT)
		return rng_full(e->ty);
	Rng a[3] = { { 0, 0, false }, { 0, 0, false }, { 0, 0, false } };
	if (e->op != OP_LOAD)
		for (int i = 0; i < e->nargs && i < 3; i++)
			a[i] = rng_expr(e->args[i], rng);
	return rng_op(e, a, NULL);
}

/* The slot of E when it is a scalar let or loop index of a small integer type, else -1. */
static int name_slot(const Expr *e)
{
	if (e->kind != EX_NAME || !e->sym || e->sym->kind == SYM_MEM || e->lanes != 1)
		return -1;
	if (!rng_full(e->ty).known || e->ty == UIR_BOOL)
		return -1;
	return e->sym->slot;
}

/* Narrows the name X (if it is one) to [lo, hi]. */
static void narrow(const Expr *x, int64_t lo, int64_t hi, Rng *rng)
{
	int s = name_slot(x);
	if (s < 0 || !rng[s].known)
		return;
	Rng *r = &rng[s];
	r->lo = max2(r->lo, lo);
	r->hi = min2(r->hi, hi);
	if (r->lo > r->hi) /* the branch cannot run; keep a valid interval */
		r->hi = r->lo;
}

/* Narrows with x < y (STRICT) or x <= y. */
static void less(const Expr *x, const Expr *y, bool strict, Rng *rng)
{
	Rng rx = rng_expr(x, rng), ry = rng_expr(y, rng);
	if (!rx.known || !ry.known)
		return;
	int64_t d = strict ? 1 : 0;
	narrow(x, INT64_MIN / 4, ry.hi - d, rng);
	narrow(y, rx.lo + d, INT64_MAX / 4, rng);
}

void rng_refine(const Expr *c, bool truth, Rng *rng)
{
	if (c->kind != EX_OP || c->lanes != 1)
		return;
	switch (c->op) {
	case OP_AND:
		if (truth) {
			rng_refine(c->args[0], true, rng);
			rng_refine(c->args[1], true, rng);
		}
		return;
	case OP_OR:
		if (!truth) {
			rng_refine(c->args[0], false, rng);
			rng_refine(c->args[1], false, rng);
		}
		return;
	case OP_NOT:
		rng_refine(c->args[0], !truth, rng);
		return;
	default:
		break;
	}
	if (c->nargs != 2 || !rng_full(c->args[0]->ty).known || c->args[0]->ty == UIR_BOOL)
		return;
	const Expr *x = c->args[0], *y = c->args[1];
	/* not (x < y) is y <= x, and so on */
	switch (c->op) {
	case OP_LT:
		if (truth)
			less(x, y, true, rng);
		else
			less(y, x, false, rng);
		return;
	case OP_LE:
		if (truth)
			less(x, y, false, rng);
		else
			less(y, x, true, rng);
		return;
	case OP_GT:
		if (truth)
			less(y, x, true, rng);
		else
			less(x, y, false, rng);
		return;
	case OP_GE:
		if (truth)
			less(y, x, false, rng);
		else
			less(x, y, true, rng);
		return;
	case OP_EQ:
	case OP_NE:
		if ((c->op == OP_EQ) == truth) {
			less(x, y, false, rng);
			less(y, x, false, rng);
		}
		return;
	default:
		return;
	}
}
