/* opt.c - the command `uir opt` (docs/commands.md): the program as the loop optimiser
 * (src/opt/) lets `run` execute it, printed as .uir: the program's own text, or the text
 * opt_rewrite() made of it (privatisation, scalar expansion), with `thread` on every loop
 * that runs on the thread pool, and a comment above every loop nest that runs
 * interchanged. The text checks, and runs to the same bits.
 *
 *   uir opt FILE
 */
#include "../uir_internal.h"
#include "../opt/opt.h"
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>

int cmd_opt(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: uir opt FILE\n\nPrints the program as `uir run` executes it after the loop optimiser:\n"
			       "`thread` on the loops it runs on the thread pool (with the allocs it\n"
			       "privatises), its scalar expansions written out, a comment on the nests it\n"
			       "interchanges (docs/llvm.md, \"Loop optimisation\").\n");
			return 0;
		default: return cli_bad_option("opt", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("opt", "expected one FILE");
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	if (uir_check(p, 0, stderr)) {
		uir_free(p);
		return UIR_EXIT_ERROR;
	}
	opt_program(p);
	UirProgram *q = opt_rewrite(p, true);
	if (q) { /* else it runs as written, with the decisions that need no rewrite */
		uir_free(p);
		p = q;
	}
	size_t len;
	char *text = opt_text(p, &len);
	fwrite(text, 1, len, stdout);
	free(text);
	uir_free(p);
	return fflush(stdout) ? UIR_EXIT_ERROR : UIR_EXIT_OK;
}
