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
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* random_range() is built for the vector widths of x86-64-v3 (AVX2) and v4 (AVX-512) as
 * well, chosen when the program starts (GCC's target_clones): at -O3 the loops vectorise
 * (splitmix64 is integer arithmetic; the float conversions are the same IEEE operations
 * lane by lane, never contracted), and a 16M-element i32 buffer takes about a third of the
 * time. Other compilers and machines get the plain function. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTOR_CLONES \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("O3", "fp-contract=off")))
#else
#define VECTOR_CLONES
#endif

/* Elements [LO, HI) of `random` buffer M at DST: the bits of its INIT's seed, or with
 * KEYS those of `run --seed` (uir_seeded_bits with KEYS[0], KEYS[1]), in M's type and range.
 * The f32, f64 and 32-bit integer types go without a switch per element (a 16M-element i32
 * buffer: 120 ms element by element), and a range of 2^k integers without a division. */
VECTOR_CLONES static void random_range(const Mem *m, void *dst, int64_t lo, int64_t hi, const uint64_t *keys)
{
	uint32_t seed = (uint32_t)m->seed->val.u;
	double flo = m->has_range ? m->flo : -1.0, fhi = m->has_range ? m->fhi : 1.0;
#define BITS(i) (keys ? uir_seeded_bits(keys[0], keys[1], (uint64_t)(i)) : uir_random_bits(seed, (uint64_t)(i)))
	if (m->ty == UIR_F32) {
		float *d = dst, below = uir_below_f32(fhi);
		for (int64_t i = lo; i < hi; i++)
			d[i] = uir_bits_f32_below(BITS(i), flo, fhi, below);
		return;
	}
	if (m->ty == UIR_F64) {
		double *d = dst, below = uir_below_f64(fhi);
		for (int64_t i = lo; i < hi; i++)
			d[i] = uir_bits_f64_below(BITS(i), flo, fhi, below);
		return;
	}
	if (m->ty == UIR_I32 || m->ty == UIR_U32) { /* the low 32 bits, as buffer_set() wraps them */
		uint32_t *d = dst;
		uint64_t w = m->rwidth;
		if (!m->has_range) {
			for (int64_t i = lo; i < hi; i++)
				d[i] = (uint32_t)BITS(i);
		} else if (w && (w & (w - 1)) == 0) { /* z mod 2^k is z's low k bits */
			for (int64_t i = lo; i < hi; i++)
				d[i] = (uint32_t)(m->rlo + (BITS(i) & (w - 1)));
		} else {
			for (int64_t i = lo; i < hi; i++)
				d[i] = (uint32_t)uir_bits_int(BITS(i), m->rlo, w);
		}
		return;
	}
	for (int64_t i = lo; i < hi; i++) {
		uint64_t z = BITS(i);
		Scalar v;
		if (m->ty == UIR_BOOL)
			v.u = z & 1;
		else /* integers: the low bits, or the range (buffer_set wraps to the type) */
			v.u = m->has_range ? uir_bits_int(z, m->rlo, m->rwidth) : z;
		buffer_set(dst, m->ty, i, v);
	}
#undef BITS
}

/* A share of random_range()'s elements, for one thread of random_fill(). */
typedef struct RandomShare {
	const Mem *m;
	void *dst;
	int64_t lo, hi;
	const uint64_t *keys;
} RandomShare;

static void *random_share(void *arg)
{
	RandomShare *r = arg;
	random_range(r->m, r->dst, r->lo, r->hi, r->keys);
	return NULL;
}

/* The threads that set up a buffer of M's size: the run's thread count (THREADS, which
 * `run` has taken from --threads or UIR_THREADS; 0 for the default: the CPUs this process
 * may use, as the thread pool counts them), one per BUFFERS_SHARE elements at most. */
static int fill_threads(const Mem *m, int threads)
{
	int64_t most = m->size / BUFFERS_SHARE;
	if (most < 2)
		return 1;
	if (threads <= 0)
		threads = uir_cpus();
	if (threads > BUFFERS_MAX_THREADS)
		threads = BUFFERS_MAX_THREADS;
	return threads < 1 ? 1 : threads > most ? (int)most : threads;
}

/* random_range() over the whole of M on THREADS threads (fill_threads()): each element's
 * value depends on its index alone, so any split gives the same bits. A thread that does
 * not start leaves its share to the calling thread. */
static void random_fill(const Mem *m, void *dst, const uint64_t *keys, int threads)
{
	int t = fill_threads(m, threads);
	RandomShare share[BUFFERS_MAX_THREADS];
	pthread_t tid[BUFFERS_MAX_THREADS];
	bool started[BUFFERS_MAX_THREADS] = { false };
	for (int k = 0; k < t; k++)
		share[k] = (RandomShare){ m, dst, m->size * k / t, m->size * (k + 1) / t, keys };
	for (int k = 1; k < t; k++)
		started[k] = pthread_create(&tid[k], NULL, random_share, &share[k]) == 0;
	random_share(&share[0]);
	for (int k = 1; k < t; k++) {
		if (started[k])
			pthread_join(tid[k], NULL);
		else
			random_share(&share[k]);
	}
}

int buffers_init(const Mem *m, void *dst, int threads, char *why, size_t whylen)
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
	case INIT_RANDOM:
		random_fill(m, dst, NULL, threads);
		return 0;
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

void buffers_seed(const Mem *m, void *dst, uint64_t seed, int threads)
{
	if (m->init != INIT_RANDOM)
		return;
	uint64_t keys[2] = { uir_seeded_key(seed, (uint64_t)m->index, 0), uir_seeded_key(seed, (uint64_t)m->index, 1) };
	random_fill(m, dst, keys, threads);
}

/* Big buffers start at different places in their pages: of K buffers of STAGGER_FROM bytes
 * or more, the k-th (in declaration order) starts k/K of a 4 KiB page further than the
 * others would. The processor guesses whether a load reads what an earlier store wrote
 * from the low bits of their addresses (and more: here, bits up to at least 23); calloc
 * starts every big block at the same place in a page, so a store to one buffer and a
 * load from another at nearly the same offset look alike, and the load waits. Where the
 * blocks land depends on what else was mapped before (a thread's stack shifted them by 8
 * MiB + 4 KiB), which made the 3x3 convolution of bench/naive/ run in 3.5 or in 9.6 ms on
 * one thread by luck; staggered by half a page it ran in 3.0-3.5 ms either way. */
#define STAGGER_FROM ((size_t)64 << 10)

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

/* BYTES zeroed bytes aligned to BUFFERS_ALIGN, OFFSET bytes (a multiple of BUFFERS_ALIGN,
 * below 4096) past where they would start, freed with aligned_free(); NULL when out of
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
static void *aligned_zalloc(size_t bytes, size_t offset)
{
	size_t extra = BUFFERS_ALIGN + offset;
	if (bytes > SIZE_MAX - extra)
		return NULL;
	char *raw = calloc(1, bytes + extra);
	if (!raw)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= HUGE_FROM)
		advise(raw, bytes + extra, HUGE_PAGE, MADV_HUGEPAGE);
#endif
	uintptr_t a = ((uintptr_t)raw + BUFFERS_ALIGN) & ~(uintptr_t)(BUFFERS_ALIGN - 1);
	char *data = raw + (a - (uintptr_t)raw) + offset;
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
	c[bytes - 1] = 0; /* the last page, when P is not at a page's start */
}

/* Gives buffer M's data DST its INIT (DST holds zeros when ZEROED), on THREADS threads
 * (buffers_create()). Returns 0, or -1 after
 * printing E0203 for a file INIT that no longer reads. */
static int apply_init(UirProgram *p, const Mem *m, void *dst, bool zeroed, int threads)
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
	if (buffers_init(m, dst, threads, why, sizeof why) != 0) {
		char msg[MSG_MAX];
		msg_file_init(msg, m->path, why);
		diag(p, m->init_loc, "E0203", "%s", msg);
		return -1;
	}
	return 0;
}

int buffers_reset(UirProgram *p, void **data, int threads)
{
	for (int i = 0; i < p->nbufs; i++)
		if (apply_init(p, p->bufs[i], data[i], false, threads) != 0)
			return -1;
	return 0;
}

/* Whether buffer M is big enough for its place in a page to matter (buffers_create()). */
static bool staggered(const Mem *m)
{
	return (size_t)m->size >= STAGGER_FROM / (size_t)uir_type_size(m->ty);
}

void **buffers_create(UirProgram *p, int threads)
{
	void **data = xcalloc((size_t)p->nbufs + 1, sizeof *data);
	int nbig = 0, k = 0;
	for (int i = 0; i < p->nbufs; i++)
		nbig += staggered(p->bufs[i]);
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		size_t esize = (size_t)uir_type_size(m->ty);
		size_t offset = staggered(m) ? (size_t)(k++ * 4096 / nbig) & ~(size_t)(BUFFERS_ALIGN - 1) : 0;
		data[i] = (size_t)m->size > SIZE_MAX / esize ? NULL : aligned_zalloc((size_t)m->size * esize, offset);
		if (!data[i]) {
			char msg[MSG_MAX];
			msg_out_of_memory_for(msg, p->path, "buffer", m);
			uir_eprintf(p->err, "%s", msg);
			buffers_free(p, data);
			return NULL;
		}
		if (apply_init(p, m, data[i], true, threads) != 0) {
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
