/* engine.h - choosing and running an engine for `uir run` (the interpreter or the LLVM
 * JIT), loading the LLVM back end on first use, and the `--time` breakdown.
 *
 * Part of the `uir` executable (not of the LLVM module): it links no LLVM. The back end,
 * uir-llvm.so, is loaded with dlopen() only when a command needs it (uir_llvm_load()), so
 * `uir check` and small `uir run`s start fast.
 */
#ifndef UIR_CLI_ENGINE_H
#define UIR_CLI_ENGINE_H

#include "../llvm/llvm_api.h"

typedef enum { UIR_ENGINE_AUTO, UIR_ENGINE_JIT, UIR_ENGINE_INTERP } UirEngine;

/* Where the time of a `uir run` went, in milliseconds (`--time`). */
typedef struct UirRunTimes {
	double parse_check, load, loopopt, lower, opt, jit, exec, output;
	const char *engine; /* "interp" or "jit": the engine that ran */
	int cache;          /* the JIT's code cache: UIR_CACHE_OFF, _MISS, _HIT (llvm_api.h) */
	int runs;           /* kernel runs (`run --repeat`); exec is their median when > 1 */
	double exec_min;    /* the fastest of them */
	double exec_first;  /* the first of them (a cold start: caches, page tables) */
} UirRunTimes;

/* Milliseconds on a monotonic clock. */
double uir_now_ms(void);

/* Parses "auto", "jit" or "interp" into *E; false for anything else. */
bool engine_parse(const char *s, UirEngine *e);

/* S as a thread count (`--threads`, UIR_THREADS): an integer from 1 to 1024, else -1. */
int engine_parse_threads(const char *s);

/* The thread count of UIR_THREADS for command CMD ("run", "opt") without --threads: 0 (the
 * default: the core count) when it is unset or empty, else its value; -1 after `uir CMD:
 * UIR_THREADS needs an integer from 1 to 1024, found '...'` (a usage error) when it is not
 * a thread count. */
int engine_env_threads(const char *cmd);

/* Runs the checked program P over BUFS (from buffers_create()) on engine E: AUTO
 * JIT-compiles when engine_auto_jit() says so and the JIT can be loaded, and interprets
 * otherwise. RO gives the threads, bounds checking and repeat count (the kernel runs
 * RO->repeat times, RO->reset between runs; the buffers keep the last run's values). T
 * (may be NULL) gets the load, lower, opt, jit and exec times (exec: the median run) and
 * the engine. Returns 0; 1 after
 * printing E0601 or an out-of-memory error; 64 when E is JIT and the back end is not
 * available (after a message); 70 after an internal error. */
int engine_run(UirProgram *p, void **bufs, UirEngine e, const RunOptions *ro, UirRunTimes *t);

/* Prints the breakdown of T on F, one line: `time: parse+check 0.4 ms, ...`. */
void engine_print_times(FILE *f, const UirRunTimes *t);

/* Whether `--engine auto` JIT-compiles P: when its estimated work (stmts_work() of its
 * statements, src/cost.c) is above UIR_AUTO_JIT_ABOVE + UIR_AUTO_JIT_PER_OP times the size
 * of the code it compiles to (stmts_code_size()), the break-even point measured in
 * docs/llvm.md. The interpreter runs about 5.5e8 units a second of CPU on
 * scalar code; a JIT run costs about 36 ms before the kernel starts for a small program
 * (loading the back end, the loop optimiser, O3, generating code; the code cache, when it
 * has the program, cuts it to about 10), which the interpreter spends on about 2e7 units, plus about 0.05 ms per unit of code (the O3 pipeline and
 * code generation grow faster than linearly: 4096 unrolled copies of a 10-op body took
 * 1.9 s), which the interpreter spends on about 2.75e4 units. (PostgreSQL's
 * jit_above_cost is the model.) */
bool engine_auto_jit(const UirProgram *p);
#define UIR_AUTO_JIT_ABOVE 2e7
#define UIR_AUTO_JIT_PER_OP 2.75e4

/* Loads the LLVM back end (once). Returns its table, or NULL with the reason in
 * uir_llvm_error(). *MS (may be NULL) gets the time the load took. */
const UirLlvmApi *uir_llvm_load(double *ms);
const char *uir_llvm_error(void);

#endif
