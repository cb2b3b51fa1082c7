/* conv3x3.c - the C twin of conv3x3.uir: 3x3 convolution of a 2048 x 2048 f32 image,
 * interior only, each output's 9 products summed in (ky, kx) order in a scalar. */
#include "twin.h"

enum { N = 2048 };

__attribute__((noinline)) static void kernel(const float *restrict I, const float *restrict W, float *restrict O)
{
	for (int y = 0; y < N - 2; y++)
		for (int x = 0; x < N - 2; x++) {
			float acc = 0.0f;
			for (int ky = 0; ky < 3; ky++)
				for (int kx = 0; kx < 3; kx++)
					acc = acc + W[ky * 3 + kx] * I[(y + ky) * N + (x + kx)];
			O[(y + 1) * N + (x + 1)] = acc;
		}
}

int main(void)
{
	float *I = twin_random_f32(N * N, 1), *W = twin_random_f32(9, 2), *O = twin_zeros_f32(N * N);
	TWIN_TIME(kernel(I, W, O));
	twin_print_f32("O", O, N * N);
	return 0;
}
