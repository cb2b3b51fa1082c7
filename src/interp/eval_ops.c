/* eval_ops.c - the interpreter's instructions for value ops (docs/language.md 4.5), one function
 * per (op, type), each in a scalar form (s_OP_T) and a lane-by-lane vector form (v_OP_T).
 *
 * Meanings come from the single definitions in runtime/uir_ops.h and runtime/uir_math.h
 * (wrapping signed arithmetic, div, mod, shifts, float min/max, float-to-int casts,
 * bitcasts, exp2/log2/sin/cos). Plain C is used only where it is exactly the op with no
 * undefined behaviour: unsigned arithmetic, float + - * /, compares, integer min/max and
 * bit operations, int-to-int and int-to-float conversions, f32<->f64, sqrt, fabs, fma,
 * floor, ceil and trunc (compiled with -ffp-contract=off).
 *
 * The operand registers of an instruction are a, b, c and the result d; vector forms work
 * on n consecutive registers from each.
 */
#include "interp_int.h"
#include "uir_math.h"
#include "uir_ops.h"
#include <math.h>

/* The libm function for a float tag: FM_f32(sqrt) is sqrtf. */
#define FM_f32(fn) fn##f
#define FM_f64(fn) fn

/* ---- meanings: F(T, a, b ...) is the value of the op on operands a, b of tag T ---- */
#define F_WADD(T, a, b) uir_add_##T(a, b)
#define F_WSUB(T, a, b) uir_sub_##T(a, b)
#define F_WMUL(T, a, b) uir_mul_##T(a, b)
#define F_UADD(T, a, b) ((CT_##T)((a) + (b)))
#define F_USUB(T, a, b) ((CT_##T)((a) - (b)))
#define F_UMUL(T, a, b) ((CT_##T)((a) * (b)))
#define F_FADD(T, a, b) ((a) + (b))
#define F_FSUB(T, a, b) ((a) - (b))
#define F_FMUL(T, a, b) ((a) * (b))
#define F_FDIV(T, a, b) ((a) / (b))
#define F_DIV(T, a, b) uir_div_##T(a, b)
#define F_MOD(T, a, b) uir_mod_##T(a, b)
#define F_IMIN(T, a, b) ((a) < (b) ? (a) : (b))
#define F_IMAX(T, a, b) ((a) > (b) ? (a) : (b))
#define F_FMIN(T, a, b) uir_min_##T(a, b)
#define F_FMAX(T, a, b) uir_max_##T(a, b)
#define F_AND(T, a, b) ((a) & (b))
#define F_OR(T, a, b) ((a) | (b))
#define F_XOR(T, a, b) ((a) ^ (b))
#define F_SHL(T, a, b) uir_shl_##T(a, b)
#define F_SHR(T, a, b) uir_shr_##T(a, b)

#define F_LT(T, a, b) ((a) < (b))
#define F_LE(T, a, b) ((a) <= (b))
#define F_GT(T, a, b) ((a) > (b))
#define F_GE(T, a, b) ((a) >= (b))
#define F_EQ(T, a, b) ((a) == (b))
#define F_NE(T, a, b) ((a) != (b))

#define F_WNEG(T, a) uir_neg_##T(a)
#define F_UNEG(T, a) ((CT_##T)(0u - (a)))
#define F_FNEG(T, a) (-(a))
#define F_WABS(T, a) uir_abs_##T(a)
#define F_UABS(T, a) (a)
#define F_FABS(T, a) FM_##T(fabs)(a)
#define F_NOT(T, a) (~(a))
#define F_BNOT(T, a) ((a) ^ 1u)
#define F_SQRT(T, a) FM_##T(sqrt)(a)
#define F_RECIP(T, a) ((CT_##T)1 / (a))
#define F_EXP2(T, a) uir_exp2_##T(a)
#define F_LOG2(T, a) uir_log2_##T(a)
#define F_SIN(T, a) uir_sin_##T(a)
#define F_COS(T, a) uir_cos_##T(a)
#define F_FLOOR(T, a) FM_##T(floor)(a)
#define F_CEIL(T, a) FM_##T(ceil)(a)
#define F_TRUNC(T, a) FM_##T(trunc)(a)

#define F_FMA(T, a, b, c) FM_##T(fma)(a, b, c)

/* ---- which (op, type) pairs exist, with their meaning ---- */
#define BIN_LIST(X) \
	SINT_TAGS(X, ADD, F_WADD) UINT_TAGS(X, ADD, F_UADD) FLOAT_TAGS(X, ADD, F_FADD) \
	SINT_TAGS(X, SUB, F_WSUB) UINT_TAGS(X, SUB, F_USUB) FLOAT_TAGS(X, SUB, F_FSUB) \
	SINT_TAGS(X, MUL, F_WMUL) UINT_TAGS(X, MUL, F_UMUL) FLOAT_TAGS(X, MUL, F_FMUL) \
	INT_TAGS(X, DIV, F_DIV) FLOAT_TAGS(X, DIV, F_FDIV) \
	NUM_TAGS(X, MOD, F_MOD) \
	INT_TAGS(X, MIN, F_IMIN) FLOAT_TAGS(X, MIN, F_FMIN) \
	INT_TAGS(X, MAX, F_IMAX) FLOAT_TAGS(X, MAX, F_FMAX) \
	INT_TAGS(X, AND, F_AND) X(b, AND, F_AND) \
	INT_TAGS(X, OR, F_OR) X(b, OR, F_OR) \
	INT_TAGS(X, XOR, F_XOR) X(b, XOR, F_XOR) \
	INT_TAGS(X, SHL, F_SHL) INT_TAGS(X, SHR, F_SHR)

#define CMP_LIST(X) \
	NUM_TAGS(X, LT, F_LT) NUM_TAGS(X, LE, F_LE) NUM_TAGS(X, GT, F_GT) NUM_TAGS(X, GE, F_GE) \
	ALL_TAGS(X, EQ, F_EQ) ALL_TAGS(X, NE, F_NE)

#define UN_LIST(X) \
	SINT_TAGS(X, NEG, F_WNEG) UINT_TAGS(X, NEG, F_UNEG) FLOAT_TAGS(X, NEG, F_FNEG) \
	SINT_TAGS(X, ABS, F_WABS) UINT_TAGS(X, ABS, F_UABS) FLOAT_TAGS(X, ABS, F_FABS) \
	INT_TAGS(X, NOT, F_NOT) X(b, NOT, F_BNOT) \
	FLOAT_TAGS(X, SQRT, F_SQRT) FLOAT_TAGS(X, RECIP, F_RECIP) \
	FLOAT_TAGS(X, EXP2, F_EXP2) FLOAT_TAGS(X, LOG2, F_LOG2) \
	FLOAT_TAGS(X, SIN, F_SIN) FLOAT_TAGS(X, COS, F_COS) \
	FLOAT_TAGS(X, FLOOR, F_FLOOR) FLOAT_TAGS(X, CEIL, F_CEIL) FLOAT_TAGS(X, TRUNC, F_TRUNC)

#define TERN_LIST(X) FLOAT_TAGS(X, FMA, F_FMA)

#define SELECT_LIST(X) ALL_TAGS(X, SELECT, _)

/* ---- the instruction functions ---- */
#define DEF_BIN(T, OP, F) \
	static void s_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		CT_##T a = GET_##T(R[in->a]), b = GET_##T(R[in->b]); \
		PUT_##T(R[in->d], F(T, a, b)); \
	} \
	static void v_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) { \
			CT_##T a = GET_##T(R[in->a + l]), b = GET_##T(R[in->b + l]); \
			PUT_##T(R[in->d + l], F(T, a, b)); \
		} \
	}

#define DEF_CMP(T, OP, F) \
	static void s_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		CT_##T a = GET_##T(R[in->a]), b = GET_##T(R[in->b]); \
		PUT_b(R[in->d], F(T, a, b)); \
	} \
	static void v_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) { \
			CT_##T a = GET_##T(R[in->a + l]), b = GET_##T(R[in->b + l]); \
			PUT_b(R[in->d + l], F(T, a, b)); \
		} \
	}

#define DEF_UN(T, OP, F) \
	static void s_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		CT_##T a = GET_##T(R[in->a]); \
		PUT_##T(R[in->d], F(T, a)); \
	} \
	static void v_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) { \
			CT_##T a = GET_##T(R[in->a + l]); \
			PUT_##T(R[in->d + l], F(T, a)); \
		} \
	}

#define DEF_TERN(T, OP, F) \
	static void s_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		CT_##T a = GET_##T(R[in->a]), b = GET_##T(R[in->b]), cc = GET_##T(R[in->c]); \
		PUT_##T(R[in->d], F(T, a, b, cc)); \
	} \
	static void v_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) { \
			CT_##T a = GET_##T(R[in->a + l]), b = GET_##T(R[in->b + l]); \
			CT_##T cc = GET_##T(R[in->c + l]); \
			PUT_##T(R[in->d + l], F(T, a, b, cc)); \
		} \
	}

/* select: a is the bool condition, b and c the two values (both already evaluated). */
#define DEF_SELECT(T, OP, F) \
	static void s_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		R[in->d] = R[in->a].u ? R[in->b] : R[in->c]; \
	} \
	static void v_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) \
			R[in->d + l] = R[in->a + l].u ? R[in->b + l] : R[in->c + l]; \
	}

BIN_LIST(DEF_BIN)
CMP_LIST(DEF_CMP)
UN_LIST(DEF_UN)
TERN_LIST(DEF_TERN)
SELECT_LIST(DEF_SELECT)

#define ENT(T, OP, F) [OP_##OP][TY_##T] = { s_##OP##_##T, v_##OP##_##T },

static const InsnFn op_table[OP_COUNT][UIR_NTYPES][2] = {
	BIN_LIST(ENT) CMP_LIST(ENT) UN_LIST(ENT) TERN_LIST(ENT) SELECT_LIST(ENT)
};

InsnFn ops_pick(Op op, UirType t, bool vec)
{
	if ((unsigned)op >= OP_COUNT || (unsigned)t >= UIR_NTYPES)
		return NULL;
	return op_table[op][t][vec];
}

/* ---- cast and bitcast ---- */

/* Type classes: bool, integer, float. */
#define CLS_b Bo
#define CLS_i8 In
#define CLS_u8 In
#define CLS_i32 In
#define CLS_u32 In
#define CLS_i64 In
#define CLS_u64 In
#define CLS_f32 Fl
#define CLS_f64 Fl

/* CONV(F, T, a): `cast T a` for a of tag F, chosen by the two classes. Ints to ints wrap
 * or extend (C conversion, modulo 2^N as gcc, clang and nvcc define it, as uir_ops.h
 * relies on); ints to floats and f64 to f32 round to nearest even; floats to ints through
 * uir_cast_F_T (truncate, saturate, NaN gives 0); to bool: ne x 0; bool to numbers 0/1. */
#define CONV(F, T, a) CONV1(CLS_##F, CLS_##T, F, T, a)
#define CONV1(cf, ct, F, T, a) CONV2(cf, ct, F, T, a)
#define CONV2(cf, ct, F, T, a) CV_##cf##ct(F, T, a)
#define CV_BoBo(F, T, a) (a)
#define CV_BoIn(F, T, a) ((CT_##T)(a))
#define CV_BoFl(F, T, a) ((CT_##T)(a))
#define CV_InBo(F, T, a) ((a) != 0)
#define CV_InIn(F, T, a) ((CT_##T)(a))
#define CV_InFl(F, T, a) ((CT_##T)(a))
#define CV_FlBo(F, T, a) ((a) != 0)
#define CV_FlIn(F, T, a) uir_cast_##F##_##T(a)
#define CV_FlFl(F, T, a) ((CT_##T)(a))

/* BITC(F, T, a): `bitcast T a` (equal sizes, no bool): ints reinterpret as ints (modulo
 * 2^N), floats to ints and ints to floats through uir_bitcast_F_T (NaN reads as the
 * canonical pattern), a float to its own type is itself. */
#define BITC(F, T, a) BITC1(CLS_##F, CLS_##T, F, T, a)
#define BITC1(cf, ct, F, T, a) BITC2(cf, ct, F, T, a)
#define BITC2(cf, ct, F, T, a) BC_##cf##ct(F, T, a)
#define BC_InIn(F, T, a) ((CT_##T)(a))
#define BC_FlIn(F, T, a) uir_bitcast_##F##_##T(a)
#define BC_InFl(F, T, a) uir_bitcast_##F##_##T(a)
#define BC_FlFl(F, T, a) (a)

#define DEF_CONV(T, F, KIND, M) \
	static void s_##KIND##_##F##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		CT_##F a = GET_##F(R[in->a]); \
		PUT_##T(R[in->d], M(F, T, a)); \
	} \
	static void v_##KIND##_##F##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		(void)c; \
		for (int l = 0; l < in->n; l++) { \
			CT_##F a = GET_##F(R[in->a + l]); \
			PUT_##T(R[in->d + l], M(F, T, a)); \
		} \
	}

/* Every (from, to) pair of cast: Y(F) for each source tag, X(T, F) for each target. */
#define FROM_TAGS(Y, X) Y(b, X) Y(i8, X) Y(u8, X) Y(i32, X) Y(u32, X) Y(i64, X) Y(u64, X) \
	Y(f32, X) Y(f64, X)
#define CAST_ROW(F, X) ALL_TAGS(X, F, cast, CONV)
#define CAST_LIST(X) FROM_TAGS(CAST_ROW, X)

/* The (from, to) pairs of bitcast: the sizes 1, 4 and 8 without bool. */
#define BITCAST_LIST(X) \
	X(i8, i8, bitcast, BITC) X(u8, i8, bitcast, BITC) \
	X(i8, u8, bitcast, BITC) X(u8, u8, bitcast, BITC) \
	X(i32, i32, bitcast, BITC) X(u32, i32, bitcast, BITC) X(f32, i32, bitcast, BITC) \
	X(i32, u32, bitcast, BITC) X(u32, u32, bitcast, BITC) X(f32, u32, bitcast, BITC) \
	X(i32, f32, bitcast, BITC) X(u32, f32, bitcast, BITC) X(f32, f32, bitcast, BITC) \
	X(i64, i64, bitcast, BITC) X(u64, i64, bitcast, BITC) X(f64, i64, bitcast, BITC) \
	X(i64, u64, bitcast, BITC) X(u64, u64, bitcast, BITC) X(f64, u64, bitcast, BITC) \
	X(i64, f64, bitcast, BITC) X(u64, f64, bitcast, BITC) X(f64, f64, bitcast, BITC)

CAST_LIST(DEF_CONV)
BITCAST_LIST(DEF_CONV)

#define ENT_CONV(T, F, KIND, M) [TY_##F][TY_##T] = { s_##KIND##_##F##_##T, v_##KIND##_##F##_##T },

static const InsnFn cast_table[UIR_NTYPES][UIR_NTYPES][2] = { CAST_LIST(ENT_CONV) };
static const InsnFn bitcast_table[UIR_NTYPES][UIR_NTYPES][2] = { BITCAST_LIST(ENT_CONV) };

InsnFn ops_pick_conv(Op op, UirType from, UirType to, bool vec)
{
	if ((unsigned)from >= UIR_NTYPES || (unsigned)to >= UIR_NTYPES)
		return NULL;
	if (op == OP_CAST)
		return cast_table[from][to][vec];
	if (op == OP_BITCAST)
		return bitcast_table[from][to][vec];
	return NULL;
}

/* ---- copies ---- */

void insn_splat(const Insn *in, Scalar *R, Ctx *c)
{
	(void)c;
	Scalar x = R[in->a];
	for (int l = 0; l < in->n; l++)
		R[in->d + l] = x;
}

void insn_vec(const Insn *in, Scalar *R, Ctx *c)
{
	(void)c;
	const int32_t *from = in->aux;
	for (int l = 0; l < in->n; l++)
		R[in->d + l] = R[from[l]];
}

/* ---- one op on scalars, for the check-time evaluator ---- */

bool ops_apply(Op op, UirType t, UirType to, const Scalar *args, int nargs, Scalar *out)
{
	InsnFn fn = op == OP_CAST || op == OP_BITCAST ? ops_pick_conv(op, t, to, false) : ops_pick(op, t, false);
	if (!fn || nargs < 1 || nargs > 3)
		return false;
	Scalar R[4];
	memset(R, 0, sizeof R);
	for (int i = 0; i < nargs; i++)
		R[1 + i] = args[i];
	Insn in = { .fn = fn, .d = 0, .a = 1, .b = 2, .c = 3, .n = 1 };
	fn(&in, R, NULL);
	*out = R[0];
	return true;
}
