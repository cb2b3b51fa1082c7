/* expect.c - typed values and the `# expect` comparison (spec section 10).
 *
 * `# expect NAME: v0 v1 ...` passes when `run` printed exactly SIZE values for buffer NAME
 * and each equals the expected one bit for bit in the buffer's element type (any NaN matches
 * any NaN). Both sides are parsed in that type, so `2`, `2.0` and `0x1p1` all expect the
 * f32 value 2, and `-0` differs from `0`. The types come from the program itself, loaded in
 * process with uir_load() once `run` has accepted the file.
 */
#include "test_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The width in bits of an integer type, and whether it is signed. */
static int int_width(UirType t, bool *is_signed)
{
	*is_signed = t == UIR_I8 || t == UIR_I32 || t == UIR_I64;
	switch (t) {
	case UIR_I8: case UIR_U8: return 8;
	case UIR_I32: case UIR_U32: return 32;
	default: return 64;
	}
}

/* Digits of S in BASE into *MAG; false on an empty string, a bad digit or overflow. */
static bool parse_magnitude(const char *s, unsigned base, uint64_t *mag)
{
	uint64_t m = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (d >= base || m > (UINT64_MAX - d) / base)
			return false;
		m = m * base + d;
	}
	*mag = m;
	return true;
}

static int parse_int(const char *s, UirType t, UtValue *v)
{
	bool is_signed;
	int w = int_width(t, &is_signed);
	uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
	uint64_t smax = mask >> 1; /* the largest signed value */
	bool neg = *s == '-';
	if (neg)
		s++;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	uint64_t mag;
	if (!parse_magnitude(hex ? s + 2 : s, hex ? 16 : 10, &mag))
		return -1;
	if (neg) {
		if (mag == 0) {
			v->bits = 0;
		} else if (!is_signed || mag > smax + 1) {
			return -1;
		} else {
			v->bits = (~mag + 1) & mask; /* two's complement of the magnitude */
		}
	} else {
		/* a hex literal is a bit pattern of the type's width (spec section 2) */
		if (mag > (hex || !is_signed ? mask : smax))
			return -1;
		v->bits = mag;
	}
	v->nan = false;
	return 0;
}

int ut_parse_value(const char *text, UirType t, UtValue *v)
{
	char *end;
	if (!*text || text[0] == ' ' || text[0] == '\t' || text[0] == '\n')
		return -1;
	switch (t) {
	case UIR_BOOL:
		if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0)
			v->bits = 0;
		else if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0)
			v->bits = 1;
		else
			return -1;
		v->nan = false;
		return 0;
	case UIR_F32: {
		float f = strtof(text, &end); /* rounds once, from the decimal text */
		if (*end)
			return -1;
		uint32_t b;
		memcpy(&b, &f, sizeof b);
		v->bits = b;
		v->nan = isnan(f);
		return 0;
	}
	case UIR_F64: {
		double d = strtod(text, &end);
		if (*end)
			return -1;
		memcpy(&v->bits, &d, sizeof d);
		v->nan = isnan(d);
		return 0;
	}
	default:
		return parse_int(text, t, v);
	}
}

bool ut_value_eq(UtValue a, UtValue b)
{
	if (a.nan || b.nan)
		return a.nan && b.nan;
	return a.bits == b.bits;
}

/* The next blank-separated token in [*P, END): sets *TOK and *N, advances *P. */
static bool next_token(const char **p, const char *end, const char **tok, size_t *n)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return false;
	const char *e = s;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	*tok = s;
	*n = (size_t)(e - s);
	*p = e;
	return true;
}

/* The line of OUT that starts with "NAME:", as [*LINE, *END) after the colon. */
static bool find_line(const char *out, size_t len, const char *name,
                      const char **line, const char **end)
{
	size_t nlen = strlen(name);
	const char *p = out, *stop = out + len;
	while (p < stop) {
		const char *e = memchr(p, '\n', (size_t)(stop - p));
		if (!e)
			e = stop;
		if ((size_t)(e - p) > nlen && memcmp(p, name, nlen) == 0 && p[nlen] == ':') {
			*line = p + nlen + 1;
			*end = e;
			return true;
		}
		p = e + 1;
	}
	return false;
}

/* Compares one expectation with run's line for its buffer (index I of PROG). */
static int check_one(const UtExpect *e, const UirProgram *prog, int i,
                     const char *out, size_t len, UtBuf *fails)
{
	UirType t = uir_buffer_type(prog, i);
	const char *tname = uir_type_name(t);
	int64_t size = uir_buffer_size(prog, i);
	if (e->nvals != size) {
		ut_buf_printf(fails, "expect %s: %d value%s given, the buffer has %lld\n", e->name,
		              e->nvals, e->nvals == 1 ? "" : "s", (long long)size);
		return 1;
	}
	const char *p, *end;
	if (!find_line(out, len, e->name, &p, &end)) {
		ut_buf_printf(fails, "expect %s: run printed no line for buffer %s\n", e->name,
		              e->name);
		return 1;
	}
	int first = -1, differ = 0;
	char *got_first = NULL;
	for (int k = 0; k < e->nvals; k++) {
		UtValue want, got;
		const char *tok;
		size_t n;
		if (ut_parse_value(e->vals[k], t, &want) != 0) {
			ut_buf_printf(fails, "expect %s: value %d, '%s', is not a %s value\n", e->name,
			              k, e->vals[k], tname);
			free(got_first);
			return 1;
		}
		if (!next_token(&p, end, &tok, &n)) {
			ut_buf_printf(fails, "expect %s: run printed %d values for a buffer of %lld\n",
			              e->name, k, (long long)size);
			free(got_first);
			return 1;
		}
		char *text = ut_format("%.*s", (int)n, tok);
		if (ut_parse_value(text, t, &got) != 0) {
			ut_buf_printf(fails, "expect %s: run printed '%s' for element %d, not a %s "
			              "value\n", e->name, text, k, tname);
			free(text);
			free(got_first);
			return 1;
		}
		if (!ut_value_eq(want, got) && differ++ == 0) {
			first = k;
			got_first = text;
		} else {
			free(text);
		}
	}
	const char *tok;
	size_t n;
	if (next_token(&p, end, &tok, &n)) {
		ut_buf_printf(fails, "expect %s: run printed more than %lld values\n", e->name,
		              (long long)size);
		free(got_first);
		return 1;
	}
	if (differ) {
		ut_buf_printf(fails, "expect %s: element %d is %s, expected %s", e->name, first,
		              got_first, e->vals[first]);
		if (differ > 1)
			ut_buf_printf(fails, " (%d elements differ)", differ);
		ut_buf_puts(fails, "\n");
	}
	free(got_first);
	return differ ? 1 : 0;
}

int ut_check_expects(const char *path, const UtSpec *spec, const char *out, size_t len,
                     UtBuf *fails)
{
	if (spec->nexpects == 0)
		return 0;
	char *diag = NULL;
	size_t dlen = 0;
	FILE *err = open_memstream(&diag, &dlen);
	UirProgram *prog = uir_load(path, err);
	if (err)
		fclose(err);
	if (!prog) {
		char *first = ut_first_line(diag ? diag : "", diag ? dlen : 0, 300);
		ut_buf_printf(fails, "expect: cannot load %s for its buffer types: %s\n", path,
		              first);
		free(first);
		free(diag);
		return 1;
	}
	free(diag);
	int failed = 0;
	for (int k = 0; k < spec->nexpects; k++) {
		const UtExpect *e = &spec->expects[k];
		int i = uir_buffer_count(prog);
		while (--i >= 0)
			if (strcmp(uir_buffer_name(prog, i), e->name) == 0)
				break;
		if (i < 0) {
			ut_buf_printf(fails, "expect %s: the program has no buffer %s\n", e->name,
			              e->name);
			failed++;
		} else {
			failed += check_one(e, prog, i, out, len, fails);
		}
	}
	uir_free(prog);
	return failed;
}

/* Line K (0-based) of S as [*L, *E); false when S has fewer lines. */
static bool nth_line(const char *s, size_t n, int k, const char **l, const char **e)
{
	const char *p = s, *stop = s + n;
	for (int i = 0; p < stop; i++) {
		const char *q = memchr(p, '\n', (size_t)(stop - p));
		if (!q)
			q = stop;
		if (i == k) {
			*l = p;
			*e = q;
			return true;
		}
		p = q + 1;
	}
	return false;
}

/* Describes how two lines of `run`'s format differ. */
static char *diff_lines(const char *a, const char *ae, const char *who_a,
                        const char *b, const char *be, const char *who_b, int k)
{
	const char *ca = memchr(a, ':', (size_t)(ae - a)), *cb = memchr(b, ':', (size_t)(be - b));
	if (ca && cb && ca - a == cb - b && memcmp(a, b, (size_t)(ca - a)) == 0) {
		int name_len = (int)(ca - a);
		const char *pa = ca + 1, *pb = cb + 1, *ta, *tb;
		size_t na, nb;
		for (int i = 0;; i++) {
			bool ha = next_token(&pa, ae, &ta, &na), hb = next_token(&pb, be, &tb, &nb);
			if (!ha || !hb) {
				if (!ha && !hb)
					break; /* equal tokens, different blanks */
				return ut_format("buffer %.*s: %s printed %d values, %s printed more",
				                 name_len, a, ha ? who_b : who_a, i, ha ? who_a : who_b);
			}
			if (na != nb || memcmp(ta, tb, na) != 0)
				return ut_format("buffer %.*s, element %d: %s printed %.*s, %s printed %.*s",
				                 name_len, a, i, who_a, (int)na, ta, who_b, (int)nb, tb);
		}
	}
	char *la = ut_first_line(a, (size_t)(ae - a), 60), *lb = ut_first_line(b, (size_t)(be - b), 60);
	char *msg = ut_format("line %d: %s printed '%s', %s printed '%s'", k + 1, who_a, la,
	                      who_b, lb);
	free(la);
	free(lb);
	return msg;
}

char *ut_diff_outputs(const char *a, size_t alen, const char *who_a,
                      const char *b, size_t blen, const char *who_b)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return NULL;
	for (int k = 0;; k++) {
		const char *la = NULL, *ea = NULL, *lb = NULL, *eb = NULL;
		bool ha = nth_line(a, alen, k, &la, &ea), hb = nth_line(b, blen, k, &lb, &eb);
		if (!ha && !hb)
			break;
		if (!ha || !hb)
			return ut_format("%s printed %d line%s, %s printed more", ha ? who_b : who_a, k,
			                 k == 1 ? "" : "s", ha ? who_a : who_b);
		if (ea - la != eb - lb || memcmp(la, lb, (size_t)(ea - la)) != 0)
			return diff_lines(la, ea, who_a, lb, eb, who_b, k);
	}
	return ut_strdup("the outputs differ (in line endings)");
}
