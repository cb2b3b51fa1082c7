/* lower.h - the inside of the LLVM back end: lowering a checked program to an LLVM module
 * (lower.c, lower_ops.c; value ranges, no-wrap and in-bounds facts come from
 * check/ranges.c), and the fault codes shared by the lowering, the JIT driver and the object writer (jit.c).
 *
 * The lowered module defines
 *
 *     i64 @uir_kernel(ptr noalias %b0, ...)      (JIT: exported as "kernel")
 *
 * which runs the whole program and returns 0, or a fault code: (SITE + 1) << 32 | the
 * 32 bits of the offset for an access out of bounds at sites[SITE], or UIR_CODE_OOM << 32
 * | the alloc's index when memory for an alloc ran out (| nallocs + the buffer's index for
 * the workers' copies of a buffer). Parallel loops are outlined into
 * `i64 @NAME.chunk(ptr ctx, i32 lo, i32 hi, i32 worker)` run by uir_parallel_for_chunks().
 */
#ifndef UIR_LLVM_LOWER_H
#define UIR_LLVM_LOWER_H

#include "llvm_api.h"
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* The high word of a fault code for memory that could not be allocated. */
#define UIR_CODE_OOM 0xFFFFFFFFu

/* The result of lowering. */
typedef struct Lowered {
	LLVMModuleRef mod;
	LLVMValueRef kernel; /* @uir_kernel */
	FaultSite *sites;    /* xmalloc'ed */
	int nsites;
	bool uses_math;      /* calls uir_jit_exp2_f32 and friends (link the math bitcode) */
	bool uses_parallel;  /* calls uir_parallel_for */
	bool uses_heap;      /* calls calloc/malloc/free */
} Lowered;

/* Lowers the checked program P into a new module in CX for the target of TM (its triple
 * and data layout are set first, so every alignment the builder picks is final). O gives
 * bounds_check and opt_level. Returns false after an internal error message. The caller
 * owns out->mod and frees out->sites. */
bool lower_program(UirProgram *p, LLVMContextRef cx, LLVMTargetMachineRef tm, const RunOptions *o, Lowered *out);

/* ---- jit.c: fault messages ---- */

/* Prints the E0601 diagnostic of fault CODE (nonzero) exactly as the interpreter does,
 * or the out-of-memory error, on p->err. */
void fault_report(UirProgram *p, const Lowered *lw, uint64_t code);

#endif
