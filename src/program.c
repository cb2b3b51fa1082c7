/* program.c - the public API of include/uir/uir.h: load, check, free, buffer queries. */
#include "uir_internal.h"
#include "util/files.h"
#include "check/footprint.h"
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* Reads a whole file; NULL with errno set on failure. Files over 256 MiB are refused. */
static char *read_file(const char *path, size_t *len)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return NULL;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= ((size_t)256 << 20)) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			buf = xrealloc(buf, cap *= 2);
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* What to do with a program that does not load: uir_free() it, after calling the hook of
 * program_load() with it. */
typedef struct LoadFail {
	void (*fn)(const UirProgram *p, void *ctx);
	void *ctx;
} LoadFail;

static UirProgram *failed(UirProgram *p, const LoadFail *fail)
{
	if (fail && fail->fn)
		fail->fn(p, fail->ctx);
	uir_free(p);
	return NULL;
}

/* Parses and types TEXT (owned by P from now on). */
static UirProgram *load_text(UirProgram *p, char *text, size_t len, const LoadFail *fail)
{
	p->src = text;
	p->srclen = len;
	const char *nul = memchr(text, 0, len);
	if (nul) {
		int line = 1, col = 1;
		for (const char *c = text; c < nul; c++) {
			if (*c == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		diag(p, (Loc){ line, col }, "E0101", "a NUL byte: this is not a text file");
		return failed(p, fail);
	}
	if (!parse_program(p) || !types_program(p))
		return failed(p, fail);
	return p;
}

static UirProgram *new_program(const char *path, FILE *err)
{
	UirProgram *p = xcalloc(1, sizeof *p);
	p->err = err ? err : stderr;
	p->path = arena_strndup(&p->arena, path, strlen(path));
	return p;
}

static UirProgram *load_file(const char *path, FILE *err, const LoadFail *fail)
{
	UirProgram *p = new_program(path, err);
	struct stat st;
	const char *kind;
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && (kind = uir_not_regular(&st)) != NULL) {
		/* a FIFO would block the open until someone writes (util/files.h) */
		diag(p, (Loc){ 0, 0 }, "E0001", "cannot read the file: it is %s, not a regular file", kind);
		return failed(p, fail);
	}
	size_t len = 0;
	char *text = read_file(path, &len);
	if (!text) {
		int e = errno;
		diag(p, (Loc){ 0, 0 }, "E0001", "cannot read the file: %s", strerror(e));
		return failed(p, fail);
	}
	return load_text(p, text, len, fail);
}

static UirProgram *load_copy(const char *name, const char *text, size_t len, FILE *err, const LoadFail *fail)
{
	UirProgram *p = new_program(name, err);
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	return load_text(p, copy, len, fail);
}

UirProgram *uir_load(const char *path, FILE *err)
{
	return load_file(path, err, NULL);
}

UirProgram *uir_load_text(const char *name, const char *text, size_t len, FILE *err)
{
	return load_copy(name, text, len, err, NULL);
}

UirProgram *program_load(const char *path, const char *text, size_t len, FILE *err,
			 void (*on_fail)(const UirProgram *p, void *ctx), void *ctx)
{
	LoadFail fail = { on_fail, ctx };
	return text ? load_copy(path, text, len, err, &fail) : load_file(path, err, &fail);
}

int uir_check(UirProgram *p, unsigned flags, FILE *err)
{
	if (err)
		p->err = err;
	int before = p->nerrors;
	check_program(p, flags);
	p->checked = p->nerrors == before;
	return p->nerrors - before;
}

int uir_check_footprint(UirProgram *p, unsigned flags, FILE *err)
{
	fp_free(p->footprint_rec);
	p->footprint_rec = NULL;
	p->footprint = fp_new();
	int n = uir_check(p, flags, err);
	p->footprint_rec = p->footprint; /* later checks (run --input, opt) record nothing */
	p->footprint = NULL;
	return n;
}

char *uir_footprint_svg(const UirProgram *p, size_t *len)
{
	size_t n = 0;
	char *s = fp_svg(p->footprint_rec, p, &n);
	if (len)
		*len = n;
	return s;
}

int uir_footprint_write(const UirProgram *p, const char *path, const char **why)
{
	size_t n;
	char *s = uir_footprint_svg(p, &n);
	if (!s) {
		*why = "nothing was recorded: the race check did not run (an earlier error, or no uir_check_footprint())";
		return -1;
	}
	int r = fp_write_file(path, s, n, why);
	free(s);
	return r;
}

void uir_free(UirProgram *p)
{
	if (!p)
		return;
	fp_free(p->footprint);
	fp_free(p->footprint_rec);
	diag_discard(p); /* the deferred diagnostics point into its arena */
	free(p->src);
	free(p->bufs);
	free(p->allocs);
	arena_free(&p->arena);
	free(p);
}

int uir_buffer_count(const UirProgram *p) { return p->nbufs; }
const char *uir_buffer_name(const UirProgram *p, int i) { return p->bufs[i]->name; }
UirType uir_buffer_type(const UirProgram *p, int i) { return p->bufs[i]->ty; }
int64_t uir_buffer_size(const UirProgram *p, int i) { return p->bufs[i]->size; }
const char *uir_first_error(const UirProgram *p) { return p ? p->first_code : ""; }
