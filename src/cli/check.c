/* check.c - the command `uir check` (docs/commands.md): load and check a program, print its
 * diagnostics, print nothing and exit 0 when it is valid.
 *
 *   uir check [--strict] [--no-exact] FILE
 */
#include "../uir_internal.h"
#include "cli.h"
#include <getopt.h>

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "no-exact", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': flags |= UIR_CHECK_STRICT; break;
		case 'x': flags |= UIR_CHECK_NO_EXACT; break;
		case 'h':
			printf("usage: uir check [--strict] [--no-exact] FILE\n");
			return 0;
		default: return cli_bad_option("check", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("check", "expected one FILE");
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	int n = uir_check(p, flags, stderr);
	uir_free(p);
	return n ? UIR_EXIT_ERROR : UIR_EXIT_OK;
}
