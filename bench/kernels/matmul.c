/* matmul.c - C = A B for 512 x 512 f32, naive: the C twin of matmul.uir (C[i,j] gets its
 * products in k order). */
#include "harness.h"

enum { N = 512 };
static float *A, *B, *C;

static void setup(void) { A = bench_floats(N * N, 1); B = bench_floats(N * N, 2); C = bench_zeros(N * N); }
static void release(void) { free(A); free(B); free(C); }

#ifdef UIR_AOT
/* the kernel of `uir compile matmul.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render matmul.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *A, float *B, float *C);

static void run(void) { kernel(A, B, C); }
#else
__attribute__((noinline)) static void kernel(const float *restrict a, const float *restrict b, float *restrict c)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			for (int k = 0; k < N; k++)
				c[i * N + j] = c[i * N + j] + a[i * N + k] * b[k * N + j];
}

static void run(void) { kernel(A, B, C); }
#endif

BENCH_MAIN("matmul")
