/* batch.c - the emulator's compiles of several `# cuda` tests in one compiler run.
 *
 * Much of the compile of one rendering is the same for every test: the compiler's start, the
 * emulator's header, its thread pool, the assembler and the linker. So the runner gathers
 * the tests that reach their emulator compile (UT_STEP_CXX_EMU) into batches of up to
 * UIR_TEST_BATCH tests (runner.c decides when a batch is compiled) and compiles each batch
 * as one translation unit: every rendering in a namespace of its own, the macros it defines
 * or removes saved before it and restored after it (`#pragma push_macro`), so that no
 * rendering sees another's; the `#include <...>` lines of the renderings first, outside the
 * namespaces; and a `main` that runs the `main` of the rendering its argument numbers. The
 * compile is the tests' own (the same $CXX, flags and force-included header); member I's
 * CUDA then runs as `DIR/prog I`.
 *
 * A batch whose compile fails for any reason decides nothing: each member then compiles
 * alone, as without batches, and gets that compile's verdict and message.
 */
#include "runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern const char ut_cuda_emu_header[];
extern const unsigned long ut_cuda_emu_header_len;

/* The default size of a batch: a compile of 16 of the renderings of tests/programs/cuda
 * costs about half as much CPU as 16 compiles of one (bench/README.md). */
#define BATCH_DEFAULT 16
#define BATCH_MAX 256

int ut_batch_size(void)
{
	const char *e = getenv("UIR_TEST_BATCH");
	if (!e || !*e)
		return BATCH_DEFAULT;
	char *end;
	long n = strtol(e, &end, 10);
	if (*end || n < 1)
		return 1;
	return n > BATCH_MAX ? BATCH_MAX : (int)n;
}

UtBatch *ut_batch_new(void)
{
	UtBatch *b = ut_xmalloc(sizeof *b);
	memset(b, 0, sizeof *b);
	b->held = true;
	return b;
}

void ut_batch_add(UtBatch *b, UtTest *t)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->tests = ut_xrealloc(b->tests, (size_t)b->cap * sizeof *b->tests);
	}
	b->tests[b->n++] = t;
	b->refs++;
	t->batch = b;
}

/* ---- the translation unit ---- */

/* A set of strings, for the macro names and include lines of the renderings. */
typedef struct Names {
	char **v;
	size_t n;
} Names;

static void names_add(Names *s, const char *p, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], p, len) == 0)
			return;
	s->v = ut_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = ut_format("%.*s", (int)len, p);
}

static void names_free(Names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Reads the preprocessor lines of TEXT (N bytes): the names that `#define` and `#undef`
 * lines name go to MACROS; the `#include <...>` lines outside every `#if` to INCLUDES. */
static void scan(const char *text, size_t n, Names *macros, Names *includes)
{
	const char *p = text, *stop = text + n;
	int depth = 0;
	while (p < stop) {
		const char *e = memchr(p, '\n', (size_t)(stop - p));
		if (!e)
			e = stop;
		const char *q = p;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (q < e && *q == '#') {
			const char *line = q;
			q++;
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			const char *w = q;
			while (q < e && is_ident(*q))
				q++;
			size_t wl = (size_t)(q - w);
#define WORD(s) (wl == sizeof s - 1 && memcmp(w, s, wl) == 0)
			if (WORD("if") || WORD("ifdef") || WORD("ifndef")) {
				depth++;
			} else if (WORD("endif")) {
				depth -= depth > 0;
			} else if (WORD("define") || WORD("undef")) {
				while (q < e && (*q == ' ' || *q == '\t'))
					q++;
				const char *name = q;
				while (q < e && is_ident(*q))
					q++;
				if (q > name)
					names_add(macros, name, (size_t)(q - name));
			} else if (WORD("include") && depth == 0) {
				while (q < e && (*q == ' ' || *q == '\t'))
					q++;
				const char *end = e;
				while (end > q && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
					end--;
				if (q < end && *q == '<' && end[-1] == '>')
					names_add(includes, line, (size_t)(end - line));
			}
#undef WORD
		}
		p = e + 1;
	}
}

/* Reads the file PATH whole into B. */
static bool read_all(const char *path, UtBuf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		ut_buf_add(b, chunk, got);
	bool ok = !ferror(f);
	fclose(f);
	return ok;
}

/* Writes the translation unit of B's members into B->dir/all.cc (the members numbered in
 * order). False when a file cannot be read or written. */
static bool write_unit(UtBatch *b)
{
	UtBuf *texts = ut_xmalloc((size_t)b->n * sizeof *texts);
	Names *macros = ut_xmalloc((size_t)b->n * sizeof *macros);
	memset(texts, 0, (size_t)b->n * sizeof *texts);
	memset(macros, 0, (size_t)b->n * sizeof *macros);
	Names includes = { NULL, 0 };
	bool ok = true;
	int count = 0;
	for (int i = 0; i < b->n && ok; i++) {
		UtTest *t = b->tests[i];
		if (!t)
			continue;
		t->batch_index = count++;
		char *src = ut_format("%s/prog.cu", t->dir);
		ok = read_all(src, &texts[i]);
		free(src);
		if (ok)
			scan(texts[i].data ? texts[i].data : "", texts[i].len, &macros[i], &includes);
	}
	UtBuf u = { 0 };
	if (ok) {
		ut_buf_puts(&u, "/* written by uir test: the renderings of several `# cuda` tests, each in a "
		                "namespace of its own; `prog I` runs the main of the I-th */\n");
		for (size_t k = 0; k < includes.n; k++)
			ut_buf_printf(&u, "%s\n", includes.v[k]);
		for (int i = 0; i < b->n; i++) {
			UtTest *t = b->tests[i];
			if (!t)
				continue;
			for (size_t k = 0; k < macros[i].n; k++)
				ut_buf_printf(&u, "#pragma push_macro(\"%s\")\n", macros[i].v[k]);
			ut_buf_printf(&u, "namespace uir_test_%d {\n", t->batch_index);
			ut_buf_add(&u, texts[i].data ? texts[i].data : "", texts[i].len);
			ut_buf_printf(&u, "\n} /* namespace uir_test_%d */\n", t->batch_index);
			for (size_t k = macros[i].n; k-- > 0;)
				ut_buf_printf(&u, "#pragma pop_macro(\"%s\")\n", macros[i].v[k]);
		}
		ut_buf_puts(&u, "int main(int argc, char **argv)\n{\n"
		                "\tint i = argc == 2 ? atoi(argv[1]) : -1;\n\tswitch (i) {\n");
		for (int i = 0; i < b->n; i++)
			if (b->tests[i])
				ut_buf_printf(&u, "\tcase %d: return uir_test_%d::main();\n", b->tests[i]->batch_index,
				              b->tests[i]->batch_index);
		ut_buf_puts(&u, "\t}\n\tfputs(\"usage: prog I\\n\", stderr);\n\treturn 64;\n}\n");
	}
	for (int i = 0; i < b->n; i++) {
		ut_buf_free(&texts[i]);
		names_free(&macros[i]);
	}
	free(texts);
	free(macros);
	names_free(&includes);
	if (ok) {
		char *path = ut_format("%s/all.cc", b->dir);
		FILE *f = fopen(path, "wb");
		ok = f && fwrite(u.data, 1, u.len, f) == u.len;
		if (f && fclose(f) != 0)
			ok = false;
		free(path);
	}
	ut_buf_free(&u);
	return ok;
}

char **ut_batch_argv(UtConfig *cfg, UtBatch *b)
{
	const char *tmp = ut_run_tmpdir(cfg);
	if (!tmp)
		return NULL;
	char *tmpl = ut_format("%s/batch-XXXXXX", tmp);
	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	b->dir = tmpl;
	if (!write_unit(b))
		return NULL;
	char *header = cfg->pch_header ? ut_strdup(cfg->pch_header) : ut_format("%s/uir_cuda_emu.h", b->dir);
	if (!cfg->pch_header) {
		FILE *f = fopen(header, "wb");
		bool ok = f && fwrite(ut_cuda_emu_header, 1, ut_cuda_emu_header_len, f) == ut_cuda_emu_header_len;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok) {
			free(header);
			return NULL;
		}
	}
	char **w = ut_tool_words("CXX", "c++");
	size_t n = 0;
	while (w[n])
		n++;
	const char *const *flags = ut_cxx_emu_flags();
	size_t nf = 0;
	while (flags[nf])
		nf++;
	char **v = ut_xmalloc((n + nf + 8) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		v[k++] = w[i];
	free(w);
	for (size_t i = 0; i < nf; i++)
		v[k++] = ut_strdup(flags[i]);
	v[k++] = ut_strdup("-include");
	v[k++] = header;
	v[k++] = ut_strdup("-o");
	v[k++] = ut_format("%s/prog", b->dir);
	v[k++] = ut_strdup("-x");
	v[k++] = ut_strdup("c++");
	v[k++] = ut_format("%s/all.cc", b->dir);
	v[k] = NULL;
	return v;
}

char *ut_batch_prog(const UtBatch *b)
{
	return ut_format("%s/prog", b->dir);
}

bool ut_batch_release(UtBatch *b, UtTest *t)
{
	for (int i = 0; t && i < b->n; i++)
		if (b->tests[i] == t) {
			b->tests[i] = NULL;
			b->refs--;
		}
	if (t)
		t->batch = NULL;
	if (b->refs > 0 || b->held)
		return false;
	if (b->dir)
		ut_remove_tree(b->dir);
	free(b->dir);
	free(b->tests);
	free(b);
	return true;
}
