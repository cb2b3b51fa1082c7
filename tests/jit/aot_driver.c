/* aot_driver.c - a C program that calls the `kernel` of an object written by
 * `uir compile`, for tests/jit/aot_test.sh.
 *
 *   aot_driver NAME:TYPE:SIZE:INIT ...      (INIT: zeros or iota; at most 8 buffers)
 *
 * Sets up the buffers in declaration order as `uir run` would (iota: element i is
 * `cast T i`), calls kernel(b0, ...), and prints every buffer in `uir run`'s format
 * (runtime/uir_print.h) when it returned 0; prints `kernel returned N` on stderr and exits
 * N otherwise (its E0601 message is already on stderr).
 */
#include "uir_print.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kernel(void); /* the real parameters are the buffers: called through a cast below */

typedef struct Buf {
	char name[64], type[8];
	long size;
	void *data;
} Buf;

static int type_size(const char *t)
{
	if (!strcmp(t, "bool") || !strcmp(t, "i8") || !strcmp(t, "u8"))
		return 1;
	if (!strcmp(t, "i32") || !strcmp(t, "u32") || !strcmp(t, "f32"))
		return 4;
	return 8;
}

static void iota(Buf *b)
{
	for (long i = 0; i < b->size; i++) {
		int32_t v = (int32_t)i;
		const char *t = b->type;
		if (!strcmp(t, "bool")) ((uint8_t *)b->data)[i] = v != 0;
		else if (!strcmp(t, "i8")) ((int8_t *)b->data)[i] = (int8_t)(uint8_t)v;
		else if (!strcmp(t, "u8")) ((uint8_t *)b->data)[i] = (uint8_t)v;
		else if (!strcmp(t, "i32")) ((int32_t *)b->data)[i] = v;
		else if (!strcmp(t, "u32")) ((uint32_t *)b->data)[i] = (uint32_t)v;
		else if (!strcmp(t, "i64")) ((int64_t *)b->data)[i] = v;
		else if (!strcmp(t, "u64")) ((uint64_t *)b->data)[i] = (uint64_t)(int64_t)v;
		else if (!strcmp(t, "f32")) ((float *)b->data)[i] = (float)v;
		else ((double *)b->data)[i] = (double)v;
	}
}

static void print(const Buf *b)
{
	const char *t = b->type;
	if (!strcmp(t, "bool")) uir_print_bool(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "i8")) uir_print_i8(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "u8")) uir_print_u8(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "i32")) uir_print_i32(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "u32")) uir_print_u32(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "i64")) uir_print_i64(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "u64")) uir_print_u64(stdout, b->name, b->data, b->size);
	else if (!strcmp(t, "f32")) uir_print_f32(stdout, b->name, b->data, b->size);
	else uir_print_f64(stdout, b->name, b->data, b->size);
}

int main(int argc, char **argv)
{
	int n = argc - 1;
	if (n < 1 || n > 8) {
		fprintf(stderr, "usage: aot_driver NAME:TYPE:SIZE:INIT ... (1 to 8 buffers)\n");
		return 64;
	}
	Buf b[8];
	void *p[8] = { 0 };
	for (int i = 0; i < n; i++) {
		char init[16];
		if (sscanf(argv[i + 1], "%63[^:]:%7[^:]:%ld:%15s", b[i].name, b[i].type, &b[i].size, init) != 4) {
			fprintf(stderr, "aot_driver: bad buffer '%s'\n", argv[i + 1]);
			return 64;
		}
		b[i].data = calloc((size_t)b[i].size, (size_t)type_size(b[i].type));
		if (!b[i].data)
			return 70;
		if (!strcmp(init, "iota"))
			iota(&b[i]);
		p[i] = b[i].data;
	}
	void (*raw)(void) = (void (*)(void))kernel;
	int rc;
	switch (n) {
	case 1: rc = ((int (*)(void *))raw)(p[0]); break;
	case 2: rc = ((int (*)(void *, void *))raw)(p[0], p[1]); break;
	case 3: rc = ((int (*)(void *, void *, void *))raw)(p[0], p[1], p[2]); break;
	case 4: rc = ((int (*)(void *, void *, void *, void *))raw)(p[0], p[1], p[2], p[3]); break;
	case 5: rc = ((int (*)(void *, void *, void *, void *, void *))raw)(p[0], p[1], p[2], p[3], p[4]); break;
	case 6:
		rc = ((int (*)(void *, void *, void *, void *, void *, void *))raw)(p[0], p[1], p[2], p[3], p[4], p[5]);
		break;
	case 7:
		rc = ((int (*)(void *, void *, void *, void *, void *, void *, void *))raw)(p[0], p[1], p[2], p[3], p[4],
											    p[5], p[6]);
		break;
	default:
		rc = ((int (*)(void *, void *, void *, void *, void *, void *, void *, void *))raw)(p[0], p[1], p[2], p[3],
												  p[4], p[5], p[6], p[7]);
		break;
	}
	if (rc != 0) {
		fprintf(stderr, "kernel returned %d\n", rc);
		return rc;
	}
	for (int i = 0; i < n; i++)
		print(&b[i]);
	return 0;
}
