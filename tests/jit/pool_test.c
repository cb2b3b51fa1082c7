/* pool_test.c - unit test of the thread pool (runtime/uir_parallel.c): every iteration
 * runs exactly once for 1 to 8 threads and many loop sizes; a fault returns the code of
 * the smallest failing iteration and every iteration below it has run; the worker index
 * stays below uir_parallel_workers(). The same for uir_parallel_for_chunks() (the C of `uir
 * render`): chunks cover every iteration once, a fault returns the code of the lowest
 * failing chunk, and a worker whose chunk faulted takes no other. Prints how the iterations
 * of a long loop spread over the workers.
 *
 *   cc -std=c11 -O2 -pthread -Iruntime tests/jit/pool_test.c runtime/uir_parallel.c
 */
#include "uir_parallel.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXN = 100000, MAXW = 64 };

typedef struct Ctx {
	atomic_int runs[MAXN];
	atomic_int per_worker[MAXW];
	int32_t fail_from;   /* iterations >= this ... */
	int32_t fail_every;  /* ... and divisible by this fail */
	atomic_int bad_worker;
	int spin;            /* busy work per iteration */
} Ctx;

static Ctx ctx;

static uint64_t body(void *vc, int32_t i, int32_t w)
{
	Ctx *c = vc;
	atomic_fetch_add(&c->runs[i], 1);
	if (w < 0 || w >= uir_parallel_workers() || w >= MAXW)
		atomic_store(&c->bad_worker, 1);
	else
		atomic_fetch_add(&c->per_worker[w], 1);
	volatile double x = 0;
	for (int k = 0; k < c->spin; k++)
		x += k;
	if (c->fail_every && i >= c->fail_from && i % c->fail_every == 0)
		return ((uint64_t)7 << 32) | (uint32_t)i;
	return 0;
}

/* The chunk body: iterations LO .. HI-1 as body() runs them, up to the first failure. */
static atomic_int chunk_faults[MAXW];

static uint64_t chunk_body(void *vc, int32_t lo, int32_t hi, int32_t w)
{
	for (int32_t i = lo; i < hi; i++) {
		uint64_t code = body(vc, i, w);
		if (code) {
			if (w >= 0 && w < MAXW && atomic_fetch_add(&chunk_faults[w], 1) > 0)
				atomic_store(&((Ctx *)vc)->bad_worker, 1); /* a second fault on one worker */
			return code;
		}
	}
	return 0;
}

static int failures;

static void check(int cond, const char *what, int t, int n)
{
	if (!cond) {
		printf("FAIL: %s (threads %d, n %d)\n", what, t, n);
		failures++;
	}
}

static void reset(void)
{
	for (int i = 0; i < MAXN; i++)
		atomic_store(&ctx.runs[i], 0);
	for (int i = 0; i < MAXW; i++)
		atomic_store(&ctx.per_worker[i], 0);
	atomic_store(&ctx.bad_worker, 0);
	for (int i = 0; i < MAXW; i++)
		atomic_store(&chunk_faults[i], 0);
}

int main(void)
{
	static const int sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 99999 };
	for (int t = 1; t <= 8; t++) {
		uir_parallel_set_threads(t);
		check(uir_parallel_workers() == t, "uir_parallel_workers", t, 0);
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			int n = sizes[s];
			reset();
			ctx.fail_every = 0;
			ctx.spin = 0;
			check(uir_parallel_for(n, body, &ctx) == 0, "no fault", t, n);
			for (int i = 0; i < n; i++)
				if (atomic_load(&ctx.runs[i]) != 1) {
					check(0, "every iteration exactly once", t, n);
					break;
				}
			check(!atomic_load(&ctx.bad_worker), "worker index in range", t, n);
			/* faults at 500, 1000, 1500, ...: the code of 500, and 0 .. 499 all ran */
			if (n >= 1000) {
				reset();
				ctx.fail_from = 500;
				ctx.fail_every = 500;
				uint64_t code = uir_parallel_for(n, body, &ctx);
				check(code == (((uint64_t)7 << 32) | 500u), "the smallest failing iteration", t, n);
				for (int i = 0; i <= 500; i++)
					if (atomic_load(&ctx.runs[i]) != 1) {
						check(0, "every iteration up to the fault ran once", t, n);
						break;
					}
			}
		}
	}
	/* the same through chunks */
	for (int t = 1; t <= 8; t++) {
		uir_parallel_set_threads(t);
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			int n = sizes[s];
			reset();
			ctx.fail_every = 0;
			ctx.spin = 0;
			check(uir_parallel_for_chunks(n, chunk_body, &ctx) == 0, "chunks: no fault", t, n);
			for (int i = 0; i < n; i++)
				if (atomic_load(&ctx.runs[i]) != 1) {
					check(0, "chunks: every iteration exactly once", t, n);
					break;
				}
			check(!atomic_load(&ctx.bad_worker), "chunks: worker index in range", t, n);
			if (n >= 1000) {
				reset();
				ctx.fail_from = 500;
				ctx.fail_every = 500;
				uint64_t code = uir_parallel_for_chunks(n, chunk_body, &ctx);
				check(code == (((uint64_t)7 << 32) | 500u), "chunks: the first failing iteration", t, n);
				for (int i = 0; i <= 500; i++)
					if (atomic_load(&ctx.runs[i]) != 1) {
						check(0, "chunks: every iteration up to the fault ran once", t, n);
						break;
					}
				check(!atomic_load(&ctx.bad_worker), "chunks: one fault per worker at most", t, n);
			}
		}
	}
	/* how a long loop spreads over two workers */
	uir_parallel_set_threads(2);
	reset();
	ctx.fail_every = 0;
	ctx.spin = 200000;
	uir_parallel_for(64, body, &ctx);
	printf("64 iterations on 2 workers: %d + %d\n", atomic_load(&ctx.per_worker[0]), atomic_load(&ctx.per_worker[1]));
	uir_parallel_shutdown();
	printf("%s\n", failures ? "pool_test: FAILED" : "pool_test: ok");
	return failures != 0;
}
