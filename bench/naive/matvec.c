/* matvec.c - the C twin of matvec.uir: y = A x, 4096 x 4096 f32, each y[i] summed in j
 * order in a scalar. */
#include "twin.h"

enum { N = 4096 };

__attribute__((noinline)) static void kernel(const float *restrict A, const float *restrict x, float *restrict y)
{
	for (int i = 0; i < N; i++) {
		float acc = 0.0f;
		for (int j = 0; j < N; j++)
			acc = acc + A[i * N + j] * x[j];
		y[i] = acc;
	}
}

int main(void)
{
	float *A = twin_random_f32((size_t)N * N, 1), *x = twin_random_f32(N, 2), *y = twin_zeros_f32(N);
	TWIN_TIME(kernel(A, x, y));
	twin_print_f32("y", y, N);
	return 0;
}
