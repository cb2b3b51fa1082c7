/* buffers.c - allocating a program's buffers and applying their INIT (docs/language.md 3.2),
 * and replacing a buffer's contents from a .npy file (`run --input`).
 *
 * The generator (`random`) and the .npy reader are the single definitions in
 * runtime/uir_init.h and runtime/uir_npy.h.
 */
#include "buffers.h"
#include "../util/escape.h"
#include "../util/messages.h"
#include "uir_init.h"
#include "uir_npy.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

int buffers_init(const Mem *m, void *dst, char *why, size_t whylen)
{
	int64_t n = m->size;
	switch (m->init) {
	case INIT_ZEROS:
		memset(dst, 0, (size_t)n * (size_t)uir_type_size(m->ty));
		return 0;
	case INIT_FILL:
	case INIT_IOTA:
	case INIT_LIST:
		break;
	case INIT_RANDOM: {
		uint32_t seed = (uint32_t)m->seed->val.u;
		double lo = m->has_range ? m->flo : -1.0, hi = m->has_range ? m->fhi : 1.0;
		/* the float and 32-bit integer types without a switch per element (a 16M-element
		 * i32 buffer: 120 ms element by element) */
		if (m->ty == UIR_F32) {
			float *d = dst;
			for (int64_t i = 0; i < n; i++)
				d[i] = uir_random_f32(seed, (uint64_t)i, lo, hi);
			return 0;
		}
		if (m->ty == UIR_F64) {
			double *d = dst;
			for (int64_t i = 0; i < n; i++)
				d[i] = uir_random_f64(seed, (uint64_t)i, lo, hi);
			return 0;
		}
		if (m->ty == UIR_I32 || m->ty == UIR_U32) { /* the low 32 bits, as init_element() wraps them */
			uint32_t *d = dst;
			for (int64_t i = 0; i < n; i++)
				d[i] = (uint32_t)(m->has_range ? uir_random_int(seed, (uint64_t)i, m->rlo, m->rwidth)
							       : uir_random_bits(seed, (uint64_t)i));
			return 0;
		}
		break;
	}
	case INIT_FILE:
		return uir_npy_read(m->path, uir_type_npy_descr(m->ty), n, dst, why, whylen);
	}
	/* element by element, as the checker reads them (types.c, init_element) */
	for (int64_t i = 0; i < n; i++) {
		Scalar v;
		if (!init_element(m, i, &v))
			unreachable();
		buffer_set(dst, m->ty, i, v);
	}
	return 0;
}

void buffers_seed(const Mem *m, void *dst, uint64_t seed)
{
	if (m->init != INIT_RANDOM)
		return;
	uint64_t k0 = uir_seeded_key(seed, (uint64_t)m->index, 0), k1 = uir_seeded_key(seed, (uint64_t)m->index, 1);
	double lo = m->has_range ? m->flo : -1.0, hi = m->has_range ? m->fhi : 1.0;
	for (int64_t i = 0; i < m->size; i++) {
		uint64_t z = uir_seeded_bits(k0, k1, (uint64_t)i);
		Scalar v;
		if (m->ty == UIR_F32)
			v.f32 = uir_bits_f32(z, lo, hi);
		else if (m->ty == UIR_F64)
			v.f64 = uir_bits_f64(z, lo, hi);
		else if (m->ty == UIR_BOOL)
			v.u = z & 1;
		else /* integers: the low bits, or the range (buffer_set wraps to the type) */
			v.u = m->has_range ? uir_bits_int(z, m->rlo, m->rwidth) : z;
		buffer_set(dst, m->ty, i, v);
	}
}

#ifdef MADV_HUGEPAGE
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)4 << 20) /* buffers this big ask for transparent huge pages */

/* madvise(ADVICE) on the whole pages of ALIGN bytes inside [P, P + BYTES); errors ignored
 * (it is only advice: the memory is the same either way). */
static void advise(void *p, size_t bytes, size_t align, int advice)
{
	uintptr_t lo = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(align - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, advice);
}
#endif

/* BYTES zeroed bytes aligned to BUFFERS_ALIGN, freed with aligned_free(); NULL when out of
 * memory. calloc keeps its lazily zeroed pages for big blocks (no memset of 64 MiB before
 * a kernel that overwrites it); the block is over-allocated by BUFFERS_ALIGN and the
 * pointer calloc returned is kept in the word just below the aligned one (calloc's result
 * is at least 16-byte aligned, so there are always at least 16 bytes of room).
 *
 * Page faults are most of the set-up time of big buffers (a 64 MiB `random` buffer: 16,000
 * faults of 4 KiB, 330-420 ms of CPU on this virtual machine), so blocks of HUGE_FROM
 * bytes or more ask for transparent huge pages (MADV_HUGEPAGE, which the kernel honours
 * in its default `madvise` mode: 630 faults, 46-73 ms), which also left the JIT'd saxpy
 * over 16M as fast or faster. (Pre-faulting with MADV_POPULATE_WRITE was measured and
 * dropped: it halved the set-up of 4 KiB pages but made the kernels after it up to 2x
 * slower on this machine.) */
static void *aligned_zalloc(size_t bytes)
{
	if (bytes > SIZE_MAX - BUFFERS_ALIGN)
		return NULL;
	char *raw = calloc(1, bytes + BUFFERS_ALIGN);
	if (!raw)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= HUGE_FROM)
		advise(raw, bytes + BUFFERS_ALIGN, HUGE_PAGE, MADV_HUGEPAGE);
#endif
	uintptr_t a = ((uintptr_t)raw + BUFFERS_ALIGN) & ~(uintptr_t)(BUFFERS_ALIGN - 1);
	char *data = raw + (a - (uintptr_t)raw);
	memcpy(data - sizeof raw, &raw, sizeof raw);
	return data;
}

static void aligned_free(void *data)
{
	if (!data)
		return;
	char *raw;
	memcpy(&raw, (char *)data - sizeof raw, sizeof raw);
	free(raw);
}

/* Writes a zero into every page of the BYTES zeroed bytes at P, so that their page faults
 * (and, from HUGE_FROM bytes, the kernel's zeroing of each huge page) are paid while the
 * buffers are set up, as a C program's memset of its output is, and not inside the timed
 * kernel. Below 64 KiB calloc's memory is mostly touched already. (A kernel writing a 16
 * MiB zero buffer took 4.6 ms instead of 2.1 with its faults, and 2 threads did not help:
 * the faults of one huge page wait for each other.) */
static void prefault(void *p, size_t bytes)
{
	if (bytes < ((size_t)64 << 10))
		return;
	volatile char *c = p;
	for (size_t i = 0; i < bytes; i += 4096)
		c[i] = 0;
}

/* Gives buffer M's data DST its INIT (DST holds zeros when ZEROED). Returns 0, or -1 after
 * printing E0203 for a file INIT that no longer reads. */
static int apply_init(UirProgram *p, const Mem *m, void *dst, bool zeroed)
{
	char why[256];
	if (m->init == INIT_ZEROS) {
		size_t bytes = (size_t)m->size * (size_t)uir_type_size(m->ty);
		if (!zeroed)
			memset(dst, 0, bytes);
		else
			prefault(dst, bytes);
		return 0;
	}
	if (buffers_init(m, dst, why, sizeof why) != 0) {
		char msg[MSG_MAX];
		msg_file_init(msg, m->path, why);
		diag(p, m->init_loc, "E0203", "%s", msg);
		return -1;
	}
	return 0;
}

int buffers_reset(UirProgram *p, void **data)
{
	for (int i = 0; i < p->nbufs; i++)
		if (apply_init(p, p->bufs[i], data[i], false) != 0)
			return -1;
	return 0;
}

void **buffers_create(UirProgram *p)
{
	void **data = xcalloc((size_t)p->nbufs + 1, sizeof *data);
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		size_t esize = (size_t)uir_type_size(m->ty);
		data[i] = (size_t)m->size > SIZE_MAX / esize ? NULL : aligned_zalloc((size_t)m->size * esize);
		if (!data[i]) {
			char msg[MSG_MAX];
			msg_out_of_memory_for(msg, p->path, "buffer", m);
			uir_eprintf(p->err, "%s", msg);
			buffers_free(p, data);
			return NULL;
		}
		if (apply_init(p, m, data[i], true) != 0) {
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
		aligned_free(data[i]);
	free(data);
}

/* E0203 at buffer I's declaration: `--input NAME=PATH` does not read, for the reason WHY. */
static int input_error(UirProgram *p, int i, const char *path, const char *why)
{
	const Mem *m = p->bufs[i];
	diag(p, m->loc, "E0203", "--input %s=%s: %s", m->name, path, why);
	return -1;
}

int buffers_check_npy(UirProgram *p, int i, const char *path)
{
	const Mem *m = p->bufs[i];
	char why[256];
	if (uir_npy_check(path, uir_type_npy_descr(m->ty), m->size, why, sizeof why) != 0)
		return input_error(p, i, path, why);
	return 0;
}

int buffers_load_npy(UirProgram *p, void **data, int i, const char *path)
{
	const Mem *m = p->bufs[i];
	char why[256];
	if (uir_npy_read(path, uir_type_npy_descr(m->ty), m->size, data[i], why, sizeof why) != 0)
		return input_error(p, i, path, why);
	return 0;
}

int buffers_check_array(UirProgram *p, int i, const BufferArray *a)
{
	const Mem *m = p->bufs[i];
	char have[32], msg[160];
	snprintf(have, sizeof have, "%s", a->descr);
	const char *why = uir_npy_match(have, a->fortran_order, a->count, uir_type_npy_descr(m->ty), m->size, msg,
					sizeof msg);
	if (why) {
		diag(p, m->loc, "E0203", "input %s: %s", m->name, why);
		return -1;
	}
	return 0;
}

void buffers_load_array(UirProgram *p, void **data, int i, const BufferArray *a)
{
	const Mem *m = p->bufs[i];
	const char *descr = uir_type_npy_descr(m->ty);
	memcpy(data[i], a->data, (size_t)m->size * (size_t)uir_type_size(m->ty));
	uir_npy_fix_data(data[i], descr, m->size);
}

int buffers_find(const UirProgram *p, const char *name)
{
	for (int i = 0; i < p->nbufs; i++)
		if (!strcmp(p->bufs[i]->name, name))
			return i;
	return -1;
}
