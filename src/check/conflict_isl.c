/* conflict_isl.c - the exact analysis's collision question in ISL (conflict_isl.h).
 *
 * For a memory M and its accesses inside a parallel loop with index p, the question is
 * whether the set
 *
 *     { [o..., pa, pb, e] : outer loops' ranges and pa != pb
 *                           and (some write W reaches e at pa) and (some access A at pb) }
 *
 * is empty, where "access X reaches e at p" is: there are values of the loops between the
 * parallel loop and X, each inside its range, for which X's guards hold and
 * off <= e <= off + width - 1. Writes and accesses are grouped so that updates by the same
 * atomic op are not paired: plain stores against every access, and the atomics of each op
 * against every access but the atomics of that op.
 *
 * The sets are written in ISL's textual notation and read with isl_set_read_from_str.
 * Offsets, bounds and guards are translated when they are quasi-affine in the loop indices:
 * + and - and * by a constant (where the value ranges of check/ranges.c do not prove that
 * the op cannot wrap, its result wrapped to 32 bits with ISL's mod), div and mod by a positive constant of a value of known sign, shifts by a
 * constant, `and` with a 2^k - 1 mask, min, max, and compares joined by and/or/not; lets
 * are inlined; a sub-expression the value ranges fix to one value, or a load of memory the
 * program never stores at a constant offset (its INIT, or `run --input`'s data), is that
 * constant. An offset that is not is undecidable here. A bound or guard that is not is left
 * out, which only adds points: an empty set still proves that nothing collides, but a
 * non-empty one is then no proof of a collision, and the answer is unknown.
 */
#include "conflict_isl.h"
#include "../util/cache.h"
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ISL operations per checked code before it gives up (unknown): the questions that typical
 * offsets make take a few thousand each; the budget keeps a code's questions under about
 * 0.2 s (24 stores with three div/mod terms each past enumeration: 0.19 s). */
#define ISL_MAX_OPERATIONS 300000

isl_ctx *isl_budget_ctx(void)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	isl_ctx_set_max_operations(ctx, ISL_MAX_OPERATIONS);
	return ctx;
}

void isl_budget_free(isl_ctx *ctx)
{
	if (ctx)
		isl_ctx_free(ctx);
}

typedef struct Txt { char *s; size_t n, cap; } Txt;

static void put(Txt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Txt *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (t->s && (size_t)k < t->cap - t->n) {
			t->n += (size_t)k;
			return;
		}
		t->cap = t->cap * 2 + (size_t)k + 256;
		t->s = xrealloc(t->s, t->cap);
	}
}

/* Translating one access: its loops' names and where the text goes. */
typedef struct Tr {
	const IslQuestion *q;
	const IslAccess *a;
	char side;          /* 'a' or 'b': the parallel index is p<side>, inner loops i<side>1 ... */
	Txt *t;
	bool exact;         /* no bound or guard was left out */
	const char *why;    /* why an offset could not be translated */
	long budget;
	bool no_init;       /* a load is never translated (not even from an INIT nobody
	                     * stores over): the fact must hold for every input */
	int nfree;          /* the loops of an access (from the outermost) whose indices are
	                     * dimensions of the set; 0: the parallel loop's alone */
} Tr;

static bool fail(Tr *t, const char *why)
{
	if (!t->why)
		t->why = why;
	return false;
}

static bool singleton(const Expr *e, int64_t *v)
{
	if (!e->rng.known || e->rng.lo != e->rng.hi)
		return false;
	*v = e->rng.lo;
	return true;
}

/* Writes the i32 value of the exact result written by F(T) at MARK .. end: the text
 * itself when the op cannot wrap, else that value wrapped to 32 bits, which ISL's mod
 * expresses exactly. */
static void wrapped(Tr *t, const Expr *e, size_t mark)
{
	if (e->nowrap)
		return;
	size_t n = t->t->n - mark;
	char *inner = xmalloc(n + 1);
	memcpy(inner, t->t->s + mark, n);
	inner[n] = 0;
	t->t->n = mark;
	put(t->t, "((%s + 2147483648) mod 4294967296 - 2147483648)", inner);
	free(inner);
}

static bool var_of(Tr *t, const Sym *y)
{
	for (int k = 0; k < t->q->nouter; k++)
		if (t->q->outer[k]->sym == y) {
			put(t->t, "o%d", k);
			return true;
		}
	for (int d = 0; d < t->a->nloops; d++)
		if (t->a->loops[d]->sym == y) {
			if (d == 0)
				put(t->t, "p%c", t->side);
			else
				put(t->t, "i%c%d", t->side, d);
			return true;
		}
	return false;
}

static bool aff(Tr *t, const Expr *e, int depth)
{
	if (depth > 400 || --t->budget < 0)
		return fail(t, "its expression is too large to translate");
	if (e->lanes != 1 || e->ty != UIR_I32)
		return fail(t, "it computes with a value that is not a scalar i32");
	int64_t v;
	if (singleton(e, &v) || (e->kind == EX_LIT && (v = e->val.i, true))) {
		put(t->t, "(%lld)", (long long)v);
		return true;
	}
	if (e->kind == EX_NAME) {
		if (!e->sym)
			return fail(t, "it names an unknown value");
		if (e->sym->kind == SYM_LET) {
			put(t->t, "(");
			if (!aff(t, e->sym->def->value, depth + 1))
				return false;
			put(t->t, ")");
			return true;
		}
		return var_of(t, e->sym) || fail(t, "it names a loop index outside the question");
	}
	const Expr *x = e->nargs > 0 ? e->args[0] : NULL, *y = e->nargs > 1 ? e->args[1] : NULL;
	int64_t c;
	switch (e->op) {
	case OP_LOAD: {
		if (t->no_init)
			return fail(t, "it loads memory");
		EvalEnv env = { NULL, NULL, 0, true };
		int64_t lv;
		if (eval_int(e, &env, &lv)) {
			put(t->t, "(%lld)", (long long)lv);
			return true;
		}
		return fail(t, "it loads memory the program stores, or at an offset that varies");
	}
	case OP_ADD:
	case OP_SUB: {
		size_t mark = t->t->n;
		put(t->t, "(");
		if (!aff(t, x, depth + 1))
			return false;
		put(t->t, e->op == OP_ADD ? " + " : " - ");
		if (!aff(t, y, depth + 1))
			return false;
		put(t->t, ")");
		wrapped(t, e, mark);
		return true;
	}
	case OP_MUL:
		if (singleton(y, &c) || singleton(x, &c)) {
			size_t mark = t->t->n;
			put(t->t, "(%lld * ", (long long)c);
			if (!aff(t, singleton(y, &c) ? x : y, depth + 1))
				return false;
			put(t->t, ")");
			wrapped(t, e, mark);
			return true;
		}
		return fail(t, "it multiplies two values that vary");
	case OP_NEG: {
		size_t mark = t->t->n;
		put(t->t, "(-");
		if (!aff(t, x, depth + 1))
			return false;
		put(t->t, ")");
		wrapped(t, e, mark);
		return true;
	}
	case OP_DIV:
	case OP_MOD:
		if (!singleton(y, &c) || c <= 0)
			return fail(t, "it divides by a value that is not a positive constant");
		if (!x->rng.known || (x->rng.lo < 0 && x->rng.hi > 0))
			return fail(t, "it divides a value that may be negative or positive (div and mod truncate)");
		/* truncating = floor for x >= 0; for x <= 0, trunc(x/c) = -floor(-x/c) */
		if (x->rng.lo >= 0) {
			put(t->t, e->op == OP_DIV ? "floor((" : "((");
			if (!aff(t, x, depth + 1))
				return false;
			put(t->t, e->op == OP_DIV ? ")/%lld)" : ") mod %lld)", (long long)c);
		} else {
			put(t->t, e->op == OP_DIV ? "(-floor((-" : "(-((-");
			if (!aff(t, x, depth + 1))
				return false;
			put(t->t, e->op == OP_DIV ? ")/%lld))" : ") mod %lld))", (long long)c);
		}
		return true;
	case OP_SHL:
	case OP_SHR:
		if (!singleton(y, &c))
			return fail(t, "it shifts by a count that varies");
		c &= 31;
		if (e->op == OP_SHL) {
			size_t mark = t->t->n;
			put(t->t, "(%lld * ", (long long)((int64_t)1 << c));
			if (!aff(t, x, depth + 1))
				return false;
			put(t->t, ")");
			wrapped(t, e, mark);
		} else { /* an arithmetic shift is the floor of the division */
			put(t->t, "floor((");
			if (!aff(t, x, depth + 1))
				return false;
			put(t->t, ")/%lld)", (long long)((int64_t)1 << c));
		}
		return true;
	case OP_AND: {
		const Expr *other = singleton(y, &c) ? x : singleton(x, &c) ? y : NULL;
		if (!other || c < 0 || (c & (c + 1)) != 0 || !other->rng.known || other->rng.lo < 0)
			return fail(t, "it masks with something other than 2^k - 1 of a value >= 0");
		put(t->t, "((");
		if (!aff(t, other, depth + 1))
			return false;
		put(t->t, ") mod %lld)", (long long)(c + 1));
		return true;
	}
	case OP_MIN:
	case OP_MAX:
		put(t->t, e->op == OP_MIN ? "min(" : "max(");
		if (!aff(t, x, depth + 1))
			return false;
		put(t->t, ", ");
		if (!aff(t, y, depth + 1))
			return false;
		put(t->t, ")");
		return true;
	case OP_SELECT:
		if (singleton(x, &c))
			return aff(t, c ? e->args[1] : e->args[2], depth + 1);
		return fail(t, "it selects on a condition that varies");
	case OP_CAST:
		if (x->ty == UIR_I32)
			return aff(t, x, depth + 1);
		return fail(t, "it converts from another type");
	default:
		return fail(t, "it uses an op that is not quasi-affine");
	}
}

static Op negated(Op op)
{
	switch (op) {
	case OP_LT: return OP_GE;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	case OP_GE: return OP_LT;
	case OP_EQ: return OP_NE;
	default: return OP_EQ;
	}
}

/* COND being TRUTH, as an ISL constraint; false (and nothing written) when it is not one. */
static bool cnd(Tr *t, const Expr *e, bool truth, int depth)
{
	size_t mark = t->t->n;
	const char *why = t->why;
	int64_t v;
	bool ok = true;
	if (depth > 400 || --t->budget < 0 || e->lanes != 1) {
		ok = false;
	} else if (singleton(e, &v)) {
		put(t->t, (v != 0) == truth ? "(0 = 0)" : "(1 = 0)");
	} else if (e->kind == EX_NAME && e->sym && e->sym->kind == SYM_LET) {
		ok = cnd(t, e->sym->def->value, truth, depth + 1);
	} else if (e->kind != EX_OP) {
		ok = false;
	} else if (e->op == OP_NOT && e->ty == UIR_BOOL) {
		ok = cnd(t, e->args[0], !truth, depth + 1);
	} else if ((e->op == OP_AND || e->op == OP_OR) && e->ty == UIR_BOOL) {
		bool both = (e->op == OP_AND) == truth; /* and, or by De Morgan */
		put(t->t, "(");
		ok = cnd(t, e->args[0], truth, depth + 1);
		put(t->t, both ? " and " : " or ");
		ok = ok && cnd(t, e->args[1], truth, depth + 1);
		put(t->t, ")");
	} else if (e->op >= OP_LT && e->op <= OP_NE && e->nargs == 2 && e->args[0]->ty == UIR_I32) {
		Op op = truth ? e->op : negated(e->op);
		static const char *const sym[] = { [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "=" };
		if (op == OP_NE) {
			put(t->t, "(");
			ok = aff(t, e->args[0], depth + 1);
			put(t->t, " < ");
			ok = ok && aff(t, e->args[1], depth + 1);
			put(t->t, " or ");
			ok = ok && aff(t, e->args[0], depth + 1);
			put(t->t, " > ");
			ok = ok && aff(t, e->args[1], depth + 1);
			put(t->t, ")");
		} else {
			put(t->t, "(");
			ok = aff(t, e->args[0], depth + 1);
			put(t->t, " %s ", sym[op]);
			ok = ok && aff(t, e->args[1], depth + 1);
			put(t->t, ")");
		}
	} else {
		ok = false;
	}
	if (!ok) {
		t->t->n = mark;
		t->t->s[mark] = 0;
		t->why = why; /* a guard left out is not an offset failure */
	}
	return ok;
}

/* `0 <= VAR < BOUND` of loop L; the upper bound is left out (inexact) when it is not
 * quasi-affine. */
static void range_of_loop(Tr *t, const Stmt *l)
{
	put(t->t, "0 <= ");
	var_of(t, l->sym);
	size_t mark = t->t->n;
	const char *why = t->why;
	put(t->t, " and ");
	var_of(t, l->sym);
	put(t->t, " < ");
	if (!aff(t, l->value, 0)) {
		t->t->n = mark;
		t->t->s[mark] = 0;
		t->why = why;
		t->exact = false;
	}
}

/* "access A reaches e at p<side>", with A's inner loops existentially bound; false when
 * A's offset cannot be translated (t->why says why). */
static bool reaches(Tr *t, const IslAccess *a)
{
	t->a = a;
	Txt *o = t->t;
	int nfree = t->nfree ? t->nfree : 1;
	put(o, "(");
	if (a->nloops > nfree) {
		put(o, "exists (");
		for (int d = nfree; d < a->nloops; d++)
			put(o, "%si%c%d", d > nfree ? ", " : "", t->side, d);
		put(o, " : ");
	}
	for (int d = 0; d < a->nloops; d++) {
		if (d)
			put(o, " and ");
		range_of_loop(t, a->loops[d]);
	}
	for (int k = 0; k < a->nifs; k++) {
		size_t mark = o->n;
		put(o, " and ");
		if (!cnd(t, a->ifs[k]->cond, a->thens[k], 0)) {
			o->n = mark;
			o->s[mark] = 0;
			t->exact = false;
		}
	}
	put(o, " and ");
	size_t from = o->n;
	if (!aff(t, a->off, 0))
		return false;
	int len = (int)(o->n - from);
	char *off = xmalloc((size_t)len + 1);
	memcpy(off, o->s + from, (size_t)len);
	put(o, " <= e and e <= %.*s + %d", len, off, a->width - 1); /* the offset translated once */
	free(off);
	if (a->nloops > nfree)
		put(o, ")");
	put(o, ")");
	return true;
}

/* The set of the question: writes W (pa) against accesses A (pb); false when an offset
 * cannot be translated. */
static bool question_text(Tr *t, const bool *w, const bool *other)
{
	const IslQuestion *q = t->q;
	Txt *o = t->t;
	put(o, "{ [");
	for (int k = 0; k < q->nouter; k++)
		put(o, "o%d, ", k);
	put(o, "pa, pb, e] : (pa < pb or pa > pb)");
	for (int k = 0; k < q->nouter; k++) {
		put(o, " and ");
		t->a = q->acc; /* outer names only */
		range_of_loop(t, q->outer[k]);
	}
	for (int s = 0; s < 2; s++) {
		const bool *in = s == 0 ? w : other;
		t->side = s == 0 ? 'a' : 'b';
		put(o, " and (");
		bool first = true;
		for (int i = 0; i < q->nacc; i++) {
			if (!in[i])
				continue;
			put(o, first ? "" : " or ");
			first = false;
			if (!reaches(t, &q->acc[i]))
				return false;
		}
		put(o, ")");
	}
	put(o, " }");
	return true;
}

/* Whether the point (o..., pa, pb, e) has access I reaching e on SIDE. */
static bool point_in(Tr *t, isl_ctx *ctx, const int64_t *coord, int n, int i, char side)
{
	const IslQuestion *q = t->q;
	Txt txt = { 0 };
	Tr u = *t;
	u.t = &txt;
	u.side = side;
	put(&txt, "{ [");
	for (int k = 0; k < q->nouter; k++)
		put(&txt, "o%d, ", k);
	put(&txt, "pa, pb, e] : ");
	for (int k = 0; k < q->nouter; k++)
		put(&txt, "o%d = %lld and ", k, (long long)coord[k]);
	put(&txt, "pa = %lld and pb = %lld and e = %lld and ", (long long)coord[n - 3], (long long)coord[n - 2],
	    (long long)coord[n - 1]);
	bool ok = reaches(&u, &q->acc[i]);
	put(&txt, " }");
	bool in = false;
	if (ok) {
		isl_set *s = isl_set_read_from_str(ctx, txt.s);
		in = s && isl_set_is_empty(s) == isl_bool_false;
		isl_set_free(s);
	}
	free(txt.s);
	return in;
}

IslAnswer isl_conflict(const IslQuestion *q, IslPair *pair, const char **why)
{
	*why = NULL;
	if (q->nouter > 64)
		return (*why = "loops nested too deep"), ISL_UNKNOWN;
	isl_ctx *ctx = q->ctx;
	bool *w = xcalloc((size_t)q->nacc + 1, sizeof *w), *other = xcalloc((size_t)q->nacc + 1, sizeof *other);
	IslAnswer r = ISL_NONE;
	bool inexact = false;
	/* group 0: plain stores; groups 1-3: the atomics of add, min, max */
	for (int g = 0; g < 4 && r == ISL_NONE; g++) {
		bool any_w = false, any_o = false;
		for (int i = 0; i < q->nacc; i++) {
			const IslAccess *a = &q->acc[i];
			bool same_atomic = g > 0 && a->atomic && (int)a->aop == g - 1;
			w[i] = g == 0 ? a->store && !a->atomic : same_atomic;
			other[i] = !same_atomic;
			any_w |= w[i];
			any_o |= other[i];
		}
		if (!any_w || !any_o)
			continue;
		Txt txt = { 0 };
		Tr t = { q, q->acc, 'a', &txt, true, NULL, 200000, false, 0 };
		if (!question_text(&t, w, other)) {
			*why = fmt_str(&q->p->arena, "an offset is not quasi-affine in the loop indices (%s)", t.why);
			r = ISL_UNKNOWN;
			free(txt.s);
			break;
		}
		isl_set *s = isl_set_read_from_str(ctx, txt.s);
		isl_bool empty = s ? isl_set_is_empty(s) : isl_bool_error;
		if (empty == isl_bool_error) {
			*why = "the integer set library ran past its budget of operations";
			r = ISL_UNKNOWN;
		} else if (empty == isl_bool_false && !t.exact) {
			inexact = true; /* maybe a collision: the left-out guards might rule it out */
		} else if (empty == isl_bool_false) {
			isl_point *pt = isl_set_sample_point(isl_set_copy(s));
			int n = q->nouter + 3;
			int64_t coord[67];
			for (int k = 0; k < n && pt; k++) {
				isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, k);
				coord[k] = v ? isl_val_get_num_si(v) : 0;
				isl_val_free(v);
			}
			isl_point_free(pt);
			memcpy(pair->outer, coord, (size_t)q->nouter * sizeof *coord);
			pair->pa = coord[n - 3];
			pair->pb = coord[n - 2];
			pair->elem = coord[n - 1];
			pair->a = pair->b = -1;
			for (int i = 0; i < q->nacc && pair->a < 0; i++)
				if (w[i] && point_in(&t, ctx, coord, n, i, 'a'))
					pair->a = i;
			for (int i = 0; i < q->nacc && pair->b < 0; i++)
				if (other[i] && point_in(&t, ctx, coord, n, i, 'b'))
					pair->b = i;
			if (pair->a < 0 || pair->b < 0) {
				*why = "the integer set library's witness could not be placed";
				r = ISL_UNKNOWN;
			} else {
				r = ISL_FOUND;
			}
		}
		isl_set_free(s);
		free(txt.s);
	}
	if (r == ISL_NONE && inexact) {
		*why = "a guard or loop bound is not quasi-affine in the loop indices, and without it iterations collide";
		r = ISL_UNKNOWN;
	}
	free(w);
	free(other);
	return r;
}

bool isl_in_bounds(UirProgram *p, isl_ctx *ctx, const IslAccess *a, int64_t size)
{
	if (a->nloops < 1 || a->nloops > 64)
		return false;
	IslQuestion q = { p, ctx, NULL, 0, a, 1, NULL };
	Txt txt = { 0 };
	Tr t = { &q, a, 'a', &txt, true, NULL, 200000, true, 0 };
	put(&txt, "{ [pa, e] : ");
	bool ok = reaches(&t, a); /* left-out bounds and guards (those that load, too) only make the set larger */
	put(&txt, " and (e < 0 or e >= %lld) }", (long long)size);
	bool in = false;
	if (ok) {
		isl_set *s = isl_set_read_from_str(ctx, txt.s);
		in = s && isl_set_is_empty(s) == isl_bool_true;
		isl_set_free(s);
	}
	free(txt.s);
	return in;
}

/* The accesses of sweeps X (side a, the earlier) and Y (side b) that could form a pair, at
 * least one of them writing: "(Wx and Ay) or (Ax and Wy)", each term a union of reaches(). */
static bool skew_side(Tr *t, const int *sweep, int s, bool writes_only, char side)
{
	const IslQuestion *q = t->q;
	t->side = side;
	put(t->t, "(");
	bool first = true;
	for (int i = 0; i < q->nacc; i++) {
		if (sweep[i] != s || (writes_only && !q->acc[i].store))
			continue;
		put(t->t, first ? "" : " or ");
		first = false;
		if (!reaches(t, &q->acc[i]))
			return false;
	}
	if (first)
		put(t->t, "1 = 0");
	put(t->t, ")");
	return true;
}

IslSkew isl_skew_ok(const IslQuestion *q, const int *sweep, int nsweeps, int c, bool cone, const char **why)
{
	*why = NULL;
	if (q->nouter > 64)
		return (*why = "loops nested too deep"), ISL_SKEW_UNKNOWN;
	for (int i = 0; i < q->nacc; i++)
		if (q->acc[i].nloops < 2)
			return (*why = "an access outside the sweeps"), ISL_SKEW_UNKNOWN;
	IslSkew r = ISL_SKEW_OK;
	for (int x = 0; x < nsweeps && r == ISL_SKEW_OK; x++)
		for (int y = 0; y < nsweeps && r == ISL_SKEW_OK; y++) {
			/* a pair of sweeps that does not both access the memory, one of them writing,
			 * has no instances to order */
			bool in_x = false, in_y = false, writes = false;
			for (int i = 0; i < q->nacc; i++) {
				in_x |= sweep[i] == x;
				in_y |= sweep[i] == y;
				writes |= (sweep[i] == x || sweep[i] == y) && q->acc[i].store;
			}
			if (!in_x || !in_y || !writes)
				continue;
			Txt txt = { 0 };
			Tr t = { q, q->acc, 'a', &txt, true, NULL, 200000, true, 2 };
			put(&txt, "{ [");
			for (int k = 0; k < q->nouter; k++)
				put(&txt, "o%d, ", k);
			/* the instance (pa, x, ia1) comes before (pb, y, ib1) in the loop's order */
			put(&txt, "pa, ia1, pb, ib1, e] : %s", x < y ? "pa <= pb" : x > y ? "pa < pb" : "(pa < pb or (pa = pb and ia1 < ib1))");
			/* ... and the skewed tiles would run it after the other */
			put(&txt, " and (ia1 + %d * (%d * pa + %d) > ib1 + %d * (%d * pb + %d)", c, nsweeps, x, c, nsweeps, y);
			/* ... or, for the cone, tiles skewed the other way would */
			if (cone)
				put(&txt, " or -ia1 + %d * (%d * pa + %d) > -ib1 + %d * (%d * pb + %d)", c, nsweeps, x, c, nsweeps, y);
			put(&txt, ")");
			for (int k = 0; k < q->nouter; k++) {
				put(&txt, " and ");
				t.a = q->acc;
				range_of_loop(&t, q->outer[k]);
			}
			bool ok = true;
			for (int half = 0; half < 2 && ok; half++) {
				put(&txt, half ? " or (" : " and ((");
				ok = skew_side(&t, sweep, x, half == 0, 'a');
				put(&txt, " and ");
				ok = ok && skew_side(&t, sweep, y, half == 1, 'b');
				put(&txt, ")");
			}
			put(&txt, ") }");
			if (!ok) {
				*why = fmt_str(&q->p->arena, "an offset is not quasi-affine in the loop indices (%s)", t.why);
				r = ISL_SKEW_UNKNOWN;
				if (q->texts)
					cache_hash_str(q->texts, "?");
			} else if (q->texts) {
				cache_hash_str(q->texts, txt.s);
			} else {
				isl_set *s = isl_set_read_from_str(q->ctx, txt.s);
				isl_bool empty = s ? isl_set_is_empty(s) : isl_bool_error;
				if (empty == isl_bool_error) {
					*why = "the integer set library ran past its budget of operations";
					r = ISL_SKEW_UNKNOWN;
				} else if (empty == isl_bool_false) {
					*why = t.exact ? "two accesses of one element would run out of order"
						       : "a guard or loop bound is not quasi-affine, and without it two accesses would run out of order";
					r = t.exact ? ISL_SKEW_NO : ISL_SKEW_UNKNOWN;
				}
				isl_set_free(s);
			}
			free(txt.s);
		}
	return r;
}
