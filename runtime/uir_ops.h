/* uir_ops.h - the exact meaning of every .uir op that is not one UB-free C expression.
 *
 * docs/language.md 4.5. Each function is named uir_OP_T (uir_div_i32, uir_cast_f32_u8 for
 * "cast u8 x" of an f32 x) and is the single definition that the interpreter, the LLVM
 * back end and both renderers use. Ops that are a single defined C expression are left to
 * the back ends: unsigned add/sub/mul (with a cast back for u8), integer min/max and
 * compares, and number to bool, which is (x != 0) (true for NaN).
 *
 * Plain C11 that also compiles as C++ and as CUDA device code (define UIR_FN as
 * "static __device__ inline" before including). Uses memcpy (bitcasts) and fmodf/fmod.
 *
 * Implementation-defined behaviour relied on: converting an out-of-range integer to a
 * signed type reduces it modulo 2^N (C11 6.3.1.3p3). gcc, clang and nvcc all document
 * this (and C23 and C++20 require it); there is no undefined behaviour in this file.
 *
 * Each helper starts with a marker line (runtime/README.md) and is pasted verbatim by
 * the renderers: keep every helper self-contained and readable.
 */
#ifndef UIR_OPS_H
#define UIR_OPS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef UIR_FN
#define UIR_FN static inline
#endif

/* ---- Integer division and remainder ---- */

/* uir-helper: uir_div_i8 */
/* i8 division, truncating toward zero; x / 0 = 0 and INT8_MIN / -1 = INT8_MIN (wraps). */
UIR_FN int8_t uir_div_i8(int8_t a, int8_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return (int8_t)(uint8_t)(0u - (uint8_t)a);
	return (int8_t)(a / b);
}

/* uir-helper: uir_mod_i8 */
/* i8 remainder with the sign of a (C %); x % 0 = x and x % -1 = 0. */
UIR_FN int8_t uir_mod_i8(int8_t a, int8_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return 0;
	return (int8_t)(a % b);
}

/* uir-helper: uir_div_u8 */
/* u8 division, truncating; x / 0 = 0. */
UIR_FN uint8_t uir_div_u8(uint8_t a, uint8_t b)
{
	return b == 0 ? 0 : (uint8_t)(a / b);
}

/* uir-helper: uir_mod_u8 */
/* u8 remainder; x % 0 = x. */
UIR_FN uint8_t uir_mod_u8(uint8_t a, uint8_t b)
{
	return b == 0 ? a : (uint8_t)(a % b);
}

/* uir-helper: uir_div_i32 */
/* i32 division, truncating toward zero; x / 0 = 0 and INT32_MIN / -1 = INT32_MIN (wraps). */
UIR_FN int32_t uir_div_i32(int32_t a, int32_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return (int32_t)(0u - (uint32_t)a);
	return (int32_t)(a / b);
}

/* uir-helper: uir_mod_i32 */
/* i32 remainder with the sign of a (C %); x % 0 = x and x % -1 = 0. */
UIR_FN int32_t uir_mod_i32(int32_t a, int32_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return 0;
	return (int32_t)(a % b);
}

/* uir-helper: uir_div_u32 */
/* u32 division, truncating; x / 0 = 0. */
UIR_FN uint32_t uir_div_u32(uint32_t a, uint32_t b)
{
	return b == 0 ? 0 : (uint32_t)(a / b);
}

/* uir-helper: uir_mod_u32 */
/* u32 remainder; x % 0 = x. */
UIR_FN uint32_t uir_mod_u32(uint32_t a, uint32_t b)
{
	return b == 0 ? a : (uint32_t)(a % b);
}

/* uir-helper: uir_div_i64 */
/* i64 division, truncating toward zero; x / 0 = 0 and INT64_MIN / -1 = INT64_MIN (wraps). */
UIR_FN int64_t uir_div_i64(int64_t a, int64_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return (int64_t)(0u - (uint64_t)a);
	return (int64_t)(a / b);
}

/* uir-helper: uir_mod_i64 */
/* i64 remainder with the sign of a (C %); x % 0 = x and x % -1 = 0. */
UIR_FN int64_t uir_mod_i64(int64_t a, int64_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return 0;
	return (int64_t)(a % b);
}

/* uir-helper: uir_div_u64 */
/* u64 division, truncating; x / 0 = 0. */
UIR_FN uint64_t uir_div_u64(uint64_t a, uint64_t b)
{
	return b == 0 ? 0 : (uint64_t)(a / b);
}

/* uir-helper: uir_mod_u64 */
/* u64 remainder; x % 0 = x. */
UIR_FN uint64_t uir_mod_u64(uint64_t a, uint64_t b)
{
	return b == 0 ? a : (uint64_t)(a % b);
}

/* uir-helper-end */

/* ---- Wrapping signed arithmetic (computed in the unsigned type) ---- */

/* uir-helper: uir_add_i8 */
/* a + b, wrapping modulo 2^8. */
UIR_FN int8_t uir_add_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)((unsigned)(uint8_t)a + (unsigned)(uint8_t)b);
}

/* uir-helper: uir_sub_i8 */
/* a - b, wrapping modulo 2^8. */
UIR_FN int8_t uir_sub_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)((unsigned)(uint8_t)a - (unsigned)(uint8_t)b);
}

/* uir-helper: uir_mul_i8 */
/* a * b, wrapping modulo 2^8. */
UIR_FN int8_t uir_mul_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)((unsigned)(uint8_t)a * (unsigned)(uint8_t)b);
}

/* uir-helper: uir_neg_i8 */
/* -a, wrapping: -INT8_MIN = INT8_MIN. */
UIR_FN int8_t uir_neg_i8(int8_t a)
{
	return (int8_t)(uint8_t)(0u - (unsigned)(uint8_t)a);
}

/* uir-helper: uir_abs_i8 */
/* |a|, wrapping: abs INT8_MIN = INT8_MIN. */
UIR_FN int8_t uir_abs_i8(int8_t a)
{
	return a < 0 ? (int8_t)(uint8_t)(0u - (unsigned)(uint8_t)a) : a;
}

/* uir-helper: uir_add_i32 */
/* a + b, wrapping modulo 2^32. */
UIR_FN int32_t uir_add_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* uir-helper: uir_sub_i32 */
/* a - b, wrapping modulo 2^32. */
UIR_FN int32_t uir_sub_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* uir-helper: uir_mul_i32 */
/* a * b, wrapping modulo 2^32. */
UIR_FN int32_t uir_mul_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a * (uint32_t)b);
}

/* uir-helper: uir_neg_i32 */
/* -a, wrapping: -INT32_MIN = INT32_MIN. */
UIR_FN int32_t uir_neg_i32(int32_t a)
{
	return (int32_t)(0u - (uint32_t)a);
}

/* uir-helper: uir_abs_i32 */
/* |a|, wrapping: abs INT32_MIN = INT32_MIN. */
UIR_FN int32_t uir_abs_i32(int32_t a)
{
	return a < 0 ? (int32_t)(0u - (uint32_t)a) : a;
}

/* uir-helper: uir_add_i64 */
/* a + b, wrapping modulo 2^64. */
UIR_FN int64_t uir_add_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* uir-helper: uir_sub_i64 */
/* a - b, wrapping modulo 2^64. */
UIR_FN int64_t uir_sub_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* uir-helper: uir_mul_i64 */
/* a * b, wrapping modulo 2^64. */
UIR_FN int64_t uir_mul_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* uir-helper: uir_neg_i64 */
/* -a, wrapping: -INT64_MIN = INT64_MIN. */
UIR_FN int64_t uir_neg_i64(int64_t a)
{
	return (int64_t)(0u - (uint64_t)a);
}

/* uir-helper: uir_abs_i64 */
/* |a|, wrapping: abs INT64_MIN = INT64_MIN. */
UIR_FN int64_t uir_abs_i64(int64_t a)
{
	return a < 0 ? (int64_t)(0u - (uint64_t)a) : a;
}

/* uir-helper-end */

/* ---- Shifts: the count is taken modulo the bit width ---- */

/* uir-helper: uir_shl_i8 */
/* a << (b mod 8), bits shifted out are lost. */
UIR_FN int8_t uir_shl_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)((unsigned)(uint8_t)a << ((uint8_t)b & 7u));
}

/* uir-helper: uir_shr_i8 */
/* a >> (b mod 8), arithmetic (copies the sign bit). A negative a is shifted as ~(~a >> n),
 * so no right shift of a negative value (implementation-defined in C) is needed. */
UIR_FN int8_t uir_shr_i8(int8_t a, int8_t b)
{
	unsigned n = (unsigned)((uint8_t)b & 7u);
	return (int8_t)(a < 0 ? ~(~a >> n) : a >> n);
}

/* uir-helper: uir_shl_u8 */
/* a << (b mod 8), bits shifted out are lost. */
UIR_FN uint8_t uir_shl_u8(uint8_t a, uint8_t b)
{
	return (uint8_t)((unsigned)a << (b & 7u));
}

/* uir-helper: uir_shr_u8 */
/* a >> (b mod 8), logical. */
UIR_FN uint8_t uir_shr_u8(uint8_t a, uint8_t b)
{
	return (uint8_t)(a >> (b & 7u));
}

/* uir-helper: uir_shl_i32 */
/* a << (b mod 32), bits shifted out are lost. */
UIR_FN int32_t uir_shl_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a << ((uint32_t)b & 31u));
}

/* uir-helper: uir_shr_i32 */
/* a >> (b mod 32), arithmetic (copies the sign bit). A negative a is shifted as ~(~a >> n),
 * so no right shift of a negative value (implementation-defined in C) is needed. */
UIR_FN int32_t uir_shr_i32(int32_t a, int32_t b)
{
	unsigned n = (unsigned)((uint32_t)b & 31u);
	return (int32_t)(a < 0 ? ~(~a >> n) : a >> n);
}

/* uir-helper: uir_shl_u32 */
/* a << (b mod 32), bits shifted out are lost. */
UIR_FN uint32_t uir_shl_u32(uint32_t a, uint32_t b)
{
	return a << (b & 31u);
}

/* uir-helper: uir_shr_u32 */
/* a >> (b mod 32), logical. */
UIR_FN uint32_t uir_shr_u32(uint32_t a, uint32_t b)
{
	return a >> (b & 31u);
}

/* uir-helper: uir_shl_i64 */
/* a << (b mod 64), bits shifted out are lost. */
UIR_FN int64_t uir_shl_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a << ((uint64_t)b & 63u));
}

/* uir-helper: uir_shr_i64 */
/* a >> (b mod 64), arithmetic (copies the sign bit). A negative a is shifted as ~(~a >> n),
 * so no right shift of a negative value (implementation-defined in C) is needed. */
UIR_FN int64_t uir_shr_i64(int64_t a, int64_t b)
{
	unsigned n = (unsigned)((uint64_t)b & 63u);
	return (int64_t)(a < 0 ? ~(~a >> n) : a >> n);
}

/* uir-helper: uir_shl_u64 */
/* a << (b mod 64), bits shifted out are lost. */
UIR_FN uint64_t uir_shl_u64(uint64_t a, uint64_t b)
{
	return a << (b & 63u);
}

/* uir-helper: uir_shr_u64 */
/* a >> (b mod 64), logical. */
UIR_FN uint64_t uir_shr_u64(uint64_t a, uint64_t b)
{
	return a >> (b & 63u);
}

/* uir-helper-end */

/* ---- Float min, max and mod ---- */

/* uir-helper: uir_min_f32 */
/* The smaller of a and b; NaN if either is NaN; min(-0, +0) = -0.
 * For two zeros, -(-a - b) is -0 unless both are +0. */
UIR_FN float uir_min_f32(float a, float b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	if (a == 0 && b == 0)
		return -(-a - b);
	return a < b ? a : b;
}

/* uir-helper: uir_max_f32 */
/* The larger of a and b; NaN if either is NaN; max(-0, +0) = +0.
 * For two zeros, a + b is +0 unless both are -0. */
UIR_FN float uir_max_f32(float a, float b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	if (a == 0 && b == 0)
		return a + b;
	return a > b ? a : b;
}

/* uir-helper: uir_sub_f32 */
/* a - b, IEEE (a renderer calls it only where a may be a constant +0 and b is not a
 * literal: written inline, gcc 12 folds 0 - b into -b when b is an integer converted to
 * float or a fabs, which is -0 for b = +0, where IEEE gives +0). */
UIR_FN float uir_sub_f32(float a, float b)
{
	return a - b;
}

/* uir-helper: uir_div_f32 */
/* a / b, IEEE (a renderer calls it only for a divisor that is a constant expression other
 * than a literal, such as `cast f32 false`: written inline, C++ front ends such as nvcc's
 * report a constant zero divisor as an error under -Werror). */
UIR_FN float uir_div_f32(float a, float b)
{
	return a / b;
}

/* uir-helper: uir_mod_f32 */
/* The remainder of a / b with the sign of a (C fmodf): exact. */
UIR_FN float uir_mod_f32(float a, float b)
{
	return fmodf(a, b);
}

/* uir-helper: uir_min_f64 */
/* The smaller of a and b; NaN if either is NaN; min(-0, +0) = -0.
 * For two zeros, -(-a - b) is -0 unless both are +0. */
UIR_FN double uir_min_f64(double a, double b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	if (a == 0 && b == 0)
		return -(-a - b);
	return a < b ? a : b;
}

/* uir-helper: uir_max_f64 */
/* The larger of a and b; NaN if either is NaN; max(-0, +0) = +0.
 * For two zeros, a + b is +0 unless both are -0. */
UIR_FN double uir_max_f64(double a, double b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	if (a == 0 && b == 0)
		return a + b;
	return a > b ? a : b;
}

/* uir-helper: uir_sub_f64 */
/* a - b, IEEE (see uir_sub_f32). */
UIR_FN double uir_sub_f64(double a, double b)
{
	return a - b;
}

/* uir-helper: uir_div_f64 */
/* a / b, IEEE (see uir_div_f32). */
UIR_FN double uir_div_f64(double a, double b)
{
	return a / b;
}

/* uir-helper: uir_mod_f64 */
/* The remainder of a / b with the sign of a (C fmod): exact. */
UIR_FN double uir_mod_f64(double a, double b)
{
	return fmod(a, b);
}

/* uir-helper-end */

/* ---- Float to integer: truncate toward zero, saturate, NaN gives 0 ---- */

/* uir-helper: uir_cast_f32_i8 */
/* f32 to i8. The bounds -2^7 and 2^7 are exact in f32; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int8_t uir_cast_f32_i8(float x)
{
	if (x != x)
		return 0;
	if (x <= -128.0f)
		return INT8_MIN;
	if (x >= 128.0f)
		return INT8_MAX;
	return (int8_t)x;
}

/* uir-helper: uir_cast_f32_u8 */
/* f32 to u8. NaN and x <= -1 give 0; x >= 2^8 (exact in f32) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint8_t uir_cast_f32_u8(float x)
{
	if (!(x > -1.0f))
		return 0;
	if (x >= 256.0f)
		return UINT8_MAX;
	return (uint8_t)x;
}

/* uir-helper: uir_cast_f32_i32 */
/* f32 to i32. The bounds -2^31 and 2^31 are exact in f32; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int32_t uir_cast_f32_i32(float x)
{
	if (x != x)
		return 0;
	if (x <= -2147483648.0f)
		return INT32_MIN;
	if (x >= 2147483648.0f)
		return INT32_MAX;
	return (int32_t)x;
}

/* uir-helper: uir_cast_f32_u32 */
/* f32 to u32. NaN and x <= -1 give 0; x >= 2^32 (exact in f32) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint32_t uir_cast_f32_u32(float x)
{
	if (!(x > -1.0f))
		return 0;
	if (x >= 4294967296.0f)
		return UINT32_MAX;
	return (uint32_t)x;
}

/* uir-helper: uir_cast_f32_i64 */
/* f32 to i64. The bounds -2^63 and 2^63 are exact in f32; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int64_t uir_cast_f32_i64(float x)
{
	if (x != x)
		return 0;
	if (x <= -9223372036854775808.0f)
		return INT64_MIN;
	if (x >= 9223372036854775808.0f)
		return INT64_MAX;
	return (int64_t)x;
}

/* uir-helper: uir_cast_f32_u64 */
/* f32 to u64. NaN and x <= -1 give 0; x >= 2^64 (exact in f32) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint64_t uir_cast_f32_u64(float x)
{
	if (!(x > -1.0f))
		return 0;
	if (x >= 18446744073709551616.0f)
		return UINT64_MAX;
	return (uint64_t)x;
}

/* uir-helper: uir_cast_f64_i8 */
/* f64 to i8. The bounds -2^7 and 2^7 are exact in f64; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int8_t uir_cast_f64_i8(double x)
{
	if (x != x)
		return 0;
	if (x <= -128.0)
		return INT8_MIN;
	if (x >= 128.0)
		return INT8_MAX;
	return (int8_t)x;
}

/* uir-helper: uir_cast_f64_u8 */
/* f64 to u8. NaN and x <= -1 give 0; x >= 2^8 (exact in f64) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint8_t uir_cast_f64_u8(double x)
{
	if (!(x > -1.0))
		return 0;
	if (x >= 256.0)
		return UINT8_MAX;
	return (uint8_t)x;
}

/* uir-helper: uir_cast_f64_i32 */
/* f64 to i32. The bounds -2^31 and 2^31 are exact in f64; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int32_t uir_cast_f64_i32(double x)
{
	if (x != x)
		return 0;
	if (x <= -2147483648.0)
		return INT32_MIN;
	if (x >= 2147483648.0)
		return INT32_MAX;
	return (int32_t)x;
}

/* uir-helper: uir_cast_f64_u32 */
/* f64 to u32. NaN and x <= -1 give 0; x >= 2^32 (exact in f64) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint32_t uir_cast_f64_u32(double x)
{
	if (!(x > -1.0))
		return 0;
	if (x >= 4294967296.0)
		return UINT32_MAX;
	return (uint32_t)x;
}

/* uir-helper: uir_cast_f64_i64 */
/* f64 to i64. The bounds -2^63 and 2^63 are exact in f64; between them the
 * truncated value fits, so the C conversion is defined. */
UIR_FN int64_t uir_cast_f64_i64(double x)
{
	if (x != x)
		return 0;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	if (x >= 9223372036854775808.0)
		return INT64_MAX;
	return (int64_t)x;
}

/* uir-helper: uir_cast_f64_u64 */
/* f64 to u64. NaN and x <= -1 give 0; x >= 2^64 (exact in f64) gives the maximum;
 * in between the truncated value fits, so the C conversion is defined. */
UIR_FN uint64_t uir_cast_f64_u64(double x)
{
	if (!(x > -1.0))
		return 0;
	if (x >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)x;
}

/* uir-helper-end */

/* ---- bitcast: NaN floats read as the canonical pattern ---- */

/* uir-helper: uir_bitcast_f32_i32 */
/* The bits of x as i32; every NaN gives the canonical 0x7FC00000. */
UIR_FN int32_t uir_bitcast_f32_i32(float x)
{
	int32_t r;
	if (x != x)
		return 0x7FC00000;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_i32_f32 */
/* The f32 whose bits are x. */
UIR_FN float uir_bitcast_i32_f32(int32_t x)
{
	float r;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_f32_u32 */
/* The bits of x as u32; every NaN gives the canonical 0x7FC00000. */
UIR_FN uint32_t uir_bitcast_f32_u32(float x)
{
	uint32_t r;
	if (x != x)
		return 0x7FC00000u;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_u32_f32 */
/* The f32 whose bits are x. */
UIR_FN float uir_bitcast_u32_f32(uint32_t x)
{
	float r;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_f64_i64 */
/* The bits of x as i64; every NaN gives the canonical 0x7FF8000000000000. */
UIR_FN int64_t uir_bitcast_f64_i64(double x)
{
	int64_t r;
	if (x != x)
		return (int64_t)0x7FF8000000000000;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_i64_f64 */
/* The f64 whose bits are x. */
UIR_FN double uir_bitcast_i64_f64(int64_t x)
{
	double r;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_f64_u64 */
/* The bits of x as u64; every NaN gives the canonical 0x7FF8000000000000. */
UIR_FN uint64_t uir_bitcast_f64_u64(double x)
{
	uint64_t r;
	if (x != x)
		return (uint64_t)0x7FF8000000000000;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper: uir_bitcast_u64_f64 */
/* The f64 whose bits are x. */
UIR_FN double uir_bitcast_u64_f64(uint64_t x)
{
	double r;
	memcpy(&r, &x, sizeof r);
	return r;
}

/* uir-helper-end */

#endif /* UIR_OPS_H */
