/* uir_parallel.c - a small pthread pool for the iterations of `thread` and `global` loops
 * (see uir_parallel.h for the contract).
 *
 * One pool per process, started on the first call that needs more than one thread. The
 * caller is worker 0; workers 1 .. T-1 are threads that sleep on a condition variable
 * between loops (after a short spin, so back-to-back loops do not pay a wake-up each).
 * A worker starts on a CPU of its own, away from the caller's, and is free to move once
 * it has run its first loop: a new thread left to the scheduler is often placed on the
 * caller's CPU and moved off it only milliseconds later, so that a program of one short
 * loop ran on one core; bound for good, workers spinning on their CPUs slowed programs of
 * many short loops several times over in a virtual machine (docs/llvm.md, "Threads").
 * Where <sched.h> lacks CPU_SET (C without _GNU_SOURCE, as `uir render` writes
 * it), the scheduler places them.
 * Iterations are handed out in chunks from one atomic counter, so an uneven loop still
 * balances. The first fault in sequential order wins: the lowest failing chunk is kept
 * (it stopped at its first fault), chunks above it are skipped, and every chunk below it
 * still runs.
 */
#ifndef UIR_PARALLEL_H /* `uir render` pastes the header above this file */
#include "uir_parallel.h"
#endif
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* Spin this many rounds waiting for the next loop before sleeping. */
#define UIR_SPIN_ROUNDS 4000

typedef struct uir_pool {
	pthread_mutex_t mu;
	pthread_cond_t start_cv, done_cv;
	int requested;          /* uir_parallel_set_threads(): 0 = default */
	int nworkers;           /* workers of the running pool (1 = no threads) */
	int started_for;        /* the thread count it was started for (0: none) */
	pthread_t *threads;
#ifdef CPU_SET
	bool placed;            /* the workers started on CPUs of their own; cpus is the process's set */
	cpu_set_t cpus;
#endif
	uint64_t generation;    /* (atomic) bumped for each loop and for stop */
	uint64_t start_generation; /* its value when the threads were started */
	int active;             /* helper threads still inside the current loop */
	bool stop;
	/* the current loop */
	uir_chunk_fn chunk_body; /* runs a chunk */
	uir_body_fn body;        /* uir_parallel_for(): what uir_run_iterations() calls */
	void *ctx;
	int32_t n, chunk;
	int64_t next;            /* (atomic) the next iteration to hand out */
	int64_t fail_lo;         /* (atomic) the first iteration of the lowest failed chunk, n when none */
	uint64_t fail_code;      /* its code (under mu) */
} uir_pool;

static uir_pool uir_the_pool = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.start_cv = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
};

/* An integer 1 to UIR_PARALLEL_MAX from S, else 0. */
static int uir_parse_count(const char *s)
{
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 1 || v > UIR_PARALLEL_MAX ? 0 : (int)v;
}

/* The default thread count: UIR_THREADS, else the cores this process may use. */
static int uir_default_threads(void)
{
	int n = uir_parse_count(getenv("UIR_THREADS"));
	if (n)
		return n;
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set) > UIR_PARALLEL_MAX ? UIR_PARALLEL_MAX : CPU_COUNT(&set);
#endif
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c < 1 ? 1 : c > UIR_PARALLEL_MAX ? UIR_PARALLEL_MAX : (int)c;
}

static int uir_wanted_threads(void)
{
	return uir_the_pool.requested > 0 ? uir_the_pool.requested : uir_default_threads();
}

/* One round of a spin-wait: a hint to the CPU that this thread waits. */
static inline void uir_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Runs chunks of the current loop on worker W until none is left, or until one of its
 * chunks faulted. */
static void uir_run_share(int32_t w)
{
	uir_pool *p = &uir_the_pool;
	int64_t n = p->n, chunk = p->chunk;
	for (;;) {
		int64_t s = __atomic_fetch_add(&p->next, chunk, __ATOMIC_SEQ_CST);
		if (s >= n || s > __atomic_load_n(&p->fail_lo, __ATOMIC_SEQ_CST))
			return;
		int64_t e = s + chunk < n ? s + chunk : n;
		uint64_t code = p->chunk_body(p->ctx, (int32_t)s, (int32_t)e, w);
		if (code) {
			pthread_mutex_lock(&p->mu);
			if (s < __atomic_load_n(&p->fail_lo, __ATOMIC_SEQ_CST)) {
				__atomic_store_n(&p->fail_lo, s, __ATOMIC_SEQ_CST);
				p->fail_code = code;
			}
			pthread_mutex_unlock(&p->mu);
			return;
		}
	}
}

static void *uir_worker_main(void *arg)
{
	uir_pool *p = &uir_the_pool;
	int32_t w = (int32_t)(intptr_t)arg;
	uint64_t seen = p->start_generation; /* not the current one: a loop may have begun */
#ifdef CPU_SET
	bool first = true;
#endif
	for (;;) {
		/* wait for a new generation: spin a little, then sleep */
		int spins = 0;
		while (__atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) == seen && spins < UIR_SPIN_ROUNDS) {
			spins++;
			uir_spin_pause();
		}
		pthread_mutex_lock(&p->mu);
		while (__atomic_load_n(&p->generation, __ATOMIC_SEQ_CST) == seen && !p->stop)
			pthread_cond_wait(&p->start_cv, &p->mu);
		seen = __atomic_load_n(&p->generation, __ATOMIC_SEQ_CST);
		bool stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return NULL;
		uir_run_share(w);
#ifdef CPU_SET
		if (first && p->placed) /* free to move from now on (see the top) */
			pthread_setaffinity_np(pthread_self(), sizeof p->cpus, &p->cpus);
		first = false;
#endif
		pthread_mutex_lock(&p->mu);
		if (__atomic_sub_fetch(&p->active, 1, __ATOMIC_RELEASE) == 0)
			pthread_cond_signal(&p->done_cv);
		pthread_mutex_unlock(&p->mu);
	}
}

UIR_PARALLEL_API void uir_parallel_shutdown(void)
{
	uir_pool *p = &uir_the_pool;
	if (p->nworkers <= 1) {
		p->nworkers = 0;
		p->started_for = 0;
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	__atomic_fetch_add(&p->generation, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&p->start_cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 1; i < p->nworkers; i++)
		pthread_join(p->threads[i - 1], NULL);
	free(p->threads);
	p->threads = NULL;
	p->nworkers = 0;
	p->started_for = 0;
	p->stop = false;
}

/* Starts the pool with T workers (T - 1 threads). On failure to start a thread the pool
 * keeps the threads it got. */
static void uir_start_pool(int t)
{
	uir_pool *p = &uir_the_pool;
	p->threads = calloc((size_t)t, sizeof *p->threads);
	p->nworkers = 1;
	p->started_for = t;
	p->start_generation = __atomic_load_n(&p->generation, __ATOMIC_SEQ_CST);
	if (!p->threads || t <= 1)
		return;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)8 << 20);
#ifdef CPU_SET
	/* worker i starts on the i-th CPU after the caller's, when there are CPUs enough */
	int cpu = sched_getcpu();
	p->placed = sched_getaffinity(0, sizeof p->cpus, &p->cpus) == 0 && CPU_COUNT(&p->cpus) >= t && cpu >= 0 &&
		    cpu < CPU_SETSIZE && CPU_ISSET(cpu, &p->cpus);
#endif
	for (int i = 1; i < t; i++) {
#ifdef CPU_SET
		if (p->placed) {
			cpu_set_t one;
			do
				cpu = (cpu + 1) % CPU_SETSIZE;
			while (!CPU_ISSET(cpu, &p->cpus));
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			pthread_attr_setaffinity_np(&attr, sizeof one, &one);
		}
#endif
		if (pthread_create(&p->threads[i - 1], &attr, uir_worker_main, (void *)(intptr_t)i) != 0)
			break;
		p->nworkers++;
	}
	pthread_attr_destroy(&attr);
}

UIR_PARALLEL_API void uir_parallel_set_threads(int n)
{
	uir_the_pool.requested = n > 0 ? (n > UIR_PARALLEL_MAX ? UIR_PARALLEL_MAX : n) : 0;
}

UIR_PARALLEL_API int32_t uir_parallel_workers(void)
{
	int t = uir_wanted_threads();
	return uir_the_pool.started_for == t ? uir_the_pool.nworkers : t;
}

UIR_PARALLEL_API uint64_t uir_parallel_for_chunks(int32_t n, uir_chunk_fn body, void *ctx)
{
	uir_pool *p = &uir_the_pool;
	if (n <= 0)
		return 0;
	int t = uir_wanted_threads();
	if (t != p->started_for) {
		uir_parallel_shutdown();
		if (t > 1) {
			uir_start_pool(t);
		} else {
			p->nworkers = 1;
			p->started_for = 1;
		}
	}
	p->chunk_body = body;
	p->ctx = ctx;
	__atomic_store_n(&p->fail_lo, n, __ATOMIC_SEQ_CST);
	if (p->nworkers <= 1 || n == 1)
		return body(ctx, 0, n, 0); /* every iteration on the calling thread */
	int64_t chunk = n / ((int64_t)p->nworkers * 8);
	p->n = n;
	p->chunk = chunk < 1 ? 1 : (int32_t)chunk;
	__atomic_store_n(&p->next, 0, __ATOMIC_SEQ_CST);
	p->fail_code = 0;
	pthread_mutex_lock(&p->mu);
	p->active = p->nworkers - 1;
	__atomic_fetch_add(&p->generation, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->start_cv);
	pthread_mutex_unlock(&p->mu);
	uir_run_share(0);
	/* spin a little before sleeping, as the workers do */
	for (int spins = 0; spins < UIR_SPIN_ROUNDS && __atomic_load_n(&p->active, __ATOMIC_ACQUIRE) > 0; spins++)
		uir_spin_pause();
	pthread_mutex_lock(&p->mu);
	while (p->active > 0)
		pthread_cond_wait(&p->done_cv, &p->mu);
	uint64_t code = p->fail_code;
	pthread_mutex_unlock(&p->mu);
	return code;
}

/* The chunk body of uir_parallel_for(): the iterations one by one, up to the first that
 * faults; those above a lower failed chunk are skipped. */
static uint64_t uir_run_iterations(void *ctx, int32_t lo, int32_t hi, int32_t w)
{
	uir_pool *p = &uir_the_pool;
	for (int32_t i = lo; i < hi; i++) {
		if (i > __atomic_load_n(&p->fail_lo, __ATOMIC_RELAXED))
			return 0;
		uint64_t code = p->body(ctx, i, w);
		if (code)
			return code;
	}
	return 0;
}

UIR_PARALLEL_API uint64_t uir_parallel_for(int32_t n, uir_body_fn body, void *ctx)
{
	uir_the_pool.body = body;
	return uir_parallel_for_chunks(n, uir_run_iterations, ctx);
}
