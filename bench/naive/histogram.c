/* histogram.c - the C twin of histogram.uir: 256 bins of 16M i32 values in [0, 256),
 * counted by one sequential loop. */
#include "twin.h"

enum { N = 16777216, BINS = 256 };

__attribute__((noinline)) static void kernel(const int32_t *restrict x, int32_t *restrict h)
{
	for (int e = 0; e < N; e++)
		h[x[e]] = h[x[e]] + 1;
}

int main(void)
{
	int32_t *x = twin_alloc(N, sizeof *x), *h = twin_alloc(BINS, sizeof *h);
	for (size_t i = 0; i < N; i++)
		x[i] = (int32_t)uir_random_int(7, i, 0, 256);
	TWIN_TIME(kernel(x, h));
	twin_print_i32("h", h, BINS);
	return 0;
}
