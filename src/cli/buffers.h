/* buffers.h - a program's buffers in memory: allocation, INIT (docs/language.md 3.2), .npy input.
 *
 * Set up by the commands (`run`, `ptx --run`) for every engine that runs a program: the
 * interpreter, the JIT and the CUDA driver take the same buffers. The data of buffer i
 * (p->bufs[i]) is p->bufs[i]->size elements of uir_type_size(ty) bytes each, in the host's
 * byte order, bool as one byte 0 or 1.
 */
#ifndef UIR_BUFFERS_H
#define UIR_BUFFERS_H

#include "../uir_internal.h"

/* Every buffer's data starts at a multiple of this many bytes (a cache line; the JIT's
 * 512-bit vector accesses then never straddle two lines). */
#define BUFFERS_ALIGN 64

/* A `random` INIT of at least 2 BUFFERS_SHARE elements is drawn on several threads (at
 * most BUFFERS_MAX_THREADS, one per BUFFERS_SHARE elements): each element's value depends
 * on its index alone, so the bits are the same at any thread count. */
#define BUFFERS_SHARE ((int64_t)1 << 18)
#define BUFFERS_MAX_THREADS 16

/* Allocates every buffer of P, zeroed and BUFFERS_ALIGN-byte aligned, and applies its INIT
 * (zeros, fill, iota, random, list, file), a large `random` one on THREADS threads (the
 * run's thread count, from --threads or UIR_THREADS; 0: the CPUs the process may use).
 * Returns a malloc'ed array of p->nbufs data pointers, to be freed with buffers_free()
 * (never with free()), or NULL after printing an error on p->err: out of memory, or a
 * `file` INIT that no longer reads as it did when loading (E0203 at the INIT). */
void **buffers_create(UirProgram *p, int threads);

/* Gives every buffer of DATA (from buffers_create()) its INIT again (`run --repeat`), on
 * THREADS threads as buffers_create() does.
 * Returns 0, or -1 after printing E0203 for a file INIT that no longer reads. */
int buffers_reset(UirProgram *p, void **data, int threads);

/* Frees what buffers_create() returned (NULL is allowed). */
void buffers_free(UirProgram *p, void **data);

/* Fills buffer M's data DST with its INIT (a large `random` one on THREADS threads, as
 * buffers_create() does); the file INIT reads m->path. Returns 0, or -1
 * with a one-line reason in WHY (WHYLEN bytes) when a file INIT fails. */
int buffers_init(const Mem *m, void *dst, int threads, char *why, size_t whylen);

/* `run --seed S` (docs/commands.md): when M's INIT is `random`, fills its data DST with the
 * values drawn from the 64-bit seed SEED in place of the INIT's own seed (runtime/uir_init.h,
 * uir_seeded_bits: keys from SEED and M's number among the buffers), in the INIT's type and
 * range, on THREADS threads as buffers_create() does; any other INIT is left as it is. */
void buffers_seed(const Mem *m, void *dst, uint64_t seed, int threads);

/* Whether the .npy file PATH would replace buffer I's contents (`run --input`), from its
 * header and size alone: called before the buffers are allocated, so that a file that does
 * not match, or whose header claims more data than it holds, is E0203 whatever the
 * buffer's size. Returns 0, or -1 after printing E0203 at the buffer's declaration. */
int buffers_check_npy(UirProgram *p, int i, const char *path);

/* Replaces the contents of buffer I (DATA[I]) with the .npy file PATH (`run --input`).
 * Returns 0, or -1 after printing E0203 at the buffer's declaration when the file does
 * not match (dtype, order, element count) or cannot be read; DATA[I] may then be partly
 * overwritten (the run stops). */
int buffers_load_npy(UirProgram *p, void **data, int i, const char *path);

/* An array in memory that replaces a buffer's contents (the library's inputs, src/api/): COUNT
 * elements of numpy's dtype DESCR ("<f4", "|b1"), in Fortran order when FORTRAN_ORDER,
 * at DATA, as a .npy file of that header would hold them. */
typedef struct BufferArray {
	const void *data;
	const char *descr;
	bool fortran_order;
	int64_t count;
} BufferArray;

/* buffers_check_npy() for an array: whether A would replace buffer I's contents (dtype,
 * order, element count, as --input checks a file's header). Returns 0, or -1 after printing
 * E0203 at the buffer's declaration (`input NAME: REASON`). */
int buffers_check_array(UirProgram *p, int i, const BufferArray *a);

/* Replaces the contents of buffer I (DATA[I]) with the array A, which buffers_check_array()
 * accepted: its elements as buffers_load_npy() would read them from a file. */
void buffers_load_array(UirProgram *p, void **data, int i, const BufferArray *a);

/* The index of the buffer called NAME, or -1. */
int buffers_find(const UirProgram *p, const char *name);

/* Element I of DATA, memory of element type T, from a Scalar (ints are wrapped to T: the
 * low bits are stored; bool stores v.u != 0); scalar_at() (uir_internal.h) reads one. */
void buffer_set(void *data, UirType t, int64_t i, Scalar v);

#endif
