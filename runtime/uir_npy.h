/* uir_npy.h - reading and writing numpy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Used for `buffer ... = file "PATH"`, `run --input NAME=FILE.npy` and `run --dump DIR`.
 * A buffer's element type is named by numpy's dtype string:
 *   bool '|b1', i8 '|i1', u8 '|u1', i32 '<i4', u32 '<u4', i64 '<i8', u64 '<u8',
 *   f32 '<f4', f64 '<f8'.
 *
 * Reading (docs/language.md 3.4.2) accepts exactly the files numpy writes for such an array:
 *   - the dtype must be the buffer's, little-endian; for one-byte types the byte-order
 *     character does not matter ('|u1', '<u1', '=u1' and '>u1' are the same);
 *   - fortran_order must be False (C order);
 *   - any shape whose product is the buffer's element count: (n,), (2, 3), ... and the
 *     0-d shape () for a one-element buffer (a numpy scalar array holds one element);
 *   - bytes after the data are ignored, as numpy.load ignores them;
 *   - a bool byte other than 0 reads as 1 (bool in memory is 0 or 1).
 * The header is parsed as the small subset of Python literals numpy writes, with bounds
 * checks everywhere: malformed input gives an error, never a crash (it is fuzzed).
 *
 * Writing produces version 1.0 with shape (count,), readable by numpy.load; every float
 * NaN is written as the canonical pattern (docs/language.md 2.4.2).
 *
 * A header whose element count needs more data than the file holds is "truncated data"
 * before any data is read (a 144-byte file may claim 2^31-1 elements): uir_npy_check reads
 * only the header, and uir_npy_read compares the claim with the file's size first, so
 * neither allocates or reads for a claim the file cannot back.
 *
 * Data is little-endian in the file and converted on big-endian hosts.
 * Each helper starts with a marker line (runtime/README.md) and is pasted verbatim by
 * the renderers (`render --main`).
 */
#ifndef UIR_NPY_H
#define UIR_NPY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UIR_FN
#define UIR_FN static inline
#endif

/* The reason a file did not open, in "cannot open: REASON", and the refusal of a path that
 * is not a regular file (a FIFO would block the open until someone writes). The helpers'
 * text uses them only under #ifdef: code that includes this header gets both; the
 * renderers, which paste the helpers after their own preamble (no <errno.h>, no stat),
 * get "cannot open" and a plain fopen. */
#ifndef UIR_NPY_OPEN_REASON
#include <errno.h>
#include "../src/util/files.h"
#define UIR_NPY_OPEN_REASON() strerror(errno)
#define UIR_NPY_NOT_REGULAR(path) uir_path_not_regular(path)
#endif

/* uir-helper: uir_npy_type_name */
/* The .uir type name ("f32") for a buffer dtype string ("<f4"), or NULL if it is none. */
UIR_FN const char *uir_npy_type_name(const char *descr)
{
	static const char *const table[][2] = {
		{"|b1", "bool"}, {"|i1", "i8"}, {"|u1", "u8"}, {"<i4", "i32"}, {"<u4", "u32"},
		{"<i8", "i64"}, {"<u8", "u64"}, {"<f4", "f32"}, {"<f8", "f64"},
	};
	size_t k;
	for (k = 0; k < sizeof table / sizeof table[0]; k++)
		if (strcmp(descr, table[k][0]) == 0)
			return table[k][1];
	return NULL;
}

/* uir-helper: uir_npy_host_is_little */
/* Whether this machine stores integers least significant byte first. */
UIR_FN int uir_npy_host_is_little(void)
{
	uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

/* uir-helper: uir_npy_swap_bytes */
/* Reverses the bytes of each of COUNT elements of SIZE bytes at DATA, in place. */
UIR_FN void uir_npy_swap_bytes(void *data, int64_t count, int size)
{
	unsigned char *p = (unsigned char *)data;
	int64_t i;
	int k;
	for (i = 0; i < count; i++, p += size)
		for (k = 0; k < size / 2; k++) {
			unsigned char t = p[k];
			p[k] = p[size - 1 - k];
			p[size - 1 - k] = t;
		}
}

/* uir-helper: uir_npy_error */
/* Writes a one-line error message into err (errlen bytes, may be 0) and returns -1. */
UIR_FN int uir_npy_error(char *err, size_t errlen, const char *msg)
{
	if (err && errlen > 0)
		snprintf(err, errlen, "%s", msg);
	return -1;
}

/* uir-helper: uir_npy_skip_space */
/* The first position at or after pos in text[0..len) that is not a space or tab. */
UIR_FN size_t uir_npy_skip_space(const char *text, size_t len, size_t pos)
{
	while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
		pos++;
	return pos;
}

/* uir-helper: uir_npy_parse_string needs: uir_npy_skip_space */
/* Parses a quoted string ('...' or "...", no escapes) at *pos into out (outlen >= 1
 * bytes, NUL-terminated) and moves *pos past it. Returns 0, or -1 if there is no string
 * or it does not fit. */
UIR_FN int uir_npy_parse_string(const char *text, size_t len, size_t *pos, char *out,
				size_t outlen)
{
	size_t p = uir_npy_skip_space(text, len, *pos);
	size_t n = 0;
	char quote;
	if (p >= len || (text[p] != '\'' && text[p] != '"'))
		return -1;
	quote = text[p++];
	while (p < len && text[p] != quote) {
		if (text[p] == '\\' || text[p] == '\n' || text[p] == '\0' || n + 1 >= outlen)
			return -1;
		out[n++] = text[p++];
	}
	if (p >= len)
		return -1;
	out[n] = '\0';
	*pos = p + 1;
	return 0;
}

/* uir-helper: uir_npy_parse_word needs: uir_npy_skip_space */
/* Moves *pos past WORD if the text at *pos (after spaces) starts with it followed by a
 * character that cannot continue a name. Returns 1 if it did, else 0. */
UIR_FN int uir_npy_parse_word(const char *text, size_t len, size_t *pos, const char *word)
{
	size_t p = uir_npy_skip_space(text, len, *pos);
	size_t n = strlen(word);
	char next;
	if (len - p < n || memcmp(text + p, word, n) != 0)
		return 0;
	next = p + n < len ? text[p + n] : ' ';
	if ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
	    (next >= '0' && next <= '9') || next == '_')
		return 0;
	*pos = p + n;
	return 1;
}

/* uir-helper: uir_npy_parse_shape needs: uir_npy_skip_space */
/* Parses a shape tuple at *pos: "()", "(n,)", "(n, m)", "(n, m,)", ... with every n a
 * non-negative decimal integer (a Python 2 "L" suffix is allowed). Sets *elements to the
 * product of the dimensions, or to -1 if the product exceeds 2^62. Returns 0, or -1 if
 * the text is not such a tuple ("(n)" is an integer in Python, not a tuple). */
UIR_FN int uir_npy_parse_shape(const char *text, size_t len, size_t *pos, int64_t *elements)
{
	const int64_t limit = (int64_t)1 << 62;
	size_t p = uir_npy_skip_space(text, len, *pos);
	int64_t product = 1;
	int dims = 0, comma = 0, overflow = 0;
	if (p >= len || text[p] != '(')
		return -1;
	p = uir_npy_skip_space(text, len, p + 1);
	while (p < len && text[p] != ')') {
		int64_t dim = 0;
		if (dims > 0 && !comma)
			return -1;
		if (text[p] < '0' || text[p] > '9')
			return -1;
		while (p < len && text[p] >= '0' && text[p] <= '9') {
			if (dim <= limit / 10)
				dim = dim * 10 + (text[p] - '0');
			else
				dim = limit + 1; /* too large: stays too large */
			p++;
		}
		if (p < len && text[p] == 'L')
			p++;
		if (dim > limit || (dim > 0 && product > limit / dim))
			overflow = 1;
		else
			product *= dim;
		dims++;
		p = uir_npy_skip_space(text, len, p);
		comma = p < len && text[p] == ',';
		if (comma)
			p = uir_npy_skip_space(text, len, p + 1);
	}
	if (p >= len || (dims == 1 && !comma))
		return -1;
	*pos = p + 1;
	*elements = product == 0 ? 0 : overflow ? -1 : product;
	return 0;
}

/* uir-helper: uir_npy_parse_header needs: uir_npy_skip_space uir_npy_parse_string uir_npy_parse_word uir_npy_parse_shape */
/* Parses the header dictionary of a .npy file, text[0..len), e.g.
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3,), }
 * into descr (the dtype string, descrlen bytes), *fortran_order (0 or 1) and *elements
 * (the product of the shape, -1 if huge). Keys may come in any order; each must appear
 * once and no other key is allowed. Returns NULL, or what is wrong ("bad header: ..."). */
UIR_FN const char *uir_npy_parse_header(const char *text, size_t len, char *descr,
					size_t descrlen, int *fortran_order, int64_t *elements)
{
	size_t pos = uir_npy_skip_space(text, len, 0);
	int seen_descr = 0, seen_order = 0, seen_shape = 0;
	char key[32];
	if (pos >= len || text[pos] != '{')
		return "bad header: no dictionary";
	pos++;
	for (;;) {
		pos = uir_npy_skip_space(text, len, pos);
		if (pos < len && text[pos] == '}')
			break;
		if (uir_npy_parse_string(text, len, &pos, key, sizeof key) != 0)
			return "bad header: expected a key or '}'";
		pos = uir_npy_skip_space(text, len, pos);
		if (pos >= len || text[pos] != ':')
			return "bad header: expected ':'";
		pos++;
		if (strcmp(key, "descr") == 0 && !seen_descr) {
			seen_descr = 1;
			if (uir_npy_parse_string(text, len, &pos, descr, descrlen) != 0)
				return "bad header: descr is not a simple dtype string";
		} else if (strcmp(key, "fortran_order") == 0 && !seen_order) {
			seen_order = 1;
			if (uir_npy_parse_word(text, len, &pos, "True"))
				*fortran_order = 1;
			else if (uir_npy_parse_word(text, len, &pos, "False"))
				*fortran_order = 0;
			else
				return "bad header: fortran_order is not True or False";
		} else if (strcmp(key, "shape") == 0 && !seen_shape) {
			seen_shape = 1;
			if (uir_npy_parse_shape(text, len, &pos, elements) != 0)
				return "bad header: shape is not a tuple of integers";
		} else {
			return "bad header: unknown or repeated key";
		}
		pos = uir_npy_skip_space(text, len, pos);
		if (pos < len && text[pos] == ',')
			pos++;
		else if (pos >= len || text[pos] != '}')
			return "bad header: expected ',' or '}'";
	}
	for (pos++; pos < len; pos++) /* numpy pads with spaces and ends with '\n' */
		if (text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\n' &&
		    text[pos] != '\r')
			return "bad header: text after the dictionary";
	if (!seen_descr || !seen_order || !seen_shape)
		return "bad header: needs 'descr', 'fortran_order' and 'shape'";
	return NULL;
}

/* uir-helper: uir_npy_same_dtype */
/* Whether the dtype string of a file, have, denotes the buffer dtype want ('<f4', ...):
 * equal strings, or for one-byte types ('|u1') any byte-order character. */
UIR_FN int uir_npy_same_dtype(const char *have, const char *want)
{
	if (strcmp(have, want) == 0)
		return 1;
	return want[0] == '|' && strlen(have) == 3 && strcmp(have + 1, want + 1) == 0 &&
	       (have[0] == '<' || have[0] == '>' || have[0] == '=' || have[0] == '|');
}

/* uir-helper: uir_npy_match needs: uir_npy_type_name uir_npy_same_dtype */
/* Whether an array of the dtype string HAVE, in Fortran order when FORTRAN_ORDER, of
 * ELEMENTS elements (-1: more than 2^62) would replace a buffer of count elements of the
 * dtype descr: what a .npy header says (uir_npy_read_header), or what the library is given
 * for an array in memory (src/cli/buffers.c). HAVE may be changed (control bytes become
 * '?'). Returns NULL, or what is wrong (a constant or text in msg, msglen bytes). */
UIR_FN const char *uir_npy_match(char *have, int fortran_order, int64_t elements,
				 const char *descr, int64_t count, char *msg, size_t msglen)
{
	const char *type = uir_npy_type_name(descr);
	size_t i;
	if (!type)
		return "internal error: bad buffer dtype or count";
	if (!uir_npy_same_dtype(have, descr)) {
		for (i = 0; have[i]; i++) /* keep the message one printable line */
			if (have[i] < ' ' || have[i] > '~')
				have[i] = '?';
		snprintf(msg, msglen, "dtype '%s' does not match %s buffer (needs '%s')", have,
			 type, descr);
		return msg;
	}
	if (fortran_order)
		return "fortran_order is True (needs C order)";
	if (elements != count) {
		if (elements < 0)
			snprintf(msg, msglen, "more than 2^62 elements, buffer has %lld",
				 (long long)count);
		else
			snprintf(msg, msglen, "%lld elements, buffer has %lld", (long long)elements,
				 (long long)count);
		return msg;
	}
	return NULL;
}

/* uir-helper: uir_npy_fix_data needs: uir_npy_host_is_little uir_npy_swap_bytes */
/* Turns count elements of the dtype descr at data, as a .npy file holds them
 * (little-endian, a bool byte any value), into the buffer's form in memory: the host's
 * byte order, bool 0 or 1. */
UIR_FN void uir_npy_fix_data(void *data, const char *descr, int64_t count)
{
	size_t size = (size_t)(descr[2] - '0');
	int64_t i;
	if (size > 1 && !uir_npy_host_is_little())
		uir_npy_swap_bytes(data, count, (int)size);
	if (descr[1] == 'b') /* bool: 0 or 1 */
		for (i = 0; i < count; i++)
			((unsigned char *)data)[i] = ((unsigned char *)data)[i] != 0;
}

/* uir-helper: uir_npy_read_header needs: uir_npy_type_name uir_npy_parse_header uir_npy_match */
/* Reads the header of a .npy file from the open stream f, for a buffer of count elements
 * of the dtype descr, and leaves f at the start of the data. Returns NULL, or what is wrong
 * (a constant or text in msg, msglen bytes), "truncated data" included when the file is
 * too short for the data the header claims (compared with the file's size, when the stream
 * has one). See uir_npy_read. */
UIR_FN const char *uir_npy_read_header(FILE *f, const char *descr, int64_t count, char *msg,
				       size_t msglen)
{
	const char *type = uir_npy_type_name(descr);
	unsigned char start[12];
	size_t hlen, size;
	char *header;
	char have[32];
	const char *problem;
	int fortran_order = 0;
	int64_t elements = 0;
	long here, end;
	if (!type || count < 0)
		return "internal error: bad buffer dtype or count";
	size = (size_t)(descr[2] - '0');
	if ((uint64_t)count > (uint64_t)SIZE_MAX / size)
		return "buffer too large";
	if (fread(start, 1, 10, f) != 10 || memcmp(start, "\223NUMPY", 6) != 0)
		return "not a .npy file";
	/* The header length: 2 bytes in version 1.0, 4 bytes in 2.0 and 3.0. */
	if (start[6] == 1) {
		hlen = (size_t)start[8] | (size_t)start[9] << 8;
	} else if (start[6] == 2 || start[6] == 3) {
		if (fread(start + 10, 1, 2, f) != 2)
			return "truncated header";
		hlen = (size_t)start[8] | (size_t)start[9] << 8 | (size_t)start[10] << 16 |
		       (size_t)start[11] << 24;
	} else {
		snprintf(msg, msglen, "unsupported .npy version %u.%u", start[6], start[7]);
		return msg;
	}
	if (hlen > ((size_t)1 << 20))
		return "header too large";
	header = (char *)malloc(hlen + 1);
	if (!header)
		return "out of memory";
	if (fread(header, 1, hlen, f) != hlen) {
		problem = "truncated header";
	} else {
		header[hlen] = '\0';
		problem = uir_npy_parse_header(header, hlen, have, sizeof have, &fortran_order,
					       &elements);
	}
	free(header);
	if (problem)
		return problem;
	problem = uir_npy_match(have, fortran_order, elements, descr, count, msg, msglen);
	if (problem)
		return problem;
	/* the bytes left in the file against the claim (a stream without a size: no check) */
	here = ftell(f);
	if (here >= 0 && fseek(f, 0, SEEK_END) == 0) {
		end = ftell(f);
		if (fseek(f, here, SEEK_SET) != 0)
			return "truncated data";
		if (end >= here && (uint64_t)(end - here) / size < (uint64_t)count)
			return "truncated data";
	}
	return NULL;
}

/* uir-helper: uir_npy_read_stream needs: uir_npy_fix_data uir_npy_read_header */
/* Reads a .npy file from the open stream f into dst, which holds count elements of the
 * buffer dtype descr. Returns NULL, or what is wrong: a constant or text in msg (msglen
 * bytes). See uir_npy_read. */
UIR_FN const char *uir_npy_read_stream(FILE *f, const char *descr, int64_t count, void *dst,
				       char *msg, size_t msglen)
{
	const char *problem = uir_npy_read_header(f, descr, count, msg, msglen);
	size_t size;
	if (problem)
		return problem;
	size = (size_t)(descr[2] - '0');
	if (fread(dst, size, (size_t)count, f) != (size_t)count)
		return "truncated data";
	uir_npy_fix_data(dst, descr, count);
	return NULL;
}

/* uir-helper: uir_npy_open needs: uir_npy_error */
/* Opens the .npy file PATH to read, or returns NULL with "cannot open" (and, where the
 * includer defines UIR_NPY_OPEN_REASON, the reason: "cannot open: No such file or
 * directory", "cannot open: it is a FIFO, not a regular file") in err (errlen bytes; may be
 * NULL/0). */
UIR_FN FILE *uir_npy_open(const char *path, char *err, size_t errlen)
{
	FILE *f;
#if defined(UIR_NPY_NOT_REGULAR) || defined(UIR_NPY_OPEN_REASON)
	char msg[160];
#endif
#ifdef UIR_NPY_NOT_REGULAR
	const char *kind = UIR_NPY_NOT_REGULAR(path);
	if (kind) {
		snprintf(msg, sizeof msg, "cannot open: it is %s, not a regular file", kind);
		uir_npy_error(err, errlen, msg);
		return NULL;
	}
#endif
	f = fopen(path, "rb");
	if (!f) {
#ifdef UIR_NPY_OPEN_REASON
		snprintf(msg, sizeof msg, "cannot open: %s", UIR_NPY_OPEN_REASON());
		uir_npy_error(err, errlen, msg);
#else
		uir_npy_error(err, errlen, "cannot open");
#endif
	}
	return f;
}

/* uir-helper: uir_npy_check needs: uir_npy_open uir_npy_read_header uir_npy_error */
/* Whether the .npy file PATH would read into a buffer of count elements of the dtype descr,
 * from its header and size alone (no data is read). Returns 0, or -1 with the reason
 * uir_npy_read would give in err (errlen bytes; may be NULL/0). */
UIR_FN int uir_npy_check(const char *path, const char *descr, int64_t count, char *err,
			 size_t errlen)
{
	char msg[160];
	const char *problem;
	FILE *f = uir_npy_open(path, err, errlen);
	if (!f)
		return -1;
	problem = uir_npy_read_header(f, descr, count, msg, sizeof msg);
	fclose(f);
	if (problem)
		return uir_npy_error(err, errlen, problem);
	return 0;
}

/* uir-helper: uir_npy_read needs: uir_npy_open uir_npy_read_stream uir_npy_error */
/* Reads the .npy file PATH into dst, which holds count elements of the buffer dtype
 * descr ('<f4', see the top of this file). Returns 0, or -1 with a one-line reason in
 * err (errlen bytes; may be NULL/0): "cannot open: REASON", "not a .npy file", "unsupported .npy
 * version 4.0", "truncated header", "header too large", "bad header: ...", "dtype '<f8'
 * does not match f32 buffer (needs '<f4')", "fortran_order is True (needs C order)",
 * "6 elements, buffer has 8", "truncated data". On error dst may be partly written. */
UIR_FN int uir_npy_read(const char *path, const char *descr, int64_t count, void *dst,
			char *err, size_t errlen)
{
	char msg[160];
	const char *problem;
	FILE *f = uir_npy_open(path, err, errlen);
	if (!f)
		return -1;
	problem = uir_npy_read_stream(f, descr, count, dst, msg, sizeof msg);
	fclose(f);
	if (problem)
		return uir_npy_error(err, errlen, problem);
	return 0;
}

/* uir-helper: uir_npy_write needs: uir_npy_type_name */
/* Writes count elements of the buffer dtype descr ('<f4', ...) from src to the file
 * PATH as a version 1.0 .npy file with shape (count,). Float NaNs are written as the
 * canonical pattern. Returns 0, or -1 (errno says why, if stdio set it). */
UIR_FN int uir_npy_write(const char *path, const char *descr, int64_t count, const void *src)
{
	const unsigned char *in = (const unsigned char *)src;
	unsigned char chunk[4096];
	char header[192];
	int size, len, ok;
	int64_t i;
	size_t used = 0;
	FILE *f;
	if (!uir_npy_type_name(descr) || count < 0)
		return -1;
	size = descr[2] - '0';
	/* The magic, the version, the header length, then the dictionary padded with spaces
	 * and ended by '\n' so that the data starts at a multiple of 64 bytes. */
	len = 10 + snprintf(header + 10, sizeof header - 10,
			    "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }", descr,
			    (long long)count);
	while (len % 64 != 63)
		header[len++] = ' ';
	header[len++] = '\n';
	memcpy(header, "\223NUMPY\001\000", 8);
	header[8] = (char)((len - 10) & 0xFF);
	header[9] = (char)((len - 10) >> 8);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(header, 1, (size_t)len, f) == (size_t)len;
	/* The data: each element little-endian, NaNs canonical. */
	for (i = 0; ok && i < count; i++, in += size) {
		uint64_t v = 0;
		int k;
		if (size == 1) {
			v = in[0];
		} else if (size == 4) {
			uint32_t w;
			float x;
			memcpy(&w, in, 4);
			memcpy(&x, in, 4);
			v = descr[1] == 'f' && x != x ? 0x7FC00000u : w;
		} else {
			double x;
			memcpy(&v, in, 8);
			memcpy(&x, in, 8);
			if (descr[1] == 'f' && x != x)
				v = 0x7FF8000000000000u;
		}
		for (k = 0; k < size; k++)
			chunk[used++] = (unsigned char)(v >> (8 * k));
		if (used == sizeof chunk) {
			ok = fwrite(chunk, 1, used, f) == used;
			used = 0;
		}
	}
	ok = ok && fwrite(chunk, 1, used, f) == used;
	if (fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* uir-helper-end */

#endif /* UIR_NPY_H */
