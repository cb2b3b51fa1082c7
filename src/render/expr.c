/* expr.c - .uir expressions as C expressions, the same text in C and in CUDA device code.
 *
 * Each op becomes a plain C operator where that is exactly the op's meaning (docs/language.md 4.5)
 * with no undefined behaviour (float arithmetic with FP_CONTRACT OFF, unsigned wrapping
 * arithmetic, compares, bit operations, division by a literal other than 0 and -1, and
 * i32 add/sub/mul/neg/shifts that check/ranges.c proves cannot wrap), and a call of the runtime
 * helper that defines it otherwise (uir_add_i32, uir_div_i32, uir_shl_i32, uir_min_f32,
 * uir_cast_f32_i32, uir_exp2_f32, ...). Operands are parenthesised only where C's
 * precedence (or a -Wparentheses warning) needs it.
 *
 * A vector value is rendered lane by lane: expr_c(E, e, lane) is the scalar text of one
 * lane, so `add (load.4 x o) (splat.4 1.0)` at lane 2 is `x[o + 2] + 1.0f`. Vector lets are
 * small arrays (stmt.c), read as q[2].
 *
 * Integer types in C: i8, u8 and bool compute in int after promotion, so results that may
 * leave the type (u8 add, sub, mul, neg, not) are cast back; i8 arithmetic uses helpers.
 * Literals of 64-bit types are written with INT64_C/UINT64_C where their C type matters.
 */
#include "render_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static CExpr cx(const char *s, int prec)
{
	return (CExpr){ s, prec, false };
}

/* X with NARROW as its narrowness (CExpr.narrow). */
static CExpr narrowed(CExpr x, bool narrow)
{
	x.narrow = narrow;
	return x;
}

/* X as an operand that needs at least precedence NEED. */
static const char *opnd(Emitter *E, CExpr x, int need)
{
	if (x.prec >= need)
		return x.s;
	return fmt_str(E->a, "(%s)", x.s);
}

/* X as the operand of a bitwise or shift operator (or of a compare, for compares): any
 * binary operator operand gets parentheses, as -Wparentheses asks. */
static const char *opnd_strict(Emitter *E, CExpr x)
{
	return opnd(E, x, P_UNARY);
}

static CExpr bin(Emitter *E, CExpr a, const char *op, CExpr b, int prec)
{
	const char *l, *r;
	if (prec == P_BAND || prec == P_BOR || prec == P_BXOR || prec == P_SHIFT || prec == P_EQ || prec == P_REL) {
		/* a & b & c is clear; anything else inside gets parentheses */
		l = a.prec == prec && prec != P_SHIFT && prec != P_EQ && prec != P_REL ? a.s : opnd_strict(E, a);
		r = opnd_strict(E, b);
	} else {
		l = opnd(E, a, prec);
		r = opnd(E, b, prec + 1);
	}
	/* C's usual arithmetic conversions: unsigned int with unsigned int stays unsigned int;
	 * a shift has its left operand's type; a compare is an int */
	bool narrow = prec == P_SHIFT ? a.narrow : prec == P_EQ || prec == P_REL ? false : a.narrow && b.narrow;
	return narrowed(cx(fmt_str(E->a, "%s %s %s", l, op, r), prec), narrow);
}

static CExpr unary(Emitter *E, const char *op, CExpr a)
{
	const char *s = opnd(E, a, P_UNARY);
	/* no "- -x" or "--x": parenthesise an operand that starts with a sign */
	if (s[0] == '-' || s[0] == '+' || s[0] == '~' || s[0] == '!')
		s = fmt_str(E->a, "(%s)", s);
	return narrowed(cx(fmt_str(E->a, "%s%s", op, s), P_UNARY), op[0] != '!' && a.narrow);
}

static CExpr castto(Emitter *E, const char *type, CExpr a)
{
	return cx(fmt_str(E->a, "(%s)%s", type, opnd(E, a, P_UNARY)), P_UNARY);
}

static CExpr call1(Emitter *E, const char *f, CExpr a)
{
	return cx(fmt_str(E->a, "%s(%s)", f, a.s), P_POSTFIX);
}

static CExpr call2(Emitter *E, const char *f, CExpr a, CExpr b)
{
	return cx(fmt_str(E->a, "%s(%s, %s)", f, a.s, b.s), P_POSTFIX);
}

static CExpr call3(Emitter *E, const char *f, CExpr a, CExpr b, CExpr c)
{
	return cx(fmt_str(E->a, "%s(%s, %s, %s)", f, a.s, b.s, c.s), P_POSTFIX);
}

/* A runtime helper call uir_OP_T(args). */
static const char *helper(Emitter *E, const char *op, UirType t)
{
	const char *name = fmt_str(E->a, "uir_%s_%s", op, uir_type_name(t));
	use_helper(E, name);
	return name;
}

/* ---- literals ---- */

static const char *float_text(Emitter *E, double v, bool is_f32)
{
	if (v != v)
		return "NAN";
	if (isinf(v))
		return v > 0 ? "INFINITY" : "-INFINITY";
	char buf[64];
	int maxp = is_f32 ? 9 : 17;
	for (int p = 1; p <= maxp; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, v);
		if (is_f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			break;
	}
	if (v == 0 && signbit(v))
		snprintf(buf, sizeof buf, "-0");
	char *e = strchr(buf, 'e');
	if (e && v == floor(v) && fabs(v) < 1e7) {
		/* a whole number: 300.0f, not %g's 3e+02f */
		snprintf(buf, sizeof buf, "%.0f", v);
	} else if (e) {
		/* the exponent without '+' and leading zeros: 1e-5, 4e9 (the same value) */
		char *d = e + 1;
		if (*d == '+')
			memmove(d, d + 1, strlen(d));
		else if (*d == '-')
			d++;
		char *q = d;
		while (q[0] == '0' && q[1])
			q++;
		memmove(d, q, strlen(q) + 1);
	}
	const char *dot = strpbrk(buf, ".e");
	return fmt_str(E->a, "%s%s%s", buf, dot ? "" : ".0", is_f32 ? "f" : "");
}

/* The text of value V of type T; TYPED: 64-bit values always carry their type. */
static const char *lit_text(Emitter *E, UirType t, Scalar v, bool typed)
{
	switch (t) {
	case UIR_BOOL: return v.u ? "1" : "0";
	case UIR_I8:
	case UIR_U8:
	case UIR_I32:
		if (v.i == INT32_MIN)
			return "INT32_MIN";
		return fmt_str(E->a, "%lld", (long long)v.i);
	case UIR_U32: return fmt_str(E->a, "%lluu", (unsigned long long)(uint32_t)v.u);
	case UIR_I64:
		if (v.i == INT64_MIN)
			return "INT64_MIN";
		if (typed || v.i < INT32_MIN || v.i > INT32_MAX)
			return fmt_str(E->a, "INT64_C(%lld)", (long long)v.i);
		return fmt_str(E->a, "%lld", (long long)v.i);
	case UIR_U64:
		if (typed || v.u > UINT32_MAX)
			return fmt_str(E->a, "UINT64_C(%llu)", (unsigned long long)v.u);
		return fmt_str(E->a, "%lluu", (unsigned long long)v.u);
	case UIR_F32: return float_text(E, v.f32, true);
	case UIR_F64: return float_text(E, v.f64, false);
	default: unreachable();
	}
}

const char *literal_text(Emitter *E, UirType t, Scalar v)
{
	return lit_text(E, t, v, false);
}

static CExpr lit_c(Emitter *E, UirType t, Scalar v, bool typed)
{
	const char *s = lit_text(E, t, v, typed);
	return narrowed(cx(s, s[0] == '-' ? P_UNARY : P_POSTFIX), t == UIR_U64 && !typed && v.u <= UINT32_MAX);
}

/* ---- constants ---- */

/* Whether lane LANE of E is an integer constant (a literal, a splat or vec of one, an
 * unrolled index, a let of one); its value in *V. */
static bool int_const(Emitter *E, const Expr *e, int lane, Scalar *v)
{
	if (!type_is_int(e->ty))
		return false;
	switch (e->kind) {
	case EX_LIT:
		*v = e->val;
		return true;
	case EX_NAME: {
		if (!e->sym || e->sym->kind == SYM_MEM)
			return false;
		SymInfo *si = sym_info(E, e->sym);
		if (si->fixed) {
			v->i = si->value;
			return true;
		}
		if (e->sym->kind == SYM_LET && e->sym->def && e->lanes == 1)
			return int_const(E, e->sym->def->value, -1, v);
		return false;
	}
	case EX_OP:
		if (e->op == OP_SPLAT)
			return int_const(E, e->args[0], -1, v);
		if (e->op == OP_VEC && lane >= 0 && lane < e->nargs)
			return int_const(E, e->args[lane], -1, v);
		return false;
	}
	return false;
}

/* Whether E is a name or literal (cheap and pure to repeat). */
static bool atom(const Expr *e)
{
	return e->kind == EX_LIT || e->kind == EX_NAME;
}

bool expr_loads(const Expr *e, const Mem *m)
{
	if (!e || e->kind != EX_OP)
		return false;
	if (e->op == OP_LOAD && (!m || e->mem == m))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_loads(e->args[i], m))
			return true;
	return false;
}

/* ---- operands ---- */

/* The lane of operand A of a vector op at lane LANE (scalar operands: -1). */
static int sub_lane(const Expr *a, int lane)
{
	return a->lanes > 1 ? lane : -1;
}

static CExpr arg(Emitter *E, const Expr *e, int i, int lane)
{
	return expr_c(E, e->args[i], sub_lane(e->args[i], lane));
}

/* X, the rendering of a u64 operand, with its C type uint64_t when it is narrower. */
static CExpr wide(Emitter *E, CExpr x)
{
	if (!x.narrow)
		return x;
	char *end;
	unsigned long long v = strtoull(x.s, &end, 10);
	if (x.s[0] >= '0' && x.s[0] <= '9' && !strcmp(end, "u"))
		return cx(fmt_str(E->a, "UINT64_C(%llu)", v), P_POSTFIX);
	return castto(E, "uint64_t", x);
}

/* Operand I where its C type matters (under ~, unary -, shifts). */
static CExpr arg_typed(Emitter *E, const Expr *e, int i, int lane)
{
	return wide(E, arg(E, e, i, lane));
}

/* Both operands of a binary op; for u64 + - * the first is given its type when both may
 * be narrow (so that `5u * 7u` is not done in 32 bits). */
static void args2(Emitter *E, const Expr *e, int lane, CExpr *a, CExpr *b)
{
	*a = arg(E, e, 0, lane);
	*b = arg(E, e, 1, lane);
	if (e->args[0]->ty == UIR_U64 && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) && b->narrow)
		*a = wide(E, *a);
}

/* ---- arithmetic ---- */

/* Whether scalar i32 op E (add, sub, mul, neg) cannot wrap: its nowrap fact
 * (check/ranges.c), so the plain C operator gives its value. */
static bool i32_safe(Emitter *E, const Expr *e, int lane)
{
	(void)E;
	if (lane >= 0 || e->lanes != 1 || e->ty != UIR_I32)
		return false;
	switch (e->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_NEG: return e->nowrap;
	default: return false;
	}
}

/* The scalar expression that lane LANE of E is when E is a splat or a vec (E itself
 * otherwise): what a literal test looks at. */
static const Expr *lane_of(const Expr *e, int lane)
{
	if (e->kind == EX_OP && e->op == OP_SPLAT)
		return e->args[0];
	if (e->kind == EX_OP && e->op == OP_VEC && lane >= 0 && lane < e->nargs)
		return e->args[lane];
	return e;
}

/* Whether E loads nothing and uses no loop index other than an unrolled one's (a `let`
 * counts as its value): a value that is the same every time the code runs. */
static bool invariant(Emitter *E, const Expr *e, int depth)
{
	if (depth > 64)
		return false;
	switch (e->kind) {
	case EX_LIT: return true;
	case EX_NAME:
		if (!e->sym || e->sym->kind == SYM_MEM)
			return false;
		if (e->sym->kind == SYM_LOOP)
			return sym_info(E, e->sym)->fixed;
		return invariant(E, e->sym->def->value, depth + 1);
	case EX_OP:
		if (e->op == OP_LOAD)
			return false;
		for (int i = 0; i < e->nargs; i++)
			if (!invariant(E, e->args[i], depth + 1))
				return false;
		return true;
	}
	return false;
}

/* Whether E is a literal finite float other than 0, or an odd integer literal: a factor
 * that keeps a varying value varying. */
static bool lit_factor(const Expr *e)
{
	if (e->kind != EX_LIT)
		return false;
	if (e->ty == UIR_F32)
		return isfinite(e->val.f32) && e->val.f32 != 0;
	if (e->ty == UIR_F64)
		return isfinite(e->val.f64) && e->val.f64 != 0;
	return type_is_int(e->ty) && (e->val.u & 1);
}

/* Whether lane LANE of E can never be a constant to a C front end, whatever it folds: a
 * load, an index of a loop that is not unrolled (a plain loop's, one past the unroll
 * budget's, a thread's), and what one-to-one operations make of one: a cast, neg, an int
 * add, sub or xor with an invariant value, a float add or sub of a finite literal, a
 * product with an odd literal (ints) or a finite nonzero one (floats); a `let` counts as
 * its value. Anything else may fold: `x[i] * 0`, `i - i`, `u[i] & 0u` (gcc folds each to 0). */
static bool varies(Emitter *E, const Expr *e, int lane, int depth)
{
	if (depth > 64)
		return false;
	if (e->lanes == 1)
		lane = -1;
	switch (e->kind) {
	case EX_LIT: return false;
	case EX_NAME:
		if (!e->sym || e->sym->kind == SYM_MEM)
			return false;
		if (e->sym->kind == SYM_LOOP)
			return !sym_info(E, e->sym)->fixed;
		return varies(E, e->sym->def->value, lane, depth + 1);
	case EX_OP:
		break;
	}
	const Expr *a = e->nargs > 0 ? lane_of(e->args[0], lane) : NULL;
	const Expr *b = e->nargs > 1 ? lane_of(e->args[1], lane) : NULL;
	switch (e->op) {
	case OP_LOAD:
		return true;
	case OP_SPLAT:
	case OP_VEC:
		return lane_of(e, lane) != e && varies(E, lane_of(e, lane), -1, depth + 1);
	case OP_CAST:
	case OP_BITCAST:
	case OP_NEG:
		return varies(E, a, lane, depth + 1);
	case OP_ADD:
	case OP_SUB:
	case OP_XOR:
		if (type_is_float(e->ty))
			return e->op != OP_XOR && ((varies(E, a, lane, depth + 1) && lit_factor(b)) ||
			                           (varies(E, b, lane, depth + 1) && lit_factor(a)));
		return (varies(E, a, lane, depth + 1) && invariant(E, b, depth + 1)) ||
		       (varies(E, b, lane, depth + 1) && invariant(E, a, depth + 1));
	case OP_MUL:
		return (varies(E, a, lane, depth + 1) && lit_factor(b)) || (varies(E, b, lane, depth + 1) && lit_factor(a));
	default:
		return false;
	}
}

/* Whether float `sub a b` must be written uir_sub_T(a, b), a - b in a function, rather
 * than `a - b`: gcc 12 folds `0.0 - X` into `-X` when it takes X for a value that cannot
 * be -0 (an integer converted to float, fabs, a ?: of such, and what folds to them, such
 * as X * 1.0), which gives -0 for X = +0 where IEEE gives +0, at every -O level. It does so
 * when its front end sees the zero in the same expression: a literal +0, or any expression
 * it may fold to one (one that varies() does not show to vary: `(double)(x[i] * 0)` and
 * `(double)(i - i)` fold too). A literal B is folded with a constant A instead, so it needs
 * no helper. Its later passes do not (a loop index that unrolling makes 0 is not folded
 * so). Found by bulkrender (seed 114384). */
static bool sub_hides_zero(Emitter *E, const Expr *e, int lane)
{
	const Expr *a = lane_of(e->args[0], lane), *b = e->args[1];
	if (b->kind == EX_LIT || (b->kind == EX_OP && b->op == OP_SPLAT && b->args[0]->kind == EX_LIT))
		return false;
	if (a->kind == EX_LIT)
		return a->ty == UIR_F32 ? a->val.f32 == 0 && !signbit(a->val.f32)
		                        : a->val.f64 == 0 && !signbit(a->val.f64);
	return !varies(E, a, lane, 0);
}

static CExpr add_sub_mul(Emitter *E, const Expr *e, int lane, UirType t)
{
	static const char *const sym[] = { "+", "-", "*" };
	int k = e->op == OP_ADD ? 0 : e->op == OP_SUB ? 1 : 2;
	int prec = k == 2 ? P_MUL : P_ADD;
	CExpr a, b;
	if (type_is_int(t)) {
		/* x + 0, x - 0, x * 1 (an unrolled index of 0, say) are x exactly (a narrow x says
		 * so: where its width matters it is given its type) */
		Scalar c;
		int unit = k == 2 ? 1 : 0;
		if (int_const(E, e->args[1], sub_lane(e->args[1], lane), &c) && c.u == (uint64_t)unit)
			return arg(E, e, 0, lane);
		if (k != 1 && int_const(E, e->args[0], sub_lane(e->args[0], lane), &c) && c.u == (uint64_t)unit)
			return arg(E, e, 1, lane);
	}
	args2(E, e, lane, &a, &b);
	if (k == 1 && type_is_float(t) && sub_hides_zero(E, e, lane))
		return call2(E, helper(E, "sub", t), a, b);
	if (type_is_float(t) || t == UIR_U32 || t == UIR_U64 || i32_safe(E, e, lane))
		return bin(E, a, sym[k], b, prec);
	if (t == UIR_U8)
		return castto(E, "uint8_t", bin(E, a, sym[k], b, prec));
	static const char *const name[] = { "add", "sub", "mul" };
	return call2(E, helper(E, name[k], t), a, b);
}

static CExpr neg(Emitter *E, const Expr *e, int lane, UirType t)
{
	if (type_is_float(t))
		return unary(E, "-", arg(E, e, 0, lane));
	if (t == UIR_U32 || t == UIR_U64)
		return unary(E, "-", arg_typed(E, e, 0, lane));
	if (t == UIR_U8)
		return castto(E, "uint8_t", unary(E, "-", arg(E, e, 0, lane)));
	if (i32_safe(E, e, lane))
		return unary(E, "-", arg(E, e, 0, lane));
	return call1(E, helper(E, "neg", t), arg(E, e, 0, lane));
}

static CExpr absval(Emitter *E, const Expr *e, int lane, UirType t)
{
	if (t == UIR_F32)
		return call1(E, "fabsf", arg(E, e, 0, lane));
	if (t == UIR_F64)
		return call1(E, "fabs", arg(E, e, 0, lane));
	if (!type_is_signed(t))
		return arg(E, e, 0, lane);
	if (t == UIR_I32 && lane < 0 && range_within(e->args[0]->rng, 0, INT32_MAX))
		return arg(E, e, 0, lane);
	return call1(E, helper(E, "abs", t), arg(E, e, 0, lane));
}

/* Whether E is a constant expression that is not a literal (`cast f64 false`, `sub 1.0
 * 1.0`): one that a C or C++ front end may fold, and then report as a divisor of zero. */
static bool const_expr(Emitter *Em, const Expr *e)
{
	if (e->kind == EX_LIT)
		return false;
	if (e->kind == EX_NAME)
		return e->sym && e->sym->kind != SYM_MEM && sym_info(Em, e->sym)->fixed;
	if (e->op == OP_LOAD)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->kind != EX_LIT && !const_expr(Em, e->args[i]))
			return false;
	return true;
}

/* div and mod: C's / and % when the divisor is a constant other than 0 (and -1 for signed
 * types, where MIN / -1 overflows); the helper otherwise. Floats: / and fmod's helper. */
static CExpr divmod(Emitter *E, const Expr *e, int lane, UirType t)
{
	bool is_div = e->op == OP_DIV;
	CExpr a = arg(E, e, 0, lane), b = arg(E, e, 1, lane);
	if (type_is_float(t)) {
		/* x / ±0 written with a literal zero: nvcc rejects it (#39-D, division by zero);
		 * x * ±inf has the same bits (±inf, and nan for 0, nan) */
		const Expr *d = lane_of(e->args[1], lane);
		if (is_div && d->kind == EX_LIT && d->ty == t && (t == UIR_F32 ? d->val.f32 == 0 : d->val.f64 == 0)) {
			Scalar inf;
			bool negz = t == UIR_F32 ? signbit(d->val.f32) : signbit(d->val.f64);
			if (t == UIR_F32)
				inf.f32 = negz ? -INFINITY : INFINITY;
			else
				inf.f64 = negz ? -(double)INFINITY : (double)INFINITY;
			return bin(E, a, "*", cx(literal_text(E, t, inf), P_POSTFIX), P_MUL);
		}
		if (is_div && !const_expr(E, e->args[1]))
			return bin(E, a, "/", b, P_MUL);
		return call2(E, helper(E, is_div ? "div" : "mod", t), a, b);
	}
	Scalar d;
	if (int_const(E, e->args[1], sub_lane(e->args[1], lane), &d)) {
		bool ok = type_is_signed(t) ? d.i != 0 && d.i != -1 : d.u != 0;
		if (t == UIR_U32)
			ok = (uint32_t)d.u != 0;
		if (ok) {
			args2(E, e, lane, &a, &b);
			return bin(E, a, is_div ? "/" : "%", b, P_MUL);
		}
	}
	return call2(E, helper(E, is_div ? "div" : "mod", t), a, b);
}

/* Integer min/max: a ternary on names and literals, the support function otherwise. */
static CExpr minmax(Emitter *E, const Expr *e, int lane, UirType t)
{
	bool is_min = e->op == OP_MIN;
	CExpr a = arg(E, e, 0, lane), b = arg(E, e, 1, lane);
	if (type_is_float(t))
		return call2(E, helper(E, is_min ? "min" : "max", t), a, b);
	if (atom(e->args[0]) && atom(e->args[1])) {
		if (!strcmp(a.s, b.s)) /* min x x: `x < x ? x : x` is -Wtautological-compare */
			return a;
		CExpr c = bin(E, a, is_min ? "<" : ">", b, P_REL);
		return narrowed(cx(fmt_str(E->a, "%s ? %s : %s", c.s, opnd(E, a, P_LOR), opnd(E, b, P_LOR)), P_COND),
				a.narrow && b.narrow);
	}
	const char *f = fmt_str(E->a, "uir_%s_%s", is_min ? "min" : "max", uir_type_name(t));
	nameset_add(&E->support, f);
	return call2(E, f, a, b);
}

/* ---- shifts ---- */

static CExpr shift(Emitter *E, const Expr *e, int lane, UirType t)
{
	bool left = e->op == OP_SHL;
	int w = type_bits(t);
	Scalar k;
	if (int_const(E, e->args[1], sub_lane(e->args[1], lane), &k)) {
		unsigned s = (unsigned)(k.u & (uint64_t)(w - 1));
		CExpr a = arg_typed(E, e, 0, lane);
		CExpr ks = cx(fmt_str(E->a, "%u", s), P_POSTFIX);
		if (s == 0) /* x << 0 and x >> 0 are x */
			return arg(E, e, 0, lane);
		if (t == UIR_U32 || t == UIR_U64)
			return bin(E, a, left ? "<<" : ">>", ks, P_SHIFT);
		if (t == UIR_U8) {
			CExpr r = bin(E, a, left ? "<<" : ">>", ks, P_SHIFT);
			return left ? castto(E, "uint8_t", r) : r;
		}
		if (t == UIR_I32 && lane < 0) {
			if (range_within(e->args[0]->rng, 0, left ? INT32_MAX >> s : INT32_MAX))
				return bin(E, a, left ? "<<" : ">>", ks, P_SHIFT);
		}
	} else if (t == UIR_I32 && lane < 0) {
		/* a non-negative value shifted by a count known to be in 0..31 */
		Range r = e->args[0]->rng, c = e->args[1]->rng;
		if (range_within(r, 0, INT32_MAX) && range_within(c, 0, 31) && (!left || (r.hi << c.hi) <= INT32_MAX))
			return bin(E, arg(E, e, 0, lane), left ? "<<" : ">>", arg(E, e, 1, lane), P_SHIFT);
	}
	return call2(E, helper(E, left ? "shl" : "shr", t), arg(E, e, 0, lane), arg(E, e, 1, lane));
}

/* ---- compares ---- */

static bool is_min_of(UirType t, Scalar v)
{
	switch (t) {
	case UIR_I8: return v.i == INT8_MIN;
	case UIR_I32: return v.i == INT32_MIN;
	case UIR_I64: return v.i == INT64_MIN;
	case UIR_U8:
	case UIR_U32:
	case UIR_U64: return v.u == 0;
	default: return false;
	}
}

static bool is_max_of(UirType t, Scalar v)
{
	switch (t) {
	case UIR_I8: return v.i == INT8_MAX;
	case UIR_U8: return v.u == UINT8_MAX;
	case UIR_I32: return v.i == INT32_MAX;
	case UIR_U32: return (uint32_t)v.u == UINT32_MAX;
	case UIR_I64: return v.i == INT64_MAX;
	case UIR_U64: return v.u == UINT64_MAX;
	default: return false;
	}
}

/* A compare of X with literal C at the edge of X's type that is always true (1) or
 * always false (0), as -Wtype-limits would say; -1 when it is not. OP has X on the left. */
static int always(Op op, UirType t, Scalar c)
{
	if (is_min_of(t, c)) {
		if (op == OP_GE)
			return 1;
		if (op == OP_LT)
			return 0;
	}
	if (is_max_of(t, c)) {
		if (op == OP_LE)
			return 1;
		if (op == OP_GT)
			return 0;
	}
	return -1;
}

static Op mirror(Op op)
{
	switch (op) {
	case OP_LT: return OP_GT;
	case OP_LE: return OP_GE;
	case OP_GT: return OP_LT;
	case OP_GE: return OP_LE;
	default: return op;
	}
}

static CExpr compare(Emitter *E, const Expr *e, int lane, UirType t)
{
	static const char *const sym[] = { "<", "<=", ">", ">=", "==", "!=" };
	int k = e->op - OP_LT;
	int prec = e->op == OP_EQ || e->op == OP_NE ? P_EQ : P_REL;
	if (type_is_int(t)) {
		Scalar c;
		int r = -1;
		const Expr *other = NULL;
		if (int_const(E, e->args[1], sub_lane(e->args[1], lane), &c)) {
			r = always(e->op, t, c);
			other = e->args[0];
		} else if (int_const(E, e->args[0], sub_lane(e->args[0], lane), &c)) {
			r = always(mirror(e->op), t, c);
			other = e->args[1];
		}
		if (r >= 0 && !expr_loads(other, NULL))
			return cx(r ? "1" : "0", P_POSTFIX);
	}
	CExpr a, b;
	args2(E, e, lane, &a, &b);
	/* an integer compare of one expression with itself (`a[i] < a[i]`) is what
	 * -Wtautological-compare rejects: evaluate it once (a fault stays the same fault) and
	 * give the answer; floats are left alone (NaN) */
	if (t != UIR_F32 && t != UIR_F64 && !strcmp(a.s, b.s))
		return cx(fmt_str(E->a, "((void)(%s), %s)", a.s,
				  e->op == OP_LE || e->op == OP_GE || e->op == OP_EQ ? "1" : "0"), P_POSTFIX);
	/* "!x == y" reads as (!x) == y but -Wlogical-not-parentheses asks for the parentheses */
	if (a.s[0] == '!')
		a = cx(fmt_str(E->a, "(%s)", a.s), P_POSTFIX);
	return bin(E, a, sym[k], b, prec);
}

/* ---- bits ---- */

static CExpr bits(Emitter *E, const Expr *e, int lane, UirType t)
{
	static const char *const sym[] = { "&", "|", "^" };
	static const int precs[] = { P_BAND, P_BOR, P_BXOR };
	int k = e->op - OP_AND;
	CExpr a, b;
	args2(E, e, lane, &a, &b);
	(void)t;
	return bin(E, a, sym[k], b, precs[k]);
}

static CExpr bitnot(Emitter *E, const Expr *e, int lane, UirType t)
{
	if (t == UIR_BOOL)
		return unary(E, "!", arg(E, e, 0, lane));
	CExpr r = unary(E, "~", arg_typed(E, e, 0, lane));
	return t == UIR_U8 ? castto(E, "uint8_t", r) : r;
}

/* ---- conversions ---- */

/* The C type an expression of element type T has after integer promotion. */
static int cclass(UirType t)
{
	switch (t) {
	case UIR_BOOL:
	case UIR_I8:
	case UIR_U8:
	case UIR_I32: return 0;
	case UIR_U32: return 1;
	case UIR_I64: return 2;
	case UIR_U64: return 3;
	case UIR_F32: return 4;
	default: return 5;
	}
}

static CExpr cast(Emitter *E, const Expr *e, int lane)
{
	UirType from = e->args[0]->ty, to = e->to;
	CExpr a = arg(E, e, 0, lane);
	if (from == to)
		return a;
	if (to == UIR_BOOL) {
		CExpr z = cx("0", P_POSTFIX);
		return bin(E, a, "!=", z, P_EQ);
	}
	if (type_is_float(from) && !type_is_float(to)) {
		const char *f = fmt_str(E->a, "uir_cast_%s_%s", uir_type_name(from), uir_type_name(to));
		use_helper(E, f);
		return call1(E, f, a);
	}
	if (type_is_float(to))
		return castto(E, ctype(to), a);
	/* integer (or bool) to integer: wraps or extends as C converts */
	if (to == UIR_I8 || to == UIR_U8)
		return from == UIR_BOOL ? a : castto(E, ctype(to), a);
	if (cclass(from) == cclass(to))
		return a;
	return castto(E, ctype(to), a);
}

static CExpr bitcast(Emitter *E, const Expr *e, int lane)
{
	UirType from = e->args[0]->ty, to = e->to;
	CExpr a = arg(E, e, 0, lane);
	if (from == to)
		return a;
	if (type_is_float(from) || type_is_float(to)) {
		const char *f = fmt_str(E->a, "uir_bitcast_%s_%s", uir_type_name(from), uir_type_name(to));
		use_helper(E, f);
		return call1(E, f, a);
	}
	return castto(E, ctype(to), a);
}

/* ---- float functions ---- */

static CExpr fmath(Emitter *E, const Expr *e, int lane, UirType t)
{
	bool f = t == UIR_F32;
	CExpr a = arg(E, e, 0, lane);
	switch (e->op) {
	case OP_SQRT: return call1(E, f ? "sqrtf" : "sqrt", a);
	case OP_FLOOR: return call1(E, f ? "floorf" : "floor", a);
	case OP_CEIL: return call1(E, f ? "ceilf" : "ceil", a);
	case OP_TRUNC: return call1(E, f ? "truncf" : "trunc", a);
	case OP_RECIP: {
		/* 1 / a; through the helper when a is a zero literal or a constant expression (a
		 * constant zero divisor is an error to nvcc under -Werror, as in divmod()) */
		const Expr *d = e->args[0];
		CExpr one = cx(f ? "1.0f" : "1.0", P_POSTFIX);
		if (const_expr(E, d) || (d->kind == EX_LIT && (f ? d->val.f32 == 0 : d->val.f64 == 0)))
			return call2(E, helper(E, "div", t), one, a);
		return bin(E, one, "/", a, P_MUL);
	}
	case OP_EXP2: return call1(E, helper(E, "exp2", t), a);
	case OP_LOG2: return call1(E, helper(E, "log2", t), a);
	case OP_SIN: return call1(E, helper(E, "sin", t), a);
	case OP_COS: return call1(E, helper(E, "cos", t), a);
	case OP_FMA: return call3(E, f ? "fmaf" : "fma", a, arg(E, e, 1, lane), arg(E, e, 2, lane));
	default: unreachable();
	}
}

/* ---- the dispatcher ---- */

static CExpr load(Emitter *E, const Expr *e, int lane)
{
	const char *what = msg_load_what(E->a, e);
	bool checked = !e->in_bounds;
	return cx(access_text(E, e->mem, e->args[0], e->width, lane, checked, e->loc, what, e), P_POSTFIX);
}

static CExpr select_c(Emitter *E, const Expr *e, int lane)
{
	CExpr c = arg(E, e, 0, lane), a = arg(E, e, 1, lane), b = arg(E, e, 2, lane);
	/* a condition looser than a compare is parenthesised: clang's -Wbitwise-conditional-
	 * parentheses rejects `x & y ? a : b` under -Werror */
	return narrowed(cx(fmt_str(E->a, "%s ? %s : %s", opnd(E, c, P_EQ), opnd(E, a, P_LOR), opnd(E, b, P_LOR)), P_COND),
			a.narrow && b.narrow);
}

static CExpr op_c(Emitter *E, const Expr *e, int lane)
{
	UirType t = e->nargs > 0 ? e->args[0]->ty : e->ty;
	switch (e->op) {
	case OP_LOAD: return load(E, e, lane);
	case OP_VEC:
		if (lane < 0 || lane >= e->nargs)
			unreachable();
		return expr_c(E, e->args[lane], -1);
	case OP_SPLAT: return expr_c(E, e->args[0], -1);
	case OP_LANE: return expr_c(E, e->args[0], (int)e->args[1]->val.i);
	case OP_ADD:
	case OP_SUB:
	case OP_MUL: return add_sub_mul(E, e, lane, t);
	case OP_NEG: return neg(E, e, lane, t);
	case OP_ABS: return absval(E, e, lane, t);
	case OP_DIV:
	case OP_MOD: return divmod(E, e, lane, t);
	case OP_MIN:
	case OP_MAX: return minmax(E, e, lane, t);
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
	case OP_EQ:
	case OP_NE: return compare(E, e, lane, t);
	case OP_AND:
	case OP_OR:
	case OP_XOR: return bits(E, e, lane, t);
	case OP_NOT: return bitnot(E, e, lane, t);
	case OP_SHL:
	case OP_SHR: return shift(E, e, lane, t);
	case OP_SELECT: return select_c(E, e, lane);
	case OP_CAST: return cast(E, e, lane);
	case OP_BITCAST: return bitcast(E, e, lane);
	case OP_SQRT:
	case OP_RECIP:
	case OP_EXP2:
	case OP_LOG2:
	case OP_SIN:
	case OP_COS:
	case OP_FLOOR:
	case OP_CEIL:
	case OP_TRUNC:
	case OP_FMA: return fmath(E, e, lane, t);
	default: break;
	}
	unreachable();
}

CExpr expr_c(Emitter *E, const Expr *e, int lane)
{
	if (e->lanes > 1 && lane < 0)
		unreachable(); /* a vector needs a lane */
	if (e->lanes == 1)
		lane = -1;
	switch (e->kind) {
	case EX_LIT:
		return lit_c(E, e->ty, e->val, false);
	case EX_NAME: {
		if (!e->sym || e->sym->kind == SYM_MEM)
			unreachable();
		SymInfo *si = sym_info(E, e->sym);
		if (si->fixed)
			return cx(fmt_str(E->a, "%lld", (long long)si->value), P_POSTFIX);
		const char *n = si->text ? si->text : si->cname;
		si->refs++;
		if (e->lanes > 1)
			return cx(fmt_str(E->a, "%s[%d]", n, lane), P_POSTFIX);
		return cx(n, P_POSTFIX);
	}
	case EX_OP:
		return op_c(E, e, lane);
	}
	unreachable();
}

const char *expr_str(Emitter *E, const Expr *e, int lane)
{
	return expr_c(E, e, lane).s;
}
