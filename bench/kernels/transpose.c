/* transpose.c - 4096 x 4096 f32 transpose in 32 x 32 tiles: the C twin of transpose.uir. */
#include "harness.h"

enum { N = 4096, T = 32 };
static float *a, *b;

static void setup(void) { a = bench_floats((size_t)N * N, 1); b = bench_zeros((size_t)N * N); }
static void release(void) { free(a); free(b); }

#ifdef UIR_AOT
/* the kernel of `uir compile transpose.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render transpose.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *a, float *b);

static void run(void) { kernel(a, b); }
#else
__attribute__((noinline)) static void kernel(const float *restrict in, float *restrict out)
{
	for (int ib = 0; ib < N / T; ib++)
		for (int jb = 0; jb < N / T; jb++)
			for (int i = 0; i < T; i++)
				for (int j = 0; j < T; j++) {
					int r = ib * T + i, c = jb * T + j;
					out[c * N + r] = in[r * N + c];
				}
}

static void run(void) { kernel(a, b); }
#endif

BENCH_MAIN("transpose")
