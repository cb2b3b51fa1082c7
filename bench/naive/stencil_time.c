/* stencil_time.c - the C twin of stencil_time.uir: 1-D 3-point stencil over 1M f32,
 * 100 time steps ping-ponging a -> b -> a, 0.25 left + 0.5 centre + 0.25 right. */
#include "twin.h"

enum { N = 1048576 };

__attribute__((noinline)) static void kernel(float *restrict a, float *restrict b)
{
	for (int t = 0; t < 50; t++) {
		for (int i = 0; i < N - 2; i++)
			b[i + 1] = 0.25f * a[i] + 0.5f * a[i + 1] + 0.25f * a[i + 2];
		for (int i = 0; i < N - 2; i++)
			a[i + 1] = 0.25f * b[i] + 0.5f * b[i + 1] + 0.25f * b[i + 2];
	}
}

int main(void)
{
	float *a = twin_random_f32(N, 6), *b = twin_zeros_f32(N);
	TWIN_TIME(kernel(a, b));
	twin_print_f32("a", a, N);
	return 0;
}
