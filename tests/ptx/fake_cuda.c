/* fake_cuda.c - a stand-in libcuda.so.1 for testing `uir ptx --run`'s plumbing
 * (src/runner/ptx_driver.c) on machines without a GPU: device memory is host memory, a
 * module is the PTX text (it must contain ".entry NAME(" for cuModuleGetFunction), and a
 * launch runs nothing but appends "launch NAME grid block nparams" to $FAKE_CUDA_LOG. The
 * global uir_fault reads as $FAKE_CUDA_FAULT (a number, default 0). So the buffers come
 * back as they went: what `run` would print if the kernels stored nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static const char *ptx_text;
static unsigned long long fault;

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuInit(unsigned f) { (void)f; return 0; }
EXPORT CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
EXPORT CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
EXPORT CUresult cuCtxCreate_v2(void **c, unsigned f, int d) { (void)f; (void)d; *c = (void *)1; return 0; }
EXPORT CUresult cuCtxDestroy_v2(void *c) { (void)c; return 0; }
EXPORT CUresult cuCtxSynchronize(void) { return 0; }
EXPORT CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v)
{
	(void)n; (void)o; (void)v;
	ptx_text = img;
	const char *f = getenv("FAKE_CUDA_FAULT");
	fault = f ? strtoull(f, NULL, 0) : 0;
	*m = (void *)1;
	return strstr(ptx_text, ".version") ? 0 : 218; /* CUDA_ERROR_INVALID_PTX */
}
/* the function handles cuModuleGetFunction gave (their names), freed with the module */
static char *fn_names[64];
static int nfn;

EXPORT CUresult cuModuleUnload(void *m)
{
	(void)m;
	while (nfn > 0)
		free(fn_names[--nfn]);
	return 0;
}
EXPORT CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
	(void)m;
	char pat[64];
	snprintf(pat, sizeof pat, ".entry %s(", name);
	if (!strstr(ptx_text, pat))
		return 500; /* CUDA_ERROR_NOT_FOUND */
	if (nfn == (int)(sizeof fn_names / sizeof fn_names[0]))
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	*f = fn_names[nfn++] = strdup(name);
	return 0;
}
EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *n, void *m, const char *name)
{
	(void)m;
	if (strcmp(name, "uir_fault") || !strstr(ptx_text, "uir_fault"))
		return 500;
	*p = (CUdeviceptr)(size_t)&fault;
	*n = sizeof fault;
	return 0;
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(size_t)calloc(1, n); return *p ? 0 : 2; }
EXPORT CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(size_t)p); return 0; }
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)(size_t)d, s, n); return 0; }
EXPORT CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(size_t)s, n); return 0; }
EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			       unsigned sh, void *stream, void **params, void **extra)
{
	(void)sh; (void)stream; (void)extra;
	int n = 0;
	/* the parameters are pointers to device pointers from cuMemAlloc: count the ones
	 * given until the caller's array ends is impossible, so the PTX's .param count */
	char pat[80];
	snprintf(pat, sizeof pat, ".entry %s(", (const char *)f);
	const char *e = strstr(ptx_text, pat), *end = e ? strchr(e, ')') : NULL;
	for (const char *q = e; q && q < end && (q = strstr(q, ".param")) && q < end; q++)
		n++;
	for (int i = 0; i < n; i++)
		if (!params || !params[i] || !*(void **)params[i])
			return 1; /* CUDA_ERROR_INVALID_VALUE */
	const char *log = getenv("FAKE_CUDA_LOG");
	FILE *lf = log ? fopen(log, "a") : NULL;
	if (lf) {
		if (gy == 1 && gz == 1 && by == 1 && bz == 1)
			fprintf(lf, "launch %s %u %u %d\n", (const char *)f, gx, bx, n);
		else /* a grid or a block of 2 or 3 dimensions */
			fprintf(lf, "launch %s %ux%ux%u %ux%ux%u %d\n", (const char *)f, gx, gy, gz, bx, by, bz, n);
		fclose(lf);
	}
	return 0;
}
EXPORT CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake error"; return 0; }
