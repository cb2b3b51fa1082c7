/* usage.c - the usage errors every subcommand prints: `uir CMD: message`, exit 64, and the
 * message for an option getopt_long() rejected (cli.h).
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "uir%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	uir_veprintf(stderr, fmt, ap); /* the user's words: control bytes as '?' */
	va_end(ap);
	fputc('\n', stderr);
	return UIR_EXIT_USAGE;
}

/* The option getopt_long() just rejected, as written: a long option is the word before
 * optind ("--bogus", "--hash=1"); a short one is "-z", whether or not getopt has left its
 * word (in "-zq" it stops at 'z' with optind still on the word, so the word before optind
 * is another one, the command's name for `run -zq`). optopt is 0 for an unknown long
 * option and the option's letter (or its long form's val) otherwise. */
static const char *rejected_option(char **argv, char buf[3])
{
	const char *prev = argv[optind - 1], *cur = argv[optind];
	bool in_group = cur && cur[0] == '-' && cur[1] && cur[1] != '-' && strchr(cur + 1, optopt);
	if (optopt == 0 || (!strncmp(prev, "--", 2) && !in_group))
		return prev;
	buf[0] = '-';
	buf[1] = (char)optopt;
	buf[2] = 0;
	return buf;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	char buf[3];
	const char *opt = rejected_option(argv, buf);
	if (c == ':')
		return usage_error(cmd, "%s needs a value (see 'uir %s --help')", opt, cmd);
	return usage_error(cmd, "unknown option '%s' (see 'uir %s --help')", opt, cmd);
}
