/* opt.c - the command `uir opt` (docs/commands.md): the program as the loop optimiser
 * (src/opt/) lets `run` execute it, printed as .uir: the program's own text, or the text
 * opt_rewrite() made of it (privatisation, scalar expansion), with `thread` on every loop
 * that runs on the thread pool, and a comment above every loop nest that runs
 * interchanged. The text checks, and runs to the same bits.
 *
 *   uir opt [--threads N] FILE
 */
#include "../uir_internal.h"
#include "../opt/opt.h"
#include "cli.h"
#include "engine.h"
#include <getopt.h>
#include <stdlib.h>

int cmd_opt(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int c, threads = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: uir opt [--threads N] FILE\n\nPrints the program as `uir run` executes it after the loop optimiser:\n"
			       "`thread` on the loops it runs on the thread pool (with the allocs it\n"
			       "privatises), its scalar expansions written out, a comment on the nests it\n"
			       "interchanges (docs/llvm.md, \"Loop optimisation\").\n\n"
			       "  --threads N   as `uir run --threads N` executes it, 1 to 1024 (default:\n"
			       "                UIR_THREADS, else the CPUs this process may use)\n");
			return 0;
		case 't':
			if ((threads = engine_parse_threads(optarg)) < 0)
				return usage_error("opt", "--threads needs an integer from 1 to 1024, found '%s'", optarg);
			break;
		default: return cli_bad_option("opt", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("opt", "expected one FILE");
	if (!threads && (threads = engine_env_threads("opt")) < 0)
		return UIR_EXIT_USAGE;
	UirProgram *p = uir_load(argv[optind], stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	p->inits_stand = true; /* as a run without --input (docs/analysis.md, "Value ranges") */
	if (uir_check(p, 0, stderr)) {
		uir_free(p);
		return UIR_EXIT_ERROR;
	}
	p->opt_threads = threads;
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
