/* stencil.c - 2-D 5-point stencil on 4096 x 4096 f32: the C twin of stencil.uir. */
#include "harness.h"

enum { N = 4096 };
static float *a, *b;

static void setup(void) { a = bench_floats((size_t)N * N, 1); b = bench_zeros((size_t)N * N); }
static void release(void) { free(a); free(b); }

#ifdef UIR_AOT
/* the kernel of `uir compile stencil.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render stencil.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *a, float *b);

static void run(void) { kernel(a, b); }
#else
__attribute__((noinline)) static void kernel(const float *restrict in, float *restrict out)
{
	for (int i = 0; i < N - 2; i++)
		for (int j = 0; j < N - 2; j++) {
			int c = (i + 1) * N + (j + 1);
			out[c] = 0.2f * (((in[c] + in[c - 1]) + (in[c + 1] + in[c - N])) + in[c + N]);
		}
}

static void run(void) { kernel(a, b); }
#endif

BENCH_MAIN("stencil")
