/* directives.c - reading a test file's directives (docs/testing.md, "Directives").
 *
 * The directives are the file's leading lines that start with `#`, up to the first line that
 * does not, which match one of these forms exactly (trailing blanks and a CR are ignored):
 *
 *     # run                      # render            # strict
 *     # expect NAME: v0 v1 ...   # cuda              # cuda: invalid
 *     # error EXXXX              # cuda speed: X
 *
 * Every other leading comment line is prose. Contradictory directives (`# error` with a mode
 * that runs the program, two different codes, two `# expect` lines for one buffer) make the
 * test fail with a message rather than guess what was meant.
 */
#include "runner_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

/* Modes that run the program, and every mode (for "no mode means `# run`"). */
#define RUNS_PROGRAM (UT_MODE_RUN | UT_MODE_RENDER | UT_MODE_CUDA | UT_MODE_CUDA_SPEED)
#define ANY_MODE (RUNS_PROGRAM | UT_MODE_ERROR | UT_MODE_FAULT | UT_MODE_CUDA_INVALID)

static void set_bad(UtSpec *spec, char *msg)
{
	if (spec->bad)
		free(msg); /* the first problem is the one reported */
	else
		spec->bad = msg;
}

static bool is_name(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* `# error EXXXX`: the code, E and four digits. */
static bool parse_error(const char *rest, UtSpec *spec)
{
	if (strlen(rest) != 5 || rest[0] != 'E')
		return false;
	for (int i = 1; i < 5; i++)
		if (!isdigit((unsigned char)rest[i]))
			return false;
	if (spec->error[0] && strcmp(spec->error, rest) != 0)
		set_bad(spec, ut_format("two different # error directives (%s and %s)",
		                        spec->error, rest));
	else
		memcpy(spec->error, rest, 6);
	spec->modes |= strcmp(rest, "E0601") == 0 ? UT_MODE_FAULT : UT_MODE_ERROR;
	return true;
}

/* `# cuda speed: X`: X a positive finite number. */
static bool parse_speed(const char *rest, UtSpec *spec)
{
	char *end;
	errno = 0;
	double x = strtod(rest, &end);
	if (end == rest || *end || errno || !isfinite(x) || x <= 0 || isspace((unsigned char)*rest))
		return false;
	if (spec->speed != 0 && spec->speed != x)
		set_bad(spec, ut_format("two different # cuda speed directives (%g and %g)",
		                        spec->speed, x));
	spec->speed = x;
	spec->modes |= UT_MODE_CUDA_SPEED;
	return true;
}

static int cmp_expect(const void *a, const void *b)
{
	return strcmp(((const UtExpect *)a)->name, ((const UtExpect *)b)->name);
}

/* `# expect NAME: v0 v1 ...` (REST is what follows "# expect "). */
static bool parse_expect(const char *rest, int line, UtSpec *spec)
{
	const char *colon = strchr(rest, ':');
	if (!colon || !is_name(rest, (size_t)(colon - rest)))
		return false;
	const char *p = colon + 1;
	if (*p && *p != ' ' && *p != '\t')
		return false;
	UtExpect e = { ut_format("%.*s", (int)(colon - rest), rest), NULL, 0, line };
	size_t cap = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != ' ' && *q != '\t')
			q++;
		if ((size_t)e.nvals == cap)
			e.vals = ut_xrealloc(e.vals, (cap = cap ? 2 * cap : 16) * sizeof *e.vals);
		e.vals[e.nvals++] = ut_format("%.*s", (int)(q - p), p);
		p = q;
	}
	/* the names seen so far, in a tree (glibc's tsearch): one look-up per line */
	UtExpect *key = ut_xmalloc(sizeof *key);
	*key = e;
	UtExpect **found = tsearch(key, &spec->names, cmp_expect);
	if (!found)
		ut_xmalloc(SIZE_MAX); /* out of memory: the runner's message and exit */
	if (*found != key) {
		set_bad(spec, ut_format("two # expect lines for buffer %s (lines %d and %d)",
		                        e.name, (*found)->line, line));
		free(key);
	}
	if ((size_t)spec->nexpects == spec->capexpects) {
		spec->capexpects = spec->capexpects ? 2 * spec->capexpects : 8;
		spec->expects = ut_xrealloc(spec->expects, spec->capexpects * sizeof e);
	}
	spec->expects[spec->nexpects++] = e;
	return true;
}

/* Applies one leading comment line LINE (trailing blanks removed); prose is ignored. */
static void parse_line(const char *line, int lineno, UtSpec *spec)
{
	static const struct { const char *text; unsigned mode; } plain[] = {
		{ "# run", UT_MODE_RUN },
		{ "# render", UT_MODE_RENDER },
		{ "# cuda", UT_MODE_CUDA },
		{ "# cuda: invalid", UT_MODE_CUDA_INVALID },
		{ "# strict", UT_MODE_STRICT },
	};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
		if (strcmp(line, plain[i].text) == 0) {
			spec->modes |= plain[i].mode;
			return;
		}
	if (strncmp(line, "# error ", 8) == 0 && parse_error(line + 8, spec))
		return;
	if (strncmp(line, "# cuda speed: ", 14) == 0 && parse_speed(line + 14, spec))
		return;
	if (strncmp(line, "# expect ", 9) == 0)
		parse_expect(line + 9, lineno, spec);
}

/* Rejects combinations that cannot all hold, and adds the default mode. */
static void settle(UtSpec *spec)
{
	unsigned m = spec->modes;
	if (spec->nexpects)
		m |= UT_MODE_RUN; /* expectations are checked against run */
	if (m & (UT_MODE_ERROR | UT_MODE_FAULT)) {
		const struct { unsigned mode; const char *text; } clash[] = {
			{ UT_MODE_RENDER, "# render" },
			{ UT_MODE_CUDA, "# cuda" },
			{ UT_MODE_CUDA_SPEED, "# cuda speed" },
			{ UT_MODE_CUDA_INVALID, "# cuda: invalid" },
			{ UT_MODE_RUN, spec->nexpects ? "# expect" : "# run" },
		};
		for (size_t i = 0; i < sizeof clash / sizeof clash[0]; i++)
			if (m & clash[i].mode)
				set_bad(spec, ut_format("# error %s cannot be combined with %s",
				                        spec->error, clash[i].text));
	}
	if ((m & UT_MODE_CUDA_INVALID) && (m & (UT_MODE_CUDA | UT_MODE_CUDA_SPEED)))
		set_bad(spec, ut_strdup("# cuda: invalid cannot be combined with # cuda"));
	if (!(m & ANY_MODE))
		m |= UT_MODE_RUN;
	spec->modes = m;
}

void ut_parse_spec(const char *text, size_t len, UtSpec *spec)
{
	memset(spec, 0, sizeof *spec);
	size_t i = 0;
	int lineno = 0;
	while (i < len && text[i] == '#') {
		size_t end = i;
		while (end < len && text[end] != '\n')
			end++;
		size_t n = end - i;
		while (n > 0 && (text[i + n - 1] == ' ' || text[i + n - 1] == '\t' ||
		                 text[i + n - 1] == '\r'))
			n--;
		char *line = ut_format("%.*s", (int)n, text + i);
		parse_line(line, ++lineno, spec);
		free(line);
		i = end + 1;
	}
	tdestroy(spec->names, free);
	spec->names = NULL;
	settle(spec);
}

int ut_read_spec(const char *path, UtSpec *spec, char **why)
{
	memset(spec, 0, sizeof *spec);
	FILE *f = fopen(path, "r");
	if (!f) {
		*why = ut_format("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* Only the leading comment lines matter: stop at the first other line. */
	UtBuf head = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0 && line[0] == '#')
		ut_buf_add(&head, line, (size_t)n);
	bool failed = ferror(f);
	free(line);
	fclose(f);
	if (failed) {
		*why = ut_format("cannot read %s", path);
		ut_buf_free(&head);
		return -1;
	}
	ut_parse_spec(head.data ? head.data : "", head.len, spec);
	ut_buf_free(&head);
	return 0;
}

void ut_spec_free(UtSpec *spec)
{
	for (int i = 0; i < spec->nexpects; i++) {
		for (int j = 0; j < spec->expects[i].nvals; j++)
			free(spec->expects[i].vals[j]);
		free(spec->expects[i].vals);
		free(spec->expects[i].name);
	}
	free(spec->expects);
	free(spec->bad);
	memset(spec, 0, sizeof *spec);
}
