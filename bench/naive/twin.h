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

#define _DEFAULT_SOURCE /* madvise */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "../../runtime/uir_init.h"
#include "../../runtime/uir_print.h"

static inline double twin_now_ms(void)
{
	struct timespec t;
	clock_gettime(getenv("BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* N zero elements of SIZE bytes, 64-byte aligned, made as `uir run` makes its buffers
 * (src/cli/buffers.c): calloc's lazily zeroed pages, and transparent huge pages asked for
 * from 4 MiB, so that a kernel writing a zero buffer pays the same first-touch page faults
 * in the twin as in uir. The pointer is never freed. */
static inline void *twin_alloc(size_t n, size_t size)
{
	size_t bytes = n * size;
	char *raw = calloc(1, bytes + 64);
	if (!raw) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
#ifdef MADV_HUGEPAGE
	if (bytes >= ((size_t)4 << 20)) {
		uintptr_t lo = ((uintptr_t)raw + ((size_t)2 << 20) - 1) & ~(uintptr_t)(((size_t)2 << 20) - 1);
		uintptr_t hi = ((uintptr_t)raw + bytes + 64) & ~(uintptr_t)(((size_t)2 << 20) - 1);
		if (hi > lo)
			(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	}
#endif
	return (void *)(((uintptr_t)raw + 64) & ~(uintptr_t)63);
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
