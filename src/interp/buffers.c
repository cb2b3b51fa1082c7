/* buffers.c - allocating a program's buffers and applying their INIT (spec section 3),
 * and replacing a buffer's contents from a .npy file (`run --input`).
 *
 * The generator (`random`) and the .npy reader are the single definitions in
 * runtime/uir_init.h and runtime/uir_npy.h.
 */
#include "buffers.h"
#include "uir_init.h"
#include "uir_npy.h"
#include <stdlib.h>
#include <string.h>

Scalar buffer_get(const void *data, UirType t, int64_t i)
{
	Scalar v;
	v.u = 0;
	switch (t) {
	case UIR_BOOL: v.u = ((const uint8_t *)data)[i]; break;
	case UIR_I8: v.i = ((const int8_t *)data)[i]; break;
	case UIR_U8: v.u = ((const uint8_t *)data)[i]; break;
	case UIR_I32: v.i = ((const int32_t *)data)[i]; break;
	case UIR_U32: v.u = ((const uint32_t *)data)[i]; break;
	case UIR_I64: v.i = ((const int64_t *)data)[i]; break;
	case UIR_U64: v.u = ((const uint64_t *)data)[i]; break;
	case UIR_F32: v.f32 = ((const float *)data)[i]; break;
	case UIR_F64: v.f64 = ((const double *)data)[i]; break;
	default: unreachable();
	}
	return v;
}

void buffer_set(void *data, UirType t, int64_t i, Scalar v)
{
	switch (t) {
	case UIR_BOOL: ((uint8_t *)data)[i] = v.u != 0; break;
	case UIR_I8: ((int8_t *)data)[i] = (int8_t)v.i; break;
	case UIR_U8: ((uint8_t *)data)[i] = (uint8_t)v.u; break;
	case UIR_I32: ((int32_t *)data)[i] = (int32_t)v.i; break;
	case UIR_U32: ((uint32_t *)data)[i] = (uint32_t)v.u; break;
	case UIR_I64: ((int64_t *)data)[i] = v.i; break;
	case UIR_U64: ((uint64_t *)data)[i] = v.u; break;
	case UIR_F32: ((float *)data)[i] = v.f32; break;
	case UIR_F64: ((double *)data)[i] = v.f64; break;
	default: unreachable();
	}
}

/* `cast T i` for an i32 i (iota): ints wrap, floats round to nearest even, bool i != 0. */
static Scalar iota_value(UirType t, int32_t i)
{
	Scalar v;
	v.i = i;
	if (t == UIR_F32)
		v.f32 = (float)i;
	else if (t == UIR_F64)
		v.f64 = (double)i;
	else if (t == UIR_BOOL)
		v.u = i != 0;
	return v;
}

/* Element i of `random SEED [LO HI]`. */
static Scalar random_value(const Mem *m, uint32_t seed, int64_t i)
{
	Scalar v;
	uint64_t k = (uint64_t)i;
	switch (m->ty) {
	case UIR_F32:
		v.f32 = uir_random_f32(seed, k, m->has_range ? m->flo : -1.0, m->has_range ? m->fhi : 1.0);
		break;
	case UIR_F64:
		v.f64 = uir_random_f64(seed, k, m->has_range ? m->flo : -1.0, m->has_range ? m->fhi : 1.0);
		break;
	case UIR_BOOL:
		v.u = uir_random_bits(seed, k) & 1;
		break;
	default: /* integers: the low bits, wrapped to the type by buffer_set */
		v.u = m->has_range ? uir_random_int(seed, k, m->rlo, m->rwidth) : uir_random_bits(seed, k);
		break;
	}
	return v;
}

int buffers_init(const Mem *m, void *dst, char *why, size_t whylen)
{
	int64_t n = m->size;
	switch (m->init) {
	case INIT_ZEROS:
		memset(dst, 0, (size_t)n * (size_t)uir_type_size(m->ty));
		return 0;
	case INIT_FILL:
		for (int64_t i = 0; i < n; i++)
			buffer_set(dst, m->ty, i, m->fill->val);
		return 0;
	case INIT_IOTA:
		for (int64_t i = 0; i < n; i++)
			buffer_set(dst, m->ty, i, iota_value(m->ty, (int32_t)i));
		return 0;
	case INIT_RANDOM: {
		uint32_t seed = (uint32_t)m->seed->val.u;
		for (int64_t i = 0; i < n; i++)
			buffer_set(dst, m->ty, i, random_value(m, seed, i));
		return 0;
	}
	case INIT_LIST:
		if (m->nlist != n)
			unreachable();
		for (int64_t i = 0; i < n; i++)
			buffer_set(dst, m->ty, i, m->list[i]->val);
		return 0;
	case INIT_FILE:
		return uir_npy_read(m->path, uir_type_npy_descr(m->ty), n, dst, why, whylen);
	}
	unreachable();
}

void **buffers_create(UirProgram *p)
{
	void **data = xcalloc((size_t)p->nbufs + 1, sizeof *data);
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		char why[256];
		data[i] = calloc((size_t)m->size, (size_t)uir_type_size(m->ty));
		if (!data[i]) {
			fprintf(p->err, "%s: error: out of memory for buffer %s (%lld bytes)\n", p->path, m->name,
				(long long)m->size * uir_type_size(m->ty));
			buffers_free(p, data);
			return NULL;
		}
		if (m->init != INIT_ZEROS && buffers_init(m, data[i], why, sizeof why) != 0) {
			diag(p, m->init_loc, "E0203", "%s: %s", m->path, why);
			buffers_free(p, data);
			return NULL;
		}
	}
	return data;
}

void buffers_free(UirProgram *p, void **data)
{
	if (!data)
		return;
	for (int i = 0; i < p->nbufs; i++)
		free(data[i]);
	free(data);
}

int buffers_load_npy(UirProgram *p, void **data, int i, const char *path)
{
	const Mem *m = p->bufs[i];
	size_t bytes = (size_t)m->size * (size_t)uir_type_size(m->ty);
	void *tmp = malloc(bytes ? bytes : 1);
	char why[256];
	if (!tmp) {
		fprintf(p->err, "%s: error: out of memory for --input %s\n", p->path, m->name);
		return -1;
	}
	if (uir_npy_read(path, uir_type_npy_descr(m->ty), m->size, tmp, why, sizeof why) != 0) {
		diag(p, m->loc, "E0203", "--input %s=%s: %s", m->name, path, why);
		free(tmp);
		return -1;
	}
	memcpy(data[i], tmp, bytes);
	free(tmp);
	return 0;
}

int buffers_find(const UirProgram *p, const char *name)
{
	for (int i = 0; i < p->nbufs; i++)
		if (!strcmp(p->bufs[i]->name, name))
			return i;
	return -1;
}
