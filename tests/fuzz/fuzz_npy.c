/* fuzz_npy.c - libFuzzer target: the .npy reader (runtime/uir_npy.h, the one definition
 * that the interpreter's `= file "PATH"` INIT and `run --input NAME=FILE.npy` use through
 * uir_npy_read, and that `render --main` pastes).
 *
 * The input is the whole .npy file. The target
 *   1. parses the header dictionary directly from the input bytes (no NUL terminator:
 *      any read past the header's end is an ASan report);
 *   2. reads the file through uir_npy_read_stream (fmemopen) into a buffer of exactly the
 *      right size: the dtype and element count the header names when it names a buffer
 *      dtype and at most 2^16 elements (so valid files read completely), else a dtype and
 *      count chosen from the last byte; then once more with one element more and one less;
 *   3. after a successful read, writes the elements with uir_npy_write and reads them back:
 *      they must be the same (NaNs compare equal: the writer canonicalises them).
 * Any crash, sanitizer report or failed round trip is a bug. Built and run by
 * tests/fuzz/run_fuzz.sh SRCROOT SECONDS WORKDIR npy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uir_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const dtypes[] = { "|b1", "|i1", "|u1", "<i4", "<u4",
				      "<i8", "<u8", "<f4", "<f8" };
enum { NDTYPES = sizeof dtypes / sizeof dtypes[0] };

/* Reads data as a .npy file with buffer dtype descr and count elements; returns the
 * elements (malloc'ed, exactly count*size bytes) or NULL when the reader says no. */
static void *read_as(const uint8_t *data, size_t size, const char *descr, int64_t count)
{
	size_t esize = (size_t)(descr[2] - '0');
	void *dst = malloc(count > 0 ? (size_t)count * esize : 1);
	char msg[160];
	const char *problem;
	FILE *f;
	if (!dst)
		abort();
	/* fmemopen of 0 bytes fails with EINVAL in glibc: use a 1-byte buffer then. */
	f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "rb");
	if (!f)
		abort();
	if (size == 0)
		fgetc(f);
	problem = uir_npy_read_stream(f, descr, count, dst, msg, sizeof msg);
	fclose(f);
	if (problem) {
		if (strlen(problem) >= sizeof msg || !*problem)
			abort();
		free(dst);
		return NULL;
	}
	return dst;
}

/* uir_npy_write then uir_npy_read must give the elements back. */
static void round_trip(const char *descr, int64_t count, const void *elems)
{
	static char path[64];
	size_t esize = (size_t)(descr[2] - '0');
	void *back = malloc(count > 0 ? (size_t)count * esize : 1);
	char err[160];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/uir-fuzz-npy-%ld.npy", (long)getpid());
	if (!back)
		abort();
	if (uir_npy_write(path, descr, count, elems) != 0 ||
	    uir_npy_read(path, descr, count, back, err, sizeof err) != 0) {
		fprintf(stderr, "round trip: write or read failed (%s)\n", err);
		abort();
	}
	for (int64_t i = 0; i < count; i++) {
		const unsigned char *a = (const unsigned char *)elems + (size_t)i * esize;
		const unsigned char *b = (const unsigned char *)back + (size_t)i * esize;
		if (memcmp(a, b, esize) == 0)
			continue;
		if (descr[1] == 'f' && esize == 4) {
			float x, y;
			memcpy(&x, a, 4);
			memcpy(&y, b, 4);
			if (x != x && y != y)
				continue;
		}
		if (descr[1] == 'f' && esize == 8) {
			double x, y;
			memcpy(&x, a, 8);
			memcpy(&y, b, 8);
			if (x != x && y != y)
				continue;
		}
		fprintf(stderr, "round trip: element %lld differs (%s)\n", (long long)i, descr);
		abort();
	}
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *descr = dtypes[size ? data[size - 1] % NDTYPES : 0];
	int64_t count = size ? data[size - 1] / NDTYPES : 0;
	void *elems;
	/* 1. The header dictionary, parsed in place. */
	if (size >= 10 && memcmp(data, "\223NUMPY", 6) == 0) {
		size_t off = data[6] == 1 ? 10 : 12, hlen;
		if (size >= 12) {
			hlen = data[6] == 1 ? (size_t)data[8] | (size_t)data[9] << 8
					    : (size_t)data[8] | (size_t)data[9] << 8 |
						      (size_t)data[10] << 16 | (size_t)data[11] << 24;
			if (hlen <= size - off) {
				char have[32];
				int fortran = 0;
				int64_t elements = 0;
				const char *bad = uir_npy_parse_header((const char *)data + off, hlen,
								       have, sizeof have, &fortran,
								       &elements);
				if (!bad && elements >= 0 && elements <= 65536) {
					for (int k = 0; k < NDTYPES; k++)
						if (uir_npy_same_dtype(have, dtypes[k])) {
							descr = dtypes[k];
							count = elements;
							break;
						}
				}
			}
		}
	}
	/* 2. The reader, with the count the file names, one more and one less. */
	elems = read_as(data, size, descr, count);
	if (elems) {
		const unsigned char *b = elems;
		if (descr[1] == 'b')
			for (int64_t i = 0; i < count; i++)
				if (b[i] > 1)
					abort(); /* bool must read as 0 or 1 */
		/* 3. Write and read back. */
		round_trip(descr, count, elems);
		free(elems);
	}
	free(read_as(data, size, descr, count + 1));
	if (count > 0)
		free(read_as(data, size, descr, count - 1));
	return 0;
}
