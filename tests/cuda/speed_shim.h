/* speed_shim.h - a stand-in for the GPU layer of the timing main of `# cuda speed`
 * (render-cuda --main -DUIR_TIME, docs/testing.md), for tests/cuda/runner_speed.sh. The
 * stand-in nvcc force-includes it after runtime/uir_cuda_emu.h, so the timing main runs in
 * the emulator with three things under the test's control, none depending on this machine's
 * speed:
 *   - SHIM_LOG=FILE: every launch (`launch NAME`), event record (`event`) and copy (`copy to
 *     device`, `copy to host`) is appended to FILE, one line each, in the order they happen;
 *   - the time between two events is fixed: SHIM_KERNEL_MS (default 0.5) when the last
 *     launch before the second event was one of the rendering's kernels (uir_k0, uir_k1,
 *     ...), else SHIM_REF_MS (default 1: the reference);
 *   - SHIM_L2=BYTES replaces the emulated device's L2 size (1 MiB).
 * Everything else is the emulator's.
 */
#ifndef SPEED_SHIM_H
#define SPEED_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

inline const char *speed_shim_last = ""; /* shared by the rendering and ref.cu */

static inline void speed_shim_log(const char *what, const char *name)
{
	const char *path = getenv("SHIM_LOG");
	if (name)
		speed_shim_last = name;
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s%s%s\n", what, name ? " " : "", name ? name : "");
	fclose(f);
}

static inline double speed_shim_env(const char *var, double def)
{
	const char *s = getenv(var);
	return s && *s ? atof(s) : def;
}

#undef UIR_LAUNCH
#define UIR_LAUNCH(name, grid, block, ...) \
	(speed_shim_log("launch", #name), \
	 uir_emu_launch(dim3(grid), dim3(block), [=]() { name(__VA_ARGS__); }))

static inline cudaError_t speed_shim_record(cudaEvent_t e, cudaStream_t s = 0)
{
	speed_shim_log("event", NULL);
	return cudaEventRecord(e, s);
}
#define cudaEventRecord speed_shim_record

static inline cudaError_t speed_shim_elapsed(float *ms, cudaEvent_t, cudaEvent_t)
{
	bool kernel = strncmp(speed_shim_last, "uir_k", 5) == 0;
	*ms = (float)(kernel ? speed_shim_env("SHIM_KERNEL_MS", 0.5) : speed_shim_env("SHIM_REF_MS", 1));
	return cudaSuccess;
}
#define cudaEventElapsedTime speed_shim_elapsed

static inline cudaError_t speed_shim_memcpy(void *dst, const void *src, size_t n, cudaMemcpyKind k)
{
	if (k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToHost)
		speed_shim_log(k == cudaMemcpyHostToDevice ? "copy to device" : "copy to host", NULL);
	return cudaMemcpy(dst, src, n, k);
}
#define cudaMemcpy speed_shim_memcpy

static inline cudaError_t speed_shim_attribute(int *v, cudaDeviceAttr attr, int dev)
{
	cudaError_t e = cudaDeviceGetAttribute(v, attr, dev);
	if (e == cudaSuccess && attr == cudaDevAttrL2CacheSize && getenv("SHIM_L2"))
		*v = atoi(getenv("SHIM_L2"));
	return e;
}
#define cudaDeviceGetAttribute speed_shim_attribute

#endif
