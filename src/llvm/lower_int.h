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
#include "../opt/opt.h"
#include "../util/messages.h"

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

struct L;

/* What differs when a kernel is lowered for the GPU (ptx.c sets it; NULL for the CPU). */
typedef struct GpuHooks {
	/* Lowers the `local` loop S (a phase): barriers around it, the thread index. */
	void (*phase)(struct L *l, const struct Stmt *s);
	/* Records fault CODE when FAIL is true (the first recorded wins) and goes on. */
	void (*fault)(struct L *l, LLVMValueRef fail, LLVMValueRef code);
	/* The block index of dimension DIM (0 = x): for the loops of a grid's nest. */
	LLVMValueRef (*block_index)(struct L *l, int dim);
} GpuHooks;

typedef struct L {
	UirProgram *p;
	const RunOptions *o;
	LLVMContextRef cx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	Fn *fn;
	LLVMValueRef *memptr; /* base pointer of each memory: buffers 0.., then allocs */
	LLVMValueRef *val;    /* the value of each let / loop index, by Sym.slot */
	/* types */
	LLVMTypeRef t_i1, t_i8, t_i32, t_i64, t_f32, t_f64, t_ptr, t_void;
	Lowered *out;
	int capsites;
	/* GPU kernels only (ptx.c): the hooks, and by mem_slot the allocs kept one per thread
	 * (acc[t] in a register: the address is memptr itself, never checked) */
	const GpuHooks *gpu;
	bool *slot;
	/* CPU: in the outlined body of a grid of 2 or 3 dimensions, the flat block number whose
	 * div and mod give each loop's index (docs/language.md 6.5) */
	LLVMValueRef grid_flat;
	/* CPU: by mem_slot, the memories whose atomics update the worker's own copy (the
	 * parallel loop being lowered privatised them: lower.c, private_atomic()) */
	bool *own_copy;
	/* CPU: while the body of a parallel loop is lowered for blocks whose accesses were
	 * checked ahead (block_check.c), those accesses; else NULL */
	const struct BlockCheck *checked_ahead;
} L;

/* ---- block_check.c ---- */
/* An access of a parallel loop's body whose offset can be computed and checked ahead of
 * the iteration: NODE is its Stmt (store, atomic) or Expr (load). */
typedef struct BlockAccess {
	const void *node;
	const Mem *mem;
	const Expr *off;
	int width;
} BlockAccess;
typedef struct BlockCheck {
	BlockAccess *acc;
	int nacc;
	const Stmt **lets; /* the body's lets those offsets may name, in order */
	int nlets;
} BlockCheck;
/* Plans the checks ahead for parallel loop S (a body of lets, stores and atomics, CPU,
 * bounds checks on): true when some access not shown in bounds has an offset computable
 * ahead (docs/llvm.md, "Bounds checks ahead of a block"); BC is then freed with
 * block_check_free(). */
bool block_check_plan(const L *l, const Stmt *s, BlockCheck *bc);
void block_check_free(BlockCheck *bc);
/* Whether NODE's bounds check is left out: the block being lowered was checked ahead. */
bool block_checked(const L *l, const void *node);
/* In a function with S's index and captures bound, the i1 that is true when every access
 * of BC is in bounds in this iteration; lowers the lets of BC first. Faults never. */
LLVMValueRef block_check_lower(L *l, const BlockCheck *bc);

/* ---- lower_ops.c ---- */
/* Lowers E at the builder's position (its value ranges, no-wrap and in-bounds facts come
 * from check/ranges.c, on the tree). */
LLVMValueRef lower_expr(L *l, const Expr *e);
/* The register type of T with LANES lanes (bool: i1), and T's element type in memory. */
LLVMTypeRef val_type(L *l, UirType t, int lanes);
LLVMTypeRef mem_type(L *l, UirType t);
/* Calls the intrinsic NAME overloaded on TYS. */
LLVMValueRef call_intrinsic(L *l, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args, int nargs);
/* Names V after a program name when V is an unnamed instruction. */
void name_value(LLVMValueRef v, const char *name);
/* jit.c: gives every defined function of M the target-cpu and target-features of TM
 * (used by the CPU and the NVPTX paths). */
void set_target_attrs(LLVMModuleRef m, LLVMTargetMachineRef tm);

/* Links the bitcode BC (LEN bytes; WHAT names it in messages) into M, with M's target and
 * data layout, and makes its defined uir_jit_* and uir_ptx_* functions internal (so that
 * the optimiser may inline and drop them). False after an internal-error message. */
bool link_bitcode(LLVMModuleRef m, const unsigned char *bc, size_t len, const char *what);

/* ---- lower.c ---- */
/* The address of MEM[OFF] for an access of WIDTH elements at LOC (WHAT names it for
 * E0601): checked unless the access is PROVEN in bounds (its in_bounds fact) or checks are
 * off. */
LLVMValueRef lower_address(L *l, const Mem *m, LLVMValueRef off, bool proven, int width, Loc loc, const char *what);
/* The memory index of M in l->memptr. */
int mem_slot(const L *l, const Mem *m);

/* Sets up L for lowering P into a new module in CX for TM's target (see lower_program);
 * lower_end frees what lower_begin allocated (not the module). */
void lower_begin(L *l, UirProgram *p, LLVMContextRef cx, LLVMTargetMachineRef tm, const RunOptions *o, Lowered *out);
void lower_end(L *l);
/* Lowers the statements S at the builder's position. */
void lower_block(L *l, const Stmt *s);
/* Starts building FN (the parallel loop PAR runs it, or NULL); fn_close ends the normal
 * path and returns the phi of fault codes in `done`, where the builder is left. */
void fn_begin(L *l, Fn *f, LLVMValueRef fn, const Stmt *par);
LLVMValueRef fn_close(L *l);
/* A static alloca of T at the start of the current function's entry block. */
LLVMValueRef entry_alloca(L *l, LLVMTypeRef t, const char *name, unsigned align);

#endif
