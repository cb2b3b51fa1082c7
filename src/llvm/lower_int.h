/* lower_int.h - the state shared by lower.c (statements, memory, functions, parallel
 * loops) and lower_ops.c (expressions and ops) while a program is lowered to LLVM IR.
 *
 * Values: bool is i1 (i8 in memory, 0 or 1), i8/u8 i8, i32/u32 i32, i64/u64 i64, f32
 * float, f64 double; a K-lane value is <K x T>. A let is the LLVM value of its expression;
 * a loop index is an i32 phi. Every function being built has one exit block `done` whose
 * phi collects the fault codes (0 on the normal path).
 */
#ifndef UIR_LLVM_LOWER_INT_H
#define UIR_LLVM_LOWER_INT_H

#include "lower.h"

/* A function being built. */
typedef struct Fn {
	LLVMValueRef fn;
	LLVMBasicBlockRef entry;      /* allocas go at its start */
	LLVMBasicBlockRef done;       /* the exit block (appended when the function is closed) */
	LLVMValueRef *codes;          /* incoming fault codes of `done` ... */
	LLVMBasicBlockRef *from;      /* ... and their blocks */
	int ncodes, capcodes;
	const Stmt *par;              /* the parallel loop this function runs one iteration of */
} Fn;

typedef struct L {
	UirProgram *p;
	const UirJitOptions *o;
	LLVMContextRef cx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	Fn *fn;
	LLVMValueRef *memptr; /* base pointer of each memory: buffers 0.., then allocs */
	LLVMValueRef *val;    /* the value of each let / loop index, by Sym.slot */
	Rng *rng;             /* its range, by Sym.slot */
	/* types */
	LLVMTypeRef t_i1, t_i8, t_i32, t_i64, t_f32, t_f64, t_ptr, t_void;
	Lowered *out;
	int capsites;
} L;

/* ---- lower_ops.c ---- */
/* Lowers E at the builder's position; *R gets its range (may be NULL). */
LLVMValueRef lower_expr(L *l, const Expr *e, Rng *r);
/* The register type of T with LANES lanes (bool: i1), and T's element type in memory. */
LLVMTypeRef val_type(L *l, UirType t, int lanes);
LLVMTypeRef mem_type(L *l, UirType t);
/* Calls the intrinsic NAME overloaded on TYS. */
LLVMValueRef call_intrinsic(L *l, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args, int nargs);
/* Names V after a program name when V is an unnamed instruction. */
void name_value(LLVMValueRef v, const char *name);

/* ---- lower.c ---- */
/* The address of MEM[OFF] for an access of WIDTH elements at LOC (WHAT names it for
 * E0601): checked unless R proves it in bounds or checks are off. */
LLVMValueRef lower_address(L *l, const Mem *m, LLVMValueRef off, Rng r, int width, Loc loc, const char *what);
/* The memory index of M in l->memptr. */
int mem_slot(const L *l, const Mem *m);

/* ---- interchange.c ---- */
/* The loop k when `loop j { lets; loop k { S } }` (J) may and should run as
 * `loop k { loop j { lets; S } }` (every result bit kept), else NULL. */
const Stmt *interchange_inner(L *l, const Stmt *j);

#endif
