/* test_runtime.c - unit tests of the runtime headers uir_ops.h, uir_init.h, uir_npy.h
 * and uir_print.h.
 *
 * Usage: test_runtime [TMPDIR]   (scratch .npy files go to TMPDIR, default ".")
 * Prints each failure, then "N passed, N failed"; exits 1 if any check failed.
 * When /usr/bin/python3 can import numpy, also checks that numpy loads our files;
 * otherwise that part is skipped (the literal numpy-written files are always checked).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uir_init.h"
#include "uir_npy.h"
#include "uir_ops.h"
#include "uir_print.h"

static int passed, failed;

/* Records one check; prints the failing expression and line. */
static void check(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL line %d: %s\n", line, what);
	}
}

#define CHECK(cond) check((cond) != 0, #cond, __LINE__)

/* Checks that two strings are equal, printing both when not. */
static void check_str(const char *got, const char *want, int line)
{
	char what[256];
	snprintf(what, sizeof what, "got \"%s\", want \"%s\"", got, want);
	check(strcmp(got, want) == 0, what, line);
}

#define CHECK_STR(got, want) check_str((got), (want), __LINE__)

static uint32_t bits_f32(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static uint64_t bits_f64(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static float f32_of_bits(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static double f64_of_bits(uint64_t u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

/* ---- uir_init.h ---- */

static void test_generator(void)
{
	int64_t i;
	float f;
	double d;
	CHECK(uir_random_bits(3, 0) == 0x4fad8879896d31fbu);
	CHECK(uir_random_f32(3, 0, -1, 1) == -0.3775167465209961f);
	CHECK((double)uir_random_f32(3, 0, -1, 1) == -0.3775167465209961);
	CHECK(uir_random_bits(3, 5) == uir_splitmix64(((uint64_t)3 << 32) + 5));
	CHECK(uir_splitmix64(0) == 0xE220A8397B1DCDAFu); /* splitmix64's first output, seed 0 */
	/* f64: u = (z >> 11) * 2^-53 */
	CHECK(uir_random_f64(3, 0, -1, 1) ==
	      -1 + 2 * ((double)(0x4fad8879896d31fbu >> 11) / 9007199254740992.0));

	/* Ranges are [lo, hi): never hi, never below lo. */
	for (i = 0; i < 200000; i++) {
		f = uir_random_f32(7, (uint64_t)i, -1, 1);
		d = uir_random_f64(7, (uint64_t)i, -1, 1);
		if (!(f >= -1 && f < 1) || !(d >= -1 && d < 1))
			break;
		f = uir_random_f32(9, (uint64_t)i, 0, 0.1);
		d = uir_random_f64(9, (uint64_t)i, 2.5, 3);
		if (!(f >= 0 && (double)f < 0.1) || !(d >= 2.5 && d < 3))
			break;
		f = uir_random_f32(11, (uint64_t)i, -1e30, 1e30);
		if (!(f >= -1e30f && (double)f < 1e30))
			break;
	}
	CHECK(i == 200000);
	/* A result that rounds to hi or above becomes the largest value below hi. */
	for (i = 0; i < 1000; i++) {
		f = uir_random_f32(1, (uint64_t)i, 1 - 1.0 / (1 << 30), 1);
		d = uir_random_f64(1, (uint64_t)i, 1 - 1.0 / 9007199254740992.0, 1);
		if (f != f32_of_bits(0x3F7FFFFF) || d != 1 - 1.0 / 9007199254740992.0)
			break;
	}
	CHECK(i == 1000);
	CHECK(uir_below_f32(1.0) == f32_of_bits(0x3F7FFFFF));
	CHECK(uir_below_f32(0.1) == 0.099999994f);
	CHECK(uir_below_f32(0.0) == -f32_of_bits(1));
	CHECK(uir_below_f32(-0.0) == -f32_of_bits(1));
	CHECK(uir_below_f32(1e300) == FLT_MAX);
	CHECK(uir_below_f32(-1e300) == -INFINITY);
	CHECK(uir_below_f32(1.5) == f32_of_bits(0x3FBFFFFF));
	CHECK(uir_below_f64(1.0) == f64_of_bits(0x3FEFFFFFFFFFFFFFu));
	CHECK(uir_below_f64(0.0) == -f64_of_bits(1));
	CHECK(uir_below_f64(-1.0) == f64_of_bits(0xBFF0000000000001u));
	/* A huge range: results beyond f32 become the largest f32 below hi. */
	CHECK(uir_random_f32(3, 0, 0, 1e300) == FLT_MAX);

	/* Integers: lo + z mod width, wrapped by the caller; width 0 stands for 2^64. */
	for (i = 0; i < 100000; i++) {
		int32_t v = (int32_t)uir_random_int(5, (uint64_t)i, (uint64_t)(int64_t)-5, 10);
		uint8_t b = (uint8_t)uir_random_int(5, (uint64_t)i, 0, 256);
		int8_t c = (int8_t)uir_random_int(5, (uint64_t)i, (uint64_t)(int64_t)-128, 256);
		uint64_t z = uir_random_bits(5, (uint64_t)i);
		if (v < -5 || v >= 5 || b != (uint8_t)z || c != (int8_t)(uint8_t)(z + 128))
			break;
		if (uir_random_int(5, (uint64_t)i, 0, 0) != z ||
		    uir_random_int(5, (uint64_t)i, (uint64_t)INT64_MIN, 0) !=
			    z + (uint64_t)INT64_MIN)
			break;
		if ((int64_t)uir_random_int(5, (uint64_t)i, (uint64_t)(int64_t)-3, 3) < -3 ||
		    (int64_t)uir_random_int(5, (uint64_t)i, (uint64_t)(int64_t)-3, 3) > -1)
			break;
	}
	CHECK(i == 100000);
	CHECK(uir_random_int(3, 0, 10, 7) == 10 + 0x4fad8879896d31fbu % 7);

	/* The conversions of z that random SEED and run --seed share. */
	CHECK(uir_bits_f32(0x4fad8879896d31fbu, -1, 1) == uir_random_f32(3, 0, -1, 1));
	CHECK(uir_bits_f64(0x4fad8879896d31fbu, -1, 1) == uir_random_f64(3, 0, -1, 1));
	CHECK(uir_bits_int(0x4fad8879896d31fbu, 10, 7) == uir_random_int(3, 0, 10, 7));
	/* run --seed S (docs/commands.md): the check value of seed 3, buffer 0, element 0. */
	uint64_t k0 = uir_seeded_key(3, 0, 0), k1 = uir_seeded_key(3, 0, 1);
	CHECK(k0 == 0xc810565020d09481u && k1 == 0x86d6fd953217ae03u);
	CHECK(k0 == uir_splitmix64(3 ^ uir_splitmix64(0)) && k1 == uir_splitmix64(3 ^ uir_splitmix64(1)));
	CHECK(uir_seeded_bits(k0, k1, 0) == 0x587032628d3ba646u);
	CHECK(uir_seeded_bits(k0, k1, 7) == uir_splitmix64(uir_splitmix64(k0 + 7) ^ k1));
	CHECK(uir_bits_f32(uir_seeded_bits(k0, k1, 0), -1, 1) == -0.30907607078552246f);
	CHECK(uir_seeded_key(3, 1, 0) != k0 && uir_seeded_key(4, 0, 0) != k0);
}

/* ---- uir_ops.h ---- */

static void test_div_mod(void)
{
	CHECK(uir_div_i8(INT8_MIN, -1) == INT8_MIN && uir_mod_i8(INT8_MIN, -1) == 0);
	CHECK(uir_div_i8(7, 0) == 0 && uir_mod_i8(7, 0) == 7 && uir_mod_i8(-7, 0) == -7);
	CHECK(uir_div_i8(-7, 2) == -3 && uir_mod_i8(-7, 2) == -1 && uir_mod_i8(7, -2) == 1);
	CHECK(uir_div_i8(127, -1) == -127 && uir_div_i8(INT8_MIN, 1) == INT8_MIN);
	CHECK(uir_div_u8(255, 0) == 0 && uir_mod_u8(255, 0) == 255 && uir_div_u8(255, 2) == 127);
	CHECK(uir_mod_u8(255, 7) == 3);
	CHECK(uir_div_i32(INT32_MIN, -1) == INT32_MIN && uir_mod_i32(INT32_MIN, -1) == 0);
	CHECK(uir_div_i32(5, 0) == 0 && uir_mod_i32(5, 0) == 5 &&
	      uir_mod_i32(INT32_MIN, 0) == INT32_MIN);
	CHECK(uir_div_i32(-7, 2) == -3 && uir_mod_i32(-7, 2) == -1 && uir_div_i32(7, -2) == -3);
	CHECK(uir_div_i32(INT32_MIN, 2) == -1073741824 && uir_mod_i32(INT32_MIN, 3) == -2);
	CHECK(uir_div_u32(UINT32_MAX, 0) == 0 && uir_mod_u32(UINT32_MAX, 0) == UINT32_MAX);
	CHECK(uir_div_u32(UINT32_MAX, 2) == 0x7FFFFFFF && uir_mod_u32(UINT32_MAX, 10) == 5);
	CHECK(uir_div_i64(INT64_MIN, -1) == INT64_MIN && uir_mod_i64(INT64_MIN, -1) == 0);
	CHECK(uir_div_i64(9, 0) == 0 && uir_mod_i64(-9, 0) == -9 && uir_div_i64(-9, 4) == -2);
	CHECK(uir_mod_i64(-9, 4) == -1 && uir_div_i64(INT64_MAX, -1) == -INT64_MAX);
	CHECK(uir_div_u64(UINT64_MAX, 0) == 0 && uir_mod_u64(UINT64_MAX, 0) == UINT64_MAX);
	CHECK(uir_div_u64(UINT64_MAX, 3) == 0x5555555555555555u &&
	      uir_mod_u64(UINT64_MAX, 10) == 5);
}

static void test_wrapping(void)
{
	CHECK(uir_add_i8(127, 1) == -128 && uir_sub_i8(-128, 1) == 127 &&
	      uir_mul_i8(16, 8) == -128);
	CHECK(uir_mul_i8(-128, -1) == -128 && uir_mul_i8(100, 3) == 44 && uir_neg_i8(-128) == -128);
	CHECK(uir_abs_i8(-128) == -128 && uir_abs_i8(-5) == 5 && uir_abs_i8(5) == 5 &&
	      uir_neg_i8(5) == -5);
	CHECK(uir_add_i32(INT32_MAX, 1) == INT32_MIN && uir_sub_i32(INT32_MIN, 1) == INT32_MAX);
	CHECK(uir_mul_i32(65536, 65536) == 0 && uir_mul_i32(INT32_MIN, -1) == INT32_MIN);
	CHECK(uir_mul_i32(-3, 7) == -21 && uir_mul_i32(0x10001, 0x10001) == 0x20001);
	CHECK(uir_neg_i32(INT32_MIN) == INT32_MIN && uir_abs_i32(INT32_MIN) == INT32_MIN);
	CHECK(uir_abs_i32(-7) == 7 && uir_neg_i32(7) == -7);
	CHECK(uir_add_i64(INT64_MAX, 1) == INT64_MIN && uir_sub_i64(INT64_MIN, 1) == INT64_MAX);
	CHECK(uir_mul_i64(INT64_MIN, -1) == INT64_MIN &&
	      uir_mul_i64((int64_t)1 << 32, (int64_t)1 << 32) == 0);
	CHECK(uir_neg_i64(INT64_MIN) == INT64_MIN && uir_abs_i64(INT64_MIN) == INT64_MIN);
	CHECK(uir_abs_i64(-7) == 7 && uir_mul_i64(-3, 5) == -15);
}

static void test_shifts(void)
{
	CHECK(uir_shl_i8(1, 7) == -128 && uir_shl_i8(1, 8) == 1 && uir_shl_i8(1, 9) == 2);
	CHECK(uir_shl_i8(1, -1) == -128 && uir_shl_i8(-1, 3) == -8);
	CHECK(uir_shr_i8(-128, 7) == -1 && uir_shr_i8(-128, 8) == -128 &&
	      uir_shr_i8(-128, 1) == -64);
	CHECK(uir_shr_i8(-1, 100) == -1 && uir_shr_i8(64, 6) == 1 && uir_shr_i8(-7, 1) == -4);
	CHECK(uir_shl_u8(255, 4) == 240 && uir_shl_u8(1, 8) == 1 && uir_shr_u8(255, 7) == 1);
	CHECK(uir_shr_u8(128, 8) == 128 && uir_shr_u8(128, 15) == 1);
	CHECK(uir_shl_i32(1, 31) == INT32_MIN && uir_shl_i32(1, 32) == 1 &&
	      uir_shl_i32(3, 33) == 6);
	CHECK(uir_shl_i32(1, -1) == INT32_MIN && uir_shl_i32(-1, 4) == -16);
	CHECK(uir_shr_i32(INT32_MIN, 31) == -1 && uir_shr_i32(INT32_MIN, 32) == INT32_MIN);
	CHECK(uir_shr_i32(-1, 31) == -1 && uir_shr_i32(-9, 1) == -5 && uir_shr_i32(9, 33) == 4);
	CHECK(uir_shl_u32(1, 31) == 0x80000000u && uir_shl_u32(1, 32) == 1 &&
	      uir_shl_u32(1, 0xFFFFFFFFu) == 0x80000000u);
	CHECK(uir_shr_u32(0x80000000u, 31) == 1 && uir_shr_u32(0x80000000u, 32) == 0x80000000u);
	CHECK(uir_shl_i64(1, 63) == INT64_MIN && uir_shl_i64(1, 64) == 1 &&
	      uir_shl_i64(1, -1) == INT64_MIN);
	CHECK(uir_shr_i64(INT64_MIN, 63) == -1 && uir_shr_i64(INT64_MIN, 64) == INT64_MIN);
	CHECK(uir_shr_i64(-9, 65) == -5 && uir_shr_i64(INT64_MAX, 62) == 1);
	CHECK(uir_shl_u64(1, 63) == 0x8000000000000000u && uir_shl_u64(1, 64) == 1 &&
	      uir_shl_u64(5, 130) == 20);
	CHECK(uir_shr_u64(0x8000000000000000u, 63) == 1 &&
	      uir_shr_u64(0x8000000000000000u, 64) == 0x8000000000000000u);
}

static void test_min_max(void)
{
	float nf = f32_of_bits(0x7FC00000), zf = 0.0f, mzf = -0.0f;
	double nd = f64_of_bits(0x7FF8000000000000u), zd = 0.0, mzd = -0.0;
	CHECK(uir_min_f32(nf, 1) != uir_min_f32(nf, 1) && uir_min_f32(1, nf) != uir_min_f32(1, nf));
	CHECK(uir_max_f32(nf, 1) != uir_max_f32(nf, 1) && uir_max_f32(1, nf) != uir_max_f32(1, nf));
	CHECK(uir_max_f32(-INFINITY, nf) != uir_max_f32(-INFINITY, nf));
	CHECK(bits_f32(uir_min_f32(mzf, zf)) == 0x80000000u &&
	      bits_f32(uir_min_f32(zf, mzf)) == 0x80000000u);
	CHECK(bits_f32(uir_max_f32(mzf, zf)) == 0 && bits_f32(uir_max_f32(zf, mzf)) == 0);
	CHECK(bits_f32(uir_min_f32(zf, zf)) == 0 && bits_f32(uir_max_f32(mzf, mzf)) == 0x80000000u);
	CHECK(bits_f32(uir_min_f32(mzf, mzf)) == 0x80000000u && bits_f32(uir_max_f32(zf, zf)) == 0);
	CHECK(uir_min_f32(1, 2) == 1 && uir_max_f32(1, 2) == 2 &&
	      uir_min_f32(-INFINITY, 3) == -INFINITY);
	CHECK(uir_max_f32(-1, -2) == -1 && uir_max_f32(INFINITY, 3) == INFINITY);
	CHECK(uir_min_f64(nd, 1) != uir_min_f64(nd, 1) && uir_max_f64(1, nd) != uir_max_f64(1, nd));
	CHECK(bits_f64(uir_min_f64(mzd, zd)) == 0x8000000000000000u &&
	      bits_f64(uir_min_f64(zd, mzd)) == 0x8000000000000000u);
	CHECK(bits_f64(uir_max_f64(mzd, zd)) == 0 && bits_f64(uir_max_f64(zd, mzd)) == 0);
	CHECK(bits_f64(uir_min_f64(zd, zd)) == 0 &&
	      bits_f64(uir_max_f64(mzd, mzd)) == 0x8000000000000000u);
	CHECK(uir_min_f64(1, 2) == 1 && uir_max_f64(1, 2) == 2 &&
	      uir_min_f64(-1e300, 1e300) == -1e300);
	/* float mod is C fmod */
	CHECK(uir_mod_f32(7.5f, 2) == 1.5f && uir_mod_f32(-7.5f, 2) == -1.5f);
	CHECK(bits_f32(uir_mod_f32(-4, 2)) == 0x80000000u &&
	      uir_mod_f32(1, 0) != uir_mod_f32(1, 0));
	CHECK(uir_mod_f64(7.5, -2) == 1.5 && uir_mod_f64(5, INFINITY) == 5);
}

static void test_casts(void)
{
	float nf = f32_of_bits(0x7FC00000);
	double nd = f64_of_bits(0x7FF8000000000000u);
	/* NaN gives 0; infinities saturate. */
	CHECK(uir_cast_f32_i8(nf) == 0 && uir_cast_f32_u8(nf) == 0 && uir_cast_f32_i32(nf) == 0);
	CHECK(uir_cast_f32_u32(nf) == 0 && uir_cast_f32_i64(nf) == 0 && uir_cast_f32_u64(nf) == 0);
	CHECK(uir_cast_f64_i8(nd) == 0 && uir_cast_f64_u8(nd) == 0 && uir_cast_f64_i32(nd) == 0);
	CHECK(uir_cast_f64_u32(nd) == 0 && uir_cast_f64_i64(nd) == 0 && uir_cast_f64_u64(nd) == 0);
	CHECK(uir_cast_f32_i8(INFINITY) == INT8_MAX && uir_cast_f32_i8(-INFINITY) == INT8_MIN);
	CHECK(uir_cast_f32_u8(INFINITY) == UINT8_MAX && uir_cast_f32_u8(-INFINITY) == 0);
	CHECK(uir_cast_f32_i32(INFINITY) == INT32_MAX && uir_cast_f32_i32(-INFINITY) == INT32_MIN);
	CHECK(uir_cast_f32_u32(INFINITY) == UINT32_MAX && uir_cast_f32_u32(-INFINITY) == 0);
	CHECK(uir_cast_f32_i64(INFINITY) == INT64_MAX && uir_cast_f32_i64(-INFINITY) == INT64_MIN);
	CHECK(uir_cast_f32_u64(INFINITY) == UINT64_MAX && uir_cast_f32_u64(-INFINITY) == 0);
	CHECK(uir_cast_f64_i8(INFINITY) == INT8_MAX && uir_cast_f64_i8(-INFINITY) == INT8_MIN);
	CHECK(uir_cast_f64_u8(INFINITY) == UINT8_MAX && uir_cast_f64_u8(-INFINITY) == 0);
	CHECK(uir_cast_f64_i32(INFINITY) == INT32_MAX && uir_cast_f64_i32(-INFINITY) == INT32_MIN);
	CHECK(uir_cast_f64_u32(INFINITY) == UINT32_MAX && uir_cast_f64_u32(-INFINITY) == 0);
	CHECK(uir_cast_f64_i64(INFINITY) == INT64_MAX && uir_cast_f64_i64(-INFINITY) == INT64_MIN);
	CHECK(uir_cast_f64_u64(INFINITY) == UINT64_MAX && uir_cast_f64_u64(-INFINITY) == 0);
	/* Just inside and just outside the range; truncation toward zero. */
	CHECK(uir_cast_f32_i8(127.9f) == 127 && uir_cast_f32_i8(128.0f) == 127 &&
	      uir_cast_f32_i8(-128.9f) == -128);
	CHECK(uir_cast_f32_i8(-129.0f) == -128 && uir_cast_f32_i8(-1.5f) == -1 &&
	      uir_cast_f32_i8(0.99f) == 0);
	CHECK(uir_cast_f32_u8(255.9f) == 255 && uir_cast_f32_u8(256.0f) == 255 &&
	      uir_cast_f32_u8(-0.9f) == 0);
	CHECK(uir_cast_f32_u8(-1.0f) == 0 && uir_cast_f32_u8(3.7f) == 3);
	CHECK(uir_cast_f32_i32(2147483520.0f) == 2147483520 &&
	      uir_cast_f32_i32(2147483648.0f) == INT32_MAX);
	CHECK(uir_cast_f32_i32(-2147483648.0f) == INT32_MIN &&
	      uir_cast_f32_i32(-2147483904.0f) == INT32_MIN);
	CHECK(uir_cast_f32_i32(-2.5f) == -2 && uir_cast_f32_i32(1e10f) == INT32_MAX);
	CHECK(uir_cast_f32_u32(4294967040.0f) == 4294967040u &&
	      uir_cast_f32_u32(4294967296.0f) == UINT32_MAX);
	CHECK(uir_cast_f32_u32(-0.5f) == 0 && uir_cast_f32_u32(-2.0f) == 0);
	CHECK(uir_cast_f32_i64(9223371487098961920.0f) == 9223371487098961920 &&
	      uir_cast_f32_i64(9223372036854775808.0f) == INT64_MAX);
	CHECK(uir_cast_f32_i64(-9223372036854775808.0f) == INT64_MIN &&
	      uir_cast_f32_i64(-1e19f) == INT64_MIN);
	CHECK(uir_cast_f32_u64(18446742974197923840.0f) == 18446742974197923840u &&
	      uir_cast_f32_u64(18446744073709551616.0f) == UINT64_MAX);
	CHECK(uir_cast_f32_u64(-0.99f) == 0 && uir_cast_f32_u64(FLT_MAX) == UINT64_MAX);
	CHECK(uir_cast_f64_i8(127.999) == 127 && uir_cast_f64_i8(128.0) == 127 &&
	      uir_cast_f64_i8(-128.999) == -128);
	CHECK(uir_cast_f64_i8(-129.0) == -128 && uir_cast_f64_u8(255.999) == 255 &&
	      uir_cast_f64_u8(256.0) == 255);
	CHECK(uir_cast_f64_u8(-0.999) == 0 && uir_cast_f64_u8(-1.0) == 0);
	CHECK(uir_cast_f64_i32(2147483647.9) == INT32_MAX &&
	      uir_cast_f64_i32(2147483648.0) == INT32_MAX);
	CHECK(uir_cast_f64_i32(-2147483648.9) == INT32_MIN &&
	      uir_cast_f64_i32(-2147483649.0) == INT32_MIN);
	CHECK(uir_cast_f64_i32(-2147483647.9) == -2147483647 && uir_cast_f64_i32(-3.99) == -3);
	CHECK(uir_cast_f64_u32(4294967295.9) == UINT32_MAX &&
	      uir_cast_f64_u32(4294967296.0) == UINT32_MAX);
	CHECK(uir_cast_f64_u32(4294967294.5) == 4294967294u && uir_cast_f64_u32(-0.5) == 0);
	CHECK(uir_cast_f64_i64(9223372036854774784.0) == 9223372036854774784 &&
	      uir_cast_f64_i64(9223372036854775808.0) == INT64_MAX);
	CHECK(uir_cast_f64_i64(-9223372036854775808.0) == INT64_MIN &&
	      uir_cast_f64_i64(-1e300) == INT64_MIN);
	CHECK(uir_cast_f64_u64(18446744073709549568.0) == 18446744073709549568u &&
	      uir_cast_f64_u64(18446744073709551616.0) == UINT64_MAX);
	CHECK(uir_cast_f64_u64(-0.5) == 0 && uir_cast_f64_u64(1e300) == UINT64_MAX &&
	      uir_cast_f64_u64(DBL_MIN) == 0);
	/* bitcast: NaN reads as the canonical pattern */
	CHECK(uir_bitcast_f32_u32(f32_of_bits(0xFFC12345u)) == 0x7FC00000u &&
	      uir_bitcast_f32_i32(-0.0f) == INT32_MIN);
	CHECK(uir_bitcast_f32_i32(f32_of_bits(0x7F800001u)) == 0x7FC00000 &&
	      uir_bitcast_f32_u32(1.0f) == 0x3F800000u);
	CHECK(uir_bitcast_f64_u64(f64_of_bits(0xFFF0000000000001u)) == 0x7FF8000000000000u);
	CHECK(uir_bitcast_f64_i64(-2.0) == (int64_t)0xC000000000000000u &&
	      uir_bitcast_f64_u64(1.0) == 0x3FF0000000000000u);
	CHECK(uir_bitcast_u32_f32(0x3F800000u) == 1.0f && uir_bitcast_i32_f32(INT32_MIN) == 0 &&
	      bits_f32(uir_bitcast_i32_f32(INT32_MIN)) == 0x80000000u);
	CHECK(uir_bitcast_u64_f64(0x4000000000000000u) == 2.0 &&
	      uir_bitcast_i64_f64(0x3FF0000000000000) == 1.0);
}

/* ---- uir_print.h ---- */

static void check_f32(float x, const char *want, int line)
{
	char buf[64];
	int len = uir_format_f32(buf, sizeof buf, x);
	check_str(buf, want, line);
	check(len == (int)strlen(want), "length", line);
}

static void check_f64(double x, const char *want, int line)
{
	char buf[64];
	int len = uir_format_f64(buf, sizeof buf, x);
	check_str(buf, want, line);
	check(len == (int)strlen(want), "length", line);
}

/* Prints with FN into a temporary file and compares the text. */
#define CHECK_PRINT(fn, data, count, want)                        \
	do {                                                      \
		char got_[512];                                   \
		size_t n_;                                        \
		FILE *f_ = tmpfile();                             \
		CHECK(f_ != NULL);                                \
		if (f_) {                                         \
			fn(f_, "buf", data, count);               \
			rewind(f_);                               \
			n_ = fread(got_, 1, sizeof got_ - 1, f_); \
			got_[n_] = '\0';                          \
			fclose(f_);                               \
			CHECK_STR(got_, want);                    \
		}                                                 \
	} while (0)

static void test_print(void)
{
	static const float f[] = {0.1f, -0.0f, 1.5f, 16777216.0f};
	static const double d[] = {0.1, 1e300, -2.5};
	static const uint8_t b[] = {1, 0, 1};
	static const int8_t i8[] = {-128, 0, 127};
	static const uint8_t u8[] = {0, 255};
	static const int32_t i32[] = {INT32_MIN, -1, 0, INT32_MAX};
	static const uint32_t u32[] = {UINT32_MAX, 7};
	static const int64_t i64[] = {INT64_MIN, INT64_MAX};
	static const uint64_t u64[] = {UINT64_MAX, 0};
	char buf[64];

	check_f32(0.1f, "0.1", __LINE__);
	check_f32(1e30f, "1e+30", __LINE__);
	check_f32(-0.0f, "-0", __LINE__);
	check_f32(0.0f, "0", __LINE__);
	check_f32(f32_of_bits(0x7FC00000), "nan", __LINE__);
	check_f32(f32_of_bits(0xFFC00001), "nan", __LINE__);
	check_f32(INFINITY, "inf", __LINE__);
	check_f32(-INFINITY, "-inf", __LINE__);
	check_f32(16777216.0f, "16777216", __LINE__);
	check_f32(16777218.0f, "16777218", __LINE__);
	check_f32(123456789.0f, "1.2345679e+08", __LINE__);
	check_f32(f32_of_bits(1), "1e-45", __LINE__);                  /* smallest subnormal */
	check_f32(f32_of_bits(0x007FFFFF), "1.1754942e-38", __LINE__); /* largest subnormal */
	check_f32(FLT_MIN, "1.1754944e-38", __LINE__);
	check_f32(FLT_MAX, "3.4028235e+38", __LINE__);
	check_f32(-0.3775167465209961f, "-0.37751675", __LINE__);
	check_f32(1.0f / 3, "0.33333334", __LINE__);
	check_f32(100.0f, "1e+02", __LINE__); /* %.1g: the rule of docs/language.md 10.1, literally */
	check_f32(120.0f, "1.2e+02", __LINE__);
	check_f32(123.0f, "123", __LINE__);
	check_f32(0.0001f, "0.0001", __LINE__);
	check_f32(0.00001f, "1e-05", __LINE__);
	check_f32(1.25f, "1.25", __LINE__);
	check_f32(-2.5e-5f, "-2.5e-05", __LINE__);
	check_f32(999999.94f, "999999.94", __LINE__);
	check_f32(9.5f, "9.5", __LINE__);
	check_f64(0.1, "0.1", __LINE__);
	check_f64(1.0 / 3, "0.3333333333333333", __LINE__);
	check_f64(-0.0, "-0", __LINE__);
	check_f64(f64_of_bits(0xFFF8000000000000u), "nan", __LINE__);
	check_f64(INFINITY, "inf", __LINE__);
	check_f64(-INFINITY, "-inf", __LINE__);
	check_f64(DBL_MAX, "1.7976931348623157e+308", __LINE__);
	check_f64(-DBL_MAX, "-1.7976931348623157e+308", __LINE__);
	check_f64(f64_of_bits(1), "5e-324", __LINE__);
	check_f64(DBL_MIN, "2.2250738585072014e-308", __LINE__);
	check_f64(1e16, "1e+16", __LINE__);
	check_f64(123456789012345678.0, "1.2345678901234568e+17", __LINE__);
	check_f64(9007199254740993.0, "9007199254740992", __LINE__);
	check_f64(0.3, "0.3", __LINE__);
	check_f64(0.1 + 0.2, "0.30000000000000004", __LINE__);
	check_f64(1e23, "1e+23", __LINE__);
	check_f64(8.41e21, "8.41e+21", __LINE__);
	check_f64((double)0.1f, "0.10000000149011612", __LINE__);
	check_f64(5e-5, "5e-05", __LINE__);
	check_f64(2.5, "2.5", __LINE__);
	/* a short buffer truncates like snprintf */
	CHECK(uir_format_f32(buf, 3, 0.125f) == 5 && strcmp(buf, "0.") == 0);

	CHECK_PRINT(uir_print_f32, f, 4, "buf: 0.1 -0 1.5 16777216\n");
	CHECK_PRINT(uir_print_f64, d, 3, "buf: 0.1 1e+300 -2.5\n");
	CHECK_PRINT(uir_print_bool, b, 3, "buf: 1 0 1\n");
	CHECK_PRINT(uir_print_i8, i8, 3, "buf: -128 0 127\n");
	CHECK_PRINT(uir_print_u8, u8, 2, "buf: 0 255\n");
	CHECK_PRINT(uir_print_i32, i32, 4, "buf: -2147483648 -1 0 2147483647\n");
	CHECK_PRINT(uir_print_u32, u32, 2, "buf: 4294967295 7\n");
	CHECK_PRINT(uir_print_i64, i64, 2, "buf: -9223372036854775808 9223372036854775807\n");
	CHECK_PRINT(uir_print_u64, u64, 2, "buf: 18446744073709551615 0\n");
	CHECK_PRINT(uir_print_i32, i32, 0, "buf:\n");
}

static void test_hash(void)
{
	static const uint8_t a[] = {'a'};
	static const uint8_t canon32[] = {0x00, 0x00, 0xC0, 0x7F, 0x00, 0x00, 0x80, 0x3F};
	static const uint8_t canon64[] = {0, 0, 0, 0, 0, 0, 0xF8, 0x7F};
	static const int32_t one = 1;
	static const uint8_t one_le[] = {1, 0, 0, 0};
	float f[2];
	double d[1];
	CHECK(uir_hash_bytes(a, 0, 1) == 0xCBF29CE484222325u);
	CHECK(uir_hash_bytes(a, 1, 1) == 0xAF63DC4C8601EC8Cu); /* FNV-1a 64 of "a" */
	CHECK(uir_hash_bytes(&one, 1, 4) == uir_hash_bytes(one_le, 4, 1));
	f[0] = f32_of_bits(0xFFC12345u);
	f[1] = 1.0f;
	CHECK(uir_hash_f32(f, 2) == uir_hash_bytes(canon32, 8, 1));
	d[0] = f64_of_bits(0x7FF0000000000001u);
	CHECK(uir_hash_f64(d, 1) == uir_hash_bytes(canon64, 8, 1));
	d[0] = 1.0;
	CHECK(uir_hash_f64(d, 1) == uir_hash_bytes(d, 1, 8));
}

/* ---- uir_npy.h ---- */

static char tmpdir[512] = ".";

/* A scratch path in tmpdir. */
static const char *tmp_path(const char *name)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/test_runtime_%s", tmpdir, name);
	return path;
}

/* Writes LEN bytes to the scratch file NAME and returns its path. */
static const char *write_bytes(const char *name, const char *bytes, size_t len)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(bytes, 1, len, f);
		fclose(f);
	}
	return path;
}

/* Writes a version 1.0 .npy scratch file NAME with header text DICT (its length is
 * computed) followed by LEN data bytes; returns its path. */
static const char *write_npy(const char *name, const char *dict, const char *data, size_t len)
{
	char bytes[512];
	size_t hlen = strlen(dict);
	memcpy(bytes, "\223NUMPY\001\000", 8);
	bytes[8] = (char)(hlen & 0xFF);
	bytes[9] = (char)(hlen >> 8);
	memcpy(bytes + 10, dict, hlen);
	memcpy(bytes + 10 + hlen, data, len);
	return write_bytes(name, bytes, 10 + hlen + len);
}

/* Reads the scratch file PATH as dtype DESCR and COUNT elements; checks the error text. */
static void check_npy_error(const char *path, const char *descr, int64_t count, const char *want,
			    int line)
{
	char err[200] = "";
	uint8_t dst[64];
	int rc = uir_npy_read(path, descr, count, dst, err, sizeof err);
	check(rc == -1, "uir_npy_read fails", line);
	check_str(err, want, line);
}

/* numpy 1.24: np.save of np.array([[1, -2, 3], [2**31-1, -2**31, 0]], dtype='<i4') */
static const char npy_i32[] =
	"\223NUMPY\001\000v\000{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
	"                                                          \012"
	"\001\000\000\000\376\377\377\377\003\000\000\000\377\377\377\177\000\000\000\200"
	"\000\000\000\000";
/* numpy.lib.format.write_array(f, np.array([True, False, True]), version=(2, 0)) */
static const char npy_bool_v2[] =
	"\223NUMPY\002\000t\000\000\000{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }"
	"                                                          \012\001\000\001";
/* numpy.lib.format.write_array(f, np.array(2.5), version=(3, 0)): shape () */
static const char npy_f64_v3[] =
	"\223NUMPY\003\000t\000\000\000{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
	"                                                            \012"
	"\000\000\000\000\000\000\004@";

static void test_npy(void)
{
	static const char *const descrs[] = {"|b1", "|i1", "|u1", "<i4", "<u4",
					     "<i8", "<u8", "<f4", "<f8"};
	uint8_t src[8 * 37], dst[8 * 37];
	char err[200];
	int32_t i32[6];
	uint8_t bools[3];
	double f64[1];
	float nan_in[2], nan_out[2];
	size_t k;
	int i;

	/* write then read back, every type */
	for (i = 0; i < (int)sizeof src; i++)
		src[i] = (uint8_t)(i * 37 + 11);
	for (k = 0; k < sizeof descrs / sizeof descrs[0]; k++) {
		int size = descrs[k][2] - '0';
		const char *path = tmp_path("rw.npy");
		if (descrs[k][1] == 'b')
			for (i = 0; i < 37; i++)
				src[i] = (uint8_t)(i % 3 == 0);
		if (descrs[k][1] == 'f') /* keep the floats free of NaN: they are canonicalised */
			for (i = 0; i < 37; i++)
				src[i * size + size - 1] = 0x3F;
		memset(dst, 0xAA, sizeof dst);
		CHECK(uir_npy_write(path, descrs[k], 37, src) == 0);
		err[0] = '\0';
		CHECK(uir_npy_read(path, descrs[k], 37, dst, err, sizeof err) == 0);
		CHECK(memcmp(src, dst, (size_t)(37 * size)) == 0);
		CHECK_STR(err, "");
		remove(path);
	}
	/* NaNs are written canonical */
	nan_in[0] = f32_of_bits(0xFFC00123u);
	nan_in[1] = -1.5f;
	CHECK(uir_npy_write(tmp_path("nan.npy"), "<f4", 2, nan_in) == 0);
	CHECK(uir_npy_read(tmp_path("nan.npy"), "<f4", 2, nan_out, err, sizeof err) == 0);
	CHECK(bits_f32(nan_out[0]) == 0x7FC00000u && nan_out[1] == -1.5f);
	remove(tmp_path("nan.npy"));

	/* files numpy wrote: version 1.0 2-D, 2.0 bool, 3.0 0-d */
	CHECK(uir_npy_read(write_bytes("np1.npy", npy_i32, sizeof npy_i32 - 1), "<i4", 6, i32, err,
			   sizeof err) == 0);
	CHECK(i32[0] == 1 && i32[1] == -2 && i32[2] == 3 && i32[3] == INT32_MAX &&
	      i32[4] == INT32_MIN && i32[5] == 0);
	CHECK(uir_npy_read(write_bytes("np2.npy", npy_bool_v2, sizeof npy_bool_v2 - 1), "|b1", 3,
			   bools, err, sizeof err) == 0);
	CHECK(bools[0] == 1 && bools[1] == 0 && bools[2] == 1);
	CHECK(uir_npy_read(write_bytes("np3.npy", npy_f64_v3, sizeof npy_f64_v3 - 1), "<f8", 1, f64,
			   err, sizeof err) == 0);
	CHECK(f64[0] == 2.5);

	/* errors */
	check_npy_error(tmp_path("np1.npy"), "<f4", 6,
			"dtype '<i4' does not match f32 buffer (needs '<f4')", __LINE__);
	check_npy_error(tmp_path("np1.npy"), "<i4", 8, "6 elements, buffer has 8", __LINE__);
	check_npy_error(tmp_path("np2.npy"), "|u1", 3,
			"dtype '|b1' does not match u8 buffer (needs '|u1')", __LINE__);
	check_npy_error(tmp_path("np3.npy"), "<f8", 2, "1 elements, buffer has 2", __LINE__);
	check_npy_error(write_bytes("t1.npy", npy_i32, sizeof npy_i32 - 2), "<i4", 6,
			"truncated data", __LINE__);
	check_npy_error(write_bytes("t2.npy", npy_i32, 60), "<i4", 6, "truncated header", __LINE__);
	check_npy_error(write_bytes("t3.npy", npy_i32, 9), "<i4", 6, "not a .npy file", __LINE__);
	check_npy_error(write_bytes("t4.npy", npy_bool_v2, 11), "|b1", 3, "truncated header",
			__LINE__);
	check_npy_error(write_bytes("t5.npy", "\223NUMPY\004\000\010\000{}      \n", 18), "|b1", 3,
			"unsupported .npy version 4.0", __LINE__);
	check_npy_error(write_bytes("t6.npy", "\223NUMPY\002\000\377\377\377\377{", 13), "|b1", 3,
			"header too large", __LINE__);
	check_npy_error(write_npy("t7.npy",
				  "{'descr': '<f4', 'fortran_order': True, 'shape': (1,)}\n",
				  "\0\0\0\0", 4),
			"<f4", 1, "fortran_order is True (needs C order)", __LINE__);
	check_npy_error(
		write_npy("t8.npy", "{'descr': '<f4', 'shape': (1,), 'shape': (1,)}\n", "", 0),
		"<f4", 1, "bad header: unknown or repeated key", __LINE__);
	check_npy_error(write_npy("t9.npy", "{'descr': '<f4', 'fortran_order': False}\n", "", 0),
			"<f4", 1, "bad header: needs 'descr', 'fortran_order' and 'shape'",
			__LINE__);
	check_npy_error(write_npy("t10.npy",
				  "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}\n", "",
				  0),
			"<f4", 1, "bad header: shape is not a tuple of integers", __LINE__);
	check_npy_error(write_npy("t11.npy",
				  "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n", "",
				  0),
			"<f4", 1, "dtype '>f4' does not match f32 buffer (needs '<f4')", __LINE__);
	check_npy_error(write_npy("t12.npy",
				  "{'descr': '<f4', 'fortran_order': False, "
				  "'shape': (99999999999999999999, 2), }\n",
				  "", 0),
			"<f4", 1, "more than 2^62 elements, buffer has 1", __LINE__);
	check_npy_error(write_npy("t14.npy",
				  "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } x\n",
				  "", 0),
			"<f4", 3, "bad header: text after the dictionary", __LINE__);
	check_npy_error(write_npy("t15.npy",
				  "{'descr': [('a', '<f4')], 'fortran_order': False, "
				  "'shape': (3,), }\n",
				  "", 0),
			"<f4", 3, "bad header: descr is not a simple dtype string", __LINE__);
	check_npy_error(write_npy("t16.npy",
				  "{'descr': '<f4', 'fortran_order': False, "
				  "'shape': (4294967296, 4294967296, 0), }\n",
				  "", 0),
			"<f4", 3, "0 elements, buffer has 3", __LINE__);
	check_npy_error(tmp_path("does-not-exist.npy"), "<f4", 1, "cannot open: No such file or directory",
			__LINE__);
	/* a header that claims more data than the file holds: "truncated data" from the file's
	 * size, before any data is read (the 144-byte file claiming 2^31-1 elements of tests/cli/scale_tests.sh);
	 * uir_npy_check says the same from the header alone, and accepts a file that fits */
	write_npy("t18.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647,), }\n",
		  "\0\0\0\0\0\0\0\0", 8);
	check_npy_error(tmp_path("t18.npy"), "<f4", 2147483647, "truncated data", __LINE__);
	err[0] = 0;
	CHECK(uir_npy_check(tmp_path("t18.npy"), "<f4", 2147483647, err, sizeof err) == -1 &&
	      !strcmp(err, "truncated data"));
	CHECK(uir_npy_check(tmp_path("t18.npy"), "<f4", 2, err, sizeof err) == -1 &&
	      !strcmp(err, "2147483647 elements, buffer has 2"));
	write_npy("t19.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
		  "\0\0\0\0\0\0\200", 7);
	CHECK(uir_npy_check(tmp_path("t19.npy"), "<f4", 2, err, sizeof err) == -1 &&
	      !strcmp(err, "truncated data"));
	write_npy("t20.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
		  "\0\0\0\0\0\0\200\077", 8);
	CHECK(uir_npy_check(tmp_path("t20.npy"), "<f4", 2, err, sizeof err) == 0);
	/* a one-byte dtype with another byte-order character, double quotes, keys in another
	 * order, shape (1, 1,), and bytes after the data */
	CHECK(uir_npy_read(write_npy("t13.npy",
				     "{\"descr\": \"<u1\", \"shape\": (1, 1,), "
				     "\"fortran_order\": False}\n",
				     "\007\010", 2),
			   "|u1", 1, bools, err, sizeof err) == 0 &&
	      bools[0] == 7);
	/* a bool byte other than 0 reads as 1 */
	CHECK(uir_npy_read(write_npy("t17.npy",
				     "{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}",
				     "\002\000", 2),
			   "|b1", 2, bools, err, sizeof err) == 0 &&
	      bools[0] == 1 && bools[1] == 0);
	for (i = 1; i <= 20; i++) {
		char name[32];
		snprintf(name, sizeof name, "t%d.npy", i);
		remove(tmp_path(name));
	}

	remove(tmp_path("np1.npy"));
	remove(tmp_path("np2.npy"));
	remove(tmp_path("np3.npy"));
}

/* When numpy is installed, checks that numpy.load reads the files uir_npy_write makes. */
static void test_numpy_loads(void)
{
	static const double vals[] = {1.5, -0.0, 1e300};
	static const uint8_t bools[] = {1, 0, 1};
	char f8[1024], b1[1024], cmd[4096];
	if (system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
		printf("skipped: numpy.load of our .npy files (no numpy for /usr/bin/python3)\n");
		return;
	}
	snprintf(f8, sizeof f8, "%s", tmp_path("np_f8.npy"));
	snprintf(b1, sizeof b1, "%s", tmp_path("np_b1.npy"));
	CHECK(uir_npy_write(f8, "<f8", 3, vals) == 0);
	CHECK(uir_npy_write(b1, "|b1", 3, bools) == 0);
	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 -c \"import numpy as np, sys; a = np.load(sys.argv[1]); "
		 "b = np.load(sys.argv[2]); "
		 "sys.exit(0 if a.dtype == np.float64 and a.shape == (3,) and "
		 "list(a) == [1.5, 0.0, 1e300] and np.signbit(a[1]) and "
		 "b.dtype == np.bool_ and list(b) == [True, False, True] else 1)\" '%s' '%s'",
		 f8, b1);
	CHECK(system(cmd) == 0);
	remove(f8);
	remove(b1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		snprintf(tmpdir, sizeof tmpdir, "%s", argv[1]);
	test_generator();
	test_div_mod();
	test_wrapping();
	test_shifts();
	test_min_max();
	test_casts();
	test_print();
	test_hash();
	test_npy();
	test_numpy_loads();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
