/* str.c - a growing text buffer for the renderers, which build their whole output in
 * memory and print it only when rendering succeeded (no partial result on error). */
#include "render_int.h"
#include <stdlib.h>
#include <string.h>

static void grow(Str *b, size_t more)
{
	if (b->n + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void str_putn(Str *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void str_put(Str *b, const char *s)
{
	str_putn(b, s, strlen(s));
}

void str_vprintf(Str *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		unreachable();
	grow(b, (size_t)n);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	b->n += (size_t)n;
}

void str_printf(Str *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	str_vprintf(b, fmt, ap);
	va_end(ap);
}

void str_free(Str *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

const char *str_cstr(const Str *b)
{
	return b->s ? b->s : "";
}

/* S as the body of a C string literal; with COMMENT, a '/' beside a '*' is written \057,
 * so that the text can stand inside a block comment. */
static void put_escaped(Str *b, const char *s, size_t n, bool comment)
{
	char prev = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[8];
		if (c == '\\' || c == '"') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			str_putn(b, tmp, 2);
		} else if (c == '\n') {
			str_put(b, "\\n");
		} else if (c == '\t') {
			str_put(b, "\\t");
		} else if (c == '?' && prev == '?') {
			str_put(b, "\\?");
		} else if (c < 32 || c >= 127 ||
			   (comment && c == '/' && ((i > 0 && s[i - 1] == '*') || (i + 1 < n && s[i + 1] == '*')))) {
			snprintf(tmp, sizeof tmp, "\\%03o", c);
			str_put(b, tmp);
		} else {
			str_putn(b, (const char *)&c, 1);
		}
		prev = (char)c;
	}
}

void str_put_cstring(Str *b, const char *s, size_t n)
{
	put_escaped(b, s, n, false);
}

void str_put_comment(Str *b, const char *s, size_t n)
{
	put_escaped(b, s, n, true);
}
