/* check.c - the command `uir check` (docs/commands.md): load and check a program, print its
 * diagnostics, print nothing and exit 0 when it is valid.
 *
 *   uir check [--strict] [--no-exact] [--footprint OUT.svg] FILE
 *
 * --footprint also writes the picture of what each checked code touches (check/footprint.h),
 * valid program or not, once the race rules have run; the diagnostics and the exit status
 * are check's own, and a picture that cannot be written is exit 1 with nothing left behind.
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include "../check/footprint.h"
#include <stdlib.h>
#include <getopt.h>

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "no-exact", no_argument, NULL, 'x' },
		{ "footprint", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	const char *footprint = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': flags |= UIR_CHECK_STRICT; break;
		case 'x': flags |= UIR_CHECK_NO_EXACT; break;
		case 'f':
			if (!*optarg)
				return usage_error("check", "--footprint needs a value (see 'uir check --help')");
			footprint = optarg;
			break;
		case 'h':
			printf("usage: uir check [--strict] [--no-exact] [--footprint OUT.svg] FILE\n"
			       "\n"
			       "Checks the program (names, types, certain faults, axes, race rules); prints nothing\n"
			       "and exits 0 when it is valid.\n"
			       "\n"
			       "options:\n"
			       "  --strict          the course's race rules only (no extensions, no exact analysis)\n"
			       "  --no-exact        every extension but the exact analysis\n"
			       "  --footprint OUT   also draw, as SVG in OUT, which iterations read and write each\n"
			       "                    element of each memory in every checked code, with the\n"
			       "                    collisions found in red (written also when the check fails)\n");
			return 0;
		default: return cli_bad_option("check", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("check", "expected one FILE");
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p) {
		if (footprint)
			uir_eprintf(stderr, "uir check: no footprint written to %s: the program does not load\n", footprint);
		return UIR_EXIT_ERROR;
	}
	int n = footprint ? uir_check_footprint(p, flags, stderr) : uir_check(p, flags, stderr);
	int rc = n ? UIR_EXIT_ERROR : UIR_EXIT_OK;
	if (footprint) {
		const char *why = NULL;
		size_t len;
		char *svg = uir_footprint_svg(p, &len);
		if (!svg)
			uir_eprintf(stderr, "uir check: no footprint written to %s: the check stops before the race rules\n",
				    footprint);
		else if (fp_write_file(footprint, svg, len, &why) != 0) {
			uir_eprintf(stderr, "uir check: cannot write %s: %s\n", footprint, why);
			rc = UIR_EXIT_ERROR;
		}
		free(svg);
	}
	uir_free(p);
	return rc;
}
