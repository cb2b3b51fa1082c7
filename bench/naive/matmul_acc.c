/* matmul_acc.c - the C twin of matmul_acc.uir: C = A B, 768 x 768 f32, each C[i,j]
 * summed in k order in a scalar. */
#include "twin.h"

enum { N = 768 };

__attribute__((noinline)) static void kernel(const float *restrict A, const float *restrict B, float *restrict C)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0.0f;
			for (int k = 0; k < N; k++)
				acc = acc + A[i * N + k] * B[k * N + j];
			C[i * N + j] = acc;
		}
}

int main(void)
{
	float *A = twin_random_f32(N * N, 1), *B = twin_random_f32(N * N, 2), *C = twin_zeros_f32(N * N);
	TWIN_TIME(kernel(A, B, C));
	twin_print_f32("C", C, N * N);
	return 0;
}
