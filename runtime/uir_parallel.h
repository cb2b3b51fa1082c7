/* uir_parallel.h - the thread pool that runs the iterations of `thread` and `global` loops
 * (docs/language.md 6.3, 8.1.2), for code compiled by the LLVM back end and for the C of
 * `uir render`: JIT'd code calls it through absolute symbols, and an object from `uir
 * compile` that has parallel loops needs runtime/uir_parallel.c linked in (cc ... kernel.o
 * uir_parallel.c -pthread).
 *
 * A loop's body is outlined into a function BODY(CTX, I, WORKER) that runs iteration I on
 * worker WORKER (0 .. uir_parallel_workers() - 1; each worker runs one iteration at a
 * time, so per-worker scratch memory indexed by WORKER is never shared). A body returns 0,
 * or a nonzero fault code after which the iteration stopped. `uir render` outlines a
 * chunk of iterations instead (uir_parallel_for_chunks) and pastes this header and
 * uir_parallel.c into its output, with UIR_PARALLEL_API defined as `static
 * __attribute__((unused))` (the pool private to the file; the functions it does not call
 * not warned about).
 *
 * C11 with POSIX threads and the __atomic builtins of gcc and clang. Every name it defines
 * starts with uir_ or UIR_ (the names a rendering may add, docs/language.md 8.5.1).
 */
#ifndef UIR_PARALLEL_H
#define UIR_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the functions below are declared: external unless defined first. */
#ifndef UIR_PARALLEL_API
#define UIR_PARALLEL_API
#endif

/* The most threads a loop runs on (UIR_THREADS and uir_parallel_set_threads() are capped
 * at it): WORKER is always below it. */
#define UIR_PARALLEL_MAX 1024

/* An outlined loop body: runs iteration I with the loop's context CTX on worker WORKER.
 * Returns 0, or a nonzero fault code. */
typedef uint64_t (*uir_body_fn)(void *ctx, int32_t i, int32_t worker);

/* An outlined chunk of a loop: runs iterations LO .. HI-1 in order with the loop's context
 * CTX on worker WORKER, up to the first that faults. Returns 0, or a nonzero fault code. */
typedef uint64_t (*uir_chunk_fn)(void *ctx, int32_t lo, int32_t hi, int32_t worker);

/* Sets the number of threads later calls use: N >= 1, or 0 for the default (the
 * environment variable UIR_THREADS when it holds an integer 1 to UIR_PARALLEL_MAX, else the
 * number of cores this process may run on). Takes effect at the next uir_parallel_for();
 * must not be called while one runs. */
UIR_PARALLEL_API void uir_parallel_set_threads(int n);

/* The number of workers the next uir_parallel_for() uses (>= 1): the bound on WORKER. */
UIR_PARALLEL_API int32_t uir_parallel_workers(void);

/* Runs BODY(CTX, i, worker) for every i in 0 .. N-1 (none when N <= 0), spread over the
 * workers, and returns when all have finished. Returns 0 when every call returned 0;
 * otherwise the code returned by the call with the smallest i that returned nonzero
 * (iterations above a failed one may be skipped; all below it run), so the fault reported
 * is the one a sequential run would meet first. Not reentrant: BODY must not call it. */
UIR_PARALLEL_API uint64_t uir_parallel_for(int32_t n, uir_body_fn body, void *ctx);

/* As uir_parallel_for, with the iterations handed to BODY in chunks: the code returned is
 * that of the lowest chunk that returned nonzero (chunks above it may be skipped; all below
 * it run), which holds the first fault of a sequential run. A worker whose chunk faulted
 * runs no other chunk of the loop. */
UIR_PARALLEL_API uint64_t uir_parallel_for_chunks(int32_t n, uir_chunk_fn body, void *ctx);

/* Stops and joins the worker threads (they restart on the next call). Optional. */
UIR_PARALLEL_API void uir_parallel_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* UIR_PARALLEL_H */
