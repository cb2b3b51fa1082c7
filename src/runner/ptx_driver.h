/* ptx_driver.h - running the PTX of `uir ptx` on a GPU through the CUDA driver API
 * (libcuda.so.1, loaded with dlopen: no CUDA header or library is needed to build uir).
 * Used by `uir ptx --run` (src/cli/ptx.c), the step `uir test --ptx` runs for `# cuda` tests.
 */
#ifndef UIR_RUNNER_PTX_DRIVER_H
#define UIR_RUNNER_PTX_DRIVER_H

#include "../uir_internal.h"

enum { PTX_DRIVER_OK = 0, PTX_DRIVER_NONE = -1, PTX_DRIVER_ERROR = -2 };

/* Whether libcuda.so.1 loads and cuInit finds a device; WHY gets the reason when not. */
bool ptx_driver_available(char *why, size_t whylen);

/* Runs the kernels of the checked kernel-form program P, compiled to PTX (NUL-terminated),
 * over BUFS (from buffers_create(), copied to the device and back): uir_kN in program
 * order, the grid and the block of kernel_grid() and kernel_block() (none for a grid of 0),
 * the buffers each uses as its parameters. *FAULT gets the kernels' recorded fault code
 * (`uir_fault`, 0 when none). *KERNEL_MS (may be NULL) the time of the launches. Returns
 * PTX_DRIVER_OK; PTX_DRIVER_NONE without a CUDA driver or device; PTX_DRIVER_ERROR after a
 * CUDA call failed; with a one-line reason in WHY for both. */
int ptx_driver_run(UirProgram *p, const char *ptx, void **bufs, uint64_t *fault, double *kernel_ms, char *why,
		   size_t whylen);

#endif
