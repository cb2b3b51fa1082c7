/* harness.h - the timing harness of the hand-written C kernels that bench/jit_bench.sh
 * compares with `uir run --engine jit` (bench/README.md, section JIT).
 *
 * A kernel file defines `static void setup(void)` (allocates and fills its buffers, so
 * every page is touched before timing, as `uir run` does when it applies INIT) and
 * `static void kernel(...)` called by `static void run(void)`, then BENCH_MAIN. The
 * program runs setup + run RUNS times (argv[1], default 5) and prints the median time of
 * run() in ms (CPU time when the environment has BENCH_CPU, wall-clock time otherwise). Compile with -O3 -march=native -ffp-contract=off (no fast-math), as the
 * JIT keeps every float op as written.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* With UIR_AOT the kernel comes from another object: `uir compile NAME.uir` (returns int,
 * 0 or a fault), or with UIR_RENDERED too, the C of `uir render NAME.uir` (returns void). */
#ifdef UIR_RENDERED
#define UIR_AOT 1
#define UIR_KERNEL_RESULT void
#else
#define UIR_KERNEL_RESULT int
#endif

/* Wall-clock ms, or the process's CPU ms when BENCH_CPU is set (a busy machine). */
static double bench_now_ms(void)
{
	struct timespec t;
	clock_gettime(getenv("BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* N floats in [-1, 1) from SEED (64-byte aligned, every page written). */
static inline float *bench_floats(size_t n, uint64_t seed)
{
	float *p = aligned_alloc(64, (n * sizeof *p + 63) / 64 * 64);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	uint64_t x = seed * 0x9E3779B97F4A7C15u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (float)((double)(x >> 40) * 0x1p-23 - 1.0);
	}
	return p;
}

static inline float *bench_zeros(size_t n)
{
	float *p = bench_floats(n, 1);
	memset(p, 0, n * sizeof *p);
	return p;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define BENCH_MAIN(NAME) \
	int main(int argc, char **argv) \
	{ \
		int runs = argc > 1 ? atoi(argv[1]) : 5; \
		if (runs < 1 || runs > 1000) \
			runs = 5; \
		double t[1000]; \
		for (int r = 0; r < runs; r++) { \
			setup(); \
			double t0 = bench_now_ms(); \
			run(); \
			t[r] = bench_now_ms() - t0; \
			release(); \
		} \
		qsort(t, (size_t)runs, sizeof t[0], bench_cmp); \
		printf("%s %.3f\n", NAME, t[runs / 2]); \
		return 0; \
	}

#endif
