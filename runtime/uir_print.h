/* uir_print.h - the output of `uir run`: values as text, whole buffers, and --hash.
 *
 * docs/language.md 10.1: a buffer prints as one line "NAME: v0 v1 ...". Floats print as C's
 * "%.*g" with the least precision (1..9 for f32, 1..17 for f64) that reads back to the
 * same bits, and as inf, -inf, nan (any NaN) and -0; integers in decimal; bool as 0/1.
 * The hash of --hash is FNV-1a 64 over the little-endian bytes of the buffer, with every
 * NaN replaced by the canonical pattern (0x7FC00000, 0x7FF8000000000000).
 *
 * Relies on a correctly rounding printf and strtof/strtod (glibc, musl, and current
 * MSVC are) and on the "C" locale for the decimal point.
 * Each helper starts with a marker line (runtime/README.md) and is pasted verbatim by
 * the renderers (`render --main`).
 */
#ifndef UIR_PRINT_H
#define UIR_PRINT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UIR_FN
#define UIR_FN static inline
#endif

/* uir-helper: uir_format_special */
/* Writes "nan", "inf" or "-inf" into buf (n bytes) if x is one of them and returns the
 * length; returns -1 for any other x. */
UIR_FN int uir_format_special(char *buf, size_t n, double x)
{
	if (x != x)
		return snprintf(buf, n, "nan");
	if (x == INFINITY)
		return snprintf(buf, n, "inf");
	if (x == -INFINITY)
		return snprintf(buf, n, "-inf");
	return -1;
}

/* uir-helper: uir_format_u64 */
/* Writes x in decimal into buf (at least 21 bytes) and returns the length. */
UIR_FN int uir_format_u64(char *buf, uint64_t x)
{
	char digits[20];
	int n = 0, len = 0;
	do {
		digits[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x != 0);
	while (n > 0)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

/* uir-helper: uir_format_i64 needs: uir_format_u64 */
/* Writes x in decimal into buf (at least 21 bytes) and returns the length. */
UIR_FN int uir_format_i64(char *buf, int64_t x)
{
	if (x >= 0)
		return uir_format_u64(buf, (uint64_t)x);
	buf[0] = '-';
	return 1 + uir_format_u64(buf + 1, 0u - (uint64_t)x);
}

/* uir-helper: uir_decimal_digits */
/* The decimal digits of x > 0 rounded to p significant digits, as printf's "%.*e" rounds
 * them: d[0..p) gets the digits ('1'..'9' first) and *exp the exponent of d[0]. */
UIR_FN void uir_decimal_digits(double x, int p, char *d, int *exp)
{
	char text[48];
	const char *s = text;
	int k = 0, sign = 1, e = 0;
	snprintf(text, sizeof text, "%.*e", p - 1, x); /* "d.ddde+XX" or "de+XX" */
	for (; *s != 'e'; s++)
		if (*s != '.')
			d[k++] = *s;
	s++;
	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? -1 : 1;
	for (; *s >= '0' && *s <= '9'; s++)
		e = e * 10 + (*s - '0');
	*exp = sign * e;
}

/* uir-helper: uir_decimal_round */
/* Rounds the decimal d[0..from) x 10^*exp (digits, d[0] nonzero) to its first p < from
 * digits, to nearest, in place; a carry out of d[0] makes d "100..." and increments *exp.
 * Returns 0, or -1 without rounding when the dropped digits are exactly 5000...: if d is
 * itself a rounding, only the exact value can decide that tie. */
UIR_FN int uir_decimal_round(char *d, int from, int p, int *exp)
{
	int k, up = d[p] > '5';
	if (d[p] == '5') {
		for (k = p + 1; k < from && d[k] == '0'; k++)
			;
		if (k == from)
			return -1;
		up = 1;
	}
	for (k = p - 1; up && k >= 0; k--) {
		if (d[k] == '9') {
			d[k] = '0';
		} else {
			d[k]++;
			up = 0;
		}
	}
	if (up) { /* 99...9 rounded up */
		d[0] = '1';
		*exp += 1;
	}
	return 0;
}

/* uir-helper: uir_decimal_reads_back needs: uir_format_i64 */
/* Whether the decimal d[0..p) x 10^exp (d[0] the first digit), read by strtof (is_f32)
 * or strtod, gives back x. */
UIR_FN int uir_decimal_reads_back(const char *d, int p, int exp, double x, int is_f32)
{
	char text[48];
	memcpy(text, d, (size_t)p); /* the digits as an integer, then its exponent: "123e-4" */
	text[p] = 'e';
	uir_format_i64(text + p + 1, exp - (p - 1));
	if (is_f32)
		return strtof(text, NULL) == (float)x;
	return strtod(text, NULL) == x;
}

/* uir-helper: uir_format_decimal needs: uir_format_i64 */
/* Writes the decimal (negative ? -1 : 1) x d[0..p) x 10^exp into buf (n bytes, snprintf
 * style) laid out as "%.*g" with precision p lays it out: fixed when -4 <= exp < p, else
 * "d.ddde+XX"; trailing zeros of the fraction and a bare '.' removed. Returns the length. */
UIR_FN int uir_format_decimal(char *buf, size_t n, int negative, const char *d, int p, int exp)
{
	char text[48];
	int len = 0, k = p, i;
	while (k > 1 && d[k - 1] == '0') /* the significant digits: trailing zeros dropped */
		k--;
	if (negative)
		text[len++] = '-';
	if (exp >= 0 && exp < p) {        /* ddd.ddd */
		for (i = 0; i <= exp; i++)
			text[len++] = i < k ? d[i] : '0';
		if (k > exp + 1)
			text[len++] = '.';
		for (i = exp + 1; i < k; i++)
			text[len++] = d[i];
	} else if (exp < 0 && exp >= -4) { /* 0.000ddd */
		text[len++] = '0';
		text[len++] = '.';
		for (i = -1; i > exp; i--)
			text[len++] = '0';
		for (i = 0; i < k; i++)
			text[len++] = d[i];
	} else {                           /* d.ddde+XX */
		text[len++] = d[0];
		if (k > 1)
			text[len++] = '.';
		for (i = 1; i < k; i++)
			text[len++] = d[i];
		text[len++] = 'e';
		text[len++] = exp < 0 ? '-' : '+';
		if (exp > -10 && exp < 10)
			text[len++] = '0';
		len += uir_format_i64(text + len, exp < 0 ? -exp : exp);
	}
	text[len] = '\0';
	return snprintf(buf, n, "%s", text);
}

/* uir-helper: uir_format_shortest needs: uir_format_special uir_decimal_digits uir_decimal_round uir_decimal_reads_back uir_format_decimal */
/* Writes x (an f32 value when is_f32) into buf (n bytes, snprintf style: truncated but
 * NUL-terminated when short) as "%.*g" with the least precision 1..max_p that reads back
 * as x; max_p is 9 for f32 and 17 for f64, which always read back. Returns the length.
 *
 * The digits are printed once with max_p digits; shorter roundings are made from them,
 * which is exact except when the dropped digits are exactly 5000... (then printf makes
 * that rounding from the exact value). If precision p reads back, so does every larger
 * one (its rounding is at least as close to x), so p is found by binary search. */
UIR_FN int uir_format_shortest(char *buf, size_t n, double x, int max_p, int is_f32)
{
	char all[24], d[24], best[24];
	int all_exp, exp, best_exp, lo = 1, hi = max_p;
	int negative = x < 0;
	int special = uir_format_special(buf, n, x);
	if (special >= 0)
		return special;
	if (x == 0)
		return snprintf(buf, n, "%.1g", x); /* "0" or "-0" */
	if (negative)
		x = -x;
	uir_decimal_digits(x, max_p, all, &all_exp);
	memcpy(best, all, (size_t)max_p);
	best_exp = all_exp;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		memcpy(d, all, (size_t)max_p);
		exp = all_exp;
		if (uir_decimal_round(d, max_p, mid, &exp) != 0)
			uir_decimal_digits(x, mid, d, &exp);
		if (uir_decimal_reads_back(d, mid, exp, x, is_f32)) {
			hi = mid;
			memcpy(best, d, (size_t)mid);
			best_exp = exp;
		} else {
			lo = mid + 1;
		}
	}
	return uir_format_decimal(buf, n, negative, best, lo, best_exp);
}

/* uir-helper: uir_format_f32 needs: uir_format_shortest */
/* Writes x into buf (n bytes) as "%.*g" with the least precision 1..9 that reads back as
 * x, or inf, -inf, nan, -0. Returns the length of the text (snprintf style). At most 16
 * bytes are needed ("-1.17549435e-38"). */
UIR_FN int uir_format_f32(char *buf, size_t n, float x)
{
	return uir_format_shortest(buf, n, x, 9, 1);
}

/* uir-helper: uir_format_f64 needs: uir_format_shortest */
/* Writes x into buf (n bytes) as "%.*g" with the least precision 1..17 that reads back as
 * x, or inf, -inf, nan, -0. Returns the length of the text (snprintf style). At most 25
 * bytes are needed ("-2.2250738585072014e-308"). */
UIR_FN int uir_format_f64(char *buf, size_t n, double x)
{
	return uir_format_shortest(buf, n, x, 17, 0);
}

/* uir-helper: uir_print_bool */
/* Prints "NAME: v0 v1 ...\n" for count bool elements (bytes; nonzero prints as 1). */
UIR_FN void uir_print_bool(FILE *f, const char *name, const uint8_t *data, int64_t count)
{
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++)
		fputs(data[i] ? " 1" : " 0", f);
	fputc('\n', f);
}

/* uir-helper: uir_print_i8 needs: uir_format_i64 */
/* Prints "NAME: v0 v1 ...\n" for count i8 elements. */
UIR_FN void uir_print_i8(FILE *f, const char *name, const int8_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_i64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_u8 needs: uir_format_u64 */
/* Prints "NAME: v0 v1 ...\n" for count u8 elements. */
UIR_FN void uir_print_u8(FILE *f, const char *name, const uint8_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_u64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_i32 needs: uir_format_i64 */
/* Prints "NAME: v0 v1 ...\n" for count i32 elements. */
UIR_FN void uir_print_i32(FILE *f, const char *name, const int32_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_i64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_u32 needs: uir_format_u64 */
/* Prints "NAME: v0 v1 ...\n" for count u32 elements. */
UIR_FN void uir_print_u32(FILE *f, const char *name, const uint32_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_u64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_i64 needs: uir_format_i64 */
/* Prints "NAME: v0 v1 ...\n" for count i64 elements. */
UIR_FN void uir_print_i64(FILE *f, const char *name, const int64_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_i64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_u64 needs: uir_format_u64 */
/* Prints "NAME: v0 v1 ...\n" for count u64 elements. */
UIR_FN void uir_print_u64(FILE *f, const char *name, const uint64_t *data, int64_t count)
{
	char text[24];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_u64(text + 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_f32 needs: uir_format_f32 */
/* Prints "NAME: v0 v1 ...\n" for count f32 elements. */
UIR_FN void uir_print_f32(FILE *f, const char *name, const float *data, int64_t count)
{
	char text[40];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_f32(text + 1, sizeof text - 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_print_f64 needs: uir_format_f64 */
/* Prints "NAME: v0 v1 ...\n" for count f64 elements. */
UIR_FN void uir_print_f64(FILE *f, const char *name, const double *data, int64_t count)
{
	char text[40];
	int64_t i;
	fputs(name, f);
	fputc(':', f);
	for (i = 0; i < count; i++) {
		text[0] = ' ';
		fwrite(text, 1, 1 + (size_t)uir_format_f64(text + 1, sizeof text - 1, data[i]), f);
	}
	fputc('\n', f);
}

/* uir-helper: uir_hash_add */
/* Feeds the low SIZE bytes of v, least significant first, into the FNV-1a 64 hash h. */
UIR_FN uint64_t uir_hash_add(uint64_t h, uint64_t v, int size)
{
	int k;
	for (k = 0; k < size; k++) {
		h ^= (v >> (8 * k)) & 0xFF;
		h *= 0x100000001B3u;
	}
	return h;
}

/* uir-helper: uir_hash_bytes needs: uir_hash_add */
/* FNV-1a 64 of count integer (or bool) elements of SIZE bytes (1, 4 or 8) at data, each
 * taken as its little-endian bytes whatever the host's byte order. */
UIR_FN uint64_t uir_hash_bytes(const void *data, int64_t count, int size)
{
	const unsigned char *p = (const unsigned char *)data;
	uint64_t h = 0xCBF29CE484222325u;
	int64_t i;
	for (i = 0; i < count; i++, p += size) {
		uint64_t v;
		if (size == 1) {
			v = p[0];
		} else if (size == 4) {
			uint32_t w;
			memcpy(&w, p, 4);
			v = w;
		} else {
			memcpy(&v, p, 8);
		}
		h = uir_hash_add(h, v, size);
	}
	return h;
}

/* uir-helper: uir_hash_f32 needs: uir_hash_add */
/* FNV-1a 64 of count f32 elements, little-endian, every NaN as 0x7FC00000. */
UIR_FN uint64_t uir_hash_f32(const float *data, int64_t count)
{
	uint64_t h = 0xCBF29CE484222325u;
	int64_t i;
	for (i = 0; i < count; i++) {
		uint32_t bits = 0x7FC00000u;
		if (data[i] == data[i])
			memcpy(&bits, &data[i], 4);
		h = uir_hash_add(h, bits, 4);
	}
	return h;
}

/* uir-helper: uir_hash_f64 needs: uir_hash_add */
/* FNV-1a 64 of count f64 elements, little-endian, every NaN as 0x7FF8000000000000. */
UIR_FN uint64_t uir_hash_f64(const double *data, int64_t count)
{
	uint64_t h = 0xCBF29CE484222325u;
	int64_t i;
	for (i = 0; i < count; i++) {
		uint64_t bits = 0x7FF8000000000000u;
		if (data[i] == data[i])
			memcpy(&bits, &data[i], 8);
		h = uir_hash_add(h, bits, 8);
	}
	return h;
}

/* uir-helper: uir_count_differences */
/* The number of the count elements of size bytes (1, 4 or 8) at a and b that differ bit for
 * bit, any NaN matching any NaN when is_float; the first of them in *first (left alone when
 * there is none). The timing main of `# cuda speed` compares each launch's buffers with
 * `uir run`'s so. */
UIR_FN int64_t uir_count_differences(const void *a, const void *b, int64_t count, int size, int is_float,
				     int64_t *first)
{
	const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
	int64_t i, n = 0;
	for (i = 0; i < count; i++) {
		const unsigned char *x = pa + i * size, *y = pb + i * size;
		if (memcmp(x, y, (size_t)size) == 0)
			continue;
		if (is_float && size == 4) {
			float fx, fy;
			memcpy(&fx, x, 4);
			memcpy(&fy, y, 4);
			if (fx != fx && fy != fy)
				continue;
		} else if (is_float && size == 8) {
			double dx, dy;
			memcpy(&dx, x, 8);
			memcpy(&dy, y, 8);
			if (dx != dx && dy != dy)
				continue;
		}
		if (n++ == 0)
			*first = i;
	}
	return n;
}

/* uir-helper-end */

#endif /* UIR_PRINT_H */
