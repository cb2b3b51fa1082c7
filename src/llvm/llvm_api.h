/* llvm_api.h - the interface between the `uir` executable and the LLVM back end.
 *
 * The back end (src/llvm, linked with LLVM) is a shared module, uir-llvm.so, that the
 * executable loads with dlopen() on first use (src/cli/engine.c), so that commands which
 * need no LLVM do not pay for loading it. The module exports one symbol, uir_llvm_api(),
 * that returns the table below. Both sides are built from this header in one build; the
 * version field guards against a stale module left next to a newer executable. How to run
 * or compile a program is RunOptions (uir_internal.h), the one options struct of every
 * back end.
 */
#ifndef UIR_LLVM_API_H
#define UIR_LLVM_API_H

#include "../uir_internal.h"

#define UIR_LLVM_API_VERSION 9

/* Where the time of a JIT run went, in milliseconds. */
enum { UIR_CACHE_OFF, UIR_CACHE_MISS, UIR_CACHE_HIT };

typedef struct UirJitTimes {
	double load_ms;  /* loading the module: not filled by the module, which is loaded before
	                  * it runs; uir_llvm_load() (src/cli/engine.c) measures that */
	double loopopt_ms; /* the loop optimiser (src/opt/), its rewrite and the new check */
	int cache;         /* the code cache: UIR_CACHE_OFF, _MISS (compiled and kept), _HIT */
	double lower_ms; /* syntax tree to LLVM IR */
	double opt_ms;   /* the pass pipeline */
	double jit_ms;   /* machine code generation and linking */
	double exec_ms;  /* running the kernel (every call together) */
	double *exec_runs; /* NULL, or o->repeat slots: the time of each call */
} UirJitTimes;

/* What `uir compile` writes. */
typedef enum { UIR_EMIT_OBJECT, UIR_EMIT_ASM, UIR_EMIT_IR } UirEmitKind;

/* How `uir ptx` compiles a program (ptx.c). */
typedef struct UirPtxOptions {
	const char *arch;  /* "sm_90" (default when NULL) ... */
	bool llvm_ir;      /* the NVPTX LLVM IR after optimisation instead of PTX */
	bool bounds_check; /* record out-of-bounds accesses in uir_fault */
} UirPtxOptions;

typedef struct UirLlvmApi {
	int version; /* UIR_LLVM_API_VERSION */
	/* Runs the checked program P over BUFS (as buffers_create() makes them). Returns 0; 1
	 * after printing E0601 (the first fault a sequential run would meet) or an
	 * out-of-memory error on p->err; 70 after an internal error message. T may be NULL. */
	int (*run)(UirProgram *p, void **bufs, const RunOptions *o, UirJitTimes *t);
	/* Prints the LLVM module of the checked program P (textual IR) on OUT. Returns 0, or
	 * 70 after an internal error message. */
	int (*print_ir)(UirProgram *p, const RunOptions *o, FILE *out);
	/* Writes the module of P to PATH as an object file or assembly for the host (or
	 * o->cpu), exporting `int kernel(T *b0, ...)`. Returns 0, 1 when PATH cannot be
	 * written (after a message on stderr), 64 for an unknown CPU, 70 for internal errors. */
	int (*emit)(UirProgram *p, const RunOptions *o, UirEmitKind kind, const char *path);
	/* The PTX (or NVPTX LLVM IR) of the checked program P, which must be in kernel form,
	 * into *TEXT (malloc'ed). Returns 0, 64 for an unknown arch or 70 after a message. */
	int (*ptx)(UirProgram *p, const UirPtxOptions *o, char **text);
	/* Prints on p->err the E0601 of the fault code CODE that the kernels of ptx()'s
	 * output recorded in `uir_fault` (as `run` words it). Returns 0, or 70. */
	int (*ptx_fault)(UirProgram *p, const UirPtxOptions *o, uint64_t code);
} UirLlvmApi;

/* The module's one exported symbol. */
typedef const UirLlvmApi *(*UirLlvmApiFn)(void);
#define UIR_LLVM_API_SYMBOL "uir_llvm_api"

#endif
