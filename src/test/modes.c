/* modes.c - what each test mode runs, and how each step's result is judged.
 *
 * A test is a set of steps (UtStep), child commands that run one after another in the enum's
 * order: check, run, then the back ends. ut_step_argv() builds a step's command line and
 * ut_step_judge() decides from its exit status and outputs whether it passed. The mode table
 * maps each directive to its steps: BASE steps use commands that `uir` always has (check,
 * run), OWN steps need a command or a tool that may be missing. A mode whose command `uir`
 * does not have yet still runs its base steps, and the test's line says which part was not
 * run; a mode whose tool is missing (no C compiler) runs its base steps, and the test is
 * skipped unless they fail.
 *
 * To add a mode (GPU timing, `--cuda-docker`, `--ptx`): add its steps to UtStep, a case to
 * ut_step_argv() and ut_step_judge(), and one row to the mode table.
 */
#include "test_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `uir` has the commands a mode needs: set each to 1 when the command lands.
 * UIR_TEST_HAVE_RENDER: `uir render --main FILE`.
 * UIR_TEST_HAVE_RENDER_CUDA: `uir render-cuda [--main] FILE`; the `# cuda` emulator also
 * needs UIR_TEST_CUDA_EMU_HEADER, the path of the header the emulator force-includes. */
#ifndef UIR_TEST_HAVE_RENDER
#define UIR_TEST_HAVE_RENDER 1
#endif
#ifndef UIR_TEST_HAVE_RENDER_CUDA
#define UIR_TEST_HAVE_RENDER_CUDA 1
#endif

#define S(x) (1u << UT_STEP_##x)

/* ---- tools ---- */

/* The words of the environment variable VAR, or of DEF when it is unset or blank
 * (a malloc'd NULL-ended vector). Words are split at blanks; there is no quoting. */
static char **tool_words(const char *var, const char *def)
{
	const char *s = getenv(var);
	if (!s || !s[strspn(s, " \t")])
		s = def;
	char **w = NULL;
	size_t n = 0;
	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			break;
		size_t len = strcspn(s, " \t");
		w = ut_xrealloc(w, (n + 2) * sizeof *w);
		w[n++] = ut_format("%.*s", (int)len, s);
		s += len;
	}
	w = ut_xrealloc(w, (n + 1) * sizeof *w);
	w[n] = NULL;
	return w;
}

/* Whether PROG can be run: a path that is executable, or a name found in PATH. */
static bool have_program(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full = ut_format("%.*s/%s", (int)len, len ? path : ".", prog);
		bool ok = access(full, X_OK) == 0;
		free(full);
		if (ok)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* Whether the compiler in VAR (default DEF) exists; *NAME is its first word. Looked up once. */
static bool have_compiler(const char *var, const char *def, int *cache, char **name)
{
	char **w = tool_words(var, def);
	*name = ut_strdup(w[0] ? w[0] : def);
	if (*cache < 0)
		*cache = w[0] && have_program(w[0]);
	ut_argv_free(w);
	return *cache;
}

/* ---- availability of the modes ---- */

typedef enum Avail { AVAIL_YES, AVAIL_NOT_IMPLEMENTED, AVAIL_NO_TOOL } Avail;

static Avail avail_render(UtConfig *cfg, char **why)
{
	static int cc = -1;
	char *name;
	(void)cfg;
	if (!UIR_TEST_HAVE_RENDER) {
		*why = ut_strdup("render: not implemented yet");
		return AVAIL_NOT_IMPLEMENTED;
	}
	bool ok = have_compiler("CC", "cc", &cc, &name);
	*why = ok ? NULL : ut_format("render: no C compiler (%s not found)", name);
	free(name);
	return ok ? AVAIL_YES : AVAIL_NO_TOOL;
}

static Avail avail_cuda(UtConfig *cfg, char **why)
{
	(void)cfg;
#if UIR_TEST_HAVE_RENDER_CUDA && defined(UIR_TEST_CUDA_EMU_HEADER)
	static int cxx = -1;
	char *name;
	bool ok = have_compiler("CXX", "c++", &cxx, &name);
	*why = ok ? NULL : ut_format("cuda: no C++ compiler (%s not found)", name);
	free(name);
	return ok ? AVAIL_YES : AVAIL_NO_TOOL;
#else
	*why = ut_strdup("cuda: not implemented yet");
	return AVAIL_NOT_IMPLEMENTED;
#endif
}

/* GPU timing against NAME.ref.cu is not written yet. When it is: on a GPU, the `# cuda`
 * steps plus the timing steps; without one, the CUDA build only (spec section 10). */
static Avail avail_cuda_speed(UtConfig *cfg, char **why)
{
	(void)cfg;
	*why = ut_strdup("cuda speed: not implemented yet");
	return AVAIL_NOT_IMPLEMENTED;
}

static Avail avail_cuda_invalid(UtConfig *cfg, char **why)
{
	(void)cfg;
	if (UIR_TEST_HAVE_RENDER_CUDA) {
		*why = NULL;
		return AVAIL_YES;
	}
	*why = ut_strdup("cuda: invalid: not implemented yet");
	return AVAIL_NOT_IMPLEMENTED;
}

/* ---- the mode table ---- */

typedef struct ModeInfo {
	unsigned mode;     /* UT_MODE_* */
	unsigned base;     /* steps always run */
	unsigned own;      /* steps run when avail() says AVAIL_YES */
	Avail (*avail)(UtConfig *cfg, char **why); /* NULL: always; *WHY a malloc'd reason */
} ModeInfo;

static const ModeInfo mode_table[] = {
	{ UT_MODE_RUN, S(RUN), 0, NULL },
	{ UT_MODE_ERROR, S(CHECK), 0, NULL },
	{ UT_MODE_FAULT, S(CHECK) | S(RUN), 0, NULL },
	{ UT_MODE_STRICT, S(CHECK), 0, NULL },
	{ UT_MODE_RENDER, S(RUN), S(RENDER) | S(CC) | S(EXEC_C), avail_render },
	{ UT_MODE_CUDA, S(RUN), S(RENDER_CUDA) | S(CXX_EMU) | S(EXEC_CUDA), avail_cuda },
	{ UT_MODE_CUDA_SPEED, S(RUN), S(RENDER_CUDA) | S(CXX_EMU), avail_cuda_speed },
	{ UT_MODE_CUDA_INVALID, S(CHECK), S(CUDA_INVALID), avail_cuda_invalid },
};

static void add_note(UtBuf *b, const char *s)
{
	if (b->len)
		ut_buf_puts(b, "; ");
	ut_buf_puts(b, s);
}

void ut_plan(UtConfig *cfg, UtTest *t)
{
	char *why = NULL;
	if (ut_read_spec(t->path, &t->spec, &why) != 0) {
		t->fail = why;
		return;
	}
	if (t->spec.bad) {
		t->fail = ut_format("directives: %s", t->spec.bad);
		return;
	}
	for (size_t i = 0; i < sizeof mode_table / sizeof mode_table[0]; i++) {
		const ModeInfo *m = &mode_table[i];
		if (!(t->spec.modes & m->mode))
			continue;
		t->plan |= m->base;
		if (!m->own)
			continue;
		Avail a = m->avail ? m->avail(cfg, &why) : AVAIL_YES;
		if (a == AVAIL_YES)
			t->plan |= m->own;
		else
			add_note(a == AVAIL_NOT_IMPLEMENTED ? &t->notes : &t->skips, why);
		free(why);
		why = NULL;
	}
}

/* ---- temporary files ---- */

/* Removes PATH and, for a folder, everything in it. */
static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *sub = ut_format("%s/%s", path, e->d_name);
			remove_tree(sub);
			free(sub);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* TEST's own folder under the runner's temporary folder, made on first need. */
static const char *test_dir(UtConfig *cfg, UtTest *t)
{
	if (t->dir)
		return t->dir;
	if (!cfg->tmpdir) {
		const char *base = getenv("TMPDIR");
		char *tmpl = ut_format("%s/uir-test-XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(tmpl)) {
			t->fail = ut_format("cannot make a temporary folder %s: %s", tmpl, strerror(errno));
			free(tmpl);
			return NULL;
		}
		cfg->tmpdir = tmpl;
	}
	char *tmpl = ut_format("%s/t-XXXXXX", cfg->tmpdir);
	if (!mkdtemp(tmpl)) {
		t->fail = ut_format("cannot make a temporary folder %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return t->dir = tmpl;
}

void ut_test_cleanup(UtTest *t)
{
	if (t->dir)
		remove_tree(t->dir);
	free(t->dir);
	t->dir = NULL;
}

void ut_remove_tmpdir(UtConfig *cfg)
{
	if (cfg->tmpdir)
		remove_tree(cfg->tmpdir);
	free(cfg->tmpdir);
	cfg->tmpdir = NULL;
}

/* Writes N bytes of DATA to the file DIR/NAME; false with TEST->fail set on an error. */
static bool write_file(UtTest *t, const char *dir, const char *name, const char *data, size_t n)
{
	char *path = ut_format("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(data, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		t->fail = ut_format("cannot write %s: %s", path, strerror(errno));
	free(path);
	return ok;
}

/* ---- command lines ---- */

typedef struct Argv {
	char **v;
	size_t n;
} Argv;

static void push(Argv *a, char *owned)
{
	a->v = ut_xrealloc(a->v, (a->n + 2) * sizeof *a->v);
	a->v[a->n++] = owned;
	a->v[a->n] = NULL;
}

static void push_words(Argv *a, const char *var, const char *def)
{
	char **w = tool_words(var, def);
	for (char **p = w; *p; p++)
		push(a, *p);
	free(w);
}

void ut_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

char **ut_step_argv(UtConfig *cfg, UtTest *t, UtStep step)
{
	Argv a = { NULL, 0 };
	const char *dir = NULL;
	if (step == UT_STEP_CC || step == UT_STEP_EXEC_C || step == UT_STEP_CXX_EMU ||
	    step == UT_STEP_EXEC_CUDA) {
		dir = test_dir(cfg, t);
		if (!dir)
			return NULL;
	}
	switch (step) {
	case UT_STEP_CHECK:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("check"));
		if (t->spec.modes & UT_MODE_STRICT)
			push(&a, ut_strdup("--strict"));
		break;
	case UT_STEP_RUN:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("run"));
		if (cfg->engine) {
			push(&a, ut_strdup("--engine"));
			push(&a, ut_strdup(cfg->engine));
		}
		break;
	case UT_STEP_RENDER:
	case UT_STEP_RENDER_CUDA:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup(step == UT_STEP_RENDER ? "render" : "render-cuda"));
		push(&a, ut_strdup("--main"));
		break;
	case UT_STEP_CC: /* spec 8.3 */
		push_words(&a, "CC", "cc");
		push(&a, ut_strdup("-std=c11"));
		push(&a, ut_strdup("-O2"));
		push(&a, ut_strdup("-pthread"));
		push(&a, ut_strdup("-o"));
		push(&a, ut_format("%s/prog", dir));
		push(&a, ut_format("%s/prog.c", dir));
		push(&a, ut_strdup("-lm"));
		return a.v;
	case UT_STEP_CXX_EMU: /* spec 8.4, the emulator */
		push_words(&a, "CXX", "c++");
		push(&a, ut_strdup("-std=c++17"));
		push(&a, ut_strdup("-O2"));
		push(&a, ut_strdup("-pthread"));
		push(&a, ut_strdup("-ffp-contract=off"));
#ifdef UIR_TEST_CUDA_EMU_HEADER
		push(&a, ut_strdup("-include"));
		push(&a, ut_strdup(UIR_TEST_CUDA_EMU_HEADER));
#endif
		push(&a, ut_strdup("-o"));
		push(&a, ut_format("%s/prog_cuda", dir));
		push(&a, ut_strdup("-x"));
		push(&a, ut_strdup("c++"));
		push(&a, ut_format("%s/prog.cu", dir));
		return a.v;
	case UT_STEP_EXEC_C:
		push(&a, ut_format("%s/prog", dir));
		return a.v;
	case UT_STEP_EXEC_CUDA:
		push(&a, ut_format("%s/prog_cuda", dir));
		return a.v;
	case UT_STEP_CUDA_INVALID:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("render-cuda"));
		break;
	case UT_NSTEPS:
		break;
	}
	push(&a, ut_strdup(t->path));
	return a.v;
}

/* ---- judging ---- */

void ut_step_record(UtTest *t, char **argv, const UtChild *c)
{
	enum { MAX_LINES = 200 };
	UtBuf *d = &t->detail;
	ut_buf_puts(d, "$");
	for (char **p = argv; *p; p++)
		ut_buf_printf(d, " %s", *p);
	char *st = ut_status_text(c->status);
	ut_buf_printf(d, "\n%s\n", st);
	free(st);
	const UtBuf *outs[2] = { &c->out, &c->err };
	for (int k = 0; k < 2; k++) {
		const UtBuf *b = outs[k];
		if (!b->len)
			continue;
		ut_buf_printf(d, "--- %s\n", k ? "stderr" : "stdout");
		size_t end = 0;
		int lines = 0;
		while (end < b->len && lines < MAX_LINES)
			if (b->data[end++] == '\n')
				lines++;
		ut_buf_add(d, b->data, end);
		if (end && b->data[end - 1] != '\n')
			ut_buf_puts(d, "\n");
		if (end < b->len || b->truncated)
			ut_buf_printf(d, "... (%zu more bytes)\n", b->len - end);
	}
}

/* Fails TEST with a malloc'd MSG and the step's details. */
static bool fail(UtTest *t, char **argv, const UtChild *c, char *msg)
{
	if (!t->fail)
		t->fail = msg;
	else
		free(msg);
	ut_step_record(t, argv, c);
	return false;
}

/* "run exited 70: internal error: ...", "cc was killed by signal 9 (Killed)". */
static bool fail_status(UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	char *st = ut_status_text(c->status);
	char *line = ut_first_line(c->err.data ? c->err.data : "", c->err.len, 300);
	char *msg = *line ? ut_format("%s %s: %s", ut_step_name(step), st, line)
	                  : ut_format("%s %s", ut_step_name(step), st);
	free(st);
	free(line);
	return fail(t, argv, c, msg);
}

/* The first `...: error[EXXXX]: ...` line of a child's standard error: copies the code to
 * CODE and returns the line's start, or NULL when there is none. */
static const char *first_diagnostic(const UtBuf *err, char code[6])
{
	const char *s = err->data ? err->data : "", *stop = s + err->len;
	while (s < stop) {
		const char *e = memchr(s, '\n', (size_t)(stop - s));
		if (!e)
			e = stop;
		for (const char *p = s; p + 14 <= e; p++) {
			if (memcmp(p, ": error[E", 9) != 0)
				continue;
			bool ok = memcmp(p + 13, "]", 1) == 0;
			for (int i = 9; i < 13; i++)
				ok = ok && p[i] >= '0' && p[i] <= '9';
			if (ok) {
				memcpy(code, p + 8, 5);
				code[5] = '\0';
				return s;
			}
		}
		s = e + 1;
	}
	return NULL;
}

static char *diagnostic_line(const UtBuf *err, const char *line)
{
	return ut_first_line(line, err->len - (size_t)(line - err->data), 300);
}

static bool judge_check(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	bool strict = t->spec.modes & UT_MODE_STRICT;
	if (!(t->spec.modes & UT_MODE_ERROR)) {
		if (code == 0)
			return true;
		return fail_status(t, UT_STEP_CHECK, argv, c);
	}
	char got[6];
	const char *line = first_diagnostic(&c->err, got);
	if (code == 0)
		return fail(t, argv, c, ut_format("expected error %s, but check%s accepted the "
		                                  "program", t->spec.error, strict ? " --strict" : ""));
	if (code != 1)
		return fail_status(t, UT_STEP_CHECK, argv, c);
	if (!line)
		return fail(t, argv, c, ut_format("expected error %s, but check exited 1 without an "
		                                  "error[EXXXX] diagnostic", t->spec.error));
	if (strcmp(got, t->spec.error) == 0)
		return true;
	char *text = diagnostic_line(&c->err, line);
	char *msg = ut_format("expected error %s, check reported %s: %s", t->spec.error, got, text);
	free(text);
	return fail(t, argv, c, msg);
}

/* The run step of an `# error E0601` test: a fault, with nothing on standard output. */
static bool judge_fault(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	char got[6];
	const char *line = first_diagnostic(&c->err, got);
	if (code == 0)
		return fail(t, argv, c, ut_strdup("expected a fault (E0601), but run succeeded"));
	if (code != 1)
		return fail_status(t, UT_STEP_RUN, argv, c);
	if (!line)
		return fail(t, argv, c, ut_strdup("expected error E0601, but run exited 1 without an "
		                                  "error[EXXXX] diagnostic"));
	if (strcmp(got, "E0601") != 0) {
		char *text = diagnostic_line(&c->err, line);
		char *msg = ut_format("expected error E0601, run reported %s: %s", got, text);
		free(text);
		return fail(t, argv, c, msg);
	}
	if (c->out.len)
		return fail(t, argv, c, ut_strdup("run faulted (E0601) but printed on standard "
		                                  "output"));
	return true;
}

static bool judge_run(UtTest *t, char **argv, const UtChild *c)
{
	if (t->spec.modes & UT_MODE_FAULT)
		return judge_fault(t, argv, c);
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, UT_STEP_RUN, argv, c);
	if (c->out.truncated)
		return fail(t, argv, c, ut_format("run printed more than %zu bytes", c->out.limit));
	t->run_len = c->out.len;
	t->run_out = ut_xmalloc(c->out.len + 1);
	memcpy(t->run_out, c->out.data ? c->out.data : "", c->out.len);
	t->run_out[c->out.len] = '\0';
	UtBuf fails = { 0 };
	int n = ut_check_expects(t->path, &t->spec, t->run_out, t->run_len, &fails);
	if (n == 0)
		return true;
	char *first = ut_first_line(fails.data, fails.len, 400);
	char *msg = n > 1 ? ut_format("%s (and %d more)", first, n - 1) : ut_strdup(first);
	free(first);
	ut_buf_add(&t->detail, fails.data, fails.len);
	ut_buf_free(&fails);
	return fail(t, argv, c, msg);
}

/* render / render-cuda --main: keep the source for the compiler. */
static bool judge_render(UtConfig *cfg, UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, step, argv, c);
	if (c->out.truncated)
		return fail(t, argv, c, ut_format("%s printed more than %zu bytes", ut_step_name(step),
		                                  c->out.limit));
	const char *dir = test_dir(cfg, t);
	const char *name = step == UT_STEP_RENDER ? "prog.c" : "prog.cu";
	if (!dir || !write_file(t, dir, name, c->out.data ? c->out.data : "", c->out.len)) {
		ut_step_record(t, argv, c);
		return false;
	}
	return true;
}

/* The rendered program: it must print exactly what run printed. */
static bool judge_exec(UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, step, argv, c);
	const char *who = step == UT_STEP_EXEC_C ? "rendered C" : "rendered CUDA";
	char *diff = ut_diff_outputs(t->run_out ? t->run_out : "", t->run_len, "run",
	                             c->out.data ? c->out.data : "", c->out.len, who);
	if (!diff)
		return true;
	char *msg = ut_format("%s differs from run: %s", who, diff);
	free(diff);
	return fail(t, argv, c, msg);
}

static bool judge_cuda_invalid(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	if (code == 0)
		return fail(t, argv, c, ut_strdup("expected render-cuda to reject the program "
		                                  "(exit 2, not kernel form), but it rendered it"));
	if (code != 2)
		return fail_status(t, UT_STEP_CUDA_INVALID, argv, c);
	if (c->out.len)
		return fail(t, argv, c, ut_strdup("render-cuda exited 2 but printed on standard "
		                                  "output"));
	if (c->err.len < 9 || memcmp(c->err.data, "invalid: ", 9) != 0)
		return fail(t, argv, c, ut_strdup("render-cuda exited 2 without an 'invalid: REASON' "
		                                  "line"));
	return true;
}

/* ---- the step table ---- */

static const char *const step_names[UT_NSTEPS] = {
	[UT_STEP_CHECK] = "check",
	[UT_STEP_RUN] = "run",
	[UT_STEP_RENDER] = "render",
	[UT_STEP_CC] = "cc",
	[UT_STEP_EXEC_C] = "rendered C",
	[UT_STEP_RENDER_CUDA] = "render-cuda",
	[UT_STEP_CXX_EMU] = "c++ (CUDA emulator)",
	[UT_STEP_EXEC_CUDA] = "rendered CUDA",
	[UT_STEP_CUDA_INVALID] = "render-cuda",
};

const char *ut_step_name(UtStep step)
{
	return step < UT_NSTEPS ? step_names[step] : "?";
}

bool ut_step_judge(UtConfig *cfg, UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	switch (step) {
	case UT_STEP_CHECK:
		return judge_check(t, argv, c);
	case UT_STEP_RUN:
		return judge_run(t, argv, c);
	case UT_STEP_RENDER:
	case UT_STEP_RENDER_CUDA:
		return judge_render(cfg, t, step, argv, c);
	case UT_STEP_CC:
	case UT_STEP_CXX_EMU:
		return ut_exit_code(c->status) == 0 || fail_status(t, step, argv, c);
	case UT_STEP_EXEC_C:
	case UT_STEP_EXEC_CUDA:
		return judge_exec(t, step, argv, c);
	case UT_STEP_CUDA_INVALID:
		return judge_cuda_invalid(t, argv, c);
	case UT_NSTEPS:
		break;
	}
	return false;
}
