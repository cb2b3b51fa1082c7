/* diag.c - diagnostics: `FILE:LINE:COL: error[CODE]: message`, the source line, a caret. */
#include "../uir_internal.h"
#include "escape.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct Deferred {
	Loc at;
	char code[8];
	char *msg, *note;
	int seq;
};
typedef struct Deferred Deferred;

/* A program's deferred diagnostics (UirProgram.deferred: their texts are in its arena) are
 * freed whenever the queue empties, by a flush or a discard, and by uir_free(). */

char *fmt_str(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* The one rule for user text in messages (escape.h): C itself, or '?' for a control byte;
 * with KEEP, the placeholder bytes 1 and 2 of a template (diag_text) pass too. */
static char shown_keep(char c, bool keep)
{
	unsigned char u = (unsigned char)c;
	bool ok = (u >= 32 && u != 127) || u == '\t' || (keep && (u == 1 || u == 2));
	return ok ? c : '?';
}

static char shown(char c)
{
	return shown_keep(c, false);
}

void uir_put_escaped(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(shown(s[i]), f);
}

void uir_veprintf(FILE *f, const char *fmt, va_list ap)
{
	char small[512], *s = small;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof small, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small) {
		s = xmalloc((size_t)n + 1);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	}
	size_t len = (size_t)n;
	bool nl = len > 0 && s[len - 1] == '\n';
	uir_put_escaped(f, s, nl ? len - 1 : len);
	if (nl)
		fputc('\n', f);
	if (s != small)
		free(s);
}

void uir_eprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	uir_veprintf(f, fmt, ap);
	va_end(ap);
}

char *diag_shown(Arena *a, const char *s)
{
	char *r = arena_strndup(a, s, strlen(s));
	for (char *c = r; *c; c++)
		*c = shown(*c);
	return r;
}

/* The index of the lines' starts (UirProgram.line_start), made on first use. */
static void index_lines(UirProgram *p)
{
	if (!p->line_start) {
		/* one pass over the source for all diagnostics: the lines' starts */
		int n = 1;
		for (size_t i = 0; i < p->srclen; i++)
			n += p->src[i] == '\n';
		p->line_start = arena_alloc(&p->arena, (size_t)n * sizeof *p->line_start);
		p->nlines = 0;
		p->line_start[p->nlines++] = 0;
		for (size_t i = 0; i < p->srclen; i++)
			if (p->src[i] == '\n')
				p->line_start[p->nlines++] = i + 1;
	}
}

size_t diag_line_offset(UirProgram *p, int line)
{
	index_lines(p);
	return line >= 1 && line <= p->nlines ? p->line_start[line - 1] : p->srclen;
}

Loc diag_loc_of(UirProgram *p, size_t off)
{
	index_lines(p);
	int lo = 0, hi = p->nlines - 1; /* the last line starting at or before OFF */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (p->line_start[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (Loc){ lo + 1, (int)(off - p->line_start[lo]) + 1 };
}

/* Prints the source line of AT with a caret under its column. Tabs are kept so the
 * caret lines up in a terminal; a long line is cut to a window around the column. */
static void show_line(UirProgram *p, FILE *f, Loc at)
{
	if (at.line <= 0 || !p->src)
		return;
	const char *end = p->src + p->srclen;
	const char *s = p->src + diag_line_offset(p, at.line);
	const char *e = s;
	while (e < end && *e != '\n')
		e++;
	if (e > s && e[-1] == '\r')
		e--; /* CRLF line ends */
	const char *caret = s + (at.col > 0 ? at.col - 1 : 0);
	if (caret > e)
		caret = e;
	const char *from = s, *to = e;
	bool cut_left = false, cut_right = false;
	if (caret - from > 80) {
		from = caret - 60;
		cut_left = true;
	}
	if (to - caret > 80) {
		to = caret + 60;
		cut_right = true;
	}
	fprintf(f, " %5d | %s", at.line, cut_left ? "..." : "");
	uir_put_escaped(f, from, (size_t)(to - from));
	fprintf(f, "%s\n       | %s", cut_right ? "..." : "", cut_left ? "   " : "");
	for (const char *c = from; c < caret; c++)
		fputc(*c == '\t' ? '\t' : ' ', f);
	fputs("^\n", f);
}

/* Writes the diagnostic of CODE at AT with MSG and NOTE on F; with KEEP, the placeholder
 * bytes 1 and 2 of MSG are written as they are. */
static void write_diag(UirProgram *p, FILE *f, Loc at, const char *code, const char *msg, const char *note,
		       bool keep)
{
	if (at.line > 0)
		uir_eprintf(f, "%s:%d:%d: error[%s]: ", p->path, at.line, at.col, code);
	else
		uir_eprintf(f, "%s:1:1: error[%s]: ", p->path, code); /* no source to show */
	for (const char *c = msg; *c; c++)
		fputc(shown_keep(*c, keep), f);
	fputc('\n', f);
	show_line(p, f, at);
	if (note && *note) {
		/* each line of the note indented under the caret */
		const char *s = note;
		while (*s) {
			const char *e = strchr(s, '\n');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			uir_eprintf(f, "       = %.*s\n", (int)n, s);
			s += n;
			if (*s == '\n')
				s++;
		}
	}
}

static void emit(UirProgram *p, Loc at, const char *code, const char *msg, const char *note)
{
	if (!p->first_code[0]) {
		snprintf(p->first_code, sizeof p->first_code, "%s", code);
		p->first_loc = at;
		size_t i = 0;
		for (; msg[i] && i + 1 < sizeof p->first_msg; i++)
			p->first_msg[i] = shown(msg[i]);
		p->first_msg[i] = 0;
	}
	p->nerrors++;
	write_diag(p, p->err, at, code, msg, note, false);
}

char *diag_text(UirProgram *p, Loc at, const char *code, const char *msg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
	write_diag(p, f, at, code, msg, NULL, true);
	if (fclose(f) != 0 || !text)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	return text;
}

void diag_note_at(UirProgram *p, Loc at, const char *msg)
{
	uir_eprintf(p->err, "%s:%d:%d: note: %s\n", p->path, at.line, at.col, msg);
	show_line(p, p->err, at);
}

void diag(UirProgram *p, Loc at, const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	emit(p, at, code, msg, NULL);
}

void diag_later(UirProgram *p, Loc at, const char *code, const char *note, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->ndeferred == p->capdeferred) {
		p->capdeferred = p->capdeferred ? 2 * p->capdeferred : 16;
		p->deferred = xrealloc(p->deferred, (size_t)p->capdeferred * sizeof *p->deferred);
	}
	Deferred *d = &p->deferred[p->ndeferred];
	d->at = at;
	snprintf(d->code, sizeof d->code, "%s", code);
	d->msg = arena_strndup(&p->arena, msg, strlen(msg));
	d->note = note ? arena_strndup(&p->arena, note, strlen(note)) : NULL;
	d->seq = p->ndeferred++;
}

static int by_loc(const void *a, const void *b)
{
	const Deferred *x = a, *y = b;
	if (x->at.line != y->at.line)
		return x->at.line < y->at.line ? -1 : 1;
	if (x->at.col != y->at.col)
		return x->at.col < y->at.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* By code, then by location: the race stage's order (docs/language.md 7.4.5, docs/errors.md). */
static int by_code_loc(const void *a, const void *b)
{
	int c = strcmp(((const Deferred *)a)->code, ((const Deferred *)b)->code);
	return c ? c : by_loc(a, b);
}

int diag_pending(const UirProgram *p)
{
	return p->ndeferred;
}

void diag_truncate(UirProgram *p, int n)
{
	if (n >= 0 && n < p->ndeferred)
		p->ndeferred = n;
}

void diag_discard(UirProgram *p)
{
	free(p->deferred);
	p->deferred = NULL;
	p->ndeferred = p->capdeferred = 0;
}

static int flush_sorted(UirProgram *p, int (*order)(const void *, const void *))
{
	int n = p->ndeferred;
	if (n == 0)
		return 0;
	Deferred *deferred = p->deferred;
	qsort(deferred, (size_t)n, sizeof *deferred, order);
	for (int i = 0; i < n; i++) {
		/* one diagnostic per place and code: the same access may break a rule twice */
		if (i > 0 && deferred[i].at.line == deferred[i - 1].at.line &&
		    deferred[i].at.col == deferred[i - 1].at.col &&
		    !strcmp(deferred[i].code, deferred[i - 1].code))
			continue;
		emit(p, deferred[i].at, deferred[i].code, deferred[i].msg, deferred[i].note);
	}
	diag_discard(p);
	return n;
}

int diag_flush(UirProgram *p)
{
	return flush_sorted(p, by_loc);
}

int diag_flush_by_code(UirProgram *p)
{
	return flush_sorted(p, by_code_loc);
}
