/* bulkdiff.c - uir-bulkdiff: a bulk, in-process differential check of the native engines
 * (tests/gen/README.md, "Bulk runs"). For every .uir file it loads and checks the program once, runs it in the
 * reference interpreter with 1 thread, again in the interpreter with --threads N, and in
 * the LLVM JIT with --jit-threads N (the buffers given their INIT again before each run),
 * and compares every buffer byte for byte (a NaN equals any NaN; otherwise exact bits, so
 * -0 differs from +0) and the exit statuses.
 *
 *   uir-bulkdiff [--threads N] [--jit-threads N] FILE...     (or `-`: file names on stdin)
 *
 * A file whose header (the comment lines at its top) has a line `# mutant NAME: check must
 * report CODE` (tests/gen/uirmut.py) is a mutant: it is only loaded and checked by the
 * rules (uir_check with UIR_CHECK_NO_EXACT: a mutant breaks a rule, and may still be
 * race-free for its sizes), and passes when that reports an error whose first code is
 * CODE; else `FAIL FILE: mutant NAME:
 * expected CODE, check gave GOT: LINE` (LINE: the first error's line).
 *
 * One line per file, `ok FILE` or `FAIL FILE: WHAT`, then `bulkdiff: N ok, N failed`.
 * Exits 0, 1 when a file failed, 64 for a usage error or when the JIT back end is missing.
 * tests/gen/bulk.py generates the programs and runs this in batches (tests/gen/README.md).
 */
#include "uir_internal.h"
#include "cli/buffers.h"
#include "cli/engine.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Opts {
	int threads, jit_threads;
} Opts;

/* What one file gave: the reference buffers and status, and the first difference. */
typedef struct FileRun {
	UirProgram *p;
	void **data;
	void **ref;
	int ref_rc;
	char why[512];
} FileRun;

static size_t buffer_bytes(const Mem *m)
{
	return (size_t)m->size * (size_t)uir_type_size(m->ty);
}

/* Whether element I of A and B are the same: bit for bit, or both NaN. */
static bool same_element(UirType t, const void *a, const void *b, int64_t i)
{
	Scalar x = scalar_at(a, t, i), y = scalar_at(b, t, i);
	if (t == UIR_F32)
		return (isnan(x.f32) && isnan(y.f32)) || !memcmp(&x.f32, &y.f32, sizeof x.f32);
	if (t == UIR_F64)
		return (isnan(x.f64) && isnan(y.f64)) || !memcmp(&x.f64, &y.f64, sizeof x.f64);
	return x.u == y.u;
}

/* Element I of DATA as text, into S (N bytes): floats with %.9g/%.17g and their bits. */
static void format_element(char *s, size_t n, UirType t, const void *data, int64_t i)
{
	Scalar v = scalar_at(data, t, i);
	uint32_t b32;
	switch (t) {
	case UIR_F32:
		memcpy(&b32, &v.f32, sizeof b32);
		snprintf(s, n, "%.9g (0x%08x)", (double)v.f32, (unsigned)b32);
		break;
	case UIR_F64:
		snprintf(s, n, "%.17g (0x%016llx)", v.f64, (unsigned long long)v.u);
		break;
	case UIR_U32:
	case UIR_U64:
	case UIR_U8:
	case UIR_BOOL:
		snprintf(s, n, "%llu", (unsigned long long)v.u);
		break;
	default:
		snprintf(s, n, "%lld", (long long)v.i);
		break;
	}
}

/* Compares buffer I of R->data with the reference. Returns true when equal, else writes
 * the first difference into R->why. */
static bool compare_buffer(FileRun *r, const char *engine, int i)
{
	const Mem *m = r->p->bufs[i];
	if (!memcmp(r->data[i], r->ref[i], buffer_bytes(m)))
		return true;
	for (int64_t k = 0; k < m->size; k++) {
		if (same_element(m->ty, r->data[i], r->ref[i], k))
			continue;
		char got[64], want[64];
		format_element(got, sizeof got, m->ty, r->data[i], k);
		format_element(want, sizeof want, m->ty, r->ref[i], k);
		snprintf(r->why, sizeof r->why, "%s: buffer %s[%lld] = %s, reference %s", engine, m->name,
			 (long long)k, got, want);
		return false;
	}
	return true;
}

/* Runs the program on engine E with THREADS threads over R->data. Returns its status. */
static int run_engine(FileRun *r, UirEngine e, int threads)
{
	RunOptions opt = { .threads = threads, .bounds_check = true };
	return engine_run(r->p, r->data, e, &opt, NULL);
}

/* Gives the buffers their INIT again, runs engine E and compares with the reference.
 * Returns true when everything matched; else R->why says what differed. */
static bool check_engine(FileRun *r, const char *engine, UirEngine e, int threads)
{
	if (buffers_reset(r->p, r->data, threads) != 0) {
		snprintf(r->why, sizeof r->why, "%s: cannot reset the buffers", engine);
		return false;
	}
	int rc = run_engine(r, e, threads);
	if (rc != r->ref_rc) {
		snprintf(r->why, sizeof r->why, "%s: exit status %d, reference %d", engine, rc, r->ref_rc);
		return false;
	}
	if (rc != 0) /* a fault leaves a partial result: only the statuses must agree */
		return true;
	for (int i = 0; i < r->p->nbufs; i++)
		if (!compare_buffer(r, engine, i))
			return false;
	return true;
}

/* Runs the reference (interpreter, 1 thread) and keeps a copy of every buffer. */
static void run_reference(FileRun *r)
{
	r->ref_rc = run_engine(r, UIR_ENGINE_INTERP, 1);
	r->ref = xcalloc((size_t)r->p->nbufs + 1, sizeof *r->ref);
	for (int i = 0; i < r->p->nbufs; i++) {
		size_t n = buffer_bytes(r->p->bufs[i]);
		r->ref[i] = xmalloc(n ? n : 1);
		memcpy(r->ref[i], r->data[i], n);
	}
}

/* The first line of the diagnostics in TEXT (LEN bytes), into WHY. */
static void first_line(char *why, size_t n, const char *text, size_t len)
{
	size_t k = 0;
	while (k < len && text[k] != '\n')
		k++;
	snprintf(why, n, "rejected: %.*s", (int)(k < 400 ? k : 400), text ? text : "");
}

/* Loads and checks PATH into R->p. Returns true, or false with the first diagnostic line
 * in R->why. The program's later diagnostics (faults) go to DEVNULL. */
static bool load_file(FileRun *r, const char *path, FILE *devnull)
{
	char *text = NULL;
	size_t len = 0;
	FILE *ms = open_memstream(&text, &len);
	if (!ms) {
		snprintf(r->why, sizeof r->why, "cannot open a memory stream");
		return false;
	}
	r->p = uir_load(path, ms);
	bool ok = r->p && uir_check(r->p, 0, ms) == 0;
	fclose(ms);
	if (!ok)
		first_line(r->why, sizeof r->why, text, len);
	else
		r->p->err = devnull;
	free(text);
	return ok;
}

/* Frees what R holds. */
static void file_free(FileRun *r)
{
	if (r->ref) {
		for (int i = 0; i < r->p->nbufs; i++)
			free(r->ref[i]);
		free(r->ref);
	}
	if (r->p) {
		buffers_free(r->p, r->data);
		uir_free(r->p);
	}
}

/* A mutant's header line `# mutant NAME: check must report CODE`, from the comment lines
 * at the top of PATH, into NAME and CODE. Returns false when PATH has none (a program). */
static bool mutant_header(const char *path, char *name, size_t nname, char *code, size_t ncode)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false; /* uir_load says why */
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof line, f) && line[0] == '#') {
		char n[128], c[32];
		if (sscanf(line, "# mutant %127[^:]: check must report %31s", n, c) == 2) {
			snprintf(name, nname, "%s", n);
			snprintf(code, ncode, "%s", c);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Checks the mutant PATH: loading or checking it must report an error whose first code is
 * CODE. Prints its line; returns true when it passed. Nothing is run. */
static bool check_mutant(const char *path, const char *name, const char *code)
{
	char *text = NULL;
	size_t len = 0;
	FILE *ms = open_memstream(&text, &len);
	if (!ms) {
		printf("FAIL %s: mutant %s: cannot open a memory stream\n", path, name);
		fflush(stdout);
		return false;
	}
	UirProgram *p = uir_load(path, ms);
	int nerr = p ? uir_check(p, UIR_CHECK_NO_EXACT, ms) : 1; /* the rule the mutant breaks */
	fclose(ms);
	const char *e = nerr && text ? strstr(text, "error[") : NULL;
	char got[32] = "nothing (accepted)";
	const char *at = text ? text : "";
	if (e) {
		size_t k = 0;
		while (e[6 + k] && e[6 + k] != ']' && k < sizeof got - 1)
			k++;
		snprintf(got, sizeof got, "%.*s", (int)k, e + 6);
		at = e;
		while (at > text && at[-1] != '\n')
			at--;
	} else if (nerr) {
		snprintf(got, sizeof got, "no error[CODE]");
	}
	bool ok = e && !strcmp(got, code);
	if (ok) {
		printf("ok %s\n", path);
	} else {
		size_t k = 0;
		while (at[k] && at[k] != '\n' && k < 300)
			k++;
		printf("FAIL %s: mutant %s: expected %s, check gave %s: %.*s\n", path, name, code, got, (int)k, at);
	}
	fflush(stdout);
	free(text);
	uir_free(p);
	return ok;
}

/* Checks one file and prints its line. Returns true when it passed. */
static bool check_file(const char *path, const Opts *o, FILE *devnull)
{
	char name[128], code[32];
	if (mutant_header(path, name, sizeof name, code, sizeof code))
		return check_mutant(path, name, code);
	FileRun r = { 0 };
	bool ok = load_file(&r, path, devnull);
	if (ok) {
		r.data = buffers_create(r.p, 1);
		if (!r.data) {
			snprintf(r.why, sizeof r.why, "cannot create the buffers");
			ok = false;
		}
	}
	if (ok) {
		run_reference(&r);
		ok = check_engine(&r, "interp-threads", UIR_ENGINE_INTERP, o->threads) &&
		     check_engine(&r, "jit", UIR_ENGINE_JIT, o->jit_threads);
	}
	if (ok)
		printf("ok %s\n", path);
	else
		printf("FAIL %s: %s\n", path, r.why);
	fflush(stdout);
	file_free(&r);
	return ok;
}

/* Points UIR_LLVM_MODULE at the build tree's module (../src/llvm/uir-llvm.so from this
 * executable in build/tests) when it is not set and that file exists. */
static void find_module(void)
{
	const char *env = getenv("UIR_LLVM_MODULE");
	if (env && *env)
		return;
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0)
		return;
	dir[n] = 0;
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = 0;
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/../src/llvm/uir-llvm.so", dir);
	if (access(path, F_OK) == 0)
		setenv("UIR_LLVM_MODULE", path, 1);
}

static int usage(const char *why)
{
	fprintf(stderr, "uir-bulkdiff: %s\nusage: uir-bulkdiff [--threads N] [--jit-threads N] FILE... (or - for names on stdin)\n",
		why);
	return UIR_EXIT_USAGE;
}

/* Parses the options. Returns the index of the first file, or -1 after a message. */
static int parse_opts(int argc, char **argv, Opts *o)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		int *dst = !strcmp(argv[i], "--threads") ? &o->threads :
			   !strcmp(argv[i], "--jit-threads") ? &o->jit_threads : NULL;
		if (!dst || i + 1 >= argc || (*dst = engine_parse_threads(argv[i + 1])) < 0) {
			usage(dst ? "--threads and --jit-threads need an integer from 1 to 1024" : "unknown option");
			return -1;
		}
		i++;
	}
	if (i >= argc) {
		usage("no files");
		return -1;
	}
	return i;
}

/* Checks the file names on standard input, one a line. */
static void check_stdin(const Opts *o, FILE *devnull, int *nok, int *nfail)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n > 0 && check_file(line, o, devnull))
			(*nok)++;
		else if (n > 0)
			(*nfail)++;
	}
	free(line);
}

int main(int argc, char **argv)
{
	Opts o = { 4, 2 };
	int first = parse_opts(argc, argv, &o);
	if (first < 0)
		return UIR_EXIT_USAGE;
	find_module();
	if (!uir_llvm_load(NULL)) {
		fprintf(stderr, "uir-bulkdiff: the JIT back end is missing: %s\n", uir_llvm_error());
		return UIR_EXIT_USAGE;
	}
	FILE *devnull = fopen("/dev/null", "w");
	if (!devnull) {
		fprintf(stderr, "uir-bulkdiff: cannot open /dev/null: %s\n", strerror(errno));
		return UIR_EXIT_INTERNAL;
	}
	int nok = 0, nfail = 0;
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "-"))
			check_stdin(&o, devnull, &nok, &nfail);
		else if (check_file(argv[i], &o, devnull))
			nok++;
		else
			nfail++;
	}
	printf("bulkdiff: %d ok, %d failed\n", nok, nfail);
	fclose(devnull);
	return nfail ? 1 : 0;
}
