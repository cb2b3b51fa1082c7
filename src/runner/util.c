/* util.c - small helpers of the test runner: allocation that never returns NULL, growable
 * byte buffers, formatted strings, the clock.
 */
#include "runner_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Out of memory is not something a test runner can recover from: say so and stop. */
static void out_of_memory(void)
{
	fputs("uir test: internal error: out of memory\n", stderr);
	exit(UT_EXIT_INTERNAL);
}

void *ut_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *ut_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory();
	return q;
}

char *ut_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(ut_xmalloc(n), s, n);
}

char *ut_format(const char *fmt, ...)
{
	va_list ap;
	char probe[1];
	va_start(ap, fmt);
	int n = vsnprintf(probe, sizeof probe, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ut_strdup("(unprintable message)");
	char *s = ut_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void ut_buf_add(UtBuf *b, const char *s, size_t n)
{
	if (b->limit && b->len + n > b->limit) {
		n = b->limit > b->len ? b->limit - b->len : 0;
		b->truncated = true;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = ut_xrealloc(b->data, cap);
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void ut_buf_puts(UtBuf *b, const char *s)
{
	ut_buf_add(b, s, strlen(s));
}

void ut_buf_printf(UtBuf *b, const char *fmt, ...)
{
	va_list ap;
	char probe[1];
	va_start(ap, fmt);
	int n = vsnprintf(probe, sizeof probe, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	char *s = ut_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ut_buf_add(b, s, (size_t)n);
	free(s);
}

void ut_buf_free(UtBuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->truncated = false;
}

double ut_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t ut_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0xC2)
		return 0; /* ASCII is handled by the caller; 0x80-0xC1 never start a sequence */
	if (c < 0xE0) {
		len = 2;
		cp = c & 0x1F;
	} else if (c < 0xF0) {
		len = 3;
		cp = c & 0x0F;
	} else if (c < 0xF5) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
	    cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return len;
}

char *ut_first_line(const char *s, size_t n, size_t max)
{
	size_t len = 0;
	while (len < n && s[len] != '\n')
		len++;
	bool cut = len > max;
	if (cut) {
		len = max;
		while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
			len--; /* not inside a UTF-8 sequence */
	}
	char *r = ut_xmalloc(len + 4);
	size_t k = 0;
	for (size_t i = 0; i < len;) {
		const unsigned char *c = (const unsigned char *)s + i;
		size_t u = *c >= 0x80 ? ut_utf8_len(c, len - i) : 0;
		if (u) {
			memcpy(r + k, c, u);
			k += u;
			i += u;
		} else {
			r[k++] = *c < 0x20 || *c >= 0x7F ? (*c < 0x80 ? ' ' : '?') : (char)*c;
			i++;
		}
	}
	strcpy(r + k, cut ? "..." : "");
	return r;
}

int ut_parse_seed(const char *s, uint64_t *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *d = hex ? s + 2 : s;
	uint64_t x = 0;
	if (!*d || strlen(d) > (hex ? 16u : 20u))
		return -1;
	for (; *d; d++) {
		int k = *d >= '0' && *d <= '9' ? *d - '0' : hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10
			: hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10 : -1;
		if (k < 0 || (!hex && x > (UINT64_MAX - (uint64_t)k) / 10))
			return -1;
		x = hex ? x << 4 | (uint64_t)k : x * 10 + (uint64_t)k;
	}
	*v = x;
	return 0;
}
