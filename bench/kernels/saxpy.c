/* saxpy.c - y = 2.5 x + y over 16M f32: the C twin of saxpy.uir. */
#include "harness.h"

enum { N = 16777216 };
static float *x, *y;

static void setup(void) { x = bench_floats(N, 1); y = bench_floats(N, 2); }
static void release(void) { free(x); free(y); }

#ifdef UIR_AOT
/* the kernel of `uir compile saxpy.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render saxpy.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *x, float *y);

static void run(void) { kernel(x, y); }
#else
__attribute__((noinline)) static void kernel(const float *restrict a, float *restrict b)
{
	for (int i = 0; i < N; i++)
		b[i] = 2.5f * a[i] + b[i];
}

static void run(void) { kernel(x, y); }
#endif

BENCH_MAIN("saxpy")
