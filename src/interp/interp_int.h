/* interp_int.h - the inside of the reference interpreter (src/interp/).
 *
 * The interpreter compiles the checked syntax tree into blocks of instructions over one
 * register file of Scalars, then runs them. Every value has its registers: a literal one
 * register preset before the run, an op's result `lanes` consecutive registers, a `let` the
 * registers of its value, a loop index one register. An instruction reads registers a, b, c
 * and writes d (d .. d+n-1 for an n-lane vector); leaves (names, literals) and `lane` cost
 * no instruction. Integer registers hold their value sign- or zero-extended by its type, as
 * a Scalar does (bool: 0 or 1 in u).
 *
 * Each (op, type) pair has its own instruction function, chosen once when compiling, with a
 * scalar and a lane-by-lane vector form (eval_ops.c, eval_mem.c). A fault (an access out of
 * bounds) prints E0601 and leaves the run with longjmp.
 */
#ifndef UIR_INTERP_INT_H
#define UIR_INTERP_INT_H

#include "../uir_internal.h"
#include <setjmp.h>

typedef struct Ctx Ctx;
typedef struct Insn Insn;
struct RaceState;
struct TrafficState;

/* An instruction's code: reads and writes the register file R. */
typedef void (*InsnFn)(const Insn *in, Scalar *R, Ctx *c);

/* A sequence of instructions run in order. */
typedef struct Block {
	const Insn *code;
	int n;
} Block;

struct Insn {
	InsnFn fn;
	int32_t d, a, b, c; /* registers: result, operands */
	int32_t n;          /* lanes of a vector op, K of load.K / store.K */
	void *base;         /* memory accesses: the element data */
	int64_t size;       /* memory accesses: elements */
	const void *aux;    /* FaultSite (accesses), LoopInfo, IfInfo, or the operand list of vec */
};

/* A loop: its index register, its bound register (evaluated before the loop instruction),
 * its body, and the allocs whose home it is, zeroed at the start of every iteration. */
typedef struct LoopInfo {
	Block body;
	int32_t idx, bound;
	const OverflowCheck *ovf; /* largest offsets to check on entry (non-literal bounds) */
	int novf;
	int nzero;
	void **zbase;
	size_t *zbytes;
} LoopInfo;

typedef struct IfInfo {
	Block then_, else_;
} IfInfo;

/* The state of one run. */
struct Ctx {
	UirProgram *p;
	jmp_buf fault; /* interp_fault() jumps here */
	struct RaceState *race; /* run --racecheck (racecheck.c); NULL otherwise */
};

/* A compiled program: the top-level block, the register count and their initial values
 * (the literals; other registers start at 0). */
typedef struct Compiled {
	Block top;
	int32_t nregs;
	Scalar *init; /* nregs values, xmalloc'ed */
} Compiled;

/* Runs the instructions of B in order. */
static inline void run_block(const Block *b, Scalar *R, Ctx *c)
{
	for (const Insn *in = b->code, *end = in + b->n; in < end; in++)
		in->fn(in, R, c);
}

/* ---- registers and memory by type tag (b, i8, u8, i32, u32, i64, u64, f32, f64) ----
 * CT_T: the C type an op computes in; MT_T: the C type of an element in memory;
 * GET_T(v): a register's value; PUT_T(r, x): stores x into register r, extended by T;
 * TY_T: the UirType. */
#define CT_b uint64_t
#define CT_i8 int8_t
#define CT_u8 uint8_t
#define CT_i32 int32_t
#define CT_u32 uint32_t
#define CT_i64 int64_t
#define CT_u64 uint64_t
#define CT_f32 float
#define CT_f64 double

#define MT_b uint8_t
#define MT_i8 int8_t
#define MT_u8 uint8_t
#define MT_i32 int32_t
#define MT_u32 uint32_t
#define MT_i64 int64_t
#define MT_u64 uint64_t
#define MT_f32 float
#define MT_f64 double

#define GET_b(v) ((v).u)
#define GET_i8(v) ((int8_t)(v).i)
#define GET_u8(v) ((uint8_t)(v).u)
#define GET_i32(v) ((int32_t)(v).i)
#define GET_u32(v) ((uint32_t)(v).u)
#define GET_i64(v) ((v).i)
#define GET_u64(v) ((v).u)
#define GET_f32(v) ((v).f32)
#define GET_f64(v) ((v).f64)

#define PUT_b(r, x) ((r).u = (uint64_t)((x) != 0))
#define PUT_i8(r, x) ((r).i = (int8_t)(x))
#define PUT_u8(r, x) ((r).u = (uint8_t)(x))
#define PUT_i32(r, x) ((r).i = (int32_t)(x))
#define PUT_u32(r, x) ((r).u = (uint32_t)(x))
#define PUT_i64(r, x) ((r).i = (int64_t)(x))
#define PUT_u64(r, x) ((r).u = (uint64_t)(x))
#define PUT_f32(r, x) ((r).f32 = (float)(x))
#define PUT_f64(r, x) ((r).f64 = (double)(x))

#define TY_b UIR_BOOL
#define TY_i8 UIR_I8
#define TY_u8 UIR_U8
#define TY_i32 UIR_I32
#define TY_u32 UIR_U32
#define TY_i64 UIR_I64
#define TY_u64 UIR_U64
#define TY_f32 UIR_F32
#define TY_f64 UIR_F64

/* Lists of type tags: X(T, ...) for each tag T of the class. */
#define SINT_TAGS(X, ...) X(i8, __VA_ARGS__) X(i32, __VA_ARGS__) X(i64, __VA_ARGS__)
#define UINT_TAGS(X, ...) X(u8, __VA_ARGS__) X(u32, __VA_ARGS__) X(u64, __VA_ARGS__)
#define INT_TAGS(X, ...) SINT_TAGS(X, __VA_ARGS__) UINT_TAGS(X, __VA_ARGS__)
#define FLOAT_TAGS(X, ...) X(f32, __VA_ARGS__) X(f64, __VA_ARGS__)
#define NUM_TAGS(X, ...) INT_TAGS(X, __VA_ARGS__) FLOAT_TAGS(X, __VA_ARGS__)
#define ALL_TAGS(X, ...) X(b, __VA_ARGS__) NUM_TAGS(X, __VA_ARGS__)

/* ---- eval_ops.c: per-(op, type) instruction functions ---- */
/* The instruction of OP (arithmetic, compare, logic, math, select) on operands of type T,
 * scalar or lane by lane (VEC); NULL when the op does not take T. */
InsnFn ops_pick(Op op, UirType t, bool vec);
/* The instruction of `cast TO x` (OP_CAST) or `bitcast TO x` (OP_BITCAST) of an x of type
 * FROM; NULL when there is none (bitcast of unequal sizes or of bool). */
InsnFn ops_pick_conv(Op op, UirType from, UirType to, bool vec);
/* Copies: splat (a to d .. d+n-1), vec (the registers of the int32 list aux to d, d+1, ...). */
void insn_splat(const Insn *in, Scalar *R, Ctx *c);
void insn_vec(const Insn *in, Scalar *R, Ctx *c);

/* ---- eval_mem.c: loads, stores and atomics with bounds checks ---- */
/* load / load.K (VEC) of T memory: d = base[R[a]]. */
InsnFn mem_pick_load(UirType t, bool vec);
/* store / store.K (VEC) of T memory: base[R[a]] = R[b]. */
InsnFn mem_pick_store(UirType t, bool vec);
/* atomic.OP of memory T: base[R[a]] = OP(base[R[a]], R[b]); NULL where OP does not take T. */
InsnFn mem_pick_atomic(AtomicOp op, UirType t);
/* Reports E0601 for the access IN at offset OFF (its FaultSite in aux, width n) and leaves the
 * run through c->fault. */
_Noreturn void interp_fault(Ctx *c, const Insn *in, int64_t off);

/* ---- compile.c: the syntax tree to instructions ---- */
/* Compiles the program P; BUFS[i] and ALLOCS[i] are the data of p->bufs[i] and
 * p->allocs[i]. Instructions live in ARENA; code->init is xmalloc'ed (caller frees). With
 * RACE (run --racecheck; else NULL), parallel loops and accesses get racecheck.c's hooks;
 * with TRAFFIC (run --traffic; else NULL), buffer accesses get traffic.c's. */
void interp_compile(UirProgram *p, void **bufs, void **allocs, Arena *arena, Compiled *code,
		    struct RaceState *race, struct TrafficState *traffic);

/* ---- interp.c: control flow ---- */
void insn_loop(const Insn *in, Scalar *R, Ctx *c);      /* aux: LoopInfo, no homed allocs */
void insn_loop_zero(const Insn *in, Scalar *R, Ctx *c); /* aux: LoopInfo with homed allocs */
void insn_if(const Insn *in, Scalar *R, Ctx *c);        /* aux: IfInfo; a: the condition */

#endif
