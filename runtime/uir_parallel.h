/* uir_parallel.h - the thread pool that runs the iterations of `thread` and `global` loops
 * (docs/language.md 6.3, 8.1.2) for code compiled by the LLVM back end: JIT'd code calls it
 * through absolute symbols, and an object from `uir compile` that has parallel loops needs
 * runtime/uir_parallel.c linked in (cc ... kernel.o uir_parallel.c -pthread).
 *
 * A loop's body is outlined into a function BODY(CTX, I, WORKER) that runs iteration I on
 * worker WORKER (0 .. uir_parallel_workers() - 1; each worker runs one iteration at a
 * time, so per-worker scratch memory indexed by WORKER is never shared). A body returns 0,
 * or a nonzero fault code after which the iteration stopped.
 *
 * Plain C11 with POSIX threads.
 */
#ifndef UIR_PARALLEL_H
#define UIR_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An outlined loop body: runs iteration I with the loop's context CTX on worker WORKER.
 * Returns 0, or a nonzero fault code. */
typedef uint64_t (*uir_body_fn)(void *ctx, int32_t i, int32_t worker);

/* Sets the number of threads later calls use: N >= 1, or 0 for the default (the
 * environment variable UIR_THREADS when it holds an integer 1 to 1024, else the number of
 * cores this process may run on). Takes effect at the next uir_parallel_for(); must not be
 * called while one runs. */
void uir_parallel_set_threads(int n);

/* The number of workers the next uir_parallel_for() uses (>= 1): the bound on WORKER. */
int32_t uir_parallel_workers(void);

/* Runs BODY(CTX, i, worker) for every i in 0 .. N-1 (none when N <= 0), spread over the
 * workers, and returns when all have finished. Returns 0 when every call returned 0;
 * otherwise the code returned by the call with the smallest i that returned nonzero
 * (iterations above a failed one may be skipped; all below it run), so the fault reported
 * is the one a sequential run would meet first. Not reentrant: BODY must not call it. */
uint64_t uir_parallel_for(int32_t n, uir_body_fn body, void *ctx);

/* Stops and joins the worker threads (they restart on the next call). Optional. */
void uir_parallel_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* UIR_PARALLEL_H */
