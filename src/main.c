/* main.c - the `uir` command: dispatches to a subcommand (docs/commands.md). */
#include "uir_internal.h"
#include "cli/cli.h"
#include "util/escape.h"
#include <string.h>

static const char usage[] =
	"usage: uir COMMAND [OPTIONS] FILE\n"
	"\n"
	"commands:\n"
	"  check FILE            parse and check; print nothing and exit 0 when valid\n"
	"  run FILE              run the program and print every buffer\n"
	"  render FILE           print portable C\n"
	"  render-cuda FILE      print CUDA C++ (kernel-form programs)\n"
	"  llvm FILE             print the LLVM IR that run executes\n"
	"  ptx FILE              print PTX through LLVM's NVPTX back end\n"
	"  compile FILE -o OUT   write an object file exporting `kernel`\n"
	"  opt FILE              print the program as run's loop optimiser rewrites it\n"
	"  test PATH...          run test programs (see docs/testing.md)\n"
	"\n"
	"`uir COMMAND --help` lists a command's options; docs/commands.md has them all.\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{ "check", cmd_check },
	{ "run", cmd_run },
	{ "test", cmd_test },
	{ "render", cmd_render },
	{ "render-cuda", cmd_render_cuda },
	{ "llvm", cmd_llvm },
	{ "ptx", cmd_ptx },
	{ "compile", cmd_compile },
	{ "opt", cmd_opt },
};

int main(int argc, char **argv)
{
	/* a line per write: a diagnostic's caret line was one write per character */
	static char errbuf[1 << 14];
	setvbuf(stderr, errbuf, _IOLBF, sizeof errbuf);
	if (argc < 2) {
		fputs(usage, stderr);
		return UIR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("uir 0.1.0");
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	uir_eprintf(stderr, "uir: unknown command '%s'\n", argv[1]);
	fputs(usage, stderr);
	return UIR_EXIT_USAGE;
}
