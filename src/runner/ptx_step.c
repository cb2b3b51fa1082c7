/* ptx_step.c - the step `uir test --ptx` adds to `# cuda` and `# cuda speed` tests:
 *
 *   uir ptx --run [--time] FILE
 *
 * which runs the kernels' PTX (LLVM's NVPTX back end) on the GPU through the CUDA driver
 * API (src/runner/ptx_driver.c) and prints every buffer: its output must be run's, bit for
 * bit (as rendered CUDA's must). For `# cuda speed` tests the kernels' time is reported
 * next to the test's CUDA result ("ptx: 0.12 ms"). Where libcuda.so.1 or a device is
 * missing the step is skipped with the reason ("ptx: no CUDA driver ..."), decided once
 * per run, so `--ptx` never fails for want of a GPU.
 *
 * Kept apart from modes.c, which calls in at four places (plan, argv, judge, name).
 */
#include "runner_int.h"
#include "ptx_driver.h"
#include <stdlib.h>
#include <string.h>

#define S(step) (1u << UT_STEP_##step)

void ut_ptx_plan(UtConfig *cfg, UtTest *t)
{
	static int avail = -1;
	static char why[256];
	if (!cfg->ptx || !(t->spec.modes & (UT_MODE_CUDA | UT_MODE_CUDA_SPEED)) || !(t->plan & S(RUN)))
		return;
	if (avail < 0)
		avail = ptx_driver_available(why, sizeof why);
	if (avail) {
		t->plan |= S(PTX);
		return;
	}
	char *note = ut_format("ptx: %s", why);
	if (t->skips.len)
		ut_buf_puts(&t->skips, "; ");
	ut_buf_puts(&t->skips, note);
	free(note);
}

char **ut_ptx_argv(UtConfig *cfg, UtTest *t)
{
	int n = 0;
	char **v = ut_xmalloc(7 * sizeof *v);
	v[n++] = ut_strdup(cfg->uir);
	v[n++] = ut_strdup("ptx");
	v[n++] = ut_strdup("--run");
	if (t->spec.modes & UT_MODE_CUDA_SPEED)
		v[n++] = ut_strdup("--time");
	v[n++] = ut_strdup("--"); /* a test named -rf.uir is a file, not options */
	v[n++] = ut_strdup(t->path);
	v[n] = NULL;
	return v;
}

static bool ptx_fail(UtTest *t, char **argv, const UtChild *c, char *msg)
{
	free(t->fail);
	t->fail = msg;
	ut_step_record(t, argv, c);
	return false;
}

bool ut_ptx_judge(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	bool fault = t->spec.modes & UT_MODE_FAULT;
	if (code != 0 && !(fault && code == 1)) {
		char *st = ut_status_text(c->status);
		const char *err = c->err.data ? c->err.data : "";
		char *first = ut_first_line(err, c->err.len, 200);
		char *msg = ut_format("uir ptx --run %s: %s", st, first);
		free(st);
		free(first);
		return ptx_fail(t, argv, c, msg);
	}
	if (fault && code == 0)
		return ptx_fail(t, argv, c, ut_strdup("ptx differs from run: run faulted (E0601), the PTX ran to the end"));
	if (!fault) {
		if (!ut_spilled(t, UT_STEP_PTX, argv, c) ||
		    !ut_compare_outputs(t, argv, c, "run", "ptx", "ptx differs from run: "))
			return false;
	}
	const char *line = c->err.data ? strstr(c->err.data, "time: kernels ") : NULL;
	double ms;
	if (line && sscanf(line, "time: kernels %lf ms", &ms) == 1) {
		char *how = ut_format("%s; ptx: kernels %.4f ms", t->cuda_how ? t->cuda_how : "cuda", ms);
		free(t->cuda_how);
		t->cuda_how = how;
	}
	return true;
}
