/* ptx.c - the command `uir ptx`: a program in kernel form (docs/language.md 8.2) as PTX through
 * LLVM's NVPTX back end (src/llvm/ptx.c, loaded with the rest of the LLVM back end on use).
 *
 *   uir ptx [--arch sm_90] [-o OUT] [--llvm] [--no-bounds-check] FILE
 *   uir ptx --run [--arch ARCH] [--time] FILE
 *
 * Loads and checks FILE (errors: the diagnostics, exit 1); a valid program not in kernel
 * form exits 2 with one line `invalid: REASON` and prints nothing, as render-cuda does.
 * --run runs the PTX on the GPU through the CUDA driver API (src/runner/ptx_driver.c) and
 * prints every buffer as `run` does (a recorded fault: run's E0601, exit 1); without a
 * driver or device it exits 64 with "no CUDA driver" / "no CUDA device".
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include "engine.h"
#include "buffers.h"
#include "../runner/ptx_driver.h"
#include "uir_print.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char ptx_usage[] =
	"usage: uir ptx [OPTIONS] FILE\n"
	"\n"
	"Prints the program's kernels as PTX through LLVM's NVPTX back end: one `.entry\n"
	"uir_kN` per global loop, taking the buffers it uses (as render-cuda's uir_kN), with\n"
	"no FMA contraction, IEEE division and square root, and `.rn` on every float add,\n"
	"sub and mul. A program not in kernel form exits 2 with one line `invalid: REASON`.\n"
	"\n"
	"options:\n"
	"  --arch ARCH          the target processor (default sm_90; sm_20 ... sm_90a)\n"
	"  -o OUT               write to OUT instead of standard output\n"
	"  --llvm               print the NVPTX LLVM IR (after optimisation) instead of PTX\n"
	"  --no-bounds-check    leave out the run-time bounds checks (recorded in uir_fault)\n"
	"  --run                run it on the GPU (CUDA driver API) and print every buffer as\n"
	"                       `uir run` does\n"
	"  --time               with --run: the kernels' time on standard error\n";

/* --run: the PTX TEXT of P on the GPU, then the buffers on stdout as `run` prints them. */
static int run_on_gpu(UirProgram *p, const UirLlvmApi *api, const UirPtxOptions *o, const char *text, bool time)
{
	void **bufs = buffers_create(p, 0);
	if (!bufs)
		return UIR_EXIT_ERROR;
	uint64_t fault = 0;
	double ms = 0;
	char why[512];
	int rc = ptx_driver_run(p, text, bufs, &fault, &ms, why, sizeof why);
	if (rc == PTX_DRIVER_NONE) {
		uir_eprintf(stderr, "uir ptx --run: %s\n", why);
		rc = UIR_EXIT_USAGE;
	} else if (rc == PTX_DRIVER_ERROR) {
		uir_eprintf(stderr, "internal error: uir ptx --run: %s\n", why);
		rc = UIR_EXIT_INTERNAL;
	} else if (fault) {
		rc = api->ptx_fault(p, o, fault) ? UIR_EXIT_INTERNAL : UIR_EXIT_ERROR;
	} else {
		if (time)
			fprintf(stderr, "time: kernels %.3f ms (ptx, launches to synchronize)\n", ms);
		for (int i = 0; i < p->nbufs; i++)
			cli_print_buffer(stdout, p->bufs[i], bufs[i]);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			uir_eprintf(stderr, "uir ptx: cannot write the output: %s\n", strerror(errno));
			rc = UIR_EXIT_ERROR;
		}
	}
	buffers_free(p, bufs);
	return rc;
}

int cmd_ptx(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "llvm", no_argument, NULL, 'L' },
		{ "no-bounds-check", no_argument, NULL, 'B' },
		{ "run", no_argument, NULL, 'R' },
		{ "time", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	UirPtxOptions o = { "sm_90", false, true };
	const char *outpath = NULL;
	bool run = false, time = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o.arch = optarg;
			break;
		case 'L':
			o.llvm_ir = true;
			break;
		case 'B':
			o.bounds_check = false;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'R':
			run = true;
			break;
		case 'T':
			time = true;
			break;
		case 'h':
			fputs(ptx_usage, stdout);
			return UIR_EXIT_OK;
		default:
			return cli_bad_option("ptx", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("ptx", "expected one FILE (see 'uir ptx --help')");
	if (run && (outpath || o.llvm_ir))
		return usage_error("ptx", "--run prints the buffers: no -o or --llvm with it");
	if (time && !run)
		return usage_error("ptx", "--time goes with --run");
	if (strncmp(o.arch, "sm_", 3) || !o.arch[3])
		return usage_error("ptx", "--arch takes a processor like sm_90, found '%s'", o.arch);
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	if (uir_check(p, 0, stderr) != 0) {
		uir_free(p);
		return UIR_EXIT_ERROR;
	}
	char why[512];
	if (!kernel_form(p, why, sizeof why)) {
		fprintf(stderr, "invalid: %s\n", why);
		uir_free(p);
		return UIR_EXIT_NOT_KERNEL;
	}
	const UirLlvmApi *api = uir_llvm_load(NULL);
	if (!api) {
		uir_eprintf(stderr, "uir ptx: %s\n", uir_llvm_error());
		uir_free(p);
		return UIR_EXIT_USAGE;
	}
	char *text = NULL;
	int rc = api->ptx(p, &o, &text);
	if (!rc && run) {
		rc = run_on_gpu(p, api, &o, text, time);
	} else if (!rc) {
		FILE *f = outpath ? fopen(outpath, "w") : stdout;
		if (!f) {
			uir_eprintf(stderr, "uir ptx: cannot write %s: %s\n", outpath, strerror(errno));
			rc = UIR_EXIT_ERROR;
		} else {
			size_t n = strlen(text);
			bool ok = fwrite(text, 1, n, f) == n;
			ok &= fflush(f) == 0;
			if (outpath)
				ok &= fclose(f) == 0;
			if (!ok) {
				uir_eprintf(stderr, "uir ptx: cannot write %s: %s\n", outpath ? outpath : "the output", strerror(errno));
				rc = UIR_EXIT_ERROR;
			}
		}
	}
	free(text);
	uir_free(p);
	return rc;
}
