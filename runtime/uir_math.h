/* uir_math.h - exp2, log2, sin and cos for f32 and f64: the project's own algorithms.
 *
 * docs/language.md 4.5: these four ops are defined once, here, and every back end (interpreter,
 * LLVM JIT via clang-compiled bitcode of this header, rendered C, rendered CUDA) runs this
 * very code, so results agree bit for bit. Only IEEE-exact operations are used (+ - * /,
 * fma, comparisons, integer arithmetic, bit casts through memcpy); no libm transcendental.
 * Compile with contraction off (-ffp-contract=off; nvcc -fmad=false), never with fast-math.
 *
 * Accuracy (docs/math.md has the measurements and how to repeat them):
 *   f32: correctly rounded for every input (checked exhaustively). A fast evaluation in
 *        binary64 (relative error < 2^-48) is rounded to f32 when a rounding test shows the
 *        result cannot change; otherwise (about 1 input in 2^20) the f64 double-double path
 *        below decides.
 *   f64: a fast double-double evaluation (relative error below 2^-67), the same kind of
 *        rounding test, and for the undecided cases (about 1 in 1000 or fewer) an accurate
 *        double-double evaluation (error below 2^-100): correctly rounded unless the exact
 *        value lies within 2^-100 (relative) of a rounding boundary; none is known, and
 *        none was met in 4 * 10^8 random inputs.
 *
 * Algorithms (learnt from, not copied from: fdlibm's __kernel_rem_pio2 and the ARM
 * optimized-routines / musl exp2, log2 and sin designs, CORE-MATH's two-step "fast path +
 * rounding test" scheme, and J.-M. Muller et al., "Handbook of Floating-Point Arithmetic"
 * for the error-free transformations; M. Payne and R. Hanek, "Radian reduction for
 * trigonometric functions", SIGNUM Newsletter 18(1), 1983):
 *   exp2: x = k/128 + r, |r| <= 2^-8 (exact); 2^x = 2^(k/128) * 2^r with a 128-entry table
 *         of 2^(j/128) in double-double and a degree-7 polynomial for 2^r - 1.
 *   log2: x = 2^e * z, z in [0.69, 1.38); z = c * (1 + r) with a 128-entry table of
 *         invc ~ 1/c (24 bits, so z*invc is exact in f32 use) and -log2(invc) in
 *         double-double; |r| <= 2^-8; log2(1 + r) by a degree-9 polynomial.
 *   sin, cos: x = k*pi/256 + t, |t| <= pi/512, by Cody-Waite with a three-part pi/256 for
 *         |x| < 2^23 and by Payne-Hanek (256 bits of 2/pi, integer arithmetic) beyond (and
 *         for |x| >= 1 in the accurate path);
 *         sin(a + t) = sin(a) cos(t) + cos(a) sin(t) with a table of sin(j*pi/256) in
 *         double-double; cos(x) = sin(x + pi/2) is the same code with k + 128.
 * The tables were generated with mpmath at 1600 bits (the script is in docs/math.md).
 *
 * Plain C11 that also compiles as C++17 and as CUDA device code (define UIR_FN as
 * "static __device__ inline" before including); constants are hexadecimal floating
 * literals, which C++14 lacks. Constant tables are static const arrays inside the helper
 * functions uir_math_*_table, so they can be pasted with their helper. Exact products use
 * fma where it is an instruction and Dekker's algorithm elsewhere: the same bits (see
 * uir_math_two_prod). Each helper starts with a marker line (runtime/README.md).
 */
#ifndef UIR_MATH_H
#define UIR_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef UIR_FN
#define UIR_FN static inline
#endif

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- Bit casts and error-free transformations ---- */

/* uir-helper: uir_math_as_u64 */
/* The bits of an f64. */
UIR_FN uint64_t uir_math_as_u64(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

/* uir-helper: uir_math_from_u64 */
/* The f64 with bits u. */
UIR_FN double uir_math_from_u64(uint64_t u)
{
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* uir-helper: uir_math_as_u32 */
/* The bits of an f32. */
UIR_FN uint32_t uir_math_as_u32(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

/* uir-helper: uir_math_from_u32 */
/* The f32 with bits u. */
UIR_FN float uir_math_from_u32(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* uir-helper: uir_math_fast_two_sum */
/* *s + *e = a + b exactly with *s = a + b rounded; needs |a| >= |b| (or a = 0). */
UIR_FN void uir_math_fast_two_sum(double a, double b, double *s, double *e)
{
	double t = a + b;
	*e = b - (t - a);
	*s = t;
}

/* uir-helper: uir_math_two_sum */
/* *s + *e = a + b exactly with *s = a + b rounded, for any a, b (Knuth). */
UIR_FN void uir_math_two_sum(double a, double b, double *s, double *e)
{
	double t = a + b;
	double bb = t - a;
	*e = (a - (t - bb)) + (b - bb);
	*s = t;
}

/* uir-helper: uir_math_two_prod */
/* *p + *e = a * b exactly with *p = a * b rounded, for |a|, |b| < 2^995 and |a * b| above
 * 2^-900 (every use here is far inside). The error term is unique, so fma (where it is
 * fast) and Dekker's product with Veltkamp's splitting (where fma would be a slow library
 * call) give the same bits. */
UIR_FN void uir_math_two_prod(double a, double b, double *p, double *e)
{
	double t = a * b;
#if defined(__FMA__) || defined(__FP_FAST_FMA) || defined(__CUDA_ARCH__)
	*e = fma(a, b, -t);
#else
	double ca = 0x1.0000002p27 * a, cb = 0x1.0000002p27 * b; /* (2^27 + 1) a */
	double ah = ca - (ca - a), bh = cb - (cb - b);            /* 26-bit heads */
	double al = a - ah, bl = b - bh;
	*e = ((ah * bh - t) + ah * bl + al * bh) + al * bl;
#endif
	*p = t;
}

/* uir-helper: uir_math_dd_mul_add_d needs: uir_math_two_prod uir_math_two_sum uir_math_fast_two_sum */
/* *ph + *pl = (ch + cl) + (*ph + *pl) * r in double-double (relative error about 2^-104),
 * for a double r: one Horner step of an accurate polynomial. */
UIR_FN void uir_math_dd_mul_add_d(double ch, double cl, double r, double *ph, double *pl)
{
	double mh, ml, sh, sl;
	uir_math_two_prod(*ph, r, &mh, &ml);
	ml += *pl * r;
	uir_math_two_sum(ch, mh, &sh, &sl);
	sl += cl + ml;
	uir_math_fast_two_sum(sh, sl, ph, pl);
}

/* uir-helper: uir_math_dd_mul_add needs: uir_math_two_prod uir_math_two_sum uir_math_fast_two_sum */
/* *ph + *pl = (ch + cl) + (*ph + *pl) * (rh + rl) in double-double. */
UIR_FN void uir_math_dd_mul_add(double ch, double cl, double rh, double rl, double *ph, double *pl)
{
	double mh, ml, sh, sl;
	uir_math_two_prod(*ph, rh, &mh, &ml);
	ml += *ph * rl + *pl * rh;
	uir_math_two_sum(ch, mh, &sh, &sl);
	sl += cl + ml;
	uir_math_fast_two_sum(sh, sl, ph, pl);
}

/* uir-helper: uir_math_dd_mul needs: uir_math_two_prod uir_math_fast_two_sum */
/* *ph + *pl = (ah + al) * (bh + bl) in double-double. */
UIR_FN void uir_math_dd_mul(double ah, double al, double bh, double bl, double *ph, double *pl)
{
	double p, e;
	uir_math_two_prod(ah, bh, &p, &e);
	e += ah * bl + al * bh;
	uir_math_fast_two_sum(p, e, ph, pl);
}

/* uir-helper: uir_math_f64_sure */
/* Rounding test of the f64 functions: hi + lo (|lo| <= ulp(hi)) approximates y with
 * |y - (hi + lo)| <= |hi| * err / 2, err >= 2^-100. When hi + lo - |hi| err and
 * hi + lo + |hi| err round to the same f64, stores it in *y (then y correctly rounded)
 * and returns 1; otherwise returns 0. For results that are neither subnormal nor overflow. */
UIR_FN int uir_math_f64_sure(double hi, double lo, double err, double *y)
{
	double m = (hi < 0.0 ? -hi : hi) * err;
	double a = hi + (lo - m);
	double b = hi + (lo + m);
	*y = a;
	return a == b;
}

/* ---- Rounding to f32 ---- */

/* uir-helper: uir_math_f32_sure */
/* Rounding test for the f32 functions: d approximates y with |y - d| <= |d| * err / 2.
 * When every value within |d| * err of d rounds to the same f32, stores it in *f and
 * returns 1 (that f32 is then y correctly rounded); otherwise returns 0. */
UIR_FN int uir_math_f32_sure(double d, double err, float *f)
{
	double m = (d < 0.0 ? -d : d) * err;
	float a = (float)(d - m);
	float b = (float)(d + m);
	*f = a;
	return a == b;
}

/* uir-helper: uir_math_round_f32 needs: uir_math_as_u32 uir_math_from_u32 */
/* The double-double hi + lo (|lo| <= ulp(hi) / 2) rounded once to the nearest f32, ties
 * to even, subnormals included. Not for values within an ulp of the f32 overflow
 * threshold, which no caller produces. */
UIR_FN float uir_math_round_f32(double hi, double lo)
{
	float f = (float)hi;
	double fd = f;
	double ahi = hi < 0.0 ? -hi : hi;
	double afd = fd < 0.0 ? -fd : fd;
	uint32_t b;
	float g;
	double gd;
	if (lo == 0.0 || fd == hi)
		return f;
	/* g: the f32 next to f on the side of hi; hi + lo rounds to f unless hi is exactly
	 * the midpoint of f and g (double rounding) and lo points towards g. */
	b = uir_math_as_u32(f);
	b = ahi > afd ? b + 1u : b - 1u;
	g = uir_math_from_u32(b);
	gd = g;
	if (hi != (fd + gd) * 0.5)
		return f;
	return (lo > 0.0) == (gd > fd) ? g : f;
}

/* ---- exp2 ---- */

/* uir-helper: uir_math_exp2_table */
/* 2^(j/128) for j = 0..127 as pairs hi, lo (hi + lo within 2^-106 relative). */
UIR_FN const double *uir_math_exp2_table(void)
{
	static const double t[256] = {
		0x1.0000000000000p+0, 0x0p+0,
		0x1.0163da9fb3335p+0, 0x1.b61299ab8cdb7p-54,
		0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
		0x1.04315e86e7f85p+0, -0x1.0a31c1977c96ep-54,
		0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,
		0x1.0706b29ddf6dep+0, -0x1.c91dfe2b13c27p-55,
		0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
		0x1.09e3ecac6f383p+0, 0x1.1487818316136p-54,
		0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,
		0x1.0cc922b7247f7p+0, 0x1.01edc16e24f71p-54,
		0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
		0x1.0fb66affed31bp+0, -0x1.b9bedc44ebd7bp-57,
		0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,
		0x1.12abdc06c31ccp+0, -0x1.1b514b36ca5c7p-58,
		0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54,
		0x1.15a98c8a58e51p+0, 0x1.2406ab9eeab0ap-55,
		0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,
		0x1.18af9388c8deap+0, -0x1.11023d1970f6cp-54,
		0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
		0x1.1bbe084045cd4p+0, -0x1.95386352ef607p-54,
		0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,
		0x1.1ed5022fcd91dp+0, -0x1.1df98027bb78cp-54,
		0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
		0x1.21f49917ddc96p+0, 0x1.2a97e9494a5eep-55,
		0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,
		0x1.251ce4fb2a63fp+0, 0x1.ac155bef4f4a4p-55,
		0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
		0x1.284dfe1f56381p+0, -0x1.a4c3a8c3f0d7ep-54,
		0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,
		0x1.2b87fd0dad990p+0, -0x1.10adcd6381aa4p-59,
		0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
		0x1.2ecafa93e2f56p+0, 0x1.1ca0f45d52383p-56,
		0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,
		0x1.32170fc4cd831p+0, 0x1.a9ce78e18047cp-55,
		0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
		0x1.356c55f929ff1p+0, -0x1.b5cee5c4e4628p-55,
		0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,
		0x1.38cae6d05d866p+0, -0x1.e958d3c9904bdp-54,
		0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
		0x1.3c32dc313a8e5p+0, -0x1.efff8375d29c3p-54,
		0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,
		0x1.3fa4504ac801cp+0, -0x1.7d023f956f9f3p-54,
		0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
		0x1.431f5d950a897p+0, -0x1.1c7dde35f7999p-55,
		0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59,
		0x1.46a41ed1d0057p+0, 0x1.c944bd1648a76p-54,
		0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56,
		0x1.4a32af0d7d3dep+0, 0x1.9cb62f3d1be56p-54,
		0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,
		0x1.4dcb299fddd0dp+0, 0x1.8ecdbbc6a7833p-54,
		0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
		0x1.516daa2cf6642p+0, -0x1.f768569bd93efp-55,
		0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,
		0x1.551a4ca5d920fp+0, -0x1.d689cefede59bp-55,
		0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
		0x1.58d12d497c7fdp+0, 0x1.295e15b9a1de8p-55,
		0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,
		0x1.5c9268a5946b7p+0, 0x1.c4b1b816986a2p-60,
		0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
		0x1.605e1b976dc09p+0, -0x1.3e2429b56de47p-54,
		0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,
		0x1.6434634ccc320p+0, -0x1.c483c759d8933p-55,
		0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
		0x1.68155d44ca973p+0, 0x1.038ae44f73e65p-57,
		0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,
		0x1.6c012750bdabfp+0, -0x1.2895667ff0b0dp-56,
		0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
		0x1.6ff7df9519484p+0, -0x1.83c0f25860ef6p-55,
		0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,
		0x1.73f9a48a58174p+0, -0x1.0a8d96c65d53cp-54,
		0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
		0x1.780694fde5d3fp+0, 0x1.866b80a02162dp-54,
		0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,
		0x1.7c1ed0130c132p+0, 0x1.f124cd1164dd6p-54,
		0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
		0x1.80427543e1a12p+0, -0x1.27c86626d972bp-54,
		0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,
		0x1.8471a4623c7adp+0, -0x1.8d684a341cdfbp-55,
		0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
		0x1.88ac7d98a6699p+0, 0x1.994c2f37cb53ap-54,
		0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,
		0x1.8cf3216b5448cp+0, -0x1.0d55e32e9e3aap-56,
		0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
		0x1.9145b0b91ffc6p+0, -0x1.dd6792e582524p-54,
		0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,
		0x1.95a44cbc8520fp+0, -0x1.64b7c96a5f039p-56,
		0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54,
		0x1.9a0f170ca07bap+0, -0x1.173bd91cee632p-54,
		0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56,
		0x1.9e86319e32323p+0, 0x1.824ca78e64c6ep-56,
		0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
		0x1.a309bec4a2d33p+0, 0x1.6305c7ddc36abp-54,
		0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,
		0x1.a799e1330b358p+0, 0x1.bcb7ecac563c7p-54,
		0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
		0x1.ac36bbfd3f37ap+0, -0x1.f9234cae76cd0p-55,
		0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,
		0x1.b0e07298db666p+0, -0x1.bdef54c80e425p-54,
		0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
		0x1.b59728de5593ap+0, -0x1.c71dfbbba6de3p-54,
		0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,
		0x1.ba5b030a1064ap+0, -0x1.efcd30e54292ep-54,
		0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
		0x1.bf2c25bd71e09p+0, -0x1.efdca3f6b9c73p-54,
		0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,
		0x1.c40ab5fffd07ap+0, 0x1.b4537e083c60ap-54,
		0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
		0x1.c8f6d9406e7b5p+0, 0x1.1acbc48805c44p-56,
		0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,
		0x1.cdf0b555dc3fap+0, -0x1.dd83b53829d72p-55,
		0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
		0x1.d2f87080d89f2p+0, -0x1.d487b719d8578p-54,
		0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,
		0x1.d80e316c98398p+0, -0x1.11ec18beddfe8p-54,
		0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
		0x1.dd321f301b460p+0, 0x1.2da5778f018c3p-54,
		0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,
		0x1.e264614f5a129p+0, -0x1.7b627817a1496p-54,
		0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
		0x1.e7a51fbc74c83p+0, 0x1.2d522ca0c8de2p-54,
		0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,
		0x1.ecf482d8e67f1p+0, -0x1.c93f3b411ad8cp-54,
		0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54,
		0x1.f252b376bba97p+0, 0x1.3a1a5bf0d8e43p-54,
		0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54,
		0x1.f7bfdad9cbe14p+0, -0x1.dbb12d006350ap-54,
		0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55,
		0x1.fd3c22b8f71f1p+0, 0x1.2eb74966579e7p-57
	};
	return t;
}

/* uir-helper: uir_math_exp2_dd needs: uir_math_exp2_table uir_math_two_prod uir_math_fast_two_sum */
/* 2^x = 2^e * (*hi + *lo) for 2^-60 <= |x| < 1100 (or x = 0) with e the return value;
 * *hi + *lo lies in [0.99, 2.0] and has relative error below 2^-75. */
UIR_FN int uir_math_exp2_dd(double x, double *hi, double *lo)
{
	const double *tab = uir_math_exp2_table();
	/* kd = x * 128 rounded to an integer (ties to even): |x * 128| < 2^51. */
	double kd = (x * 128.0 + 0x1.8p52) - 0x1.8p52;
	int32_t k = (int32_t)kd;
	uint32_t j = (uint32_t)k & 127u;
	int e = (int)((k - (int32_t)j) / 128);
	double r = x - kd * 0x1p-7; /* exact, |r| <= 2^-8 */
	double th = tab[2 * j], tl = tab[2 * j + 1];
	double a, ae, r2, r2e, v, ve, b, be, tail, ph, pl, u, ue, s, se;
	/* p = 2^r - 1 = ln2 r + (ln2)^2/2 r^2 + ... as ph + pl: the first two terms in
	 * double-double, the rest (below 2^-28) in double. Taylor coefficients: the
	 * truncation error is below 2^-83. */
	uir_math_two_prod(0x1.62e42fefa39efp-1, r, &a, &ae);
	uir_math_two_prod(r, r, &r2, &r2e);
	uir_math_two_prod(0x1.ebfbdff82c58fp-3, r2, &v, &ve);
	uir_math_fast_two_sum(a, v, &b, &be);
	tail = r * r2 * (0x1.c6b08d704a0c0p-5 + r * (0x1.3b2ab6fba4e77p-7
		+ r * (0x1.5d87fe78a6731p-10 + r * (0x1.430912f86c787p-13
		+ r * 0x1.ffcbfc588b0c7p-17))));
	tail += ((ae + be) + ve) + (0x1.abc9e3b39803fp-56 * r
		+ (0x1.ebfbdff82c58fp-3 * r2e - 0x1.5e43a53e44da3p-57 * r2));
	uir_math_fast_two_sum(b, tail, &ph, &pl);
	/* 2^(j/128) * (1 + p) = th + th*ph + (tl + th*pl + tl*ph). */
	uir_math_two_prod(th, ph, &u, &ue);
	uir_math_fast_two_sum(th, u, &s, &se);
	tail = (se + ue) + (tl + (th * pl + tl * ph));
	uir_math_fast_two_sum(s, tail, hi, lo);
	return e;
}

/* uir-helper: uir_math_exp2_acc needs: uir_math_exp2_table uir_math_dd_mul_add_d uir_math_two_prod uir_math_fast_two_sum */
/* As uir_math_exp2_dd, with relative error below 2^-102: the slow path of uir_exp2_f64. */
UIR_FN int uir_math_exp2_acc(double x, double *hi, double *lo)
{
	const double *tab = uir_math_exp2_table();
	double kd = (x * 128.0 + 0x1.8p52) - 0x1.8p52;
	int32_t k = (int32_t)kd;
	uint32_t j = (uint32_t)k & 127u;
	int e = (int)((k - (int32_t)j) / 128);
	double r = x - kd * 0x1p-7;
	double th = tab[2 * j], tl = tab[2 * j + 1];
	double ph, pl, u, ue, s, se;
	/* p = 2^r - 1 = sum of (ln2)^n/n! r^n, n = 1..10 (truncation below 2^-119): the terms
	 * from r^6 on in double, then Horner in double-double. */
	ph = 0x1.430912f86c787p-13 + r * (0x1.ffcbfc588b0c7p-17 + r * (0x1.62c0223a5c824p-20
		+ r * (0x1.b5253d395e7c4p-24 + r * 0x1.e4cf5158b8ecap-28)));
	pl = 0.0;
	uir_math_dd_mul_add_d(0x1.5d87fe78a6731p-10, 0x1.0717f69a514bfp-66, r, &ph, &pl);
	uir_math_dd_mul_add_d(0x1.3b2ab6fba4e77p-7, 0x1.4e65df05a9f75p-62, r, &ph, &pl);
	uir_math_dd_mul_add_d(0x1.c6b08d704a0c0p-5, -0x1.d331627513351p-59, r, &ph, &pl);
	uir_math_dd_mul_add_d(0x1.ebfbdff82c58fp-3, -0x1.5e43a53e44da3p-57, r, &ph, &pl);
	uir_math_dd_mul_add_d(0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, r, &ph, &pl);
	uir_math_two_prod(ph, r, &u, &ue);
	ue += pl * r;
	uir_math_fast_two_sum(u, ue, &ph, &pl);
	/* 2^(j/128) * (1 + p) */
	uir_math_two_prod(th, ph, &u, &ue);
	ue += th * pl + tl * ph;
	uir_math_fast_two_sum(th, u, &s, &se);
	se += tl + ue;
	uir_math_fast_two_sum(s, se, hi, lo);
	return e;
}

/* uir-helper: uir_exp2_f64 needs: uir_math_exp2_dd uir_math_exp2_acc uir_math_f64_sure uir_math_from_u64 */
/* 2^x in f64; overflow gives +inf, underflow rounds correctly through the subnormals.
 * Fast double-double path (error < 2^-75) and a rounding test; the rare undecided cases
 * (and subnormal results) take the accurate path (error < 2^-102). */
UIR_FN double uir_exp2_f64(double x)
{
	double hi, lo, y;
	int e;
	if (!(x < 1024.0)) {
		if (x != x)
			return x + x; /* NaN */
		return uir_math_from_u64(0x7ff0000000000000u); /* x >= 1024: +inf */
	}
	if (x <= -1075.0)
		return 0.0; /* below half the least subnormal (a tie at -1075 goes to even 0) */
	if (x > -0x1p-60 && x < 0x1p-60)
		return 1.0; /* 2^x = 1 + x ln2 rounds to 1 */
	e = uir_math_exp2_dd(x, &hi, &lo);
	if (e > -1022 || (e == -1022 && hi >= 1.0)) { /* normal result */
		if (!uir_math_f64_sure(hi, lo, 0x1p-70, &y)) {
			uir_math_exp2_acc(x, &hi, &lo);
			y = hi + lo;
		}
		if (e > 1023) /* only e = 1024, with hi + lo < 1 */
			return y * 0x1p1023 * 2.0;
		return y * uir_math_from_u64((uint64_t)(e + 1023) << 52);
	}
	{
		/* Subnormal result: round hs + ls = 2^(e+1022) (hi + lo) < 1 once to a multiple
		 * of 2^-52, then scale by 2^-1022 exactly. 1 + hs rounds at that multiple; only
		 * an exact tie (d = +-2^-53) can be decided wrongly, by the sign of ls. */
		double sc = uir_math_from_u64((uint64_t)(e + 1022 + 1023) << 52);
		double hs, ls;
		uir_math_exp2_acc(x, &hi, &lo);
		hs = hi * sc;
		ls = lo * sc;
		double t = 1.0 + hs;
		double d = (1.0 - t) + hs; /* exact: 1 + hs = t + d */
		if (d == 0x1p-53 && ls > 0.0)
			t += 0x1p-52;
		else if (d == -0x1p-53 && ls < 0.0)
			t -= 0x1p-52;
		return (t - 1.0) * 0x1p-1022;
	}
}

/* uir-helper: uir_exp2_f32 needs: uir_math_exp2_table uir_math_exp2_dd uir_math_as_u32 uir_math_from_u32 uir_math_from_u64 uir_math_f32_sure uir_math_round_f32 */
/* 2^x in f32, correctly rounded; overflow gives +inf, subnormal results are exact roundings. */
UIR_FN float uir_exp2_f32(float x)
{
	const double *tab = uir_math_exp2_table();
	uint32_t ax = uir_math_as_u32(x) & 0x7fffffffu;
	double xd = x, kd, r, p, y, sc, hi, lo;
	int32_t k;
	uint32_t j;
	int e;
	float f;
	if (ax >= 0x43000000u) { /* |x| >= 128, inf or NaN */
		if (ax > 0x7f800000u)
			return x + x; /* NaN */
		if (x > 0.0f)
			return uir_math_from_u32(0x7f800000u);
		if (x <= -150.0f)
			return 0.0f; /* at most half the least subnormal: rounds to 0 */
	}
	if (ax < 0x30800000u)
		return 1.0f; /* |x| < 2^-30: 2^x rounds to 1 */
	kd = (xd * 128.0 + 0x1.8p52) - 0x1.8p52;
	k = (int32_t)kd;
	j = (uint32_t)k & 127u;
	e = (int)((k - (int32_t)j) / 128); /* -150 <= e <= 128 */
	r = xd - kd * 0x1p-7;               /* exact, |r| <= 2^-8 */
	p = r * (0x1.62e42fefa39efp-1 + r * (0x1.ebfbdff82c58fp-3 + r * (0x1.c6b08d704a0c0p-5
		+ r * (0x1.3b2ab6fba4e77p-7 + r * 0x1.5d87fe78a6731p-10))));
	sc = uir_math_from_u64((uint64_t)(e + 1023) << 52);
	y = (tab[2 * j] + tab[2 * j] * p) * sc; /* relative error < 2^-51 */
	if (uir_math_f32_sure(y, 0x1p-44, &f))
		return f;
	e = uir_math_exp2_dd(xd, &hi, &lo);
	sc = uir_math_from_u64((uint64_t)(e + 1023) << 52);
	return uir_math_round_f32(hi * sc, lo * sc);
}

/* ---- log2 ---- */

/* uir-helper: uir_math_log2_table */
/* For z in interval i (bit patterns 0x3fe6100000000000 + i*2^45 ...): invc ~ 1/centre with
 * 24 significant bits (exactly 1 for i = 79, the interval centred on 1.0), and -log2(invc)
 * as hi, lo; three doubles per interval. */
UIR_FN const double *uir_math_log2_table(void)
{
	static const double t[384] = {
		0x1.7242880000000p+0, -0x1.1096017503950p-1, -0x1.2caa8abe0356cp-56,
		0x1.702e060000000p+0, -0x1.0c6cab6fba621p-1, -0x1.23b4c757e83b3p-57,
		0x1.6e1f760000000p+0, -0x1.08494afb29ca3p-1, 0x1.b39e519c3031ap-55,
		0x1.6c16c20000000p+0, -0x1.042bd5e5bc697p-1, 0x1.7a98db9e82e5fp-60,
		0x1.6a13ce0000000p+0, -0x1.0014350ad98c0p-1, -0x1.16c968c39b3b9p-56,
		0x1.6816820000000p+0, -0x1.f804b0fc4b574p-2, -0x1.ad19c6c0abab0p-58,
		0x1.661ec60000000p+0, -0x1.efec5f071e3d9p-2, -0x1.035074637d192p-60,
		0x1.642c860000000p+0, -0x1.e7df61b2e23edp-2, -0x1.0cdc7898499edp-56,
		0x1.623fa80000000p+0, -0x1.dfdd8c2db0228p-2, 0x1.70576a5aa8a36p-57,
		0x1.6058160000000p+0, -0x1.d7e6c094ae102p-2, -0x1.b8e77375e280ep-56,
		0x1.5e75bc0000000p+0, -0x1.cffae7f66bedbp-2, -0x1.99a8df8ffcf4bp-57,
		0x1.5c98820000000p+0, -0x1.c819d91c72820p-2, -0x1.a4e55c102570cp-57,
		0x1.5ac0560000000p+0, -0x1.c04382affc4a2p-2, -0x1.369b2e485c22cp-58,
		0x1.58ed240000000p+0, -0x1.b877c9a0edd9bp-2, 0x1.9026db387d369p-59,
		0x1.571ed40000000p+0, -0x1.b0b6804d30924p-2, -0x1.2ebcc9e150d9dp-57,
		0x1.5555560000000p+0, -0x1.a8ff99fab991dp-2, 0x1.b85b552732499p-58,
		0x1.5390940000000p+0, -0x1.a152eed359931p-2, 0x1.92f329d22b308p-58,
		0x1.51d07e0000000p+0, -0x1.99b06fafae365p-2, -0x1.fce853ff027fap-56,
		0x1.5015020000000p+0, -0x1.9218039796aabp-2, 0x1.4e5690ff1f06ep-56,
		0x1.4e5e0a0000000p+0, -0x1.8a897eb027b02p-2, 0x1.4f8714574779dp-57,
		0x1.4cab880000000p+0, -0x1.8304d7103dda3p-2, 0x1.98833591862b5p-56,
		0x1.4afd6a0000000p+0, -0x1.7b89f015dd637p-2, 0x1.1d4ce385cfbe7p-57,
		0x1.49539e0000000p+0, -0x1.7418abe24a63dp-2, 0x1.fa37ab3d61feep-56,
		0x1.47ae140000000p+0, -0x1.6cb0f45c5ddccp-2, 0x1.de975927718f4p-57,
		0x1.460cbc0000000p+0, -0x1.6552b258722e2p-2, -0x1.2f241dca6fc3fp-56,
		0x1.446f860000000p+0, -0x1.5dfdcd9681230p-2, 0x1.efb9d089cf90ap-56,
		0x1.42d6620000000p+0, -0x1.56b22cc04de54p-2, 0x1.c9bb0d879afd7p-57,
		0x1.4141420000000p+0, -0x1.4f6fbe9a14f18p-2, -0x1.e6eccdbac6240p-56,
		0x1.3fb0140000000p+0, -0x1.48365e8072c0dp-2, 0x1.803dc35aa1904p-60,
		0x1.3e22cc0000000p+0, -0x1.4106026313941p-2, 0x1.5bb94c1280f7bp-56,
		0x1.3c995a0000000p+0, -0x1.39de8cc6a56b9p-2, -0x1.c4556357fb55cp-56,
		0x1.3b13b20000000p+0, -0x1.32bff1d2620d3p-2, -0x1.272814b48d397p-56,
		0x1.3991c20000000p+0, -0x1.2baa08a4f5999p-2, 0x1.a5b286ddf549fp-56,
		0x1.3813820000000p+0, -0x1.249cd663a544dp-2, 0x1.974d9ecc7b282p-56,
		0x1.3698e00000000p+0, -0x1.1d983038a5973p-2, -0x1.9fabc38b4f1d7p-58,
		0x1.3521d00000000p+0, -0x1.169c06a7938bbp-2, 0x1.13c37a49fc23fp-56,
		0x1.33ae460000000p+0, -0x1.0fa8496a15078p-2, -0x1.557b896ea3a78p-56,
		0x1.323e340000000p+0, -0x1.08bcddc88c274p-2, 0x1.7ce9c2884efd7p-58,
		0x1.30d1900000000p+0, -0x1.01d9bb7350ffbp-2, 0x1.b68e9421e42b1p-58,
		0x1.2f684c0000000p+0, -0x1.f5fd8c01b8598p-3, -0x1.2af9dd21de84ap-57,
		0x1.2e025c0000000p+0, -0x1.e857d3a536a7bp-3, -0x1.2ae5ac22439c5p-59,
		0x1.2c9fb40000000p+0, -0x1.dac224f29e71ep-3, 0x1.bb917c4158b96p-57,
		0x1.2b404a0000000p+0, -0x1.cd3c6926cb3bap-3, 0x1.9a0a2a08ad164p-58,
		0x1.29e4120000000p+0, -0x1.bfc6745e58544p-3, 0x1.022e75a2b3bd3p-63,
		0x1.288b020000000p+0, -0x1.b2602cfa90211p-3, 0x1.20b55ede26811p-58,
		0x1.27350c0000000p+0, -0x1.a509500525022p-3, 0x1.7a9c418d84860p-58,
		0x1.25e2280000000p+0, -0x1.97c1d4d0c206ap-3, 0x1.40e710afb9b3bp-57,
		0x1.24924a0000000p+0, -0x1.8a898953f695dp-3, -0x1.ee701984198e3p-57,
		0x1.2345680000000p+0, -0x1.7d604e1d4e346p-3, 0x1.0ce3d95e5651ep-60,
		0x1.21fb780000000p+0, -0x1.70460263cfbd2p-3, 0x1.9fe6887659803p-58,
		0x1.20b4700000000p+0, -0x1.633a8404e7409p-3, 0x1.1c75b8f53b60fp-60,
		0x1.1f70480000000p+0, -0x1.563dc4114f416p-3, 0x1.ca52b9f12ee9fp-58,
		0x1.1e2ef40000000p+0, -0x1.494f894c616e5p-3, -0x1.9ae20a276fef6p-58,
		0x1.1cf06a0000000p+0, -0x1.3c6fad7aa88cfp-3, 0x1.461660fcb5729p-58,
		0x1.1bb4a40000000p+0, -0x1.2f9e32a7954e4p-3, 0x1.11897da40f648p-59,
		0x1.1a7b960000000p+0, -0x1.22dadb72090e4p-3, 0x1.f4461b11bb8d0p-59,
		0x1.1945380000000p+0, -0x1.162592bc18896p-3, -0x1.889ff670a2c9ap-57,
		0x1.1811820000000p+0, -0x1.097e425d2ff08p-3, -0x1.9c964e9e682b6p-59,
		0x1.16e0680000000p+0, -0x1.f9c9517e83255p-4, 0x1.35900e9f53f2ep-59,
		0x1.15b1e60000000p+0, -0x1.e0b1af47da109p-4, 0x1.9dab517f95157p-59,
		0x1.1485f00000000p+0, -0x1.c7b515f5c5128p-4, 0x1.1f68825e6d096p-59,
		0x1.135c820000000p+0, -0x1.aed3a581afc75p-4, -0x1.468188dd06880p-62,
		0x1.12358e0000000p+0, -0x1.960ca5af96cd0p-4, -0x1.29c6aa0b462f4p-58,
		0x1.1111120000000p+0, -0x1.7d605d9f9a247p-4, -0x1.9840c4a58049ap-58,
		0x1.0fef020000000p+0, -0x1.64ce3b213013cp-4, 0x1.85973ab0e8989p-59,
		0x1.0ecf560000000p+0, -0x1.4c55ffab94bfbp-4, 0x1.9c82970a55bd0p-58,
		0x1.0db20a0000000p+0, -0x1.33f7c2287eb14p-4, -0x1.0645f9c69c3e0p-58,
		0x1.0c97140000000p+0, -0x1.1bb314bc1250dp-4, -0x1.93d70ff724b5ep-59,
		0x1.0b7e6e0000000p+0, -0x1.0387def732844p-4, -0x1.5eb43e530f38ep-61,
		0x1.0a68100000000p+0, -0x1.d6ebb51765786p-5, -0x1.646c2cfed751bp-59,
		0x1.0953f40000000p+0, -0x1.a6f9d6f1d16afp-5, 0x1.4703c3ec0059cp-59,
		0x1.0842100000000p+0, -0x1.773935884e226p-5, -0x1.4260ba51ac614p-59,
		0x1.0732600000000p+0, -0x1.47a9ea5addbd8p-5, 0x1.ffc052d725bd3p-59,
		0x1.0624de0000000p+0, -0x1.184bb316406a1p-5, -0x1.ddf9277cf26dep-59,
		0x1.0519800000000p+0, -0x1.d23b2a73a25e5p-6, -0x1.87ca1673278c9p-60,
		0x1.0410420000000p+0, -0x1.743f41d467d22p-6, 0x1.dbe125fc21ee6p-60,
		0x1.03091c0000000p+0, -0x1.16a25c29d06f6p-6, 0x1.696dc0f131e69p-62,
		0x1.0204080000000p+0, -0x1.72c7ae96537f8p-7, -0x1.cf9a702ff830ep-62,
		0x1.0101020000000p+0, -0x1.720f0a7874e63p-8, -0x1.5d02f00c1b512p-63,
		0x1.0000000000000p+0, 0x0p+0, 0x0p+0,
		0x1.fc07f00000000p-1, 0x1.6fe516f994381p-7, -0x1.7c1ff82f44adcp-61,
		0x1.f81f820000000p-1, 0x1.6e7966ead8ac5p-6, -0x1.cba91dae29988p-60,
		0x1.f4465a0000000p-1, 0x1.11cd1acadf723p-5, -0x1.efa68b88a0ae7p-64,
		0x1.f07c200000000p-1, 0x1.6bad2043a8791p-5, -0x1.8ee324ff21847p-60,
		0x1.ecc07c0000000p-1, 0x1.c4df9816b67cbp-5, -0x1.ad73136c614cbp-61,
		0x1.e9131a0000000p-1, 0x1.0eb392fe79defp-4, 0x1.89deb91c31ac3p-59,
		0x1.e573ac0000000p-1, 0x1.3aa304acd04f4p-4, -0x1.4b3077c27b8b4p-58,
		0x1.e1e1e20000000p-1, 0x1.663f6e3b3cbb2p-4, 0x1.3e721192791a3p-61,
		0x1.de5d6e0000000p-1, 0x1.918a19f536b15p-4, -0x1.336be543a9993p-60,
		0x1.dae6080000000p-1, 0x1.bc841cd4346d3p-4, -0x1.b4f1b618fe611p-58,
		0x1.d77b660000000p-1, 0x1.e72eb841d5082p-4, -0x1.f7c9478921bd7p-58,
		0x1.d41d420000000p-1, 0x1.08c587b8a8459p-3, -0x1.eaebfe80f652ap-57,
		0x1.d0cb580000000p-1, 0x1.1dcd1f96f9b03p-3, 0x1.9a5aba13ee9c5p-57,
		0x1.cd85680000000p-1, 0x1.32aea1c2de0a0p-3, 0x1.069536106578ep-59,
		0x1.ca4b300000000p-1, 0x1.476aa1c23e268p-3, 0x1.8bdb8834b12ffp-58,
		0x1.c71c720000000p-1, 0x1.5c01a22e68f24p-3, -0x1.a8e7cd17ca46cp-59,
		0x1.c3f8f00000000p-1, 0x1.70742e079a632p-3, 0x1.bd6b99f1a542fp-59,
		0x1.c0e0700000000p-1, 0x1.84c2be7444b1ap-3, -0x1.95599ba086466p-57,
		0x1.bdd2b80000000p-1, 0x1.98edd46f8f540p-3, 0x1.1d8e54f6b70ddp-58,
		0x1.bacf920000000p-1, 0x1.acf5de2afc49ap-3, 0x1.7e0e0aa2ae35fp-57,
		0x1.b7d6c40000000p-1, 0x1.c0db6bf6c0150p-3, -0x1.a829cc1512df9p-57,
		0x1.b4e81c0000000p-1, 0x1.d49ee012d3176p-3, 0x1.c4b8ca0f6d7a5p-58,
		0x1.b203640000000p-1, 0x1.e840bea311339p-3, 0x1.cbfe95c59cb8ap-57,
		0x1.af286c0000000p-1, 0x1.fbc16a1ed20a6p-3, 0x1.a5e946d48367ep-57,
		0x1.ac57020000000p-1, 0x1.0790ac9a79044p-2, 0x1.3ee2f0e46be64p-57,
		0x1.a98ef60000000p-1, 0x1.11307dc445fecp-2, 0x1.05224944efcc0p-57,
		0x1.a6d01a0000000p-1, 0x1.1ac05ca5fe214p-2, -0x1.1c2140fbe02dbp-56,
		0x1.a41a420000000p-1, 0x1.2440796db68c3p-2, 0x1.8de37e9a6110bp-57,
		0x1.a16d400000000p-1, 0x1.2db10e538534dp-2, 0x1.31cb428346b53p-57,
		0x1.9ec8ea0000000p-1, 0x1.37124a7b0e57ap-2, 0x1.5e5cb8e201f79p-56,
		0x1.9c2d140000000p-1, 0x1.40646707c3973p-2, -0x1.3ca60d9385e27p-57,
		0x1.99999a0000000p-1, 0x1.49a7834b7d429p-2, -0x1.2a4397d8912bap-56,
		0x1.970e500000000p-1, 0x1.52dbddf71fd7ap-2, -0x1.d9b1af94a58afp-56,
		0x1.948b100000000p-1, 0x1.5c01a2e7132d6p-2, -0x1.ebb9c6fdca778p-57,
		0x1.920fb40000000p-1, 0x1.651900878bb3cp-2, 0x1.1f6461fef16c6p-60,
		0x1.8f9c180000000p-1, 0x1.6e22207523f6dp-2, 0x1.33d26f4e1b0f4p-56,
		0x1.8d30180000000p-1, 0x1.771d2eb8c3300p-2, -0x1.796e600ac247ep-58,
		0x1.8acb900000000p-1, 0x1.800a59ccb4ee3p-2, 0x1.40affe91b5623p-57,
		0x1.886e600000000p-1, 0x1.88e9c392b7fbbp-2, -0x1.fb8ab87be1f10p-57,
		0x1.8618620000000p-1, 0x1.91bba6c447dcfp-2, -0x1.fc48be2eed2eap-57,
		0x1.83c9780000000p-1, 0x1.9a80224eb84b9p-2, -0x1.bcddc6a14952cp-58,
		0x1.8181820000000p-1, 0x1.a3375ec3372a1p-2, -0x1.995570a48531ep-57,
		0x1.7f40600000000p-1, 0x1.abe186df47b97p-2, 0x1.234b98e55c106p-60,
		0x1.7d05f40000000p-1, 0x1.b47ebfcfdd47ap-2, 0x1.d1fbd4b1ef502p-58,
		0x1.7ad2200000000p-1, 0x1.bd0f30c877b4fp-2, -0x1.57b3fe5f0580cp-58,
		0x1.78a4c80000000p-1, 0x1.c592fb2eead30p-2, -0x1.0eb98c5df43eap-59,
		0x1.767dce0000000p-1, 0x1.ce0a4a2d1a3cfp-2, -0x1.c50ac20cc5c35p-62,
		0x1.745d180000000p-1, 0x1.d6753b2085b50p-2, 0x1.8ee3853c07c26p-57
	};
	return t;
}

/* uir-helper: uir_math_log2_split needs: uir_math_as_u64 uir_math_from_u64 */
/* Splits a finite x > 0 (subnormals too) as x = 2^*e * z with z in [0.689, 1.379);
 * returns the index of z's table interval. */
UIR_FN uint32_t uir_math_log2_split(double x, int *e, double *z)
{
	uint64_t ix = uir_math_as_u64(x), mant, iz;
	int ex = 0;
	if (ix < 0x0010000000000000u) { /* subnormal */
		ix = uir_math_as_u64(x * 0x1p52);
		ex = -52;
	}
	mant = ix & 0x000fffffffffffffu;
	ex += (int)(ix >> 52) - 1023;
	if (mant >= 0x0006100000000000u) { /* 1.mant >= 1.379: use z = 1.mant / 2 */
		iz = mant | 0x3fe0000000000000u;
		ex += 1;
	} else {
		iz = mant | 0x3ff0000000000000u;
	}
	*e = ex;
	*z = uir_math_from_u64(iz);
	return (uint32_t)((iz - 0x3fe6100000000000u) >> 45);
}

/* uir-helper: uir_math_log2_dd needs: uir_math_log2_table uir_math_log2_split uir_math_two_prod uir_math_two_sum uir_math_fast_two_sum */
/* log2(x) ~ *hi + *lo for finite x > 0, relative error below 2^-68 (2^-68.7 measured). */
UIR_FN void uir_math_log2_dd(double x, double *hi, double *lo)
{
	const double *tab = uir_math_log2_table();
	int e;
	double z;
	uint32_t i = uir_math_log2_split(x, &e, &z);
	double invc = tab[3 * i], lch = tab[3 * i + 1], lcl = tab[3 * i + 2];
	double p, pl, rh, rl, ah, al, sh, sl, bh, bl, c, h1, l1, h2, l2, h3, l3, t;
	/* r = z * invc - 1 = rh + rl exactly, |r| <= 2^-8 (rl = 0 when invc = 1); p - 1 is
	 * exact (Sterbenz), then normalised so that |rl| <= ulp(rh) / 2. */
	uir_math_two_prod(z, invc, &p, &pl);
	uir_math_fast_two_sum(p - 1.0, pl, &rh, &rl);
	/* log2(1 + r) = r/ln2 - r^2/(2 ln2) + r^3 R(r): the first two terms in double-double. */
	uir_math_two_prod(0x1.71547652b82fep+0, rh, &ah, &al);
	al += 0x1.71547652b82fep+0 * rl + 0x1.777d0ffda0d24p-56 * rh;
	uir_math_two_prod(rh, rh, &sh, &sl);
	sl += 2.0 * rh * rl;
	uir_math_two_prod(-0x1.71547652b82fep-1, sh, &bh, &bl);
	bl += -0x1.71547652b82fep-1 * sl - 0x1.777d0ffda0d24p-57 * sh;
	/* Taylor terms r^3 .. r^9; truncation below 2^-75 relative. */
	c = rh * sh * (0x1.ec709dc3a03fdp-2 + rh * (-0x1.71547652b82fep-2
		+ rh * (0x1.2776c50ef9bfep-2 + rh * (-0x1.ec709dc3a03fdp-3
		+ rh * (0x1.a61762a7aded9p-3 + rh * (-0x1.71547652b82fep-3
		+ rh * 0x1.484b13d7c02a9p-3))))));
	/* e + logc + r/ln2 - r^2/(2 ln2) + c, the big terms exactly. */
	uir_math_two_sum((double)e, lch, &h1, &l1);
	uir_math_two_sum(h1, ah, &h2, &l2);
	uir_math_two_sum(h2, bh, &h3, &l3);
	t = ((l1 + l2) + (l3 + lcl)) + ((al + bl) + c);
	uir_math_fast_two_sum(h3, t, hi, lo);
}

/* uir-helper: uir_math_log2_acc needs: uir_math_log2_table uir_math_log2_split uir_math_dd_mul_add uir_math_two_prod uir_math_two_sum uir_math_fast_two_sum */
/* As uir_math_log2_dd, with relative error below 2^-100: the slow path of uir_log2_f64. */
UIR_FN void uir_math_log2_acc(double x, double *hi, double *lo)
{
	const double *tab = uir_math_log2_table();
	int e;
	double z;
	uint32_t i = uir_math_log2_split(x, &e, &z);
	double invc = tab[3 * i], lch = tab[3 * i + 1], lcl = tab[3 * i + 2];
	double p, pl, rh, rl, ph, h1, l1, h2, l2, t;
	uir_math_two_prod(z, invc, &p, &pl);
	uir_math_fast_two_sum(p - 1.0, pl, &rh, &rl); /* r = rh + rl exactly, |r| <= 2^-8 */
	/* log2(1 + r) = r * sum of (-1)^(n+1) r^(n-1)/(n ln2), n = 1..14 (truncation below
	 * 2^-112 relative): n >= 8 in double, then Horner in double-double. */
	ph = -0x1.71547652b82fep-3 + rh * (0x1.484b13d7c02a9p-3 + rh * (-0x1.2776c50ef9bfep-3
		+ rh * (0x1.0c9a84994022dp-3 + rh * (-0x1.ec709dc3a03fdp-4
		+ rh * (0x1.c68f568d31760p-4 + rh * -0x1.a61762a7aded9p-4)))));
	pl = 0.0;
	uir_math_dd_mul_add(0x1.a61762a7aded9p-3, 0x1.fb22e490ee2f0p-58, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(-0x1.ec709dc3a03fdp-3, -0x1.d27f05548af0cp-57, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(0x1.2776c50ef9bfep-2, 0x1.e4b29ccc535d4p-56, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(-0x1.71547652b82fep-2, -0x1.777d0ffda0d24p-58, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(0x1.ec709dc3a03fdp-2, 0x1.d27f05548af0cp-56, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(-0x1.71547652b82fep-1, -0x1.777d0ffda0d24p-57, rh, rl, &ph, &pl);
	uir_math_dd_mul_add(0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56, rh, rl, &ph, &pl);
	/* times r, then e + logc + that */
	uir_math_two_prod(ph, rh, &p, &t);
	t += ph * rl + pl * rh;
	uir_math_fast_two_sum(p, t, &ph, &pl);
	uir_math_two_sum((double)e, lch, &h1, &l1);
	uir_math_two_sum(h1, ph, &h2, &l2);
	t = (l1 + l2) + (lcl + pl);
	uir_math_fast_two_sum(h2, t, hi, lo);
}

/* uir-helper: uir_log2_f64 needs: uir_math_log2_dd uir_math_log2_acc uir_math_f64_sure uir_math_as_u64 uir_math_from_u64 */
/* log2(x) in f64: log2(+-0) = -inf, log2(x < 0) = NaN, log2(+inf) = +inf, exact for powers
 * of two. Fast path (error < 2^-68), rounding test, accurate path (error < 2^-100). */
UIR_FN double uir_log2_f64(double x)
{
	uint64_t ix = uir_math_as_u64(x);
	double hi, lo, y;
	if (ix - 1u >= 0x7fefffffffffffffu) { /* +-0, negative, inf or NaN */
		if ((ix << 1) == 0u)
			return uir_math_from_u64(0xfff0000000000000u); /* -inf */
		if (ix == 0x7ff0000000000000u)
			return x; /* +inf */
		if (x != x)
			return x + x; /* NaN */
		return uir_math_from_u64(0x7ff8000000000000u); /* negative: NaN */
	}
	uir_math_log2_dd(x, &hi, &lo);
	if (uir_math_f64_sure(hi, lo, 0x1p-63, &y))
		return y;
	uir_math_log2_acc(x, &hi, &lo);
	return hi + lo;
}

/* uir-helper: uir_log2_f32 needs: uir_math_log2_table uir_math_log2_split uir_math_log2_dd uir_math_as_u32 uir_math_from_u32 uir_math_f32_sure uir_math_round_f32 */
/* log2(x) in f32, correctly rounded; same special values as uir_log2_f64. */
UIR_FN float uir_log2_f32(float x)
{
	const double *tab = uir_math_log2_table();
	uint32_t ix = uir_math_as_u32(x), i;
	int e;
	double z, r, y, d, hi, lo;
	float f;
	if (ix - 1u >= 0x7f7fffffu) { /* +-0, negative, inf or NaN */
		if ((ix << 1) == 0u)
			return uir_math_from_u32(0xff800000u);
		if (ix == 0x7f800000u)
			return x;
		if (x != x)
			return x + x;
		return uir_math_from_u32(0x7fc00000u);
	}
	i = uir_math_log2_split(x, &e, &z);
	r = z * tab[3 * i] - 1.0; /* exact: 24-bit z times 24-bit invc, then Sterbenz */
	y = r * (0x1.71547652b82fep+0 + r * (-0x1.71547652b82fep-1 + r * (0x1.ec709dc3a03fdp-2
		+ r * (-0x1.71547652b82fep-2 + r * (0x1.2776c50ef9bfep-2
		+ r * -0x1.ec709dc3a03fdp-3)))));
	d = ((double)e + tab[3 * i + 1]) + y; /* relative error < 2^-49 */
	if (uir_math_f32_sure(d, 0x1p-44, &f))
		return f;
	uir_math_log2_dd(x, &hi, &lo);
	return uir_math_round_f32(hi, lo);
}

/* ---- sin and cos ---- */

/* uir-helper: uir_math_2opi_table */
/* 2/pi in binary: word n holds bits 32n+1 .. 32n+32 (1280 bits, enough for |x| < 2^1024). */
UIR_FN const uint32_t *uir_math_2opi_table(void)
{
	static const uint32_t t[40] = {
		0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
		0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u,
		0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u,
		0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u,
		0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu,
		0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
		0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u,
		0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du
	};
	return t;
}

/* uir-helper: uir_math_sin_table */
/* sin(j*pi/256) for j = 0..128 as pairs hi, lo; cos(j*pi/256) is entry 128 - j. */
UIR_FN const double *uir_math_sin_table(void)
{
	static const double t[258] = {
		0x0p+0, 0x0p+0,
		0x1.921d1fcdec784p-7, 0x1.9878ebe836d9dp-61,
		0x1.92155f7a3667ep-6, -0x1.b1d63091a0130p-64,
		0x1.2d865759455cdp-5, 0x1.686f65ba93ac0p-61,
		0x1.91f65f10dd814p-5, -0x1.912bd0d569a90p-61,
		0x1.f656e79f820e0p-5, -0x1.2e1ebe392bffep-61,
		0x1.2d52092ce19f6p-4, -0x1.9a088a8bf6b2cp-59,
		0x1.5f6d00a9aa419p-4, -0x1.f4022d03f6c9ap-59,
		0x1.917a6bc29b42cp-4, -0x1.e2718d26ed688p-60,
		0x1.c3785c79ec2d5p-4, -0x1.4f39df133fb21p-61,
		0x1.f564e56a9730ep-4, 0x1.a2704729ae56dp-59,
		0x1.139f0cedaf577p-3, -0x1.523434d1b3cfap-57,
		0x1.2c8106e8e613ap-3, 0x1.13000a89a11e0p-58,
		0x1.45576b1293e5ap-3, -0x1.285a24119f7b1p-58,
		0x1.5e214448b3fc6p-3, 0x1.531ff779ddac6p-57,
		0x1.76dd9de50bf31p-3, 0x1.1d5eeec501b2fp-57,
		0x1.8f8b83c69a60bp-3, -0x1.26d19b9ff8d82p-57,
		0x1.a82a025b00451p-3, -0x1.87905ffd084adp-57,
		0x1.c0b826a7e4f63p-3, -0x1.af1439e521935p-62,
		0x1.d934fe5454311p-3, 0x1.75b92277107adp-57,
		0x1.f19f97b215f1bp-3, -0x1.42deef11da2c4p-57,
		0x1.04fb80e37fdaep-2, -0x1.412cdb72583ccp-63,
		0x1.111d262b1f677p-2, 0x1.824c20ab7aa9ap-56,
		0x1.1d3443f4cdb3ep-2, -0x1.720d41c13519ep-57,
		0x1.294062ed59f06p-2, -0x1.5d28da2c4612dp-56,
		0x1.35410c2e18152p-2, -0x1.3cb002f96e062p-56,
		0x1.4135c94176601p-2, 0x1.0c97c4afa2518p-56,
		0x1.4d1e24278e76ap-2, 0x1.2417218792858p-57,
		0x1.58f9a75ab1fddp-2, -0x1.efdc0d58cf620p-62,
		0x1.64c7ddd3f27c6p-2, 0x1.10d2b4a664121p-58,
		0x1.7088530fa459fp-2, -0x1.44b19e0864c5dp-56,
		0x1.7c3a9311dcce7p-2, 0x1.9a3f21ef3e8d9p-62,
		0x1.87de2a6aea963p-2, -0x1.72cedd3d5a610p-57,
		0x1.9372a63bc93d7p-2, 0x1.684319e5ad5b1p-57,
		0x1.9ef7943a8ed8ap-2, 0x1.6da81290bdbabp-57,
		0x1.aa6c82b6d3fcap-2, -0x1.d5f106ee5ccf7p-56,
		0x1.b5d1009e15cc0p-2, 0x1.5b362cb974183p-57,
		0x1.c1249d8011ee7p-2, -0x1.813aabb515206p-56,
		0x1.cc66e9931c45ep-2, 0x1.6850e59c37f8fp-58,
		0x1.d79775b86e389p-2, 0x1.550ec87bc0575p-56,
		0x1.e2b5d3806f63bp-2, 0x1.e0d891d3c6841p-58,
		0x1.edc1952ef78d6p-2, -0x1.dd0f7c33edee6p-56,
		0x1.f8ba4dbf89abap-2, -0x1.2ec1fc1b776b8p-60,
		0x1.01cfc874c3eb7p-1, -0x1.34a35e7c2368cp-56,
		0x1.073879922ffeep-1, -0x1.a5a014347406cp-55,
		0x1.0c9704d5d898fp-1, -0x1.8d3d7de6ee9b2p-55,
		0x1.11eb3541b4b23p-1, -0x1.ef23b69abe4f1p-55,
		0x1.1734d63dedb49p-1, -0x1.7eef2ccc50575p-55,
		0x1.1c73b39ae68c8p-1, 0x1.b25dd267f6600p-55,
		0x1.21a799933eb59p-1, -0x1.3a7b177c68fb2p-55,
		0x1.26d054cdd12dfp-1, -0x1.5da743ef3770cp-55,
		0x1.2bedb25faf3eap-1, -0x1.14981c796ee46p-58,
		0x1.30ff7fce17035p-1, -0x1.efcc626f74a6fp-57,
		0x1.36058b10659f3p-1, -0x1.1fcb3a35857e7p-55,
		0x1.3affa292050b9p-1, 0x1.e3e25e3954964p-56,
		0x1.3fed9534556d4p-1, 0x1.36916608c5061p-55,
		0x1.44cf325091dd6p-1, 0x1.8076a2cfdc6b3p-57,
		0x1.49a449b9b0939p-1, -0x1.27ee16d719b94p-55,
		0x1.4e6cabbe3e5e9p-1, 0x1.3c293edceb327p-57,
		0x1.5328292a35596p-1, -0x1.a12eb89da0257p-56,
		0x1.57d69348ceca0p-1, -0x1.75720992bfbb2p-55,
		0x1.5c77bbe65018cp-1, 0x1.069ea9c0bc32ap-55,
		0x1.610b7551d2cdfp-1, -0x1.251b352ff2a37p-56,
		0x1.6591925f0783dp-1, 0x1.c3d64fbf5de23p-55,
		0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55,
		0x1.6e74454eaa8afp-1, -0x1.dbc03c84e226ep-55,
		0x1.72d0837efff96p-1, 0x1.0d4ef0f1d915cp-55,
		0x1.771e75f037261p-1, 0x1.5cfce8d84068fp-56,
		0x1.7b5df226aafafp-1, -0x1.0f537acdf0ad7p-56,
		0x1.7f8ece3571771p-1, -0x1.9c8d8ce93c917p-55,
		0x1.83b0e0bff976ep-1, -0x1.6f420f8ea3475p-56,
		0x1.87c400fba2ebfp-1, -0x1.2dabc0c3f64cdp-55,
		0x1.8bc806b151741p-1, -0x1.2c5e12ed1336dp-55,
		0x1.8fbcca3ef940dp-1, -0x1.6dfa99c86f2f1p-57,
		0x1.93a22499263fbp-1, 0x1.3d419a920df0bp-55,
		0x1.9777ef4c7d742p-1, -0x1.15479a240665ep-55,
		0x1.9b3e047f38741p-1, -0x1.30ee286712474p-55,
		0x1.9ef43ef29af94p-1, 0x1.b1dfcb60445c2p-56,
		0x1.a29a7a0462782p-1, -0x1.128bb015df175p-56,
		0x1.a63091b02fae2p-1, -0x1.e911152248d10p-56,
		0x1.a9b66290ea1a3p-1, 0x1.9f630e8b6dac8p-60,
		0x1.ad2bc9e21d511p-1, -0x1.47fbe07bea548p-55,
		0x1.b090a58150200p-1, -0x1.926da300ffccep-55,
		0x1.b3e4d3ef55712p-1, -0x1.eb6b8bf11a493p-55,
		0x1.b728345196e3ep-1, -0x1.bc69f324e6d61p-55,
		0x1.ba5aa673590d2p-1, 0x1.7ea4e370753b6p-55,
		0x1.bd7c0ac6f952ap-1, -0x1.825a732ac700ap-55,
		0x1.c08c426725549p-1, 0x1.b157fd80e2946p-58,
		0x1.c38b2f180bdb1p-1, -0x1.6e0b1757c8d07p-56,
		0x1.c678b3488739bp-1, 0x1.d86cac7c5ff5bp-57,
		0x1.c954b213411f5p-1, -0x1.2fb761e946603p-58,
		0x1.cc1f0f3fcfc5cp-1, 0x1.e57613b68f6abp-56,
		0x1.ced7af43cc773p-1, -0x1.e7b6bb5ab58aep-58,
		0x1.d17e7743e35dcp-1, -0x1.101da3540130ap-58,
		0x1.d4134d14dc93ap-1, -0x1.4ef5295d25af2p-55,
		0x1.d696173c9e68bp-1, -0x1.e8c61c6393d55p-56,
		0x1.d906bcf328d46p-1, 0x1.457e610231ac2p-56,
		0x1.db6526238a09bp-1, -0x1.adee7eae69460p-56,
		0x1.ddb13b6ccc23cp-1, 0x1.83c37c6107db3p-55,
		0x1.dfeae622dbe2bp-1, -0x1.514ea88425567p-55,
		0x1.e212104f686e5p-1, -0x1.014c76c126527p-55,
		0x1.e426a4b2bc17ep-1, 0x1.a873889744882p-55,
		0x1.e6288ec48e112p-1, -0x1.16b56f2847754p-57,
		0x1.e817bab4cd10dp-1, -0x1.d0afe686b5e0ap-56,
		0x1.e9f4156c62ddap-1, 0x1.760b1e2e3f81ep-55,
		0x1.ebbd8c8df0b74p-1, 0x1.c6c8c615e7277p-56,
		0x1.ed740e7684963p-1, 0x1.e82c791f59cc2p-56,
		0x1.ef178a3e473c2p-1, 0x1.6310a67fe774fp-55,
		0x1.f0a7efb9230d7p-1, 0x1.52c7adc6b4989p-56,
		0x1.f2252f7763adap-1, -0x1.20cb81c8d94abp-55,
		0x1.f38f3ac64e589p-1, -0x1.d7bafb51f72e6p-56,
		0x1.f4e603b0b2f2dp-1, -0x1.8ee01e695ac05p-56,
		0x1.f6297cff75cb0p-1, 0x1.562172a361fd3p-56,
		0x1.f7599a3a12077p-1, 0x1.84f31d743195cp-55,
		0x1.f8764fa714ba9p-1, 0x1.ab256778ffcb6p-56,
		0x1.f97f924c9099bp-1, -0x1.e2ae0eea5963bp-55,
		0x1.fa7557f08a517p-1, -0x1.7a0a8ca13571fp-55,
		0x1.fb5797195d741p-1, 0x1.1bfac7397cc08p-56,
		0x1.fc26470e19fd3p-1, 0x1.1ec8668ecaceep-55,
		0x1.fce15fd6da67bp-1, -0x1.5dd6f830d4c09p-56,
		0x1.fd88da3d12526p-1, -0x1.87df6378811c7p-55,
		0x1.fe1cafcbd5b09p-1, 0x1.a23e3202a884ep-57,
		0x1.fe9cdad01883ap-1, 0x1.521ecd0c67e35p-57,
		0x1.ff095658e71adp-1, 0x1.01a8ce18a4b9ep-55,
		0x1.ff621e3796d7ep-1, -0x1.c57bc2e24aa15p-57,
		0x1.ffa72effef75dp-1, -0x1.8b4cdcdb25956p-55,
		0x1.ffd886084cd0dp-1, -0x1.1354d4556e4cbp-55,
		0x1.fff62169b92dbp-1, 0x1.5dda3c81fbd0dp-55,
		0x1.0000000000000p+0, 0x0p+0
	};
	return t;
}

/* uir-helper: uir_math_bits32 */
/* Bits pos .. pos+31 of the 320-bit number f[0] + f[1]*2^32 + ... + f[9]*2^288, with zeros
 * below bit 0; -64 <= pos <= 319. */
UIR_FN uint32_t uir_math_bits32(const uint32_t *f, int pos)
{
	int q, s;
	uint64_t w;
	if (pos < 0)
		return pos <= -32 ? 0u : f[0] << -pos;
	q = pos >> 5;
	s = pos & 31;
	w = f[q];
	if (q < 9)
		w |= (uint64_t)f[q + 1] << 32;
	return (uint32_t)(w >> s);
}

/* uir-helper: uir_math_payne_hanek needs: uir_math_2opi_table uir_math_bits32 uir_math_as_u64 uir_math_from_u64 uir_math_two_sum uir_math_fast_two_sum uir_math_two_prod */
/* Exact reduction of a finite |x| >= 1: x = k*pi/256 + t with k mod 512 returned and
 * t = *th + *tl, |t| <= pi/512, relative error below 2^-104. x * 256/pi mod 512 is
 * computed in fixed point: the 53-bit mantissa times the 256 bits of 2/pi that matter. */
UIR_FN uint32_t uir_math_payne_hanek(double x, double *th, double *tl)
{
	const uint32_t *w = uir_math_2opi_table();
	uint64_t ix = uir_math_as_u64(x);
	uint64_t m = (ix & 0x000fffffffffffffu) | 0x0010000000000000u;
	uint32_t ml = (uint32_t)m, mh = (uint32_t)(m >> 32);
	int ex = (int)((ix >> 52) & 0x7ffu) - 1075; /* |x| = m * 2^ex, ex >= -52 */
	/* Words before n0 hold bits of weight <= 2^(ex-2): their products are multiples
	 * of 512 and drop out. With s below, x*256/pi = F * 2^(s-224) (mod 512). */
	int n0 = ex >= 2 ? (ex - 2) / 32 : 0;
	int s = ex + 7 - 32 * n0 - 32;
	int point = 224 - s; /* the binary point of F, 216 .. 301 */
	uint32_t f[10], fr[8], k, neg = 0;
	uint64_t acc, carry = 0;
	double d[5], h, l, er, ph, pl;
	int i, i0;
	for (i = 0; i < 8; i++) {
		acc = (uint64_t)ml * w[n0 + 7 - i] + carry;
		f[i] = (uint32_t)acc;
		carry = acc >> 32;
	}
	f[8] = (uint32_t)carry;
	carry = 0;
	for (i = 0; i < 8; i++) {
		acc = (uint64_t)mh * w[n0 + 7 - i] + f[i + 1] + carry;
		f[i + 1] = (uint32_t)acc;
		carry = acc >> 32;
	}
	f[9] = (uint32_t)carry;
	/* Integer part mod 512 and 256 bits of fraction (fr[0] the most significant). */
	k = uir_math_bits32(f, point) & 511u;
	for (i = 0; i < 8; i++)
		fr[i] = uir_math_bits32(f, point - 32 * (i + 1));
	if (fr[0] >> 31) { /* fraction >= 1/2: round k up, the fraction becomes negative */
		k = (k + 1u) & 511u;
		neg = 1;
		carry = 1;
		for (i = 7; i >= 0; i--) {
			acc = (uint64_t)(uint32_t)~fr[i] + carry;
			fr[i] = (uint32_t)acc;
			carry = acc >> 32;
		}
	}
	/* The fraction as a double-double, from its first nonzero word on (129+ bits; the
	 * fraction is above 2^-70 for every double). */
	for (i0 = 0; i0 < 3 && fr[i0] == 0u; i0++)
		;
	for (i = 0; i < 5; i++)
		d[i] = (double)fr[i0 + i] * uir_math_from_u64((uint64_t)(1023 - 32 * (i0 + i + 1)) << 52);
	h = d[0];
	l = 0.0;
	for (i = 1; i < 5; i++) {
		uir_math_two_sum(h, d[i], &h, &er);
		l += er;
	}
	uir_math_fast_two_sum(h, l, &h, &l);
	/* t = fraction * pi/256 (double-double product). */
	uir_math_two_prod(h, 0x1.921fb54442d18p-7, &ph, &pl);
	pl += h * 0x1.1a62633145c07p-61 + l * 0x1.921fb54442d18p-7;
	uir_math_fast_two_sum(ph, pl, &ph, &pl);
	if (neg ^ (uint32_t)(ix >> 63)) {
		ph = -ph;
		pl = -pl;
	}
	*th = ph;
	*tl = pl;
	return ix >> 63 ? (512u - k) & 511u : k;
}

/* uir-helper: uir_math_rem_pi256 needs: uir_math_payne_hanek uir_math_two_prod uir_math_two_sum */
/* Reduces a finite x: x = k*pi/256 + t, returns k mod 512 and t = *th + *tl with
 * |t| <= pi/512 (plus a few ulps), relative error below 2^-70. */
UIR_FN uint32_t uir_math_rem_pi256(double x, double *th, double *tl)
{
	double ax = x < 0.0 ? -x : x, kd, t1, p, pe, s, se, rest;
	if (!(ax < 0x1p23))
		return uir_math_payne_hanek(x, th, tl);
	/* Cody-Waite: pi/256 = P1 + P2 + P3 (53 bits each, 159 in all). kd*P1 = p + pe
	 * exactly; x - p is exact (Sterbenz), and so is t1 = x - kd*P1, a multiple of 2^-60
	 * below 2^-7. */
	kd = (x * 0x1.45f306dc9c883p+6 + 0x1.8p52) - 0x1.8p52; /* round(x * 256/pi) */
	uir_math_two_prod(kd, 0x1.921fb54442d18p-7, &p, &pe);
	t1 = (x - p) - pe;
	uir_math_two_prod(kd, 0x1.1a62633145c07p-61, &p, &pe);
	uir_math_two_sum(t1, -p, &s, &se);
	rest = (se - pe) - kd * -0x1.f1976b7ed8fbcp-117;
	uir_math_two_sum(s, rest, th, tl);
	return (uint32_t)(int32_t)kd & 511u;
}

/* uir-helper: uir_math_sin_dd needs: uir_math_sin_table uir_math_two_prod uir_math_two_sum uir_math_fast_two_sum */
/* sin(k*pi/256 + t) ~ *hi + *lo for t = th + tl, |t| <= pi/512 (plus a few ulps);
 * relative error below 2^-67 (2^-68.1 measured). */
UIR_FN void uir_math_sin_dd(uint32_t k, double th, double tl, double *hi, double *lo)
{
	const double *tab = uir_math_sin_table();
	uint32_t j = k & 127u, q = (k >> 7) & 3u;
	double sh = tab[2 * j], sl = tab[2 * j + 1];
	double ch = tab[256 - 2 * j], cl = tab[257 - 2 * j];
	/* sin(q*pi/2 + a + t) = +-(A cos t + B sin t), a = j*pi/256. */
	double ah = q & 1u ? ch : sh, al = q & 1u ? cl : sl;
	double bh = q & 1u ? -sh : ch, bl = q & 1u ? -sl : cl;
	double u, ue, st, cth, ctl, p, pe, m, me, s1, e1, s2, e2, t;
	/* t^2 = u + ue; sin t - t = st; cos t - 1 = cth + ctl (Taylor, error < 2^-80). */
	uir_math_two_prod(th, th, &u, &ue);
	ue += 2.0 * th * tl;
	st = th * u * (-0x1.5555555555555p-3 + u * (0x1.1111111111111p-7
		+ u * (-0x1.a01a01a01a01ap-13 + u * 0x1.71de3a556c734p-19)));
	cth = -0.5 * u;
	ctl = -0.5 * ue + u * u * (0x1.5555555555555p-5 + u * (-0x1.6c16c16c16c17p-10
		+ u * (0x1.a01a01a01a01ap-16 + u * -0x1.27e4fb7789f5cp-22)));
	/* A + B t + A (cos t - 1) + B (sin t - t) */
	uir_math_two_prod(bh, th, &p, &pe);
	uir_math_two_prod(ah, cth, &m, &me);
	uir_math_two_sum(ah, p, &s1, &e1);
	uir_math_two_sum(s1, m, &s2, &e2);
	t = ((pe + me) + (e1 + e2)) + ((al + (bh * tl + bl * th)) + (ah * ctl + al * cth));
	t += bh * st;
	uir_math_fast_two_sum(s2, t, hi, lo);
	if (q & 2u) {
		*hi = -*hi;
		*lo = -*lo;
	}
}

/* uir-helper: uir_math_sin_acc needs: uir_math_sin_table uir_math_dd_mul_add uir_math_dd_mul uir_math_two_sum uir_math_fast_two_sum */
/* As uir_math_sin_dd, with every step in double-double (relative error below 2^-100 for
 * t accurate to 2^-104): the slow path of uir_sin_f64 and uir_cos_f64. */
UIR_FN void uir_math_sin_acc(uint32_t k, double th, double tl, double *hi, double *lo)
{
	const double *tab = uir_math_sin_table();
	uint32_t j = k & 127u, q = (k >> 7) & 3u;
	double sh = tab[2 * j], sl = tab[2 * j + 1];
	double ch = tab[256 - 2 * j], cl = tab[257 - 2 * j];
	double ah = q & 1u ? ch : sh, al = q & 1u ? cl : sl;
	double bh = q & 1u ? -sh : ch, bl = q & 1u ? -sl : cl;
	double uh, ul, ph, pl, ch2, cl2, sth, stl, s, e, s2, e2, s3, e3, lo2;
	/* u = t^2; sin t - t = t u S(u), cos t - 1 = u C(u) (Taylor to t^11 and t^10). */
	uir_math_dd_mul(th, tl, th, tl, &uh, &ul);
	ph = -0x1.ae64567f544e4p-26;
	pl = 0.0;
	uir_math_dd_mul_add(0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(0x1.1111111111111p-7, 0x1.1111111111111p-63, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(-0x1.5555555555555p-3, -0x1.5555555555555p-57, uh, ul, &ph, &pl);
	uir_math_dd_mul(ph, pl, uh, ul, &ph, &pl);
	uir_math_dd_mul(ph, pl, th, tl, &sth, &stl);
	ph = -0x1.27e4fb7789f5cp-22;
	pl = 0.0;
	uir_math_dd_mul_add(0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(0x1.5555555555555p-5, 0x1.5555555555555p-59, uh, ul, &ph, &pl);
	uir_math_dd_mul_add(-0.5, 0.0, uh, ul, &ph, &pl);
	uir_math_dd_mul(ph, pl, uh, ul, &ch2, &cl2);
	/* A + B t + A (cos t - 1) + B (sin t - t) */
	uir_math_dd_mul(bh, bl, th, tl, &ph, &pl);
	uir_math_two_sum(ah, ph, &s, &e);
	lo2 = e + al + pl;
	uir_math_dd_mul(ah, al, ch2, cl2, &ph, &pl);
	uir_math_two_sum(s, ph, &s2, &e2);
	lo2 += e2 + pl;
	uir_math_dd_mul(bh, bl, sth, stl, &ph, &pl);
	uir_math_two_sum(s2, ph, &s3, &e3);
	lo2 += e3 + pl;
	uir_math_fast_two_sum(s3, lo2, hi, lo);
	if (q & 2u) {
		*hi = -*hi;
		*lo = -*lo;
	}
}

/* uir-helper: uir_math_sin_d needs: uir_math_sin_table */
/* sin(k*pi/256 + t) in double for |t| <= pi/512 (plus a few ulps), relative error
 * below 2^-49: the fast first step of the f32 functions. */
UIR_FN double uir_math_sin_d(uint32_t k, double t)
{
	const double *tab = uir_math_sin_table();
	uint32_t j = k & 127u, q = (k >> 7) & 3u;
	double sa = tab[2 * j], ca = tab[256 - 2 * j];
	double a = q & 1u ? ca : sa, b = q & 1u ? -sa : ca;
	double u = t * t;
	double st = t * u * (-0x1.5555555555555p-3 + u * 0x1.1111111111111p-7);
	double cm = u * (-0.5 + u * (0x1.5555555555555p-5 + u * -0x1.6c16c16c16c17p-10));
	double d = a + (b * t + (a * cm + b * st));
	return q & 2u ? -d : d;
}

/* uir-helper: uir_sin_f64 needs: uir_math_rem_pi256 uir_math_payne_hanek uir_math_sin_dd uir_math_sin_acc uir_math_f64_sure */
/* sin(x) in f64 (x in radians); sin(+-inf) = NaN, sin(-0) = -0. Fast path (error below
 * 2^-67), rounding test, accurate path (exact reduction, error below 2^-100). */
UIR_FN double uir_sin_f64(double x)
{
	double ax = x < 0.0 ? -x : x, th, tl, hi, lo, y;
	uint32_t k;
	if (!(ax <= 0x1.fffffffffffffp1023))
		return x - x; /* inf or NaN: NaN */
	if (ax < 0x1p-26)
		return x; /* sin x = x - x^3/6 rounds to x */
	k = uir_math_rem_pi256(x, &th, &tl);
	uir_math_sin_dd(k, th, tl, &hi, &lo);
	if (uir_math_f64_sure(hi, lo, 0x1p-63, &y))
		return y;
	if (ax >= 1.0)
		k = uir_math_payne_hanek(x, &th, &tl);
	uir_math_sin_acc(k, th, tl, &hi, &lo);
	return hi + lo;
}

/* uir-helper: uir_cos_f64 needs: uir_math_rem_pi256 uir_math_payne_hanek uir_math_sin_dd uir_math_sin_acc uir_math_f64_sure */
/* cos(x) in f64 (x in radians); cos(+-inf) = NaN. Same method as uir_sin_f64. */
UIR_FN double uir_cos_f64(double x)
{
	double ax = x < 0.0 ? -x : x, th, tl, hi, lo, y;
	uint32_t k;
	if (!(ax <= 0x1.fffffffffffffp1023))
		return x - x;
	if (ax < 0x1p-27)
		return 1.0; /* cos x = 1 - x^2/2 rounds to 1 */
	k = uir_math_rem_pi256(x, &th, &tl);
	uir_math_sin_dd(k + 128u, th, tl, &hi, &lo);
	if (uir_math_f64_sure(hi, lo, 0x1p-63, &y))
		return y;
	if (ax >= 1.0)
		k = uir_math_payne_hanek(x, &th, &tl);
	uir_math_sin_acc(k + 128u, th, tl, &hi, &lo);
	return hi + lo;
}

/* uir-helper: uir_sin_f32 needs: uir_math_as_u32 uir_math_rem_pi256 uir_math_sin_d uir_math_sin_dd uir_math_f32_sure uir_math_round_f32 */
/* sin(x) in f32, correctly rounded; sin(+-inf) = NaN, sin(-0) = -0. */
UIR_FN float uir_sin_f32(float x)
{
	uint32_t ax = uir_math_as_u32(x) & 0x7fffffffu, k;
	double th, tl, hi, lo;
	float f;
	if (ax >= 0x7f800000u)
		return x - x;
	if (ax < 0x39800000u)
		return x; /* |x| < 2^-12: sin x rounds to x */
	k = uir_math_rem_pi256(x, &th, &tl);
	if (uir_math_f32_sure(uir_math_sin_d(k, th), 0x1p-44, &f))
		return f;
	uir_math_sin_dd(k, th, tl, &hi, &lo);
	return uir_math_round_f32(hi, lo);
}

/* uir-helper: uir_cos_f32 needs: uir_math_as_u32 uir_math_rem_pi256 uir_math_sin_d uir_math_sin_dd uir_math_f32_sure uir_math_round_f32 */
/* cos(x) in f32, correctly rounded; cos(+-inf) = NaN. */
UIR_FN float uir_cos_f32(float x)
{
	uint32_t ax = uir_math_as_u32(x) & 0x7fffffffu, k;
	double th, tl, hi, lo;
	float f;
	if (ax >= 0x7f800000u)
		return x - x;
	if (ax < 0x39800000u)
		return 1.0f; /* |x| < 2^-12: cos x rounds to 1 */
	k = uir_math_rem_pi256(x, &th, &tl) + 128u;
	if (uir_math_f32_sure(uir_math_sin_d(k, th), 0x1p-44, &f))
		return f;
	uir_math_sin_dd(k, th, tl, &hi, &lo);
	return uir_math_round_f32(hi, lo);
}

/* uir-helper-end */

#endif /* UIR_MATH_H */
