/* cli.h - the subcommands of the `uir` executable, each `int cmd_X(int argc, char **argv)`
 * with argv[0] the subcommand's name; each returns the process's exit status. */
#ifndef UIR_CLI_H
#define UIR_CLI_H

#include <stdio.h>

int cmd_check(int argc, char **argv);       /* src/cli/check.c */
int cmd_run(int argc, char **argv);         /* src/cli/run.c */
int cmd_llvm(int argc, char **argv);        /* src/cli/llvm.c */
int cmd_compile(int argc, char **argv);     /* src/cli/llvm.c */
int cmd_render(int argc, char **argv);      /* src/cli/render.c */
int cmd_render_cuda(int argc, char **argv); /* src/cli/render.c */
int cmd_ptx(int argc, char **argv);         /* src/cli/ptx.c */
int cmd_test(int argc, char **argv);        /* src/cli/test.c */
int cmd_opt(int argc, char **argv);         /* src/cli/opt.c */

/* Prints buffer M (its DATA, m->size elements of m->ty) in `uir run`'s format
 * (`NAME: v0 v1 ...`, runtime/uir_print.h); used by run and `ptx --run`. src/cli/run.c.
 */
void cli_print_buffer(FILE *f, const struct Mem *m, const void *d);

/* Prints `uir CMD: message` (`uir: message` when CMD is NULL) for bad usage and returns
 * UIR_EXIT_USAGE. src/cli/usage.c. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The usage error of getopt_long()'s result C (':' a missing value, else an unknown option;
 * call it after optstring ":" and opterr = 0) for subcommand CMD, ARGV as given to it.
 * Returns UIR_EXIT_USAGE. src/cli/usage.c. */
int cli_bad_option(const char *cmd, int c, char **argv);

#endif
