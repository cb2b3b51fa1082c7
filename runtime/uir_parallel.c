/* uir_parallel.c - a small pthread pool for the iterations of `thread` and `global` loops
 * (see uir_parallel.h for the contract).
 *
 * One pool per process, started on the first call that needs more than one thread. The
 * caller is worker 0; workers 1 .. T-1 are threads that sleep on a condition variable
 * between loops (after a short spin, so back-to-back loops do not pay a wake-up each).
 * Iterations are handed out in chunks from one atomic counter, so an uneven loop still
 * balances. The first fault in sequential order wins: the smallest failing iteration is
 * kept, iterations above it are skipped, and every iteration below it still runs.
 */
#include "uir_parallel.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Spin this many rounds waiting for the next loop before sleeping. */
#define SPIN_ROUNDS 4000

typedef struct Pool {
	pthread_mutex_t mu;
	pthread_cond_t start_cv, done_cv;
	int requested;          /* uir_parallel_set_threads(): 0 = default */
	int nworkers;           /* workers of the running pool (1 = no threads) */
	int started_for;        /* the thread count it was started for (0: none) */
	pthread_t *threads;
	atomic_uint_fast64_t generation; /* bumped for each loop and for stop */
	uint_fast64_t start_generation;  /* its value when the threads were started */
	int active;             /* helper threads still inside the current loop */
	bool stop;
	/* the current loop */
	uir_body_fn body;
	void *ctx;
	int32_t n, chunk;
	atomic_int_fast64_t next;   /* next iteration to hand out */
	atomic_int_fast64_t fail_i; /* smallest failed iteration, n when none */
	uint64_t fail_code;         /* its code (under mu) */
} Pool;

static Pool pool = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.start_cv = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
};

/* An integer 1 to 1024 from S, else 0. */
static int parse_count(const char *s)
{
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 1 || v > 1024 ? 0 : (int)v;
}

/* The default thread count: UIR_THREADS, else the cores this process may use. */
static int default_threads(void)
{
	int n = parse_count(getenv("UIR_THREADS"));
	if (n)
		return n;
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set) > 1024 ? 1024 : CPU_COUNT(&set);
#endif
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c < 1 ? 1 : c > 1024 ? 1024 : (int)c;
}

static int wanted_threads(void)
{
	return pool.requested > 0 ? pool.requested : default_threads();
}

/* Runs chunks of the current loop on worker W until none is left. */
static void run_share(int32_t w)
{
	int64_t n = pool.n, chunk = pool.chunk;
	for (;;) {
		int64_t s = atomic_fetch_add(&pool.next, chunk);
		if (s >= n || s > atomic_load(&pool.fail_i))
			return;
		int64_t e = s + chunk < n ? s + chunk : n;
		for (int64_t i = s; i < e; i++) {
			if (i > atomic_load_explicit(&pool.fail_i, memory_order_relaxed))
				break;
			uint64_t code = pool.body(pool.ctx, (int32_t)i, w);
			if (code) {
				pthread_mutex_lock(&pool.mu);
				if (i < atomic_load(&pool.fail_i)) {
					atomic_store(&pool.fail_i, i);
					pool.fail_code = code;
				}
				pthread_mutex_unlock(&pool.mu);
				break;
			}
		}
	}
}

static void *worker_main(void *arg)
{
	int32_t w = (int32_t)(intptr_t)arg;
	uint_fast64_t seen = pool.start_generation; /* not the current one: a loop may have begun */
	for (;;) {
		/* wait for a new generation: spin a little, then sleep */
		int spins = 0;
		while (atomic_load_explicit(&pool.generation, memory_order_acquire) == seen && spins < SPIN_ROUNDS) {
			spins++;
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
		pthread_mutex_lock(&pool.mu);
		while (atomic_load(&pool.generation) == seen && !pool.stop)
			pthread_cond_wait(&pool.start_cv, &pool.mu);
		seen = atomic_load(&pool.generation);
		bool stop = pool.stop;
		pthread_mutex_unlock(&pool.mu);
		if (stop)
			return NULL;
		run_share(w);
		pthread_mutex_lock(&pool.mu);
		if (--pool.active == 0)
			pthread_cond_signal(&pool.done_cv);
		pthread_mutex_unlock(&pool.mu);
	}
}

void uir_parallel_shutdown(void)
{
	if (pool.nworkers <= 1) {
		pool.nworkers = 0;
		pool.started_for = 0;
		return;
	}
	pthread_mutex_lock(&pool.mu);
	pool.stop = true;
	atomic_fetch_add(&pool.generation, 1);
	pthread_cond_broadcast(&pool.start_cv);
	pthread_mutex_unlock(&pool.mu);
	for (int i = 1; i < pool.nworkers; i++)
		pthread_join(pool.threads[i - 1], NULL);
	free(pool.threads);
	pool.threads = NULL;
	pool.nworkers = 0;
	pool.started_for = 0;
	pool.stop = false;
}

/* Starts the pool with T workers (T - 1 threads). On failure to start a thread the pool
 * keeps the threads it got. */
static void start_pool(int t)
{
	pool.threads = calloc((size_t)t, sizeof *pool.threads);
	pool.nworkers = 1;
	pool.started_for = t;
	pool.start_generation = atomic_load(&pool.generation);
	if (!pool.threads || t <= 1)
		return;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)8 << 20);
	for (int i = 1; i < t; i++) {
		if (pthread_create(&pool.threads[i - 1], &attr, worker_main, (void *)(intptr_t)i) != 0)
			break;
		pool.nworkers++;
	}
	pthread_attr_destroy(&attr);
}

void uir_parallel_set_threads(int n)
{
	pool.requested = n > 0 ? (n > 1024 ? 1024 : n) : 0;
}

int32_t uir_parallel_workers(void)
{
	int t = wanted_threads();
	return pool.started_for == t ? pool.nworkers : t;
}

/* Runs every iteration on the calling thread. */
static uint64_t run_alone(int32_t n, uir_body_fn body, void *ctx)
{
	for (int32_t i = 0; i < n; i++) {
		uint64_t code = body(ctx, i, 0);
		if (code)
			return code;
	}
	return 0;
}

uint64_t uir_parallel_for(int32_t n, uir_body_fn body, void *ctx)
{
	if (n <= 0)
		return 0;
	int t = wanted_threads();
	if (t != pool.started_for) {
		uir_parallel_shutdown();
		if (t > 1) {
			start_pool(t);
		} else {
			pool.nworkers = 1;
			pool.started_for = 1;
		}
	}
	if (pool.nworkers <= 1 || n == 1)
		return run_alone(n, body, ctx);
	int64_t chunk = n / ((int64_t)pool.nworkers * 8);
	pool.body = body;
	pool.ctx = ctx;
	pool.n = n;
	pool.chunk = chunk < 1 ? 1 : (int32_t)chunk;
	atomic_store(&pool.next, 0);
	atomic_store(&pool.fail_i, n);
	pool.fail_code = 0;
	pthread_mutex_lock(&pool.mu);
	pool.active = pool.nworkers - 1;
	atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
	pthread_cond_broadcast(&pool.start_cv);
	pthread_mutex_unlock(&pool.mu);
	run_share(0);
	pthread_mutex_lock(&pool.mu);
	while (pool.active > 0)
		pthread_cond_wait(&pool.done_cv, &pool.mu);
	uint64_t code = pool.fail_code;
	pthread_mutex_unlock(&pool.mu);
	return code;
}
