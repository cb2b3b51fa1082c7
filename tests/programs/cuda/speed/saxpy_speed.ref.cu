// saxpy_speed.ref.cu - the hand-written reference for saxpy_speed.uir (`# cuda speed`):
// y = 2.5 x + y over 65536 floats, the same grid and work per thread. `uir test` renames
// kernel() and builds this beside the rendered program; launches go through UIR_LAUNCH so
// that the emulator can build it too.
#include <stdint.h>

#ifndef UIR_LAUNCH
#define UIR_LAUNCH(name, grid, block, ...) name<<<grid, block>>>(__VA_ARGS__)
#endif

__global__ void ref_saxpy(const float *__restrict__ x, float *__restrict__ y)
{
	int base = blockIdx.x * 1024 + threadIdx.x;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		int i = base + k * 256;
		y[i] = __fadd_rn(__fmul_rn(2.5f, x[i]), y[i]);
	}
}

void kernel(float *x, float *y)
{
	UIR_LAUNCH(ref_saxpy, 64, 256, x, y);
}
