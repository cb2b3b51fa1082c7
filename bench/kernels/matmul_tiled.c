/* matmul_tiled.c - C = A B for 512 x 512 f32 in 64 x 64 x 64 tiles, i-k-j in a tile: the
 * C twin of matmul_tiled.uir. */
#include "harness.h"

enum { N = 512, T = 64 };
static float *A, *B, *C;

static void setup(void) { A = bench_floats(N * N, 1); B = bench_floats(N * N, 2); C = bench_zeros(N * N); }
static void release(void) { free(A); free(B); free(C); }

#ifdef UIR_AOT
/* the kernel of `uir compile matmul_tiled.uir -o OBJ`, or with UIR_RENDERED of
 * `uir render matmul_tiled.uir` (bench/jit_bench.sh links it in) */
UIR_KERNEL_RESULT kernel(float *A, float *B, float *C);

static void run(void) { kernel(A, B, C); }
#else
__attribute__((noinline)) static void kernel(const float *restrict a, const float *restrict b, float *restrict c)
{
	for (int ib = 0; ib < N / T; ib++)
		for (int kb = 0; kb < N / T; kb++)
			for (int jb = 0; jb < N / T; jb++)
				for (int i = 0; i < T; i++)
					for (int k = 0; k < T; k++) {
						int r = ib * T + i, kk = kb * T + k;
						float x = a[r * N + kk];
						for (int j = 0; j < T; j++) {
							int o = r * N + jb * T + j;
							c[o] = c[o] + x * b[kk * N + jb * T + j];
						}
					}
}

static void run(void) { kernel(A, B, C); }
#endif

BENCH_MAIN("matmul_tiled")
