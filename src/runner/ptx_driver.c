/* ptx_driver.c - the PTX of `uir ptx` on a GPU through the CUDA driver API (see
 * ptx_driver.h).
 *
 * libcuda.so.1 is opened with dlopen() on use and its entry points looked up by name, with
 * the types declared here, so uir builds and runs without the CUDA toolkit; without the
 * library or a device the caller gets PTX_DRIVER_NONE and a reason ("no CUDA driver: ..."),
 * never a crash. One context on device 0; the PTX is JIT-compiled by the driver
 * (cuModuleLoadDataEx, its log kept for the error message); each buffer is one device
 * allocation; the kernels run in program order on the default stream, as render-cuda's
 * host code launches them, and the buffers come back after a cuCtxSynchronize.
 */
#include "ptx_driver.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;

enum { CUDA_SUCCESS = 0 };
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

/* The entry points used, by their exported names. */
typedef struct Cuda {
	void *lib;
	CUresult (*init)(unsigned);
	CUresult (*device_get_count)(int *);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice);
	CUresult (*ctx_destroy)(CUcontext);
	CUresult (*ctx_synchronize)(void);
	CUresult (*module_load)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
	CUresult (*module_unload)(CUmodule);
	CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*module_get_global)(CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_free)(CUdeviceptr);
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
			   void **, void **);
	CUresult (*error_string)(CUresult, const char **);
} Cuda;

static Cuda cu;
static bool cu_loaded;
static char cu_why[256];

static bool sym(void **dst, const char *name)
{
	*dst = dlsym(cu.lib, name);
	if (!*dst)
		snprintf(cu_why, sizeof cu_why, "no CUDA driver: libcuda.so.1 lacks %s", name);
	return *dst != NULL;
}

/* Opens the driver and initialises it (once). False with the reason in cu_why. */
static bool cuda_load(void)
{
	static bool tried;
	if (tried)
		return cu_loaded;
	tried = true;
	cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		const char *e = dlerror();
		snprintf(cu_why, sizeof cu_why, "no CUDA driver (%s)", e ? e : "libcuda.so.1 not found");
		return false;
	}
	bool ok = sym((void **)&cu.init, "cuInit") && sym((void **)&cu.device_get_count, "cuDeviceGetCount") &&
		  sym((void **)&cu.device_get, "cuDeviceGet") && sym((void **)&cu.ctx_create, "cuCtxCreate_v2") &&
		  sym((void **)&cu.ctx_destroy, "cuCtxDestroy_v2") && sym((void **)&cu.ctx_synchronize, "cuCtxSynchronize") &&
		  sym((void **)&cu.module_load, "cuModuleLoadDataEx") && sym((void **)&cu.module_unload, "cuModuleUnload") &&
		  sym((void **)&cu.module_get_function, "cuModuleGetFunction") &&
		  sym((void **)&cu.module_get_global, "cuModuleGetGlobal_v2") && sym((void **)&cu.mem_alloc, "cuMemAlloc_v2") &&
		  sym((void **)&cu.mem_free, "cuMemFree_v2") && sym((void **)&cu.htod, "cuMemcpyHtoD_v2") &&
		  sym((void **)&cu.dtoh, "cuMemcpyDtoH_v2") && sym((void **)&cu.launch, "cuLaunchKernel") &&
		  sym((void **)&cu.error_string, "cuGetErrorString");
	if (!ok)
		return false;
	int n = 0;
	CUresult r = cu.init(0);
	if (r == CUDA_SUCCESS)
		r = cu.device_get_count(&n);
	if (r != CUDA_SUCCESS || n < 1) {
		const char *s = NULL;
		if (r != CUDA_SUCCESS)
			cu.error_string(r, &s);
		snprintf(cu_why, sizeof cu_why, "no CUDA device (%s)", r != CUDA_SUCCESS ? (s ? s : "cuInit failed") : "none found");
		return false;
	}
	cu_loaded = true;
	return true;
}

bool ptx_driver_available(char *why, size_t whylen)
{
	if (cuda_load())
		return true;
	snprintf(why, whylen, "%s", cu_why);
	return false;
}

/* Fills WHY with the failed call WHAT and the driver's message; returns PTX_DRIVER_ERROR. */
static int cuda_error(CUresult r, const char *what, char *why, size_t whylen)
{
	const char *s = NULL;
	cu.error_string(r, &s);
	snprintf(why, whylen, "%s failed: %s (CUDA error %d)", what, s ? s : "unknown error", r);
	return PTX_DRIVER_ERROR;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int ptx_driver_run(UirProgram *p, const char *ptx, void **bufs, uint64_t *fault, double *kernel_ms, char *why,
		   size_t whylen)
{
	*fault = 0;
	if (kernel_ms)
		*kernel_ms = 0;
	if (!cuda_load()) {
		snprintf(why, whylen, "%s", cu_why);
		return PTX_DRIVER_NONE;
	}
	CUdevice dev;
	CUcontext ctx = NULL;
	CUmodule mod = NULL;
	CUresult r = cu.device_get(&dev, 0);
	if (r != CUDA_SUCCESS)
		return cuda_error(r, "cuDeviceGet", why, whylen);
	r = cu.ctx_create(&ctx, 0, dev);
	if (r != CUDA_SUCCESS)
		return cuda_error(r, "cuCtxCreate", why, whylen);
	int rc = PTX_DRIVER_OK;
	CUdeviceptr *d = xcalloc((size_t)p->nbufs + 1, sizeof *d);
	char log[4096] = "";
	CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)sizeof log };
	r = cu.module_load(&mod, ptx, 2, opts, vals);
	if (r != CUDA_SUCCESS) {
		rc = cuda_error(r, "cuModuleLoadDataEx", why, whylen);
		if (*log) {
			size_t n = strlen(why);
			char *nl = strchr(log, '\n');
			if (nl)
				*nl = 0;
			snprintf(why + n, whylen - n, ": %s", log);
		}
		goto out;
	}
	for (int i = 0; i < p->nbufs; i++) {
		size_t bytes = (size_t)p->bufs[i]->size * (size_t)uir_type_size(p->bufs[i]->ty);
		if ((r = cu.mem_alloc(&d[i], bytes ? bytes : 1)) != CUDA_SUCCESS) {
			rc = cuda_error(r, "cuMemAlloc", why, whylen);
			goto out;
		}
		if (bytes && (r = cu.htod(d[i], bufs[i], bytes)) != CUDA_SUCCESS) {
			rc = cuda_error(r, "cuMemcpyHtoD", why, whylen);
			goto out;
		}
	}
	double t0 = now_ms();
	int k = 0;
	for (const Stmt *s = p->top; s; s = s->next) {
		if (s->kind != ST_LOOP)
			continue;
		int kn = k++;
		if (s->bound_lit <= 0)
			continue; /* a grid of 0 launches nothing */
		char name[32];
		snprintf(name, sizeof name, "uir_k%d", kn);
		CUfunction f;
		if ((r = cu.module_get_function(&f, mod, name)) != CUDA_SUCCESS) {
			rc = cuda_error(r, "cuModuleGetFunction", why, whylen);
			goto out;
		}
		void **args = xmalloc((size_t)p->nbufs * sizeof *args + 1);
		int na = 0;
		for (int i = 0; i < p->nbufs; i++)
			if (stmts_use_mem(s->body, p->bufs[i]))
				args[na++] = &d[i];
		int64_t gd[3], bd[3]; /* a grid and a block of up to 3 dimensions (docs/language.md 6.5) */
		kernel_grid(s, gd, NULL);
		kernel_block(s, bd, NULL);
		r = cu.launch(f, (unsigned)gd[0], (unsigned)gd[1], (unsigned)gd[2], (unsigned)bd[0], (unsigned)bd[1],
			      (unsigned)bd[2], 0, NULL, args, NULL);
		free(args);
		if (r != CUDA_SUCCESS) {
			rc = cuda_error(r, "cuLaunchKernel", why, whylen);
			goto out;
		}
	}
	if ((r = cu.ctx_synchronize()) != CUDA_SUCCESS) {
		rc = cuda_error(r, "the kernels", why, whylen);
		goto out;
	}
	if (kernel_ms)
		*kernel_ms = now_ms() - t0;
	CUdeviceptr fp;
	size_t fsize = 0;
	if ((r = cu.module_get_global(&fp, &fsize, mod, "uir_fault")) == CUDA_SUCCESS && fsize == sizeof *fault)
		r = cu.dtoh(fault, fp, sizeof *fault);
	if (r != CUDA_SUCCESS) {
		rc = cuda_error(r, "reading uir_fault", why, whylen);
		goto out;
	}
	for (int i = 0; i < p->nbufs; i++) {
		size_t bytes = (size_t)p->bufs[i]->size * (size_t)uir_type_size(p->bufs[i]->ty);
		if (bytes && (r = cu.dtoh(bufs[i], d[i], bytes)) != CUDA_SUCCESS) {
			rc = cuda_error(r, "cuMemcpyDtoH", why, whylen);
			goto out;
		}
	}
out:
	for (int i = 0; i < p->nbufs; i++)
		if (d[i])
			cu.mem_free(d[i]);
	free(d);
	if (mod)
		cu.module_unload(mod);
	cu.ctx_destroy(ctx);
	return rc;
}
