/* histogram_priv.c - a second C twin of histogram.uir, privatised: each of T pthreads
 * (UIR_THREADS, else the number of cores, as `uir run`) counts a contiguous slice of the
 * 16M values into its own 256 bins, then the main thread adds the T copies. Integer
 * counts, so the result is exact whatever T. Build with -pthread. */
#include "twin.h"
#include <pthread.h>
#include <unistd.h>

enum { N = 16777216, BINS = 256, MAX_THREADS = 64 };

struct slice {
	const int32_t *x;
	int lo, hi;
	int32_t h[BINS];
};

static void *count(void *arg)
{
	struct slice *s = arg;
	for (int e = s->lo; e < s->hi; e++)
		s->h[s->x[e]] = s->h[s->x[e]] + 1;
	return NULL;
}

__attribute__((noinline)) static void kernel(const int32_t *restrict x, int32_t *restrict h, int nt)
{
	static struct slice s[MAX_THREADS];
	pthread_t id[MAX_THREADS];
	for (int t = 0; t < nt; t++) {
		s[t] = (struct slice){ x, (int)((int64_t)N * t / nt), (int)((int64_t)N * (t + 1) / nt), { 0 } };
		if (t > 0 && pthread_create(&id[t], NULL, count, &s[t]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	}
	count(&s[0]);
	for (int t = 1; t < nt; t++)
		pthread_join(id[t], NULL);
	for (int t = 0; t < nt; t++)
		for (int b = 0; b < BINS; b++)
			h[b] = h[b] + s[t].h[b];
}

int main(void)
{
	const char *env = getenv("UIR_THREADS");
	int nt = env ? atoi(env) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nt < 1)
		nt = 1;
	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	int32_t *x = twin_alloc(N, sizeof *x), *h = twin_alloc(BINS, sizeof *h);
	for (size_t i = 0; i < N; i++)
		x[i] = (int32_t)uir_random_int(7, i, 0, 256);
	TWIN_TIME(kernel(x, h, nt));
	twin_print_i32("h", h, BINS);
	return 0;
}
