/* twin.h - what the C twins of the programs of bench/naive/ share (bench/naive.sh).
 *
 * A twin makes its buffers exactly as `uir run` does (runtime/uir_init.h: `random SEED` of
 * an f32 buffer is uir_random_f32(SEED, i, -1, 1)), runs the same float operations in the
 * same order, and prints its output buffer's hash the way `uir run --hash --only NAME`
 * does, "NAME: 16 hex digits" (runtime/uir_print.h), so the script can compare the bits.
 * It times the kernel alone and prints "kernel X ms" on standard error: wall-clock time,
 * or the process's CPU time when the environment has BENCH_CPU.
 * Compile with -O3 -march=native -ffp-contract=off (no fast-math).
 */
#ifndef NAIVE_TWIN_H
#define NAIVE_TWIN_H

#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/uir_init.h"
#include "../../runtime/uir_print.h"

static inline double twin_now_ms(void)
{
	struct timespec t;
	clock_gettime(getenv("BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* N zero bytes' worth of elements, 64-byte aligned, every page written (as uir's). */
static inline void *twin_alloc(size_t n, size_t size)
{
	size_t bytes = (n * size + 63) / 64 * 64;
	void *p = aligned_alloc(64, bytes);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(p, 0, bytes);
	return p;
}

/* An f32 buffer `= random SEED` (values in [-1, 1)). */
static inline float *twin_random_f32(size_t n, uint32_t seed)
{
	float *p = twin_alloc(n, sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = uir_random_f32(seed, i, -1.0, 1.0);
	return p;
}

static inline float *twin_zeros_f32(size_t n) { return twin_alloc(n, sizeof(float)); }

/* Times CALL (the kernel) and prints its time on standard error. */
#define TWIN_TIME(CALL) \
	do { \
		double twin_t0 = twin_now_ms(); \
		CALL; \
		fprintf(stderr, "kernel %.3f ms\n", twin_now_ms() - twin_t0); \
	} while (0)

static inline void twin_print_f32(const char *name, const float *p, size_t n)
{
	printf("%s: %016llx\n", name, (unsigned long long)uir_hash_f32(p, (int64_t)n));
}

static inline void twin_print_i32(const char *name, const int32_t *p, size_t n)
{
	printf("%s: %016llx\n", name, (unsigned long long)uir_hash_bytes(p, (int64_t)n, 4));
}

#endif
