/* render.c - the commands `uir render` (portable C, docs/language.md 8.1) and `uir render-cuda`
 * (CUDA C++, docs/language.md 8.3):
 *
 *   uir render [--main] [-o OUT] FILE
 *   uir render-cuda [--main] [-o OUT] FILE
 *
 * Both load and check FILE (errors: the diagnostics, exit 1), render it into memory and
 * print it (or write OUT) only when rendering succeeded. render-cuda exits 2 with one line
 * `invalid: REASON` on standard error, and nothing on standard output, for a valid
 * program that is not in kernel form.
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include "../render/render_int.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char render_usage[] =
	"usage: uir %s [--main] [-o OUT] FILE\n"
	"\n"
	"%s\n"
	"\n"
	"options:\n"
	"  --main      add a main() that sets up the buffers as `uir run` does, runs the\n"
	"              program and prints every buffer in run's format\n"
	"  -o OUT      write to OUT instead of standard output\n";

static int write_out(const char *cmd, const char *path, const Str *text)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	if (!f) {
		uir_eprintf(stderr, "uir %s: cannot write %s: %s\n", cmd, path, strerror(errno));
		return UIR_EXIT_ERROR;
	}
	bool ok = fwrite(str_cstr(text), 1, text->n, f) == text->n;
	ok &= fflush(f) == 0;
	if (path)
		ok &= fclose(f) == 0;
	if (!ok) {
		uir_eprintf(stderr, "uir %s: cannot write %s: %s\n", cmd, path ? path : "the output", strerror(errno));
		return UIR_EXIT_ERROR;
	}
	return UIR_EXIT_OK;
}

static int render_cmd(int argc, char **argv, bool cuda)
{
	const char *cmd = cuda ? "render-cuda" : "render";
	static const struct option longopts[] = {
		{ "main", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	RenderOptions opt = { 0 };
	const char *outpath = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			opt.main = true;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			printf(render_usage, cmd,
			       cuda ? "Prints the program as CUDA C++ (docs/language.md 8.3); a program not in kernel form\n"
				      "exits 2 with one line `invalid: REASON`."
				    : "Prints the program as portable C11 (docs/language.md 8.1): cc -std=c11 -O2 -pthread FILE -lm.");
			return UIR_EXIT_OK;
		default:
			return cli_bad_option(cmd, c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error(cmd, "expected one FILE (see 'uir %s --help')", cmd);
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	Str out = { 0 };
	char why[512];
	int rc = render_program(p, cuda, &opt, &out, why, sizeof why);
	if (rc == UIR_EXIT_OK)
		rc = write_out(cmd, outpath, &out);
	str_free(&out);
	uir_free(p);
	return rc;
}

int cmd_render(int argc, char **argv)
{
	return render_cmd(argc, argv, false);
}

int cmd_render_cuda(int argc, char **argv)
{
	return render_cmd(argc, argv, true);
}
