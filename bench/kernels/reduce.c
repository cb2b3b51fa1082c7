/* reduce.c - sum of 16M f32 in 16 lanes, then the lanes in order: the C twin of
 * reduce.uir (the same additions in the same order). */
#include "harness.h"

enum { N = 16777216, L = 16 };
static float *x, sum;

static void setup(void) { x = bench_floats(N, 1); sum = 0; }
static void release(void)
{
	free(x);
	if (sum != sum)
		printf("nan\n"); /* keeps the sum alive */
}

#ifdef UIR_AOT
/* the kernel of `uir compile reduce.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render reduce.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *x, float *sum);

static void run(void) { kernel(x, &sum); }
#else
__attribute__((noinline)) static float kernel(const float *restrict in)
{
	float acc[L] = { 0 };
	for (int i = 0; i < N / L; i++)
		for (int l = 0; l < L; l++)
			acc[l] = acc[l] + in[i * L + l];
	float s = 0;
	for (int l = 0; l < L; l++)
		s = s + acc[l];
	return s;
}

static void run(void) { sum = kernel(x); }
#endif

BENCH_MAIN("reduce")
