/* mm2.c - the C twin of mm2.uir: PolyBench 2mm at 512, tmp = 1.5 A B, then
 * D = 1.2 D + tmp C, each element summed in k order in a scalar. */
#include "twin.h"

enum { N = 512 };

__attribute__((noinline)) static void kernel(const float *restrict A, const float *restrict B,
	const float *restrict C, float *restrict D, float *restrict tmp)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0.0f;
			for (int k = 0; k < N; k++)
				acc = acc + 1.5f * A[i * N + k] * B[k * N + j];
			tmp[i * N + j] = acc;
		}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float acc = D[i * N + j] * 1.2f;
			for (int k = 0; k < N; k++)
				acc = acc + tmp[i * N + k] * C[k * N + j];
			D[i * N + j] = acc;
		}
}

int main(void)
{
	float *A = twin_random_f32(N * N, 1), *B = twin_random_f32(N * N, 2);
	float *C = twin_random_f32(N * N, 3), *D = twin_random_f32(N * N, 4), *tmp = twin_zeros_f32(N * N);
	TWIN_TIME(kernel(A, B, C, D, tmp));
	twin_print_f32("D", D, N * N);
	return 0;
}
