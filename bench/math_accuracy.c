/* math_accuracy.c - measures the accuracy (and speed) of runtime/uir_math.h.
 *
 * f32: every input in a range of bit patterns (by default all 2^32) is run through
 * uir_{exp2,log2,sin,cos}_f32 and compared with glibc's double function: the error in ulps
 * of the f32 result, and the count of results that differ from the double reference
 * rounded to f32 (probably not correctly rounded). Those are checked again against the
 * x87 long double functions (exp2l, log2l, sinl, cosl), and the count still differing is
 * reported as "not CR (long double)". Built with -DUSE_MPFR (link -lmpfr -lgmp), every
 * input whose double reference lies within 2 ulps (of double) of an f32 rounding boundary
 * (a midpoint, or the overflow threshold) is "undecided" and its correctly rounded result
 * comes from MPFR; "not_CR(mpfr)" then counts the results that differ from the correctly
 * rounded one (decided inputs: the double reference rounded to f32). Without MPFR the
 * undecided inputs are only counted.
 * f64: a random sample (splitmix64) spread over the whole exponent range plus special
 * ranges (near 0, near 1, near multiples of pi/2, arguments up to 2^1024) against long
 * double: max error in ulps and the count differing from the long double reference
 * rounded to f64. With -DUSE_QUADMATH (link -lquadmath) those are checked again in
 * __float128 and the count still differing is "not CR (quad)".
 * A table of special values (NaN, infinities, zeros, powers of two, ...) is checked
 * first; every mismatch is printed.
 *
 * Build: cc -O2 -ffp-contract=off -pthread bench/math_accuracy.c -o math_accuracy -lm
 *        (add -DUSE_QUADMATH ... -lquadmath for the __float128 recheck, and
 *        -DUSE_MPFR ... -lmpfr -lgmp for the MPFR decision)
 * Usage: math_accuracy [-f exp2,log2,sin,cos] [-t f32|f64|both] [-r LO:HI] [-k STRIDE]
 *                      [-n N] [-Q] [-j THREADS] [-s SEED] [--speed]
 *   -r LO:HI   f32 bit patterns LO..HI inclusive (hex), default 0:ffffffff
 *   -k STRIDE  test only every STRIDE-th f32 bit pattern of the range (default 1)
 *   -n N       f64 sample size per function (default 10000000)
 *   -Q         (with USE_QUADMATH) measure every f64 sample against __float128, not long
 *              double: exact max errors, about 20 times slower
 *   --speed    time each function (ns per call, one thread) instead of measuring accuracy
 * Exit status: 0 when every max error is at most 1 ulp and all special values match.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* strtok_r, clock_gettime, sysconf */
#endif
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef USE_QUADMATH
#include <quadmath.h>
#endif
#ifdef USE_MPFR
#include <mpfr.h>
#endif

#include "../runtime/uir_math.h"

enum { F_EXP2, F_LOG2, F_SIN, F_COS, NFUNC };
static const char *const func_names[NFUNC] = { "exp2", "log2", "sin", "cos" };

static float our_f32(int fn, float x)
{
	switch (fn) {
	case F_EXP2: return uir_exp2_f32(x);
	case F_LOG2: return uir_log2_f32(x);
	case F_SIN: return uir_sin_f32(x);
	default: return uir_cos_f32(x);
	}
}

static double our_f64(int fn, double x)
{
	switch (fn) {
	case F_EXP2: return uir_exp2_f64(x);
	case F_LOG2: return uir_log2_f64(x);
	case F_SIN: return uir_sin_f64(x);
	default: return uir_cos_f64(x);
	}
}

static double ref_d(int fn, double x)
{
	switch (fn) {
	case F_EXP2: return exp2(x);
	case F_LOG2: return log2(x);
	case F_SIN: return sin(x);
	default: return cos(x);
	}
}

static long double ref_ld(int fn, long double x)
{
	switch (fn) {
	case F_EXP2: return exp2l(x);
	case F_LOG2: return log2l(x);
	case F_SIN: return sinl(x);
	default: return cosl(x);
	}
}

#ifdef USE_QUADMATH
static __float128 ref_q(int fn, __float128 x)
{
	switch (fn) {
	case F_EXP2: return exp2q(x);
	case F_LOG2: return log2q(x);
	case F_SIN: return sinq(x);
	default: return cosq(x);
	}
}
#endif

static uint32_t f32_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static uint64_t f64_bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static float f32_of(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static double f64_of(uint64_t u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

/* Equal as results: same bits, or both NaN. */
static int same_f32(float a, float b)
{
	return (a != a && b != b) || f32_bits(a) == f32_bits(b);
}

static int same_f64(double a, double b)
{
	return (a != a && b != b) || f64_bits(a) == f64_bits(b);
}

/* Error of y against the reference ref in ulps of the f32 format at ref (the ulp of the
 * binade of |ref|, 2^-149 below 2^-126). Mismatched specials count as 1e9 ulps. */
static double ulp_err_f32(float y, double ref)
{
	double a = fabs(ref), ulp;
	int e;
	if (ref != ref || y != y)
		return (ref != ref && y != y) ? 0.0 : 1e9;
	if (isinf((float)ref) || isinf(y))
		return y == (float)ref ? 0.0 : 1e9;
	if (a < 0x1p-126)
		ulp = 0x1p-149;
	else {
		frexp(a, &e);
		ulp = ldexp(1.0, e - 24);
	}
	return fabs((double)y - ref) / ulp;
}

static double ulp_err_f64(double y, long double ref)
{
	long double a = fabsl(ref), ulp;
	int e;
	if (ref != ref || y != y)
		return (ref != ref && y != y) ? 0.0 : 1e9;
	if (isinf((double)ref) || isinf(y))
		return y == (double)ref ? 0.0 : 1e9;
	if (a < 0x1p-1022L)
		ulp = 0x1p-1074L;
	else {
		frexpl(a, &e);
		ulp = ldexpl(1.0L, e - 53);
	}
	return (double)(fabsl((long double)y - ref) / ulp);
}

/* ---- Work shared by the threads ---- */

struct stats {
	double max_ulp;
	uint64_t max_at; /* input bits of the max */
	uint64_t tested, not_cr_d, not_cr_ld, not_cr_q;
	uint64_t undecided;  /* f32: double reference too close to an f32 midpoint */
	uint64_t not_cr;     /* f32: differ from the correctly rounded result (MPFR build) */
};

struct job {
	int fn, f64;
	uint64_t lo, n;      /* f32: bit patterns lo + i*stride, i < n; f64: n samples */
	uint64_t stride;
	int quad;            /* f64: __float128 reference for every sample */
	uint64_t seed;
	uint64_t next_chunk; /* guarded by lock */
	uint64_t nchunks, chunk;
	pthread_mutex_t lock;
	struct stats total;
};

static void merge(struct stats *into, const struct stats *s)
{
	if (s->max_ulp > into->max_ulp) {
		into->max_ulp = s->max_ulp;
		into->max_at = s->max_at;
	}
	into->tested += s->tested;
	into->not_cr_d += s->not_cr_d;
	into->not_cr_ld += s->not_cr_ld;
	into->not_cr_q += s->not_cr_q;
	into->undecided += s->undecided;
	into->not_cr += s->not_cr;
}

/* Whether the double reference d (glibc: error below 1 ulp of double, see the glibc manual's
 * "Errors in Math Functions"; we allow 2) is far enough from every f32 rounding boundary
 * (a midpoint between two adjacent f32 values, or the overflow threshold 2^128 - 2^103) that
 * (float)d is certainly the correctly rounded f32 result. Exact boundaries count as too
 * close: the exact value may be the midpoint itself (exp2(-150) = 2^-150). */
static int decided_f32(double d)
{
	double a = fabs(d), f, lo, hi, mlo, mhi, tol;
	if (d != d || isinf(d) || a == 0.0)
		return 1;
	if (a >= 0x1p128) /* rounds to inf either way, up to error 2 ulp of double */
		return a - 2 * ldexp(1.0, ilogb(a) - 52) >= 0x1.ffffffp127;
	f = (float)a;
	if (isinf(f))
		f = 0x1.fffffep127;
	lo = f == 0.0 ? -0x1p-149 : (double)nextafterf((float)f, 0.0f);
	hi = f == 0x1.fffffep127 ? 0x1p128 : (double)nextafterf((float)f, INFINITY);
	mlo = (f + lo) / 2; /* exact: f32 values have 24 bits */
	mhi = (f + hi) / 2;
	tol = 2 * (a < 0x1p-1022 ? 0x1p-1074 : ldexp(1.0, ilogb(a) - 52));
	return a - mlo > tol && mhi - a > tol;
}

#ifdef USE_MPFR
/* The correctly rounded f32 result of fn at x: MPFR at 256 bits, then rounded once to
 * float by mpfr_get_flt (round to nearest, ties to even; subnormals included). No f32 input
 * of these functions has an exact value within 2^-256 of a midpoint that is not the
 * midpoint itself (exact cases: exp2 of integers and of -150; MPFR marks them exact). */
static float mpfr_cr_f32(int fn, float x)
{
	mpfr_t m;
	float r;
	mpfr_init2(m, 256);
	mpfr_set_flt(m, x, MPFR_RNDN);
	switch (fn) {
	case F_EXP2: mpfr_exp2(m, m, MPFR_RNDN); break;
	case F_LOG2: mpfr_log2(m, m, MPFR_RNDN); break;
	case F_SIN: mpfr_sin(m, m, MPFR_RNDN); break;
	default: mpfr_cos(m, m, MPFR_RNDN); break;
	}
	r = mpfr_get_flt(m, MPFR_RNDN);
	mpfr_clear(m);
	return r;
}
#endif

static void run_f32(const struct job *jb, uint64_t from, uint64_t count, struct stats *st)
{
	for (uint64_t i = 0; i < count; i++) {
		uint32_t bits = (uint32_t)(jb->lo + (from + i) * jb->stride);
		float x = f32_of(bits);
		float y = our_f32(jb->fn, x);
		double ref = ref_d(jb->fn, (double)x);
		double err = ulp_err_f32(y, ref);
		st->tested++;
		if (err > st->max_ulp) {
			st->max_ulp = err;
			st->max_at = bits;
		}
		if (!same_f32(y, (float)ref)) {
			st->not_cr_d++;
			if (!same_f32(y, (float)ref_ld(jb->fn, (long double)x)))
				st->not_cr_ld++;
		}
		if (!decided_f32(ref)) {
			st->undecided++;
#ifdef USE_MPFR
			if (!same_f32(y, mpfr_cr_f32(jb->fn, x)))
				st->not_cr++;
#endif
		}
#ifdef USE_MPFR
		else if (!same_f32(y, (float)ref))
			st->not_cr++;
#endif
	}
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* A random f64 input for fn: one of several distributions, chosen by the low bits. */
static double sample_f64(int fn, uint64_t *rng)
{
	uint64_t z = splitmix64(rng), w = splitmix64(rng);
	double u = (double)(w >> 11) * 0x1p-53; /* [0, 1) */
	switch (z & 7) {
	case 0: /* any bit pattern (all exponents, both signs) */
		return f64_of(w);
	case 1: /* any positive bit pattern */
		return f64_of(w >> 1);
	default:
		break;
	}
	switch (fn) {
	case F_EXP2:
		if ((z & 7) <= 4)
			return -1080.0 + 2110.0 * u;            /* the whole finite range */
		if ((z & 7) == 5)
			return ldexp(u - 0.5, -(int)((z >> 8) % 60)); /* near 0 */
		if ((z & 7) == 6)
			return -1075.0 + 53.0 * u;               /* subnormal results */
		return -30.0 + 60.0 * u;
	case F_LOG2:
		if ((z & 7) <= 3)
			return f64_of((w >> 1) % 0x7ff0000000000000u); /* any positive finite */
		if ((z & 7) == 4)
			return 1.0 + ldexp(u - 0.5, -(int)((z >> 8) % 53)); /* near 1 */
		if ((z & 7) == 5)
			return f64_of(w >> 12);                  /* subnormal */
		return 0.5 + 1.5 * u;
	default: /* sin, cos */
		if ((z & 7) == 2)
			return (u - 0.5) * 20.0;
		if ((z & 7) == 3)
			return (u - 0.5) * 0x1p24;               /* the Cody-Waite range */
		if ((z & 7) == 4) {                          /* near multiples of pi/2 */
			double k = (double)((z >> 8) % 1000000);
			double x = k * 1.5707963267948966;
			return f64_of(f64_bits(x) + (w & 15) - 8);
		}
		if ((z & 7) == 5)
			return ldexp(u - 0.5, -(int)((z >> 8) % 30)); /* near 0 */
		if ((z & 7) == 6)
			return ldexp(u + 1.0, 23 + (int)((z >> 8) % 1000)); /* Payne-Hanek range */
		return (u - 0.5) * 2000.0;
	}
}

#ifdef USE_QUADMATH
/* As ulp_err_f64, against a __float128 reference. */
static double ulp_err_f64q(double y, __float128 ref)
{
	__float128 a = fabsq(ref), ulp;
	int e;
	if (isnanq(ref) || y != y)
		return (isnanq(ref) && y != y) ? 0.0 : 1e9;
	if (isinf((double)ref) || isinf(y))
		return y == (double)ref ? 0.0 : 1e9;
	if (a < (__float128)0x1p-1022)
		ulp = (__float128)0x1p-1074;
	else {
		frexpq(a, &e);
		ulp = ldexpq((__float128)1.0, e - 53);
	}
	return (double)(fabsq((__float128)y - ref) / ulp);
}
#endif

static void run_f64(const struct job *jb, uint64_t chunk, uint64_t count, struct stats *st)
{
	uint64_t rng = jb->seed ^ (chunk * 0xD1B54A32D192ED03u);
	for (uint64_t i = 0; i < count; i++) {
		double x = sample_f64(jb->fn, &rng);
		double y = our_f64(jb->fn, x);
		long double ref;
		double err;
#ifdef USE_QUADMATH
		if (jb->quad) {
			__float128 q = ref_q(jb->fn, (__float128)x);
			err = ulp_err_f64q(y, q);
			st->tested++;
			if (err > st->max_ulp) {
				st->max_ulp = err;
				st->max_at = f64_bits(x);
			}
			if (!same_f64(y, (double)q))
				st->not_cr_q++;
			continue;
		}
#endif
		ref = ref_ld(jb->fn, (long double)x);
		err = ulp_err_f64(y, ref);
		st->tested++;
		if (err > st->max_ulp) {
			st->max_ulp = err;
			st->max_at = f64_bits(x);
		}
		if (!same_f64(y, (double)ref)) {
			st->not_cr_d++;
#ifdef USE_QUADMATH
			if (!same_f64(y, (double)ref_q(jb->fn, (__float128)x)))
				st->not_cr_q++;
#endif
		}
	}
}

static void *worker(void *arg)
{
	struct job *jb = arg;
	struct stats st = { 0, 0, 0, 0, 0, 0, 0, 0 };
	for (;;) {
		uint64_t c, from, count;
		pthread_mutex_lock(&jb->lock);
		c = jb->next_chunk++;
		pthread_mutex_unlock(&jb->lock);
		if (c >= jb->nchunks)
			break;
		from = c * jb->chunk;
		count = jb->n - from < jb->chunk ? jb->n - from : jb->chunk;
		if (jb->f64)
			run_f64(jb, c, count, &st);
		else
			run_f32(jb, from, count, &st);
	}
	pthread_mutex_lock(&jb->lock);
	merge(&jb->total, &st);
	pthread_mutex_unlock(&jb->lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double measure(int fn, int f64, uint64_t lo, uint64_t stride, uint64_t n, uint64_t seed,
		      int threads, int quad)
{
	struct job jb;
	pthread_t tid[256];
	double t0 = now_s(), secs;
	memset(&jb, 0, sizeof jb);
	jb.fn = fn;
	jb.f64 = f64;
	jb.lo = lo;
	jb.stride = stride;
	jb.quad = quad;
	jb.n = n;
	jb.seed = seed;
	jb.chunk = 1u << 16;
	jb.nchunks = (n + jb.chunk - 1) / jb.chunk;
	pthread_mutex_init(&jb.lock, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, &jb);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&jb.lock);
	secs = now_s() - t0;
	if (f64) {
		char q[32] = "n/a";
#ifdef USE_QUADMATH
		snprintf(q, sizeof q, "%llu", (unsigned long long)jb.total.not_cr_q);
#endif
		char l[32] = "-";
		if (!quad)
			snprintf(l, sizeof l, "%llu", (unsigned long long)jb.total.not_cr_d);
		printf("%-5s f64  %12llu  %11.9f  %-24a  %11s  %11s  %11s  %8.1f s\n",
		       func_names[fn], (unsigned long long)jb.total.tested, jb.total.max_ulp,
		       f64_of(jb.total.max_at), "-", l, q, secs);
	} else {
		char c[32] = "n/a";
#ifdef USE_MPFR
		snprintf(c, sizeof c, "%llu", (unsigned long long)jb.total.not_cr);
#endif
		printf("%-5s f32  %12llu  %11.9f  %-24a  %11llu  %11llu  %11s  %8.1f s"
		       "  undecided %llu  not_CR(mpfr) %s\n",
		       func_names[fn], (unsigned long long)jb.total.tested, jb.total.max_ulp,
		       (double)f32_of((uint32_t)jb.total.max_at),
		       (unsigned long long)jb.total.not_cr_d,
		       (unsigned long long)jb.total.not_cr_ld, "-", secs,
		       (unsigned long long)jb.total.undecided, c);
	}
	fflush(stdout);
	return jb.total.max_ulp;
}

/* ---- Special values ---- */

struct special32 {
	int fn;
	uint32_t in, out;
};

struct special64 {
	int fn;
	uint64_t in, out;
};

/* NaN results are written as 0x7fc00000 / 0x7ff8000000000000 and match any NaN. */
static const struct special32 sp32[] = {
	{ F_EXP2, 0x7fc00000u, 0x7fc00000u }, { F_EXP2, 0x7f800000u, 0x7f800000u },
	{ F_EXP2, 0xff800000u, 0x00000000u }, { F_EXP2, 0x00000000u, 0x3f800000u },
	{ F_EXP2, 0x80000000u, 0x3f800000u }, { F_EXP2, 0x43000000u, 0x7f800000u }, /* 128 */
	{ F_EXP2, 0x42fe0000u, 0x7f000000u }, /* 127 */ { F_EXP2, 0xc3160000u, 0x00000000u }, /* -150 */
	{ F_EXP2, 0xc3150000u, 0x00000001u }, /* -149 */ { F_EXP2, 0xc2fc0000u, 0x00800000u }, /* -126 */
	{ F_EXP2, 0xc3160001u, 0x00000000u }, { F_EXP2, 0xc315ffffu, 0x00000001u },
	{ F_EXP2, 0x3f800000u, 0x40000000u }, { F_EXP2, 0xbf800000u, 0x3f000000u },
	{ F_EXP2, 0x7f7fffffu, 0x7f800000u }, { F_EXP2, 0xff7fffffu, 0x00000000u },
	{ F_LOG2, 0x7fc00000u, 0x7fc00000u }, { F_LOG2, 0x7f800000u, 0x7f800000u },
	{ F_LOG2, 0xff800000u, 0x7fc00000u }, { F_LOG2, 0x00000000u, 0xff800000u },
	{ F_LOG2, 0x80000000u, 0xff800000u }, { F_LOG2, 0xbf800000u, 0x7fc00000u },
	{ F_LOG2, 0x80000001u, 0x7fc00000u }, { F_LOG2, 0x3f800000u, 0x00000000u },
	{ F_LOG2, 0x40000000u, 0x3f800000u }, { F_LOG2, 0x3f000000u, 0xbf800000u },
	{ F_LOG2, 0x00000001u, 0xc3150000u }, /* 2^-149 -> -149 */ { F_LOG2, 0x7f000000u, 0x42fe0000u },
	{ F_LOG2, 0x00400000u, 0xc2fe0000u }, /* 2^-127 -> -127 */
	{ F_SIN, 0x7fc00000u, 0x7fc00000u }, { F_SIN, 0x7f800000u, 0x7fc00000u },
	{ F_SIN, 0xff800000u, 0x7fc00000u }, { F_SIN, 0x00000000u, 0x00000000u },
	{ F_SIN, 0x80000000u, 0x80000000u }, { F_SIN, 0x00000001u, 0x00000001u },
	{ F_SIN, 0x80000001u, 0x80000001u },
	{ F_COS, 0x7fc00000u, 0x7fc00000u }, { F_COS, 0x7f800000u, 0x7fc00000u },
	{ F_COS, 0xff800000u, 0x7fc00000u }, { F_COS, 0x00000000u, 0x3f800000u },
	{ F_COS, 0x80000000u, 0x3f800000u }, { F_COS, 0x00000001u, 0x3f800000u },
};

static const struct special64 sp64[] = {
	{ F_EXP2, 0x7ff8000000000000u, 0x7ff8000000000000u },
	{ F_EXP2, 0x7ff0000000000000u, 0x7ff0000000000000u },
	{ F_EXP2, 0xfff0000000000000u, 0x0000000000000000u },
	{ F_EXP2, 0x0000000000000000u, 0x3ff0000000000000u },
	{ F_EXP2, 0x8000000000000000u, 0x3ff0000000000000u },
	{ F_EXP2, 0x4090000000000000u, 0x7ff0000000000000u }, /* 1024 */
	{ F_EXP2, 0x408ff80000000000u, 0x7fe0000000000000u }, /* 1023 */
	{ F_EXP2, 0xc090cc0000000000u, 0x0000000000000000u }, /* -1075 */
	{ F_EXP2, 0xc090c80000000000u, 0x0000000000000001u }, /* -1074 */
	{ F_EXP2, 0xc08ff00000000000u, 0x0010000000000000u }, /* -1022 */
	{ F_EXP2, 0xc090cc0000000001u, 0x0000000000000000u },
	{ F_EXP2, 0xc090cbffffffffffu, 0x0000000000000001u },
	{ F_EXP2, 0xc08ff80000000000u, 0x0008000000000000u }, /* -1023 */
	{ F_EXP2, 0x7fefffffffffffffu, 0x7ff0000000000000u },
	{ F_EXP2, 0xffefffffffffffffu, 0x0000000000000000u },
	{ F_EXP2, 0x3ff0000000000000u, 0x4000000000000000u },
	{ F_LOG2, 0x7ff8000000000000u, 0x7ff8000000000000u },
	{ F_LOG2, 0x7ff0000000000000u, 0x7ff0000000000000u },
	{ F_LOG2, 0xfff0000000000000u, 0x7ff8000000000000u },
	{ F_LOG2, 0x0000000000000000u, 0xfff0000000000000u },
	{ F_LOG2, 0x8000000000000000u, 0xfff0000000000000u },
	{ F_LOG2, 0xbff0000000000000u, 0x7ff8000000000000u },
	{ F_LOG2, 0x8000000000000001u, 0x7ff8000000000000u },
	{ F_LOG2, 0x3ff0000000000000u, 0x0000000000000000u },
	{ F_LOG2, 0x0000000000000001u, 0xc090c80000000000u }, /* 2^-1074 -> -1074 */
	{ F_LOG2, 0x7fe0000000000000u, 0x408ff80000000000u }, /* 2^1023 -> 1023 */
	{ F_LOG2, 0x0008000000000000u, 0xc08ff80000000000u }, /* 2^-1023 -> -1023 */
	{ F_SIN, 0x7ff8000000000000u, 0x7ff8000000000000u },
	{ F_SIN, 0x7ff0000000000000u, 0x7ff8000000000000u },
	{ F_SIN, 0xfff0000000000000u, 0x7ff8000000000000u },
	{ F_SIN, 0x0000000000000000u, 0x0000000000000000u },
	{ F_SIN, 0x8000000000000000u, 0x8000000000000000u },
	{ F_SIN, 0x0000000000000001u, 0x0000000000000001u },
	{ F_SIN, 0x8000000000000001u, 0x8000000000000001u },
	{ F_COS, 0x7ff8000000000000u, 0x7ff8000000000000u },
	{ F_COS, 0x7ff0000000000000u, 0x7ff8000000000000u },
	{ F_COS, 0xfff0000000000000u, 0x7ff8000000000000u },
	{ F_COS, 0x0000000000000000u, 0x3ff0000000000000u },
	{ F_COS, 0x8000000000000000u, 0x3ff0000000000000u },
};

/* Checks the special values of the selected functions; returns the number of failures. */
static int check_specials(const int *want, int f32, int f64)
{
	int fails = 0;
	for (size_t i = 0; f32 && i < sizeof sp32 / sizeof sp32[0]; i++) {
		const struct special32 *s = &sp32[i];
		float y;
		if (!want[s->fn])
			continue;
		y = our_f32(s->fn, f32_of(s->in));
		if (!same_f32(y, f32_of(s->out))) {
			printf("special FAIL: %s_f32(%a [0x%08x]) = %a [0x%08x], want %a\n",
			       func_names[s->fn], (double)f32_of(s->in), s->in, (double)y, f32_bits(y),
			       (double)f32_of(s->out));
			fails++;
		}
	}
	for (size_t i = 0; f64 && i < sizeof sp64 / sizeof sp64[0]; i++) {
		const struct special64 *s = &sp64[i];
		double y;
		if (!want[s->fn])
			continue;
		y = our_f64(s->fn, f64_of(s->in));
		if (!same_f64(y, f64_of(s->out))) {
			printf("special FAIL: %s_f64(%a) = %a, want %a\n", func_names[s->fn],
			       f64_of(s->in), y, f64_of(s->out));
			fails++;
		}
	}
	return fails;
}

/* ---- Speed ---- */

static volatile double sink;

/* CPU time of this thread, so that other jobs on the machine disturb the timing less. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ns per call (thread CPU time) of our functions and of glibc's, over 2^20 inputs in
 * [-100, 100] (exp2, sin, cos) or 2^-100 .. 2^100 (log2), 8 passes. */
static void speed(int fn)
{
	enum { N = 1 << 20, REP = 8 };
	static float xf[N];
	static double xd[N];
	uint64_t rng = 12345;
	double t0, t_ours32, t_libm32, t_ours64, t_libm64, acc = 0.0;
	for (int i = 0; i < N; i++) {
		double u = (double)(splitmix64(&rng) >> 11) * 0x1p-53;
		double x = fn == F_EXP2 ? -100.0 + 200.0 * u
			: fn == F_LOG2 ? ldexp(1.0 + u, (int)(splitmix64(&rng) % 200) - 100)
			: -100.0 + 200.0 * u;
		xd[i] = x;
		xf[i] = (float)x;
	}
	t0 = cpu_s();
	for (int r = 0; r < REP; r++)
		for (int i = 0; i < N; i++)
			acc += our_f32(fn, xf[i]);
	t_ours32 = cpu_s() - t0;
	t0 = cpu_s();
	for (int r = 0; r < REP; r++)
		for (int i = 0; i < N; i++)
			acc += fn == F_EXP2 ? exp2f(xf[i]) : fn == F_LOG2 ? log2f(xf[i])
				: fn == F_SIN ? sinf(xf[i]) : cosf(xf[i]);
	t_libm32 = cpu_s() - t0;
	t0 = cpu_s();
	for (int r = 0; r < REP; r++)
		for (int i = 0; i < N; i++)
			acc += our_f64(fn, xd[i]);
	t_ours64 = cpu_s() - t0;
	t0 = cpu_s();
	for (int r = 0; r < REP; r++)
		for (int i = 0; i < N; i++)
			acc += ref_d(fn, xd[i]);
	t_libm64 = cpu_s() - t0;
	sink = acc;
	printf("%-5s  f32 %6.1f ns (glibc %5.1f)   f64 %6.1f ns (glibc %5.1f)\n", func_names[fn],
	       t_ours32 * 1e9 / (N * (double)REP), t_libm32 * 1e9 / (N * (double)REP),
	       t_ours64 * 1e9 / (N * (double)REP), t_libm64 * 1e9 / (N * (double)REP));
}

static void usage(void)
{
	fprintf(stderr, "usage: math_accuracy [-f exp2,log2,sin,cos] [-t f32|f64|both] [-r LO:HI]"
			" [-k STRIDE] [-n N] [-Q] [-j THREADS] [-s SEED] [--speed]\n");
	exit(64);
}

int main(int argc, char **argv)
{
	int want[NFUNC] = { 1, 1, 1, 1 };
	int do32 = 1, do64 = 1, do_speed = 0, quad = 0, fails, bad = 0;
	uint64_t lo = 0, hi = 0xffffffffu, stride = 1, n64 = 10000000u, seed = 0x5eed;
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--speed")) {
			do_speed = 1;
			continue;
		}
		if (!strcmp(a, "-Q")) {
#ifndef USE_QUADMATH
			fprintf(stderr, "math_accuracy: -Q needs a build with -DUSE_QUADMATH\n");
			return 64;
#endif
			quad = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(a, "-f")) {
			char buf[256], *tok, *save = NULL;
			snprintf(buf, sizeof buf, "%s", argv[++i]);
			memset(want, 0, sizeof want);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int k;
				for (k = 0; k < NFUNC && strcmp(tok, func_names[k]); k++)
					;
				if (k == NFUNC)
					usage();
				want[k] = 1;
			}
		} else if (!strcmp(a, "-t")) {
			const char *t = argv[++i];
			do32 = !strcmp(t, "f32") || !strcmp(t, "both");
			do64 = !strcmp(t, "f64") || !strcmp(t, "both");
			if (!do32 && !do64)
				usage();
		} else if (!strcmp(a, "-r")) {
			char *end;
			lo = strtoull(argv[++i], &end, 16);
			if (*end != ':')
				usage();
			hi = strtoull(end + 1, &end, 16);
			if (*end || hi < lo || hi > 0xffffffffu)
				usage();
		} else if (!strcmp(a, "-k")) {
			stride = strtoull(argv[++i], NULL, 10);
			if (stride < 1)
				usage();
		} else if (!strcmp(a, "-n")) {
			n64 = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(a, "-j")) {
			threads = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(a, "-s")) {
			seed = strtoull(argv[++i], NULL, 0);
		} else {
			usage();
		}
	}
	if (threads < 1)
		threads = 1;
	if (threads > 256)
		threads = 256;
	if (do_speed) {
		for (int fn = 0; fn < NFUNC; fn++)
			if (want[fn])
				speed(fn);
		return 0;
	}
	fails = check_specials(want, do32, do64);
	printf("special values: %s\n", fails ? "FAILED" : "all match");
	printf("%-5s %-4s  %12s  %11s  %-24s  %11s  %11s  %11s  %10s\n", "func", "type", "inputs",
	       "max_ulp", "at_input", "vs_double", "vs_ldouble", "vs_quad", "time");
	fflush(stdout);
	for (int fn = 0; fn < NFUNC; fn++) {
		if (!want[fn])
			continue;
		if (do32 && measure(fn, 0, lo, stride, (hi - lo) / stride + 1, seed, (int)threads,
					0) > 1.0)
			bad = 1;
		if (do64 && measure(fn, 1, 0, 1, n64, seed, (int)threads, quad) > 1.0)
			bad = 1;
	}
	return bad || fails ? 1 : 0;
}
