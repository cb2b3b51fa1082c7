// matmul_speed.ref.cu - the hand-written reference for matmul_speed.uir (`# cuda speed`):
// C = A B for 128x128 floats with 16x16 shared tiles, as a CUDA programmer would write it
// (2-D thread indices, the k loop unrolled). `uir test` renames kernel() and builds this
// beside the rendered program; launches go through UIR_LAUNCH so that the emulator can
// build it too.
#include <stdint.h>

#ifndef UIR_LAUNCH
#define UIR_LAUNCH(name, grid, block, ...) name<<<grid, block>>>(__VA_ARGS__)
#endif

#define N 128
#define TILE 16

__global__ void ref_matmul(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
	int row = blockIdx.x / (N / TILE) * TILE + ty;
	int col = blockIdx.x % (N / TILE) * TILE + tx;
	float acc = 0.0f;
	for (int k = 0; k < N / TILE; k++) {
		As[ty][tx] = A[row * N + k * TILE + tx];
		Bs[ty][tx] = B[(k * TILE + ty) * N + col];
		__syncthreads();
#pragma unroll
		for (int j = 0; j < TILE; j++)
			acc = __fadd_rn(acc, __fmul_rn(As[ty][j], Bs[j][tx]));
		__syncthreads();
	}
	C[row * N + col] = acc;
}

void kernel(float *A, float *B, float *C)
{
	UIR_LAUNCH(ref_matmul, (N / TILE) * (N / TILE), TILE * TILE, A, B, C);
}
