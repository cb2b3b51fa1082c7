/* softmax.c - the C twin of softmax.uir: softmax of 1024 rows of 1024 f32. max is uir's
 * (runtime/uir_ops.h: NaN if either is NaN, max(-0, +0) = +0) and exp2 is uir's own
 * correctly rounded uir_exp2_f32 (runtime/uir_math.h), so the bits are uir's. */
#include "twin.h"
#include <math.h>
#include "../../runtime/uir_ops.h"
#include "../../runtime/uir_math.h"

enum { N = 1024 };

__attribute__((noinline)) static void kernel(const float *restrict X, float *restrict Y)
{
	for (int r = 0; r < N; r++) {
		float m = -INFINITY;
		for (int c = 0; c < N; c++)
			m = uir_max_f32(m, X[r * N + c]);
		float s = 0.0f;
		for (int c = 0; c < N; c++) {
			float e = uir_exp2_f32((X[r * N + c] - m) * 1.4426950408889634f);
			Y[r * N + c] = e;
			s = s + e;
		}
		for (int c = 0; c < N; c++)
			Y[r * N + c] = Y[r * N + c] / s;
	}
}

int main(void)
{
	float *X = twin_random_f32(N * N, 5), *Y = twin_zeros_f32(N * N);
	TWIN_TIME(kernel(X, Y));
	twin_print_f32("Y", Y, N * N);
	return 0;
}
