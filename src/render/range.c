/* range.c - an interval analysis of i32 expressions, used by the renderers to leave out
 * checks and helpers that cannot matter: a memory access whose offset is proven inside the
 * memory needs no bounds check, and i32 add, sub, mul, neg, shl and shr whose operands
 * are proven small enough cannot wrap, so the plain C operator gives the op's value
 * (docs/language.md 4.5).
 *
 * A Range [lo, hi] holds every value the expression may take where it stands. Literals
 * are exact; a loop index lies in [0, largest bound - 1]; an unrolled index is fixed in
 * each copy; a let has the range of its value (set when it is rendered), narrowed inside
 * the branches of an `if` whose condition compares it (range_refine). Arithmetic is done in
 * 64 bits and any result that might leave the i32 range becomes the full range (the op
 * may wrap). Everything else (loads, casts from wide types, vectors) is the full range.
 * The analysis is only ever used to prove; an unknown gives the full range, never a
 * guess.
 */
#include "render_int.h"
#include <stdlib.h>

Range range_full(void)
{
	return (Range){ INT32_MIN, INT32_MAX };
}

bool range_in_i32(Range r)
{
	return r.lo >= INT32_MIN && r.hi <= INT32_MAX;
}

static Range mk(int64_t lo, int64_t hi)
{
	Range r = { lo, hi };
	return range_in_i32(r) ? r : range_full();
}

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

static bool exact(Range r, int64_t *v)
{
	if (r.lo != r.hi)
		return false;
	*v = r.lo;
	return true;
}

static bool empty(Range r)
{
	return r.lo > r.hi;
}

/* C's truncating division (d != 0, no overflow for i32 values in 64 bits). */
static int64_t tdiv(int64_t a, int64_t d)
{
	return a / d;
}

/* Arithmetic shift right by k (0..31): floor(a / 2^k). */
static int64_t ashr(int64_t a, int k)
{
	return a >= 0 ? a >> k : -((-a - 1) >> k) - 1;
}

static Range r_mul(Range a, Range b)
{
	int64_t c[4] = { a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi };
	return mk(min2(min2(c[0], c[1]), min2(c[2], c[3])), max2(max2(c[0], c[1]), max2(c[2], c[3])));
}

static Range r_div(Range a, Range b)
{
	int64_t d;
	if (exact(b, &d) && d != 0) {
		if (d == -1)
			return a.lo == INT32_MIN ? range_full() : mk(-a.hi, -a.lo);
		int64_t x = tdiv(a.lo, d), y = tdiv(a.hi, d);
		return mk(min2(x, y), max2(x, y));
	}
	/* x / 0 = 0; otherwise |result| <= |a| unless a can be INT32_MIN (MIN / -1 wraps) */
	if (a.lo == INT32_MIN)
		return range_full();
	int64_t m = max2(a.hi, -a.lo);
	if (b.lo > 0)
		return mk(a.lo >= 0 ? 0 : -m, a.hi <= 0 ? 0 : m);
	return mk(-m, m);
}

static Range r_mod(Range a, Range b)
{
	int64_t d;
	if (exact(b, &d) && d != 0) {
		int64_t m = (d < 0 ? -d : d) - 1;
		if (a.lo >= 0)
			return a.hi <= m ? a : mk(0, m);
		if (a.hi <= 0)
			return a.lo >= -m ? a : mk(-m, 0);
		return mk(-m, m);
	}
	/* x % 0 = x; otherwise the sign of a and a smaller magnitude */
	return mk(min2(a.lo, 0), max2(a.hi, 0));
}

static int bitlen(int64_t v)
{
	int n = 0;
	while (v > 0) {
		n++;
		v >>= 1;
	}
	return n;
}

static Range r_shift(Op op, Range a, Range b)
{
	int64_t k;
	if (exact(b, &k)) {
		int s = (int)(k & 31);
		if (op == OP_SHL)
			return mk(a.lo * ((int64_t)1 << s), a.hi * ((int64_t)1 << s));
		return mk(ashr(a.lo, s), ashr(a.hi, s));
	}
	if (op == OP_SHL)
		return a.lo == 0 && a.hi == 0 ? a : range_full();
	/* any count: toward 0 (or -1 for negative values) */
	return mk(a.lo < 0 ? a.lo : 0, a.hi > 0 ? a.hi : (a.hi < 0 ? -1 : 0));
}

static Range r_bits(Op op, Range a, Range b)
{
	if (op == OP_AND) {
		if (a.lo >= 0 && b.lo >= 0)
			return mk(0, min2(a.hi, b.hi));
		if (a.lo >= 0)
			return mk(0, a.hi);
		if (b.lo >= 0)
			return mk(0, b.hi);
		return range_full();
	}
	if (a.lo >= 0 && b.lo >= 0)
		return mk(0, ((int64_t)1 << bitlen(max2(a.hi, b.hi))) - 1);
	return range_full();
}

static Range r_cast(const Expr *e)
{
	switch (e->args[0]->ty) {
	case UIR_BOOL: return mk(0, 1);
	case UIR_I8: return mk(INT8_MIN, INT8_MAX);
	case UIR_U8: return mk(0, UINT8_MAX);
	default: return range_full();
	}
}

Range range_of(Emitter *E, const Expr *e)
{
	if (e->ty != UIR_I32 || e->lanes != 1)
		return range_full();
	switch (e->kind) {
	case EX_LIT:
		return (Range){ e->val.i, e->val.i };
	case EX_NAME: {
		if (!e->sym || e->sym->kind == SYM_MEM)
			return range_full();
		SymInfo *si = sym_info(E, e->sym);
		if (si->fixed)
			return (Range){ si->value, si->value };
		return si->r;
	}
	case EX_OP:
		break;
	}
	Range a = e->nargs > 0 ? range_of(E, e->args[0]) : range_full();
	Range b = e->nargs > 1 ? range_of(E, e->args[1]) : range_full();
	if (empty(a) || (e->nargs > 1 && empty(b) && e->op != OP_SELECT))
		return (Range){ 0, -1 };
	switch (e->op) {
	case OP_ADD: return mk(a.lo + b.lo, a.hi + b.hi);
	case OP_SUB: return mk(a.lo - b.hi, a.hi - b.lo);
	case OP_MUL: return r_mul(a, b);
	case OP_NEG: return mk(-a.hi, -a.lo);
	case OP_ABS:
		if (a.lo >= 0)
			return a;
		if (a.lo == INT32_MIN)
			return range_full();
		return mk(a.hi < 0 ? -a.hi : 0, max2(-a.lo, a.hi));
	case OP_DIV: return r_div(a, b);
	case OP_MOD: return r_mod(a, b);
	case OP_MIN: return mk(min2(a.lo, b.lo), min2(a.hi, b.hi));
	case OP_MAX: return mk(max2(a.lo, b.lo), max2(a.hi, b.hi));
	case OP_NOT: return mk(-a.hi - 1, -a.lo - 1);
	case OP_AND:
	case OP_OR:
	case OP_XOR: return r_bits(e->op, a, b);
	case OP_SHL:
	case OP_SHR: return r_shift(e->op, a, b);
	case OP_SELECT: {
		Range x = range_of(E, e->args[1]), y = range_of(E, e->args[2]);
		if (empty(x))
			return y;
		if (empty(y))
			return x;
		return mk(min2(x.lo, y.lo), max2(x.hi, y.hi));
	}
	case OP_CAST: return r_cast(e);
	default: return range_full();
	}
}

Range index_range(Emitter *E, const Expr *bound)
{
	Range b = range_of(E, bound);
	if (b.hi < 1)
		return (Range){ 0, -1 }; /* the body never runs */
	return (Range){ 0, b.hi - 1 };
}

bool access_proven(Emitter *E, const Mem *m, const Expr *off, int k)
{
	Range r = range_of(E, off);
	if (empty(r))
		return false; /* dead code: keep the check, it costs nothing */
	return r.lo >= 0 && r.hi + k - 1 <= m->size - 1;
}

/* ---- narrowing in the branches of an if ---- */

static void save_push(RangeSave *s, SymInfo *si)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
	}
	s->v[s->n].si = si;
	s->v[s->n].r = si->r;
	s->n++;
}

/* The name E refers to, if it is an i32 let or loop index whose range can be narrowed. */
static SymInfo *narrowable(Emitter *E, const Expr *e)
{
	if (e->kind != EX_NAME || !e->sym || e->sym->kind == SYM_MEM || e->ty != UIR_I32 || e->lanes != 1)
		return NULL;
	SymInfo *si = sym_info(E, e->sym);
	return si->fixed ? NULL : si;
}

/* Narrows A to the values with A OP B true, for an i32 compare OP. */
static void narrow(Emitter *E, const Expr *a, Op op, const Expr *b, RangeSave *save)
{
	SymInfo *si = narrowable(E, a);
	if (!si)
		return;
	Range rb = range_of(E, b), r = si->r;
	switch (op) {
	case OP_LT: r.hi = min2(r.hi, rb.hi - 1); break;
	case OP_LE: r.hi = min2(r.hi, rb.hi); break;
	case OP_GT: r.lo = max2(r.lo, rb.lo + 1); break;
	case OP_GE: r.lo = max2(r.lo, rb.lo); break;
	case OP_EQ:
		r.lo = max2(r.lo, rb.lo);
		r.hi = min2(r.hi, rb.hi);
		break;
	default: return;
	}
	save_push(save, si);
	si->r = r;
}

static Op flip(Op op)
{
	switch (op) {
	case OP_LT: return OP_GT;
	case OP_LE: return OP_GE;
	case OP_GT: return OP_LT;
	case OP_GE: return OP_LE;
	default: return op;
	}
}

static Op negate(Op op)
{
	switch (op) {
	case OP_LT: return OP_GE;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	case OP_GE: return OP_LT;
	case OP_EQ: return OP_NE;
	case OP_NE: return OP_EQ;
	default: return op;
	}
}

void range_refine(Emitter *E, const Expr *cond, bool truth, RangeSave *save)
{
	if (cond->kind != EX_OP || cond->lanes != 1)
		return;
	switch (cond->op) {
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
	case OP_EQ:
	case OP_NE: {
		const Expr *a = cond->args[0], *b = cond->args[1];
		if (a->ty != UIR_I32 || a->lanes != 1)
			return;
		Op op = truth ? cond->op : negate(cond->op);
		narrow(E, a, op, b, save);
		narrow(E, b, flip(op), a, save);
		return;
	}
	case OP_AND:
		if (truth) {
			range_refine(E, cond->args[0], true, save);
			range_refine(E, cond->args[1], true, save);
		}
		return;
	case OP_OR:
		if (!truth) {
			range_refine(E, cond->args[0], false, save);
			range_refine(E, cond->args[1], false, save);
		}
		return;
	case OP_NOT:
		if (cond->ty == UIR_BOOL)
			range_refine(E, cond->args[0], !truth, save);
		return;
	default:
		return;
	}
}

void range_restore(RangeSave *save)
{
	while (save->n > 0) {
		save->n--;
		save->v[save->n].si->r = save->v[save->n].r;
	}
	free(save->v);
	save->v = NULL;
	save->cap = 0;
}
