/* expect.c - typed values and the `# expect` comparison (docs/testing.md, "`# expect` values").
 *
 * `# expect NAME: v0 v1 ...` passes when `run` printed exactly SIZE values for buffer NAME
 * and each equals the expected one bit for bit in the buffer's element type (any NaN matches
 * any NaN). Both sides are parsed in that type, so `2`, `2.0` and `0x1p1` all expect the
 * f32 value 2, and `-0` differs from `0`. The types come from the program itself, loaded in
 * process with uir_load() once `run` has accepted the file.
 */
#include "runner_int.h"

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
		/* a hex literal is a bit pattern of the type's width (docs/language.md 2.6.7) */
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

/* ---- reading run's output as a stream ----
 *
 * Outputs are files (proc.c spills them), read with getc_unlocked: the runner's memory is
 * the same for an output of 100 bytes and of 10 GB. A value printed by run is at most 24
 * bytes; a token is kept up to TOK_MAX bytes for messages and parsing, and a longer one is
 * shown cut, with "...". */

enum { TOK_MAX = 200 };

static int rd(FILE *f)
{
	return f ? getc_unlocked(f) : EOF;
}

static void unrd(int c, FILE *f)
{
	if (f && c != EOF)
		ungetc(c, f);
}

static bool blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Skips blanks; returns whether a token follows on this line (its first byte is not read). */
static bool at_token(FILE *f)
{
	int c;
	while (blank(c = rd(f)))
		;
	unrd(c, f);
	return c != EOF && c != '\n';
}

/* A kept token: its first TOK_MAX bytes, NUL-terminated, and its whole length. */
typedef struct Tok {
	char s[TOK_MAX + 4];
	size_t n, len;
} Tok;

static void tok_add(Tok *t, int c)
{
	if (t->n < TOK_MAX)
		t->s[t->n++] = (char)c;
	t->len++;
	t->s[t->n] = '\0';
}

/* The token's text for a message, "..." marking a cut. */
static const char *tok_text(Tok *t)
{
	if (t->len > t->n)
		strcpy(t->s + t->n, "...");
	return t->s;
}

/* Reads the rest of the token at F into T. */
static void read_token(FILE *f, Tok *t)
{
	int c;
	while ((c = rd(f)) != EOF && c != '\n' && !blank(c))
		tok_add(t, c);
	unrd(c, f);
}

static void skip_line(FILE *f)
{
	int c;
	while ((c = rd(f)) != EOF && c != '\n')
		;
}

/* ---- # expect ---- */

/* Where one expectation stands while run's output streams past. */
typedef struct Check {
	const UtExpect *e;
	int buf;          /* the buffer's index in the program, or -1 */
	UirType t;
	int64_t size;
	bool seen, done;  /* its line was found; it failed (FAIL says why) */
	int k, differ, first;
	char *got_first;
	char *fail;       /* malloc'd message lines, or NULL */
} Check;

/* Check pointers by the name of their expectation; the key is a name. */
static int cmp_check(const void *key, const void *elem)
{
	return strcmp((const char *)key, (*(Check *const *)elem)->e->name);
}

static int cmp_checks(const void *a, const void *b)
{
	return strcmp((*(Check *const *)a)->e->name, (*(Check *const *)b)->e->name);
}

static void check_fail(Check *c, char *msg)
{
	if (!c->fail)
		c->fail = msg;
	else
		free(msg);
	c->done = true;
}

/* The next value of run's line for C's buffer, as token TOK. */
static void check_value(Check *c, Tok *tok)
{
	const UtExpect *e = c->e;
	const char *tname = uir_type_name(c->t);
	UtValue want, got;
	if (c->k == e->nvals) {
		check_fail(c, ut_format("expect %s: run printed more than %lld values\n", e->name,
		                        (long long)c->size));
		return;
	}
	if (ut_parse_value(e->vals[c->k], c->t, &want) != 0) {
		check_fail(c, ut_format("expect %s: value %d, '%s', is not a %s value\n", e->name, c->k,
		                        e->vals[c->k], tname));
		return;
	}
	if (tok->len > tok->n || ut_parse_value(tok->s, c->t, &got) != 0) {
		check_fail(c, ut_format("expect %s: run printed '%s' for element %d, not a %s value\n",
		                        e->name, tok_text(tok), c->k, tname));
		return;
	}
	if (!ut_value_eq(want, got) && c->differ++ == 0) {
		c->first = c->k;
		c->got_first = ut_strdup(tok->s);
	}
	c->k++;
}

/* The end of run's line for C's buffer. */
static void check_end(Check *c)
{
	const UtExpect *e = c->e;
	UtValue want;
	if (c->done)
		return;
	if (c->k < e->nvals) {
		if (ut_parse_value(e->vals[c->k], c->t, &want) != 0)
			check_fail(c, ut_format("expect %s: value %d, '%s', is not a %s value\n", e->name,
			                        c->k, e->vals[c->k], uir_type_name(c->t)));
		else
			check_fail(c, ut_format("expect %s: run printed %d values for a buffer of %lld\n",
			                        e->name, c->k, (long long)c->size));
		return;
	}
	if (c->differ) {
		char more[40] = "";
		if (c->differ > 1)
			snprintf(more, sizeof more, " (%d elements differ)", c->differ);
		check_fail(c, ut_format("expect %s: element %d is %s, expected %s%s\n", e->name, c->first,
		                        c->got_first, e->vals[c->first], more));
	}
	c->done = true;
}

/* One pass over OUT: each line whose name has an unseen expectation is compared with it. */
static void scan_output(FILE *out, Check **by_name, int n, size_t maxname)
{
	char *name = ut_xmalloc(maxname + 2);
	for (;;) {
		size_t len = 0;
		int c;
		bool longer = false;
		while ((c = rd(out)) != EOF && c != '\n' && c != ':') {
			if (len <= maxname)
				name[len++] = (char)c;
			else
				longer = true;
		}
		if (c == EOF && len == 0)
			break;
		if (c != ':' || longer) {
			if (c == ':')
				skip_line(out);
			if (c == EOF)
				break;
			continue;
		}
		name[len] = '\0';
		Check **found = bsearch(name, by_name, (size_t)n, sizeof *by_name, cmp_check);
		Check *ck = found ? *found : NULL;
		if (!ck || ck->seen || ck->done) {
			skip_line(out);
			continue;
		}
		ck->seen = true;
		Tok tok;
		while (at_token(out)) {
			tok.n = tok.len = 0;
			tok.s[0] = '\0';
			read_token(out, &tok);
			if (!ck->done)
				check_value(ck, &tok);
		}
		check_end(ck);
		skip_line(out);
	}
	free(name);
}

typedef struct BufName {
	const char *name;
	int i;
} BufName;

static int cmp_names(const void *a, const void *b)
{
	return strcmp(((const BufName *)a)->name, ((const BufName *)b)->name);
}

int ut_check_expects(const char *path, const UtSpec *spec, FILE *out, UtBuf *fails)
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
	int n = spec->nexpects;
	Check *ck = ut_xmalloc((size_t)n * sizeof *ck);
	Check **by_name = ut_xmalloc((size_t)n * sizeof *by_name);
	/* the program's buffers by name (unique in a program that loads) */
	int nb = uir_buffer_count(prog);
	BufName *bufs = ut_xmalloc(((size_t)nb + 1) * sizeof *bufs);
	for (int i = 0; i < nb; i++)
		bufs[i] = (BufName){ uir_buffer_name(prog, i), i };
	qsort(bufs, (size_t)nb, sizeof *bufs, cmp_names);
	size_t maxname = 0;
	for (int k = 0; k < n; k++) {
		Check *c = &ck[k];
		*c = (Check){ .e = &spec->expects[k], .buf = -1 };
		by_name[k] = c;
		const char *key = c->e->name;
		BufName want = { key, 0 };
		const BufName *b = bsearch(&want, bufs, (size_t)nb, sizeof *bufs, cmp_names);
		if (b)
			c->buf = b->i;
		if (c->buf < 0) {
			check_fail(c, ut_format("expect %s: the program has no buffer %s\n", key, key));
			continue;
		}
		c->t = uir_buffer_type(prog, c->buf);
		c->size = uir_buffer_size(prog, c->buf);
		if (c->e->nvals != c->size) {
			check_fail(c, ut_format("expect %s: %d value%s given, the buffer has %lld\n", key,
			                        c->e->nvals, c->e->nvals == 1 ? "" : "s", (long long)c->size));
			continue;
		}
		size_t len = strlen(key);
		if (len > maxname)
			maxname = len;
	}
	free(bufs);
	qsort(by_name, (size_t)n, sizeof *by_name, cmp_checks);
	if (out)
		rewind(out);
	scan_output(out, by_name, n, maxname);
	int failed = 0; /* the messages in the expectations' order */
	for (int k = 0; k < n; k++) {
		Check *c = &ck[k];
		if (!c->seen && !c->done)
			check_fail(c, ut_format("expect %s: run printed no line for buffer %s\n", c->e->name,
			                        c->e->name));
		if (c->fail) {
			ut_buf_puts(fails, c->fail);
			failed++;
		}
		free(c->fail);
		free(c->got_first);
	}
	free(by_name);
	free(ck);
	uir_free(prog);
	return failed;
}

/* ---- comparing two outputs ---- */

/* The first byte where A and B differ, from their starts: *AT its offset, *LINE the number
 * of line breaks before it and *START the offset of its line; *CA and *CB the bytes there
 * (EOF at an end). Returns false when the two are equal. */
static bool first_difference(FILE *a, FILE *b, off_t *at, int *line, off_t *start, int *ca, int *cb)
{
	static char ba[1 << 16], bb[1 << 16];
	off_t base = 0, st = 0;
	int k = 0;
	for (;;) {
		size_t na = a ? fread(ba, 1, sizeof ba, a) : 0, nb = b ? fread(bb, 1, sizeof bb, b) : 0;
		size_t m = na < nb ? na : nb, i = 0;
		if (memcmp(ba, bb, m) != 0)
			while (ba[i] == bb[i])
				i++;
		else
			i = m;
		for (const char *p = ba, *e = ba + i; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) {
			k++;
			st = base + (p - ba) + 1;
		}
		if (i < m || na != nb) {
			*at = base + (off_t)i;
			*ca = i < na ? (unsigned char)ba[i] : EOF;
			*cb = i < nb ? (unsigned char)bb[i] : EOF;
			*line = k;
			*start = st;
			return true;
		}
		if (na == 0)
			return false;
		base += (off_t)m;
	}
}

static void seek(FILE *f, off_t at)
{
	if (f)
		fseeko(f, at, SEEK_SET);
}

/* ut_first_line() of the line at offset AT of F (MAX bytes shown). */
static char *line_at(FILE *f, off_t at, size_t max)
{
	char buf[256];
	size_t n = 0;
	int c;
	seek(f, at);
	while (n < max + 1 && n < sizeof buf && (c = rd(f)) != EOF && c != '\n')
		buf[n++] = (char)c;
	return ut_first_line(buf, n, max);
}

/* How line K of A and B, both at offset START and different, differ (as diff_lines did on
 * whole lines): the first value of one buffer's line, or the lines' starts. */
static char *diff_line(FILE *a, const char *who_a, FILE *b, const char *who_b, off_t start, int k)
{
	Tok name = { .n = 0 };
	seek(a, start);
	seek(b, start);
	int x, y;
	for (;;) { /* the names, up to the first ':' of each line */
		x = rd(a);
		y = rd(b);
		if (x != y || x == EOF || x == '\n' || x == ':')
			break;
		tok_add(&name, x);
	}
	if (x == ':' && y == ':') {
		const char *nm = tok_text(&name);
		for (int i = 0;; i++) {
			bool ha = at_token(a), hb = at_token(b);
			if (!ha || !hb) {
				if (!ha && !hb)
					break; /* equal values, different blanks */
				return ut_format("buffer %s: %s printed %d values, %s printed more", nm,
				                 ha ? who_b : who_a, i, ha ? who_a : who_b);
			}
			Tok ta = { .n = 0 }, tb = { .n = 0 };
			bool differ = false;
			for (;;) { /* the two values side by side, to their first difference */
				x = rd(a);
				y = rd(b);
				bool ea = x == EOF || x == '\n' || blank(x), eb = y == EOF || y == '\n' || blank(y);
				if (ea && eb) {
					unrd(x, a);
					unrd(y, b);
					break;
				}
				if (ea || eb || x != y) {
					if (ea)
						unrd(x, a);
					else
						tok_add(&ta, x);
					if (eb)
						unrd(y, b);
					else
						tok_add(&tb, y);
					differ = true;
					break;
				}
				tok_add(&ta, x);
				tok_add(&tb, y);
			}
			if (differ) {
				read_token(a, &ta);
				read_token(b, &tb);
				return ut_format("buffer %s, element %d: %s printed %s, %s printed %s", nm, i,
				                 who_a, tok_text(&ta), who_b, tok_text(&tb));
			}
		}
	}
	char *la = line_at(a, start, 60), *lb = line_at(b, start, 60);
	char *msg = ut_format("line %d: %s printed '%s', %s printed '%s'", k + 1, who_a, la, who_b, lb);
	free(la);
	free(lb);
	return msg;
}

char *ut_diff_files(FILE *a, const char *who_a, FILE *b, const char *who_b)
{
	off_t at, start;
	int k, ca, cb;
	if (a)
		rewind(a);
	if (b)
		rewind(b);
	if (!first_difference(a, b, &at, &k, &start, &ca, &cb))
		return NULL;
	/* line K exists on a side unless that side ends where the line would start */
	bool ha = !(ca == EOF && at == start), hb = !(cb == EOF && at == start);
	if (!ha || !hb)
		return ut_format("%s printed %d line%s, %s printed more", ha ? who_b : who_a, k,
		                 k == 1 ? "" : "s", ha ? who_a : who_b);
	if ((ca == EOF && cb == '\n') || (ca == '\n' && cb == EOF)) {
		/* line K is the same on both sides; one ends the file after it, the other goes on */
		FILE *nl = ca == '\n' ? a : b;
		seek(nl, at + 1);
		if (rd(nl) == EOF)
			return ut_strdup("the outputs differ (in line endings)");
		return ut_format("%s printed %d line%s, %s printed more", ca == EOF ? who_a : who_b, k + 1,
		                 k + 1 == 1 ? "" : "s", ca == EOF ? who_b : who_a);
	}
	return diff_line(a, who_a, b, who_b, start, k);
}
