/* llvm.c - the commands `uir llvm` (print the LLVM IR that `run` executes) and
 * `uir compile` (an object file exporting `kernel`), both through the LLVM back end,
 * which is loaded on first use (engine.h).
 *
 *   uir llvm [-O0|-O3] [--no-bounds-check] [--no-opt] [--cpu CPU] FILE
 *   uir compile FILE -o OUT [--emit obj|asm|llvm] [--no-bounds-check] [--cpu CPU]
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include "engine.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char llvm_usage[] =
	"usage: uir llvm [OPTIONS] FILE\n"
	"\n"
	"Prints the LLVM IR of the program: the module `uir run --engine jit` executes.\n"
	"\n"
	"options:\n"
	"  -O0, -O3             unoptimised, or after the O3 pipeline (default -O3)\n"
	"  --no-bounds-check    leave out the run-time bounds checks (E0601)\n"
	"  --no-opt             the loops as written, as `run --no-opt` runs them\n"
	"  --cpu CPU            optimise for CPU (default: this machine's)\n";

static const char compile_usage[] =
	"usage: uir compile FILE -o OUT [OPTIONS]\n"
	"\n"
	"Writes an object file exporting `int kernel(T *b0, ...)`: the buffers in declaration\n"
	"order, returning 0, or 1 after printing E0601 on standard error. A program with\n"
	"thread or global loops also needs runtime/uir_parallel.c (see docs/llvm.md).\n"
	"\n"
	"options:\n"
	"  -o OUT               the output file (required)\n"
	"  --emit obj|asm|llvm  an object file (default), assembly, or LLVM IR\n"
	"  --no-bounds-check    leave out the run-time bounds checks\n"
	"  --cpu CPU            the target CPU (default: this machine's; `x86-64` for any)\n";

typedef struct LlvmArgs {
	const char *file, *out, *cpu;
	int opt;
	bool bounds, no_opt;
	UirEmitKind emit;
} LlvmArgs;

/* Parses the options of `llvm` (COMPILE false) or `compile`. Returns -1 when they are
 * good, else the exit status. */
static int parse(int argc, char **argv, bool compile, LlvmArgs *a)
{
	static const struct option longopts[] = {
		{ "no-bounds-check", no_argument, NULL, 'B' },
		{ "no-opt", no_argument, NULL, 'N' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "emit", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = compile ? "compile" : "llvm";
	a->opt = 3;
	a->bounds = true;
	a->emit = UIR_EMIT_OBJECT;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, compile ? ":o:" : ":O:", longopts, NULL)) != -1) {
		switch (c) {
		case 'B':
			a->bounds = false;
			break;
		case 'N':
			if (compile)
				return usage_error(cmd, "unknown option '--no-opt'");
			a->no_opt = true;
			break;
		case 'c':
			a->cpu = optarg;
			break;
		case 'O':
			if (strcmp(optarg, "0") && strcmp(optarg, "3"))
				return usage_error(cmd, "-O takes 0 or 3, found '%s'", optarg);
			a->opt = optarg[0] - '0';
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'e':
			if (!compile)
				return usage_error(cmd, "unknown option '--emit' (see 'uir llvm --help')");
			if (!strcmp(optarg, "obj"))
				a->emit = UIR_EMIT_OBJECT;
			else if (!strcmp(optarg, "asm"))
				a->emit = UIR_EMIT_ASM;
			else if (!strcmp(optarg, "llvm"))
				a->emit = UIR_EMIT_IR;
			else
				return usage_error(cmd, "--emit takes obj, asm or llvm, found '%s'", optarg);
			break;
		case 'h':
			fputs(compile ? compile_usage : llvm_usage, stdout);
			return UIR_EXIT_OK;
		default:
			return cli_bad_option(cmd, c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error(cmd, "expected one FILE (see 'uir %s --help')", cmd);
	a->file = argv[optind];
	if (compile && !a->out)
		return usage_error(cmd, "-o OUT is required (see 'uir compile --help')");
	return -1;
}

/* Loads the back end and the checked program. Returns -1 when both are there. */
static int prepare(const LlvmArgs *a, const char *cmd, const UirLlvmApi **api, UirProgram **p)
{
	*p = uir_load(a->file, stderr);
	if (!*p)
		return UIR_EXIT_ERROR;
	/* `llvm` prints what a run without --input compiles: the INITs stand; the caller of
	 * `compile`'s object passes any values (docs/analysis.md, "Value ranges") */
	(*p)->inits_stand = !strcmp(cmd, "llvm");
	if (uir_check(*p, 0, stderr) != 0)
		return UIR_EXIT_ERROR;
	*api = uir_llvm_load(NULL);
	if (!*api) {
		uir_eprintf(stderr, "uir %s: %s\n", cmd, uir_llvm_error());
		return UIR_EXIT_USAGE;
	}
	return -1;
}

int cmd_llvm(int argc, char **argv)
{
	LlvmArgs a = { 0 };
	int rc = parse(argc, argv, false, &a);
	if (rc >= 0)
		return rc;
	const UirLlvmApi *api = NULL;
	UirProgram *p = NULL;
	rc = prepare(&a, "llvm", &api, &p);
	if (rc < 0) {
		RunOptions o = { .bounds_check = a.bounds, .opt_level = a.opt, .cpu = a.cpu, .no_opt = a.no_opt };
		rc = api->print_ir(p, &o, stdout);
		if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
			uir_eprintf(stderr, "uir llvm: cannot write the output\n");
			rc = UIR_EXIT_ERROR;
		}
	}
	uir_free(p);
	return rc;
}

int cmd_compile(int argc, char **argv)
{
	LlvmArgs a = { 0 };
	int rc = parse(argc, argv, true, &a);
	if (rc >= 0)
		return rc;
	const UirLlvmApi *api = NULL;
	UirProgram *p = NULL;
	rc = prepare(&a, "compile", &api, &p);
	if (rc < 0) {
		/* one thread: an object runs its plain loops as written (an automatic parallel
		 * loop would need the pool, which it links only for thread and global loops) */
		RunOptions o = { .threads = 1, .bounds_check = a.bounds, .opt_level = 3, .cpu = a.cpu };
		rc = api->emit(p, &o, a.emit, a.out);
	}
	uir_free(p);
	return rc;
}
