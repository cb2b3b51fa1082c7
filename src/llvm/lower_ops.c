/* lower_ops.c - expressions to LLVM IR: every op of docs/language.md 4.5 with its exact meaning.
 *
 * No fast-math flag is ever set and nothing is contracted: float ops are plain fadd, fsub,
 * fmul, fdiv, frem (C fmod), llvm.fma only for `fma`. Ints wrap (add/sub/mul without
 * nsw/nuw unless check/ranges.c proves no wrap). Integer div/mod carry the guards of x/0 and
 * MIN/-1 unless the divisor is a literal that needs none. Float min/max are
 * llvm.minimum/llvm.maximum (NaN if either is NaN, -0 < +0); float to int is
 * llvm.fptosi.sat/fptoui.sat (truncate, saturate, NaN gives 0); bitcast of a float to an
 * int reads NaN as the canonical pattern. exp2, log2, sin and cos call uir_jit_exp2_f32
 * and friends, the single definitions of runtime/uir_math.h (linked in as bitcode).
 * Operands are lowered left to right, so faults come in the interpreter's order.
 */
#include "lower_int.h"
#include <string.h>

LLVMTypeRef mem_type(L *l, UirType t)
{
	switch (t) {
	case UIR_BOOL: case UIR_I8: case UIR_U8: return l->t_i8;
	case UIR_I32: case UIR_U32: return l->t_i32;
	case UIR_I64: case UIR_U64: return l->t_i64;
	case UIR_F32: return l->t_f32;
	case UIR_F64: return l->t_f64;
	default: unreachable();
	}
}

LLVMTypeRef val_type(L *l, UirType t, int lanes)
{
	LLVMTypeRef s = t == UIR_BOOL ? l->t_i1 : mem_type(l, t);
	return lanes > 1 ? LLVMVectorType(s, (unsigned)lanes) : s;
}

void name_value(LLVMValueRef v, const char *name)
{
	size_t n = 0;
	if (!LLVMIsAInstruction(v))
		return;
	LLVMGetValueName2(v, &n);
	if (n == 0)
		LLVMSetValueName2(v, name, strlen(name));
}

LLVMValueRef call_intrinsic(L *l, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args, int nargs)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		uir_internal_error(__FILE__, __LINE__, name);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(l->mod, id, tys, (size_t)ntys);
	LLVMTypeRef ft = LLVMIntrinsicGetType(l->cx, id, tys, (size_t)ntys);
	return LLVMBuildCall2(l->b, ft, f, args, (unsigned)nargs, "");
}

/* The constant X of scalar type S splatted to LANES lanes. */
static LLVMValueRef splat_const(LLVMValueRef x, int lanes)
{
	if (lanes <= 1)
		return x;
	LLVMValueRef v[16];
	for (int i = 0; i < lanes; i++)
		v[i] = x;
	return LLVMConstVector(v, (unsigned)lanes);
}

static LLVMValueRef int_const(LLVMTypeRef t, int64_t v, int lanes)
{
	return splat_const(LLVMConstInt(t, (unsigned long long)v, 1), lanes);
}

static LLVMValueRef literal(L *l, const Expr *e)
{
	LLVMTypeRef t = val_type(l, e->ty, 1);
	switch (e->ty) {
	case UIR_BOOL: return LLVMConstInt(t, e->val.u != 0, 0);
	case UIR_F32: return LLVMConstReal(t, (double)e->val.f32);
	case UIR_F64: return LLVMConstReal(t, e->val.f64);
	default: return LLVMConstInt(t, e->val.u, 0);
	}
}

/* ---- integer division ---- */

/* True when the constant divisor D (scalar or vector) has no lane that is 0, or -1 in a
 * signed type: then plain sdiv/udiv/srem/urem is exactly the op. */
static bool safe_divisor(LLVMValueRef d, int lanes, bool sign)
{
	if (!LLVMIsConstant(d))
		return false;
	for (int i = 0; i < lanes; i++) {
		LLVMValueRef x = lanes > 1 ? LLVMGetAggregateElement(d, (unsigned)i) : d;
		if (!x || !LLVMIsAConstantInt(x))
			return false;
		long long v = LLVMConstIntGetSExtValue(x);
		if (v == 0 || (sign && v == -1))
			return false;
	}
	return true;
}

/* div and mod of integers: x/0 = 0, x%0 = x, MIN/-1 = MIN (= -x), MIN%-1 = 0. */
static LLVMValueRef int_divmod(L *l, const Expr *e, LLVMValueRef a, LLVMValueRef d)
{
	bool sign = type_is_signed(e->ty), div = e->op == OP_DIV;
	int lanes = e->lanes;
	LLVMTypeRef st = val_type(l, e->ty, 1);
	LLVMOpcode opc = div ? (sign ? LLVMSDiv : LLVMUDiv) : (sign ? LLVMSRem : LLVMURem);
	if (safe_divisor(d, lanes, sign))
		return LLVMBuildBinOp(l->b, opc, a, d, "");
	LLVMValueRef zero = int_const(st, 0, lanes), one = int_const(st, 1, lanes);
	LLVMValueRef is0 = LLVMBuildICmp(l->b, LLVMIntEQ, d, zero, "");
	LLVMValueRef bad = is0, ism1 = NULL;
	if (sign) {
		ism1 = LLVMBuildICmp(l->b, LLVMIntEQ, d, int_const(st, -1, lanes), "");
		bad = LLVMBuildOr(l->b, is0, ism1, "");
	}
	/* freeze: LLVM 19's InstCombine, given sdiv by select(bad, 1, select(c, A, B)) with
	 * constant vectors A and B that have zero lanes, gave wrong lanes (uirgen seed 36414,
	 * tests/programs/regress/div_select_const_vectors.uir); the freeze keeps it from
	 * looking through the guard, and costs nothing in the generated code */
	LLVMValueRef safe = LLVMBuildFreeze(l->b, LLVMBuildSelect(l->b, bad, one, d, ""), "");
	LLVMValueRef q = LLVMBuildBinOp(l->b, opc, a, safe, "");
	if (sign) /* b == -1: div gives -a (wrapping), mod gives 0 */
		q = LLVMBuildSelect(l->b, ism1, div ? LLVMBuildNeg(l->b, a, "") : zero, q, "");
	return LLVMBuildSelect(l->b, is0, div ? zero : a, q, "");
}

/* ---- conversions ---- */

/* u8, u32 and u64 to f32/f64 of X, whose range (check/ranges.c) is RA: never a plain uitofp.
 *
 * LLVM 19's SLP vectoriser miscompiles `uitofp iN v` when v has at least N/2 sign bits
 * (a sext from i8, i1 or i16, an ashr, ...) and may be negative as a signed value: its
 * minimum-bitwidth analysis shrinks the operand to the narrow signed type and then emits
 * `uitofp <K x i8>` of it, dropping the sign extension (`cast f32 (cast u32 x)` of an i8
 * -37 gave 219, not 4294967259; `cast f64 (bitcast u8 (neg (cast i8 b)))` of a true bool
 * gave 1, not 255, through `uitofp <2 x i1>`; `opt-19 -passes=slp-vectorizer` does the
 * same to two hand-written lanes of `sext i8 to i32; uitofp i32`). It strikes scalar conversions in
 * runs that it vectorises (short loops unrolled, straight-line code), and the operand may
 * only become a sext late (a store forwarded to a load after unrolling), so no test of X
 * here can tell which conversions are at risk. A freeze does not help (InstCombine pushes
 * it through the sext), nor does `uitofp (zext v to i64)` (InstCombine folds it back to
 * `uitofp v` before the forwarding). So the conversion is written with signed ones, for
 * which a narrowed signed operand is right, and a select on the sign bit:
 *
 * - v >= 0 as a signed value: sitofp v, the same number;
 * - otherwise, u8 to f32/f64 and u32 to f64: sitofp v + 2^N, exact (the sum, below 2^N,
 *   fits in the format's 24 or 53 bits, as sitofp v does);
 * - otherwise, u32 to f32 and u64 to f32/f64: t = (v >> 1) | (v & 1), below 2^(N-1), is
 *   converted with sitofp and doubled. Exact: v >= 2^(N-1) has N significant bits of
 *   which the format keeps at most 53 of 64 (24 of 32), so bit 0 of v and of t lie at least
 *   7 bits below the rounding point, where only their OR (the sticky bit) decides: t
 *   rounds as v / 2 does, and doubling is exact (2^64 is a finite f32).
 *
 * Left out where it cannot matter: a constant (folded here), and a u8 or u32 that
 * check/ranges.c proves below 2^(N-1) (a narrowed signed operand holds the same non-negative value). Vector
 * conversions take the same form (their lanes can be scalarised and vectorised again).
 * tests/programs/found/uitofp_sext_slp_narrowing.uir has the cases. */
static LLVMValueRef wide_uitofp(L *l, LLVMValueRef x, UirType from, UirType to, LLVMTypeRef tt, int lanes,
	const Range *ra)
{
	int bits = type_bits(from);
	if (LLVMIsConstant(x) || (from != UIR_U64 && ra && ra->known && ra->hi < (1LL << (bits - 1))))
		return LLVMBuildUIToFP(l->b, x, tt, "");
	LLVMTypeRef st = val_type(l, from, 1);
	LLVMValueRef neg = LLVMBuildICmp(l->b, LLVMIntSLT, x, int_const(st, 0, lanes), "");
	LLVMValueRef pos = LLVMBuildSIToFP(l->b, x, tt, "");
	LLVMValueRef big;
	if (from == UIR_U8 || (from == UIR_U32 && to == UIR_F64)) {
		LLVMTypeRef ft = to == UIR_F64 ? l->t_f64 : l->t_f32;
		big = LLVMBuildFAdd(l->b, pos, splat_const(LLVMConstReal(ft, (double)(1LL << bits)), lanes), "");
	} else {
		LLVMValueRef one = int_const(st, 1, lanes);
		LLVMValueRef t = LLVMBuildOr(l->b, LLVMBuildLShr(l->b, x, one, ""), LLVMBuildAnd(l->b, x, one, ""), "");
		LLVMValueRef half = LLVMBuildSIToFP(l->b, t, tt, "");
		big = LLVMBuildFAdd(l->b, half, half, "");
	}
	return LLVMBuildSelect(l->b, neg, big, pos, "");
}

static LLVMValueRef cast(L *l, LLVMValueRef x, UirType from, UirType to, int lanes, const Range *ra)
{
	LLVMTypeRef tt = val_type(l, to, lanes), ft = val_type(l, from, lanes);
	if (from == to)
		return x;
	if (to == UIR_BOOL) {
		LLVMValueRef z = LLVMConstNull(ft);
		return type_is_float(from) ? LLVMBuildFCmp(l->b, LLVMRealUNE, x, z, "") : LLVMBuildICmp(l->b, LLVMIntNE, x, z, "");
	}
	if (from == UIR_BOOL)
		return type_is_float(to) ? LLVMBuildUIToFP(l->b, x, tt, "") : LLVMBuildZExt(l->b, x, tt, "");
	if (type_is_int(from) && type_is_int(to)) {
		int fb = type_bits(from), tb = type_bits(to);
		if (tb < fb)
			return LLVMBuildTrunc(l->b, x, tt, "");
		if (tb > fb)
			return type_is_signed(from) ? LLVMBuildSExt(l->b, x, tt, "") : LLVMBuildZExt(l->b, x, tt, "");
		return x;
	}
	if (type_is_int(from)) {
		if (type_is_signed(from))
			return LLVMBuildSIToFP(l->b, x, tt, "");
		if (from == UIR_U8 || from == UIR_U32 || from == UIR_U64)
			return wide_uitofp(l, x, from, to, tt, lanes, ra);
		return LLVMBuildUIToFP(l->b, x, tt, "");
	}
	if (type_is_float(to))
		return to == UIR_F64 ? LLVMBuildFPExt(l->b, x, tt, "") : LLVMBuildFPTrunc(l->b, x, tt, "");
	/* float to int: truncate, saturate, NaN gives 0 */
	LLVMTypeRef tys[2] = { tt, ft };
	return call_intrinsic(l, type_is_signed(to) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &x, 1);
}

static LLVMValueRef bitcast(L *l, LLVMValueRef x, UirType from, UirType to, int lanes)
{
	if (type_is_int(from) == type_is_int(to))
		return x; /* i32 <-> u32 and the like: the same LLVM type */
	LLVMTypeRef tt = val_type(l, to, lanes);
	LLVMValueRef bits = LLVMBuildBitCast(l->b, x, tt, "");
	if (type_is_int(from))
		return bits;
	/* a NaN reads as the canonical pattern */
	int64_t canon = from == UIR_F32 ? 0x7FC00000 : (int64_t)0x7FF8000000000000;
	LLVMValueRef nan = LLVMBuildFCmp(l->b, LLVMRealUNO, x, x, "");
	return LLVMBuildSelect(l->b, nan, int_const(val_type(l, to, 1), canon, lanes), bits, "");
}

/* ---- math ---- */

/* The math function NAME of type FT (linked from the math bitcode), declared nounwind on
 * first use; marks the module as needing the bitcode. */
static LLVMValueRef math_function(L *l, const char *name, LLVMTypeRef ft)
{
	LLVMValueRef f = LLVMGetNamedFunction(l->mod, name);
	if (!f) {
		f = LLVMAddFunction(l->mod, name, ft);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(l->cx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
	}
	l->out->uses_math = true;
	return f;
}

/* Calls uir_jit_NAME_T (runtime/uir_math.h through src/llvm/math_bc.c) lane by lane. */
static LLVMValueRef math_call(L *l, const char *op, UirType t, int lanes, LLVMValueRef x)
{
	char name[64];
	snprintf(name, sizeof name, "uir_jit_%s_%s", op, t == UIR_F32 ? "f32" : "f64");
	LLVMTypeRef st = val_type(l, t, 1);
	LLVMTypeRef ft = LLVMFunctionType(st, &st, 1, 0);
	LLVMValueRef f = math_function(l, name, ft);
	if (lanes <= 1)
		return LLVMBuildCall2(l->b, ft, f, &x, 1, "");
	LLVMValueRef v = LLVMGetPoison(val_type(l, t, lanes));
	for (int i = 0; i < lanes; i++) {
		LLVMValueRef idx = LLVMConstInt(l->t_i32, (unsigned long long)i, 0);
		LLVMValueRef xi = LLVMBuildExtractElement(l->b, x, idx, "");
		LLVMValueRef r = LLVMBuildCall2(l->b, ft, f, &xi, 1, "");
		v = LLVMBuildInsertElement(l->b, v, r, idx, "");
	}
	return v;
}

/* GPU only: the remainder of float division by uir_ptx_fmod_T (src/llvm/ptx_math.c, exact
 * like C fmod), lane by lane: NVPTX lowers frem as x - trunc(x / y) * y, which is not. */
static LLVMValueRef gpu_fmod(L *l, UirType t, int lanes, LLVMValueRef x, LLVMValueRef y)
{
	const char *name = t == UIR_F32 ? "uir_ptx_fmod_f32" : "uir_ptx_fmod_f64";
	LLVMTypeRef st = val_type(l, t, 1);
	LLVMTypeRef pt[2] = { st, st };
	LLVMTypeRef ft = LLVMFunctionType(st, pt, 2, 0);
	LLVMValueRef f = math_function(l, name, ft);
	if (lanes <= 1) {
		LLVMValueRef args[2] = { x, y };
		return LLVMBuildCall2(l->b, ft, f, args, 2, "");
	}
	LLVMValueRef v = LLVMGetPoison(val_type(l, t, lanes));
	for (int i = 0; i < lanes; i++) {
		LLVMValueRef idx = LLVMConstInt(l->t_i32, (unsigned long long)i, 0);
		LLVMValueRef args[2] = { LLVMBuildExtractElement(l->b, x, idx, ""), LLVMBuildExtractElement(l->b, y, idx, "") };
		v = LLVMBuildInsertElement(l->b, v, LLVMBuildCall2(l->b, ft, f, args, 2, ""), idx, "");
	}
	return v;
}

/* ---- ops ---- */

static LLVMValueRef shift(L *l, const Expr *e, LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef st = val_type(l, e->ty, 1);
	LLVMValueRef n = LLVMBuildAnd(l->b, b, int_const(st, type_bits(e->ty) - 1, e->lanes), "");
	if (e->op == OP_SHL) {
		LLVMValueRef r = LLVMBuildShl(l->b, a, n, "");
		if (e->nowrap && LLVMIsAInstruction(r))
			LLVMSetNSW(r, type_is_signed(e->ty)), LLVMSetNUW(r, !type_is_signed(e->ty));
		return r;
	}
	return type_is_signed(e->ty) ? LLVMBuildAShr(l->b, a, n, "") : LLVMBuildLShr(l->b, a, n, "");
}

/* Sets nsw/nuw on an add, sub, mul or neg that check/ranges.c proved exact (nowrap). */
static void no_wrap(LLVMValueRef r, const Expr *e)
{
	if (!e->nowrap || !LLVMIsAInstruction(r))
		return;
	bool nonneg = e->rng.lo >= 0;
	for (int i = 0; i < e->nargs; i++)
		nonneg = nonneg && e->args[i]->rng.lo >= 0;
	if (type_is_signed(e->ty)) {
		LLVMSetNSW(r, 1);
		if (nonneg && e->op != OP_NEG)
			LLVMSetNUW(r, 1);
	} else if (e->op != OP_NEG) {
		LLVMSetNUW(r, 1);
	}
}

static LLVMValueRef compare(L *l, const Expr *e, LLVMValueRef a, LLVMValueRef b)
{
	UirType t = e->args[0]->ty;
	if (type_is_float(t)) {
		static const LLVMRealPredicate fp[] = {
			[OP_LT] = LLVMRealOLT, [OP_LE] = LLVMRealOLE, [OP_GT] = LLVMRealOGT,
			[OP_GE] = LLVMRealOGE, [OP_EQ] = LLVMRealOEQ, [OP_NE] = LLVMRealUNE,
		};
		return LLVMBuildFCmp(l->b, fp[e->op], a, b, "");
	}
	bool s = type_is_signed(t);
	LLVMIntPredicate ip;
	switch (e->op) {
	case OP_LT: ip = s ? LLVMIntSLT : LLVMIntULT; break;
	case OP_LE: ip = s ? LLVMIntSLE : LLVMIntULE; break;
	case OP_GT: ip = s ? LLVMIntSGT : LLVMIntUGT; break;
	case OP_GE: ip = s ? LLVMIntSGE : LLVMIntUGE; break;
	case OP_EQ: ip = LLVMIntEQ; break;
	default: ip = LLVMIntNE; break;
	}
	return LLVMBuildICmp(l->b, ip, a, b, "");
}

/* Ops with value operands only (no load, vec, splat, lane, cast). */
static LLVMValueRef value_op(L *l, const Expr *e, LLVMValueRef *v)
{
	UirType t = e->op == OP_SELECT ? e->args[1]->ty : e->args[0]->ty;
	bool fl = type_is_float(t), sg = type_is_signed(t);
	LLVMTypeRef vt = val_type(l, t, e->lanes);
	LLVMValueRef r;
	switch (e->op) {
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
		if (fl) {
			LLVMOpcode fo = e->op == OP_ADD ? LLVMFAdd : e->op == OP_SUB ? LLVMFSub : LLVMFMul;
			return LLVMBuildBinOp(l->b, fo, v[0], v[1], "");
		}
		r = LLVMBuildBinOp(l->b, e->op == OP_ADD ? LLVMAdd : e->op == OP_SUB ? LLVMSub : LLVMMul, v[0], v[1], "");
		no_wrap(r, e);
		return r;
	case OP_DIV:
		return fl ? LLVMBuildFDiv(l->b, v[0], v[1], "") : int_divmod(l, e, v[0], v[1]);
	case OP_MOD:
		if (fl && l->gpu)
			return gpu_fmod(l, t, e->lanes, v[0], v[1]);
		return fl ? LLVMBuildFRem(l->b, v[0], v[1], "") : int_divmod(l, e, v[0], v[1]);
	case OP_NEG:
		if (fl)
			return LLVMBuildFNeg(l->b, v[0], "");
		r = LLVMBuildNeg(l->b, v[0], "");
		no_wrap(r, e);
		return r;
	case OP_ABS:
		if (fl)
			return call_intrinsic(l, "llvm.fabs", &vt, 1, v, 1);
		if (!sg)
			return v[0];
		{
			LLVMValueRef args[2] = { v[0], LLVMConstInt(l->t_i1, 0, 0) }; /* abs MIN = MIN */
			return call_intrinsic(l, "llvm.abs", &vt, 1, args, 2);
		}
	case OP_MIN:
	case OP_MAX: {
		const char *n = fl ? (e->op == OP_MIN ? "llvm.minimum" : "llvm.maximum")
			: sg ? (e->op == OP_MIN ? "llvm.smin" : "llvm.smax")
			     : (e->op == OP_MIN ? "llvm.umin" : "llvm.umax");
		return call_intrinsic(l, n, &vt, 1, v, 2);
	}
	case OP_FMA:
		return call_intrinsic(l, "llvm.fma", &vt, 1, v, 3);
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
		return compare(l, e, v[0], v[1]);
	case OP_AND: return LLVMBuildAnd(l->b, v[0], v[1], "");
	case OP_OR: return LLVMBuildOr(l->b, v[0], v[1], "");
	case OP_XOR: return LLVMBuildXor(l->b, v[0], v[1], "");
	case OP_NOT: return LLVMBuildXor(l->b, v[0], LLVMConstAllOnes(vt), "");
	case OP_SHL:
	case OP_SHR:
		return shift(l, e, v[0], v[1]);
	case OP_SELECT:
		return LLVMBuildSelect(l->b, v[0], v[1], v[2], "");
	case OP_SQRT: return call_intrinsic(l, "llvm.sqrt", &vt, 1, v, 1);
	case OP_FLOOR: return call_intrinsic(l, "llvm.floor", &vt, 1, v, 1);
	case OP_CEIL: return call_intrinsic(l, "llvm.ceil", &vt, 1, v, 1);
	case OP_TRUNC: return call_intrinsic(l, "llvm.trunc", &vt, 1, v, 1);
	case OP_RECIP:
		return LLVMBuildFDiv(l->b, splat_const(LLVMConstReal(val_type(l, t, 1), 1.0), e->lanes), v[0], "");
	case OP_EXP2: return math_call(l, "exp2", t, e->lanes, v[0]);
	case OP_LOG2: return math_call(l, "log2", t, e->lanes, v[0]);
	case OP_SIN: return math_call(l, "sin", t, e->lanes, v[0]);
	case OP_COS: return math_call(l, "cos", t, e->lanes, v[0]);
	default:
		unreachable();
	}
}

static LLVMValueRef load(L *l, const Expr *e)
{
	LLVMValueRef off = lower_expr(l, e->args[0]);
	const Mem *m = e->mem;
	LLVMValueRef addr = lower_address(l, m, off, e->in_bounds || block_checked(l, e), e->width, e->loc,
					  msg_load_what(&l->p->arena, e));
	LLVMTypeRef mt = mem_type(l, m->ty);
	LLVMTypeRef lt = e->width > 1 ? LLVMVectorType(mt, (unsigned)e->width) : mt;
	LLVMValueRef v = LLVMBuildLoad2(l->b, lt, addr, "");
	LLVMSetAlignment(v, (unsigned)uir_type_size(m->ty));
	if (m->ty == UIR_BOOL) /* a byte that is not 0 reads as true, as in the interpreter */
		v = LLVMBuildICmp(l->b, LLVMIntNE, v, LLVMConstNull(lt), "");
	return v;
}

static LLVMValueRef vec(L *l, const Expr *e)
{
	LLVMValueRef v = LLVMGetPoison(val_type(l, e->ty, e->lanes));
	for (int i = 0; i < e->nargs; i++) {
		LLVMValueRef x = lower_expr(l, e->args[i]);
		v = LLVMBuildInsertElement(l->b, v, x, LLVMConstInt(l->t_i32, (unsigned long long)i, 0), "");
	}
	return v;
}

static LLVMValueRef splat(L *l, const Expr *e)
{
	LLVMValueRef x = lower_expr(l, e->args[0]);
	LLVMTypeRef vt = val_type(l, e->ty, e->lanes);
	LLVMValueRef v = LLVMBuildInsertElement(l->b, LLVMGetPoison(vt), x, LLVMConstInt(l->t_i32, 0, 0), "");
	LLVMValueRef mask = LLVMConstNull(LLVMVectorType(l->t_i32, (unsigned)e->lanes));
	return LLVMBuildShuffleVector(l->b, v, LLVMGetPoison(vt), mask, "");
}

static LLVMValueRef op(L *l, const Expr *e)
{
	switch (e->op) {
	case OP_LOAD:
		return load(l, e);
	case OP_VEC:
		return vec(l, e);
	case OP_SPLAT:
		return splat(l, e);
	case OP_LANE: {
		LLVMValueRef v = lower_expr(l, e->args[0]);
		return LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->t_i32, (unsigned long long)e->args[1]->val.i, 0), "");
	}
	case OP_CAST:
	case OP_BITCAST: {
		LLVMValueRef x = lower_expr(l, e->args[0]);
		if (e->op == OP_CAST)
			return cast(l, x, e->args[0]->ty, e->to, e->lanes, &e->args[0]->rng);
		return bitcast(l, x, e->args[0]->ty, e->to, e->lanes);
	}
	default:
		break;
	}
	if (e->nargs < 1 || e->nargs > 3)
		unreachable();
	LLVMValueRef v[3];
	for (int i = 0; i < e->nargs; i++)
		v[i] = lower_expr(l, e->args[i]);
	return value_op(l, e, v);
}

LLVMValueRef lower_expr(L *l, const Expr *e)
{
	switch (e->kind) {
	case EX_LIT:
		return literal(l, e);
	case EX_NAME:
		if (!e->sym || e->sym->kind == SYM_MEM || !l->val[e->sym->slot])
			unreachable();
		return l->val[e->sym->slot];
	case EX_OP:
		return op(l, e);
	}
	unreachable();
}
