/* uir_internal.h - the structures shared by the stages of uir, and their prototypes,
 * grouped by the file that owns them (QBE style).
 *
 * Pipeline: lex -> parse (with names and scopes) -> types -> check (homes, axes, bounds,
 * races) -> a back end (interp, render, ...). The checked program is the one structure every
 * back end reads; facts the checker derives (an alloc's home, a loop's phase) live in it.
 */
#ifndef UIR_INTERNAL_H
#define UIR_INTERNAL_H

#include "uir/uir.h"
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

/* ---- alloc.c: internal errors, memory that must not fail ---- */
/* An internal bug: report and exit 70 (never a bare assert, which NDEBUG removes). */
#define unreachable() uir_internal_error(__FILE__, __LINE__, "unreachable")
_Noreturn void uir_internal_error(const char *file, int line, const char *what);
void *xmalloc(size_t n);                         /* malloc or exit 70 */
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* ---- cpus.c ---- */
/* The CPUs this process may run on (its affinity mask, else the CPUs online), 1 to 1024:
 * the default thread count of `run`, as the thread pool counts it (runtime/uir_parallel.c,
 * which stays self-contained for rendered C, counts them the same way). */
int uir_cpus(void);

typedef struct Loc { int line, col; } Loc;

/* ---- arena.c: compiler memory, freed all at once ---- */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena { ArenaBlock *head; } Arena;
void *arena_alloc(Arena *a, size_t n);          /* zeroed; never NULL (exits 70 on OOM) */
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);

/* ---- ops.c: the op table (X-macro), one row per op ---- */
/* Operand classes an op accepts. */
enum {
	OK_INT = 1, OK_FLOAT = 2, OK_BOOL = 4,
	OK_NUM = OK_INT | OK_FLOAT, OK_ALL = OK_INT | OK_FLOAT | OK_BOOL,
};
/* Shapes: how the result type follows from the operands. */
typedef enum {
	SH_SAME,   /* operands of one type, result that type */
	SH_CMP,    /* operands of one type, result bool (lane-wise) */
	SH_SPECIAL /* typed by hand in types.c */
} OpShape;

/*    name     text      arity accepts  shape     meaning */
#define UIR_OPS(X) \
	X(ADD,     "add",     2, OK_NUM,   SH_SAME,  "a + b (ints wrap)") \
	X(SUB,     "sub",     2, OK_NUM,   SH_SAME,  "a - b (ints wrap)") \
	X(MUL,     "mul",     2, OK_NUM,   SH_SAME,  "a * b (ints wrap)") \
	X(DIV,     "div",     2, OK_NUM,   SH_SAME,  "a / b (ints truncate; x/0 = 0, MIN/-1 = MIN)") \
	X(MOD,     "mod",     2, OK_NUM,   SH_SAME,  "remainder (ints truncate; x%0 = x; floats fmod)") \
	X(NEG,     "neg",     1, OK_NUM,   SH_SAME,  "-a (ints wrap)") \
	X(ABS,     "abs",     1, OK_NUM,   SH_SAME,  "|a| (ints wrap, unsigned unchanged)") \
	X(MIN,     "min",     2, OK_NUM,   SH_SAME,  "smaller; NaN if either is NaN; min -0 +0 = -0") \
	X(MAX,     "max",     2, OK_NUM,   SH_SAME,  "larger; NaN if either is NaN; max -0 +0 = +0") \
	X(FMA,     "fma",     3, OK_FLOAT, SH_SAME,  "a*b+c with one rounding") \
	X(LT,      "lt",      2, OK_NUM,   SH_CMP,   "a < b") \
	X(LE,      "le",      2, OK_NUM,   SH_CMP,   "a <= b") \
	X(GT,      "gt",      2, OK_NUM,   SH_CMP,   "a > b") \
	X(GE,      "ge",      2, OK_NUM,   SH_CMP,   "a >= b") \
	X(EQ,      "eq",      2, OK_ALL,   SH_CMP,   "a == b") \
	X(NE,      "ne",      2, OK_ALL,   SH_CMP,   "a != b (true when either is NaN)") \
	X(AND,     "and",     2, OK_INT | OK_BOOL, SH_SAME, "bitwise / logical and") \
	X(OR,      "or",      2, OK_INT | OK_BOOL, SH_SAME, "bitwise / logical or") \
	X(XOR,     "xor",     2, OK_INT | OK_BOOL, SH_SAME, "bitwise / logical xor") \
	X(NOT,     "not",     1, OK_INT | OK_BOOL, SH_SAME, "bitwise / logical not") \
	X(SHL,     "shl",     2, OK_INT,   SH_SAME,  "a << (b mod width)") \
	X(SHR,     "shr",     2, OK_INT,   SH_SAME,  "a >> (b mod width); arithmetic on signed") \
	X(SELECT,  "select",  3, OK_ALL,   SH_SPECIAL, "c ? a : b") \
	X(SQRT,    "sqrt",    1, OK_FLOAT, SH_SAME,  "square root, correctly rounded") \
	X(RECIP,   "recip",   1, OK_FLOAT, SH_SAME,  "1 / a") \
	X(EXP2,    "exp2",    1, OK_FLOAT, SH_SAME,  "2^a (runtime/uir_math.h)") \
	X(LOG2,    "log2",    1, OK_FLOAT, SH_SAME,  "log2 a (runtime/uir_math.h)") \
	X(SIN,     "sin",     1, OK_FLOAT, SH_SAME,  "sine (runtime/uir_math.h)") \
	X(COS,     "cos",     1, OK_FLOAT, SH_SAME,  "cosine (runtime/uir_math.h)") \
	X(FLOOR,   "floor",   1, OK_FLOAT, SH_SAME,  "round down") \
	X(CEIL,    "ceil",    1, OK_FLOAT, SH_SAME,  "round up") \
	X(TRUNC,   "trunc",   1, OK_FLOAT, SH_SAME,  "round toward zero") \
	X(CAST,    "cast",    1, OK_ALL,   SH_SPECIAL, "convert to T") \
	X(BITCAST, "bitcast", 1, OK_INT | OK_FLOAT, SH_SPECIAL, "reinterpret the bits as T") \
	X(LOAD,    "load",    1, OK_INT,   SH_SPECIAL, "BUF[OFF] (load.K: K lanes)") \
	X(VEC,     "vec",     -1, OK_INT | OK_FLOAT, SH_SPECIAL, "a vector of the operands") \
	X(SPLAT,   "splat",   1, OK_INT | OK_FLOAT, SH_SPECIAL, "K copies of a") \
	X(LANE,    "lane",    2, OK_ALL,   SH_SPECIAL, "lane I of v")

typedef enum {
#define X(id, text, arity, acc, shape, meaning) OP_##id,
	UIR_OPS(X)
#undef X
	OP_COUNT
} Op;

typedef struct OpInfo {
	const char *name;
	int arity;        /* value operands; -1: variadic (vec) */
	unsigned accepts; /* OK_* of the operand type */
	OpShape shape;
	const char *meaning;
} OpInfo;
extern const OpInfo op_info[OP_COUNT];
int op_lookup(const char *name, size_t len); /* -1 when not an op */

/* Atomic ops of atomic.OP. */
typedef enum { AT_ADD, AT_MIN, AT_MAX } AtomicOp;

/* ---- types.c helpers on element types ---- */
bool type_is_int(UirType t);
bool type_is_signed(UirType t);
bool type_is_float(UirType t);
int type_bits(UirType t);
int type_lookup(const char *name, size_t len); /* -1 when not a type name */

/* A scalar value of any type: ints sign- or zero-extended to 64 bits by their type,
 * bool 0/1 in u, f32 in f32, f64 in f64. */
typedef union Scalar { int64_t i; uint64_t u; float f32; double f64; } Scalar;

/* ---- the syntax tree ---- */
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Sym Sym;
typedef struct Mem Mem;

typedef enum { EX_LIT, EX_NAME, EX_OP } ExprKind;

/* The values a scalar integer expression (bool, i8, u8, i32, u32) may take where it stands,
 * as mathematical integers in its type's reading: every value it takes lies in [lo, hi].
 * known is false where nothing is claimed (other types, vectors); lo > hi (known) says the
 * expression never runs (an empty loop's body, a branch its condition rules out).
 * Computed once per checked program by check/ranges.c (docs/analysis.md, "Value ranges"). */
typedef struct Range {
	int64_t lo, hi;
	bool known;
} Range;

struct Expr {
	ExprKind kind;
	Loc loc;
	/* type after types.c: element type and lanes (1 = scalar) */
	UirType ty;
	int lanes;
	/* EX_OP */
	Op op;
	int nargs;
	Expr **args;
	int width;       /* K of load.K / splat.K (1 for plain load) */
	UirType to;      /* target of cast / bitcast */
	Mem *mem;        /* load: the memory */
	Loc mem_loc;     /* load: where the memory's name stands */
	/* EX_NAME */
	Sym *sym;
	/* EX_LIT */
	const char *text;  /* literal text without the type suffix */
	bool lit_float;    /* float syntax (has '.', exponent, inf or nan) */
	bool lit_bool;     /* true / false */
	bool lit_typed;    /* has an explicit :TYPE */
	UirType lit_type;  /* the explicit type */
	Scalar val;        /* value in ty after types.c */
	/* filled by check/ranges.c */
	Range rng;         /* the values it may take */
	bool nowrap;       /* add, sub, mul, neg, shl: the exact result fits the type (no wrap) */
	bool in_bounds;    /* load: every element it reads lies in the memory */
};

typedef enum { SYM_LET, SYM_LOOP, SYM_MEM } SymKind;

struct Sym {
	const char *name;
	SymKind kind;
	Loc loc;
	Stmt *def;    /* the let or loop statement */
	Mem *mem;     /* SYM_MEM */
	int slot;     /* lets and loop indices: a number of its own, 0 .. nslots - 1 in order of
	               * definition (parse.c), never reused; the index of every per-name table:
	               * the interpreter's registers (compile.c), ranges.c, the LLVM lowering,
	               * the renderers' names */
	UirType ty;   /* value type of a let (loop index: i32) */
	int lanes;
	const char *key; /* loops: identity in normal forms (check/normal.c, docs/language.md 7.2.3) */
};

typedef enum { INIT_ZEROS, INIT_FILL, INIT_IOTA, INIT_RANDOM, INIT_LIST, INIT_FILE } InitKind;

struct Mem {
	const char *name;
	Loc loc;
	UirType ty;
	int64_t size;     /* elements */
	bool is_alloc;
	int index;        /* buffers: b0, b1, ...; allocs: 0, 1, ... */
	Expr *size_lit;
	/* INIT (buffers) */
	InitKind init;
	Loc init_loc;
	Expr *fill;              /* fill V */
	Expr *seed;              /* random SEED */
	Expr *lo, *hi;           /* random SEED LO HI (raw literals) */
	Expr **list; int nlist;  /* [v0 v1 ...] */
	const char *path;        /* file "PATH", as written */
	/* range of random, decoded by types.c */
	uint64_t rlo, rwidth;    /* ints: LO bits and HI - LO mod 2^64 (0 = 2^64) */
	double flo, fhi;         /* floats */
	bool has_range;
	/* filled by check */
	Stmt *home;              /* allocs: innermost thread/global loop holding every access */
	bool used;
	bool stored;             /* the program stores into it (a store or an atomic) */
	bool read_by_check;      /* the exact analysis used its values (docs/language.md 7.6.2) */
	const void *check_data;  /* the values the checker reads (NULL: its INIT): run --input */
	bool replaced;           /* with UirProgram.inits_stand: run --input gives its values */
};

typedef enum { ST_BUFFER, ST_ALLOC, ST_LET, ST_STORE, ST_ATOMIC, ST_LOOP, ST_IF } StmtKind;
typedef enum { AX_NONE, AX_UNROLL, AX_THREAD, AX_GLOBAL, AX_LOCAL } Axis;
extern const char *const axis_name[];

struct Stmt {
	StmtKind kind;
	Loc loc;
	Stmt *next;       /* next statement of the same block */
	Stmt *parent;     /* enclosing loop or if; NULL at top level */
	/* ST_LET: sym, value.  ST_LOOP: sym (index), value (bound) */
	Sym *sym;
	Expr *value;
	/* ST_BUFFER / ST_ALLOC / ST_STORE / ST_ATOMIC */
	Mem *mem;
	Loc mem_loc;
	int width;        /* store.K */
	AtomicOp aop;
	Expr *off, *val;
	/* ST_LOOP */
	Axis axis;
	Loc axis_loc;
	Stmt *body;
	int64_t bound_lit; /* literal bound, or -1 when not an integer literal */
	/* ST_IF */
	Expr *cond;
	Stmt *then_, *else_;
	/* filled by check */
	int phase;         /* local loops: phase number in its kernel */
	Stmt *kernel;      /* local loops: their kernel (the outermost global loop of its nest) */
	/* global and local loops: the nest of directly nested loops of that axis they belong to
	 * (docs/language.md 6.5): NEST its outermost loop (the loop itself when alone), DIM the
	 * dimension the loop's index is (0 = x, the innermost; 1 = y; 2 = z); on the outermost
	 * loop, DIMS its loops by dimension (dims[0] the innermost) and NDIMS how many */
	Stmt *nest;
	int dim;
	Stmt *dims[3]; int ndims;
	Mem **homed; int nhomed; /* thread/global loops: allocs whose home this is */
	struct OverflowCheck *ovf; int novf; /* loops with a non-literal bound: see below */
	bool in_bounds;    /* store, atomic: every element it writes lies in the memory (ranges.c) */
	struct Captures *cap; /* thread and global loops: what the body uses (check/captures.c) */
	/* filled by opt/opt.c (plain loops) */
	bool opt_parallel;      /* runs on the thread pool */
	bool opt_thread_ok;     /* ... and may be written as a `thread` loop (opt/private.c,
	                         * thread_homes_ok()); else the rewritten text leaves it plain */
	bool opt_private;       /* runs as a `thread` loop, with allocs private to an iteration:
	                         * carried out by rewriting the program (opt/rewrite.c) */
	Mem *opt_expand;        /* scalar alloc expanded over this loop, which is distributed
	                         * (opt/expand.c, carried out by opt/rewrite.c) */
	int opt_jam;            /* opt_expand by unroll-and-jam of this many iterations (0: no) */
	bool opt_jam_thread;    /* ... whose loop over the blocks runs on the thread pool */
	Mem **opt_rename;       /* opt_private: privatised allocs used outside the loop too,
	                         * whose accesses in it get an alloc of their own */
	int nopt_rename;
	bool opt_peel;          /* opt_private: the last iteration runs apart, after the loop,
	                         * on the opt_rename memories themselves (opt/private.c) */
	const Stmt *opt_inner;  /* interchanged with this loop, its body's loop */
	bool opt_distribute;    /* distributed over the statements of its body, as opt_expand
	                         * distributes, with no alloc expanded (opt/expand.c) */
	int opt_jam_mem;        /* unroll-and-jam of this many iterations over the loop in its
	                         * body, a reduction into memory (opt/jam.c, carried out by
	                         * opt/rewrite.c); 0: none */
	bool opt_jam_outer;     /* ... over the loop inside that loop, this loop's iterations
	                         * run side by side there (opt/jam.c, "The outer jam") */
	bool opt_jam_swap;      /* with opt_jam_mem: this loop k, `loop k { loop j { S } }`, runs
	                         * inside blocks of j, opt_jam_mem of them side by side inside
	                         * k (opt/jam.c, "The swapped jam") */
	bool opt_jam_sink;      /* with opt_jam_mem: this loop t, `loop t { loop r { loop s { S }
	                         * } }`, runs inside s, opt_jam_mem iterations of r side by side
	                         * inside t (opt/jam.c, "The sunk jam") */
	int opt_jam_row;        /* the row jam of this many iterations, the body distributed,
	                         * side by side inside each nest's inner loop (opt/jam.c, "The
	                         * row jam", carried out by opt/rewrite.c); 0: none */
	int opt_skew;           /* a time loop run over tiles of its sweeps' index skewed by
	                         * opt_skew - 1 a step (opt/skew.c, carried out by
	                         * opt/rewrite.c); 0: not */
	int64_t opt_skew_width, opt_skew_tiles; /* ... the tiles' width and number */
	int64_t opt_split;      /* with opt_skew: split tiling instead, bands of this many time
	                         * steps, each over opt_split_tiles tiles of opt_split_width on
	                         * the pool, then the triangles between them (opt/skew.c); 0: the
	                         * skew (also the fallback where the split's text does not check) */
	int64_t opt_split_width, opt_split_tiles;
	bool opt_fixed;         /* the loop over a time skew's tiles, in the rewritten program:
	                         * it and the loops in it run as written (no decision) */
	bool opt_proven;        /* a `thread` loop of a split's rewritten text (opt/skew.c) that
	                         * the race check proved before, its verdict for that text kept
	                         * in the answer cache (opt/rewrite.c): not asked again
	                         * (check/races.c) */
};

/* What the body of a `thread` or `global` loop uses from outside it (check/captures.c,
 * docs/analysis.md "Captures"), in the program's arena. */
enum { CAP_LOAD = 1, CAP_STORE = 2, CAP_ATOMIC = 4 };
typedef struct CapKey { int key, at; } CapKey;
typedef struct Captures {
	Sym **syms; int nsyms;  /* lets and loop indices defined outside the loop that the body
	                         * names, in order of first use */
	Mem **mems; int nmems;  /* every memory the body accesses (its homed allocs too), in
	                         * order of first use */
	unsigned char *use;     /* per mems[i]: CAP_LOAD | CAP_STORE | CAP_ATOMIC */
	CapKey *sorted;         /* memory keys (buffers, then allocs) sorted, for loop_uses() */
} Captures;

/* An access whose top digit is this loop's index (or its div by D) with a bound that is not
 * a literal: on entry to the loop, with bound n >= 1, run checks that the largest offset
 * BASE + COEF * ((n - 1) / D) fits in i32, else E0601 at AT (docs/language.md 4.8.3). */
typedef struct OverflowCheck {
	Loc at;
	const Mem *mem;
	int64_t base, coef, d;
} OverflowCheck;

/* The largest offset of check O's access when the loop's bound is N >= 1. */
static inline int64_t overflow_top(const OverflowCheck *o, int64_t n)
{
	return o->base + o->coef * ((n - 1) / o->d);
}

/* A run-time check, what its E0601 reports (util/messages.h): an access, WHAT ("load of",
 * "store.4 to", "atomic.add on") of MEM at LOC, WIDTH elements (K of .K accesses, else 1);
 * or, when OVF is set, the check on entry to a loop with a non-literal bound that an offset
 * cannot overflow. The interpreter and the LLVM back end keep one per access. */
typedef struct FaultSite {
	const Mem *mem;
	Loc loc;
	const char *what;
	int width;
	const OverflowCheck *ovf;
} FaultSite;

/* ---- the program ---- */
struct UirProgram {
	Arena arena;
	const char *path;      /* as given */
	char *src;             /* whole text, NUL-terminated */
	size_t srclen;
	size_t *line_start;  /* diag.c: where each source line starts (line L at [L - 1]), made on first use */
	int nlines;
	Stmt *top;             /* top-level statements, declarations included */
	Mem **bufs; int nbufs;
	Mem **allocs; int nallocs;
	int nslots;            /* lets and loop indices, numbered by Sym.slot */
	FILE *err;
	struct Deferred *deferred; /* diag.c: the deferred diagnostics of the stage that runs */
	int ndeferred, capdeferred;
	char first_code[8];
	Loc first_loc;         /* where the first error (first_code) points */
	char first_msg[1024];  /* its message as printed (control bytes as '?'), for the library */
	int nerrors;
	bool checked;
	bool optimised;        /* opt_program() has run */
	bool opt_rewrites;     /* some decision of it needs the program rewritten (opt/opt.h) */
	bool opt_no_rewrite;   /* it is such a rewrite: opt_program() makes no decision that
	                        * only a rewrite carries out and that none of its loops needs */
	bool opt_rows;         /* ... but for the row jam (opt/jam.c): the first rewrite, which
	                        * may be rewritten once more */
	bool opt_wide;         /* it is a rewrite with rows side by side (the row jam): the
	                        * LLVM lowering asks for the widest vectors (llvm/lower.c) */
	bool opt_no_cache;     /* the loop optimiser neither reads nor keeps verdicts in the
	                        * answer cache (opt/answer_cache.c; `run --no-cache`) */
	bool inits_stand;      /* the check is for a run (or `uir opt`) that starts every buffer
	                        * from its INIT but those marked Mem.replaced: the range analysis
	                        * may read the INITs of memories never stored (check/ranges.c) */
	int opt_threads;       /* the threads the loop optimiser plans for (a time skew runs on
	                        * one: opt/skew.c); 0: uir_cpus() */
	struct Footprint *footprint;     /* set while uir_check_footprint() checks: races.c records
	                                  * into it (check/footprint.h); NULL otherwise */
	struct Footprint *footprint_rec; /* what the last uir_check_footprint() recorded */
};

/* ---- diag.c: diagnostics ---- */
/* Prints `FILE:LINE:COL: error[CODE]: message`, the source line and a caret, and an
 * optional note; counts the error and records the first code. */
void diag(UirProgram *p, Loc at, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Deferred diagnostics of a stage, printed sorted by location by diag_flush(). */
void diag_later(UirProgram *p, Loc at, const char *code, const char *note, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int diag_flush(UirProgram *p); /* prints and returns the number deferred */
/* As diag_flush, ordered by code first (E0501 before E0502 before E0503), each code in
 * source order: the race stage's order (docs/language.md 7.4.5). */
int diag_flush_by_code(UirProgram *p);
/* Prints `PATH:LINE:COL: note: MSG` at AT with its source line and caret (the second place
 * of a two-place error, after diag()); counts nothing. */
void diag_note_at(UirProgram *p, Loc at, const char *msg);
/* The byte offset in P's source where line LINE (1-based) starts (the source's length past
 * the last line), from an index of the lines made once. */
size_t diag_line_offset(UirProgram *p, int line);
/* The line and column (1-based, in bytes) of byte offset OFF of P's source. */
Loc diag_loc_of(UirProgram *p, size_t off);
/* The text diag() would print for MSG at AT (header, source line, caret), malloc'ed; prints
 * and counts nothing. The bytes 1 and 2 in MSG stay as they are: the placeholders of the
 * numbers in a template that generated code fills in (util/messages.h). */
char *diag_text(UirProgram *p, Loc at, const char *code, const char *msg);
void diag_discard(UirProgram *p);          /* drops the deferred diagnostics (and frees their queue) */
int diag_pending(const UirProgram *p);     /* the number of deferred diagnostics */
void diag_truncate(UirProgram *p, int n);  /* drops the deferred diagnostics after the first N */
char *fmt_str(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* S (a path, a string of the program) as diagnostics print it: control bytes as '?'
 * (util/escape.h), in A. For messages that generated code prints as `uir run` does. */
char *diag_shown(Arena *a, const char *s);

/* ---- program.c ---- */
/* uir_load(PATH) when TEXT is NULL, else uir_load_text(PATH, TEXT, LEN): a program that does
 * not load is given to ON_FAIL(P, CTX) (may be NULL), with its first error recorded
 * (first_code, first_loc, first_msg), before it is freed and NULL returned. For the library
 * (src/api/), which reports that error to its caller. */
UirProgram *program_load(const char *path, const char *text, size_t len, FILE *err,
			 void (*on_fail)(const UirProgram *p, void *ctx), void *ctx);

/* ---- lex.c ---- */
typedef enum {
	TK_EOF, TK_NEWLINE, TK_WORD, TK_INT, TK_FLOAT, TK_STRING,
	TK_LPAREN, TK_RPAREN, TK_LBRACE, TK_RBRACE, TK_LBRACK, TK_RBRACK, TK_EQ, TK_ERROR
} TokKind;

typedef struct Token {
	TokKind kind;
	Loc loc;
	const char *s;   /* start in the source */
	int len;         /* whole token, suffix included */
	int typelen;     /* literals: length of the text before ':' (== len when untyped) */
} Token;

typedef struct Lexer {
	UirProgram *p;
	const char *s;
	size_t pos;
	int line, col;
	int depth;       /* open ( and [ : line breaks inside are ignored */
} Lexer;
void lex_init(Lexer *lx, UirProgram *p);
Token lex_next(Lexer *lx);

/* ---- parse.c ---- */
bool parse_program(UirProgram *p);  /* false after printing an E01 error */

/* ---- types.c ---- */
bool types_program(UirProgram *p);  /* false after printing E02 errors */
bool literal_value(UirProgram *p, Expr *e, UirType ty, Scalar *out); /* E0203 on failure */
/* Element I (0 <= I < m->size) of buffer M's INIT after types.c, as run starts it, in the
 * interpreter's register form (integers sign- or zero-extended by type). False for a
 * `file` INIT (its values are known only when read). */
bool init_element(const Mem *m, int64_t i, Scalar *out);
/* Element I of DATA, an array of type T, in the same form. */
Scalar scalar_at(const void *data, UirType t, int64_t i);

/* ---- check/check.c: stages E03, E04, E05; homes ---- */
bool check_program(UirProgram *p, unsigned flags);
bool stmt_inside(const Stmt *s, const Stmt *ancestor); /* s is ancestor or below it */

/* ---- check/eval.c: evaluation of i32/bool expressions at check time ---- */
/* LOADS: a load of a buffer the program never stores reads its values (Mem.check_data or
 * its INIT) and marks it read_by_check; otherwise every load is unknown. */
typedef struct EvalEnv { const Sym *const *syms; const int64_t *vals; int n; bool loads; } EvalEnv;
/* Evaluates E (i32 or bool, scalar) made of literals, lets and the loop indices bound in
 * ENV, exactly as run would; its sub-expressions may have any type and width. False when E
 * needs anything else (a load, an unbound name). */
bool eval_int(const Expr *e, const EvalEnv *env, int64_t *out);
/* As eval_int, counting the nodes it visits against *BUDGET (false when it runs out). */
bool eval_int_budget(const Expr *e, const EvalEnv *env, int64_t *out, long *budget);

/* ---- interp/eval_ops.c: one op on scalars ---- */
/* The value of OP on the scalar operands ARGS[0..NARGS-1] (OP_SELECT: the bool condition,
 * then the two values of type T; OP_CAST/OP_BITCAST: one operand of type T, the result of
 * type TO; else operands of type T), computed by the interpreter's own instruction for it,
 * so every caller gets the reference meaning. Scalars hold values as the interpreter's
 * registers do (integers sign- or zero-extended by type, bool 0/1 in u). False for an op
 * with no value instruction (load, vec, splat, lane) or a type it does not take. */
bool ops_apply(Op op, UirType t, UirType to, const Scalar *args, int nargs, Scalar *out);

/* ---- check/kernel_form.c: kernel form (docs/language.md 8.2), for render-cuda and ptx ---- */
enum { KERNEL_SHARED_MAX = 49152 }; /* bytes of shared memory one kernel may use (48 KiB) */
/* Whether checked program P is in kernel form; if not, "line N: REASON" in WHY. */
bool kernel_form(const UirProgram *p, char *why, size_t whylen);
/* Threads per block of global loop KERNEL: the product of the bounds of its first phase's
 * local loops, else 1. */
int64_t kernel_block_size(const Stmt *kernel);
/* The grid and the block of KERNEL (the outermost global loop of a nest) by dimension,
 * x first; 1 in the dimensions it does not have. Returns the number of dimensions of each
 * (1 to 3) in *GRID_DIMS and *BLOCK_DIMS (either may be NULL). */
void kernel_grid(const Stmt *kernel, int64_t grid[3], int *grid_dims);
void kernel_block(const Stmt *kernel, int64_t block[3], int *block_dims);
/* Whether KERNEL launches with dim3 grids and blocks: its grid or its block has more than
 * one dimension. */
bool kernel_multi_dim(const Stmt *kernel);
/* The stride of dimension DIM in the flat index of nest TOP: the product of the bounds of
 * its lower dimensions (1 for x). */
int64_t nest_stride(const Stmt *top, int dim);
/* Whether shared alloc M of KERNEL can be one register per thread (docs/language.md 5.4.1): every
 * access is a scalar M[t] with t the enclosing phase's thread index, and M holds at least a
 * block, so none faults. */
bool kernel_slot_alloc(const Stmt *kernel, const Mem *m);
/* Whether phase PHASE (a local loop) directly follows another phase or starts KERNEL's
 * body, so that it needs no barrier before it. */
bool phase_follows_barrier(const Stmt *phase, const Stmt *kernel);
/* Whether the statement list S (and everything below it) has an atomic on M / uses M. */
bool stmts_atomic_on(const Stmt *s, const Mem *m);
bool stmts_use_mem(const Stmt *s, const Mem *m);
/* Whether the statement list S (and everything below it) loads M. */
bool stmts_load_mem(const Stmt *s, const Mem *m);

/* ---- cost.c: the work and code size of a program ---- */
/* The work statement list S executes, in units of one op, load, store or loop iteration
 * (`run --engine auto`, cli/engine.c), loops with a non-literal bound counted as
 * UIR_UNKNOWN_TRIPS iterations. */
double stmts_work(const Stmt *s);
#define UIR_UNKNOWN_TRIPS 1000.0
/* The size of the code S compiles to, in the same units but an op on vectors counting once
 * per lane: every loop counts its body once, except an `unroll` loop that unroll_fits(),
 * which counts BOUND copies. */
double stmts_code_size(const Stmt *s);
/* Whether the LLVM back end (JIT, compile, ptx) and the renderers unroll the `unroll` loop
 * S: when its BOUND copies of the body come to at most UIR_UNROLL_MAX_SIZE units of code. A
 * bigger one (nested `unroll` loops multiply) is compiled as a plain loop, with the same
 * results (the renderers add an unroll hint; docs/render.md, "Unrolling"): unrolling
 * 4096 copies of a 10-op body took LLVM's O3 pipeline 1.9 s, nested 64 x 64 copies of a
 * loop nest stalled its GVN pass for minutes (docs/llvm.md), and gcc -O2 took a minute on
 * such a nest rendered as C. */
bool unroll_fits(const Stmt *s);
#define UIR_UNROLL_MAX_SIZE 8192.0
/* The most iterations nested `unroll` loops may multiply to (docs/language.md 6.2.2). */
#define UIR_UNROLL_MAX_NESTED 4096

/* ---- check/races.c ---- */
bool check_races(UirProgram *p, unsigned flags); /* UIR_CHECK_* flags */
/* Whether two different iterations of LOOP (any axis; the values of the loops around it
 * fixed, each combination of them asked) can touch one element of M with at least one
 * write, by the exact analysis (docs/analysis.md, "Conflicts between iterations"): same-op
 * atomic updates commute and do not conflict. LC_CONFLICT sets *WITNESS to the pair
 * ("iterations j=0 and j=1 both write c[3] (lines 4 and 4)"), LC_UNKNOWN to why it cannot
 * be decided (a value loaded from memory the program stores, a budget); strings in P's
 * arena. For checked programs; costs up to the exact analysis's budgets (about 2^21
 * iterations). */
typedef enum { LC_NONE, LC_CONFLICT, LC_UNKNOWN } LoopConflict;
LoopConflict loop_conflict(UirProgram *p, const Stmt *loop, const Mem *m, const char **witness);
/* Whether the iterations of plain loop LOOP are independent: no memory its body stores
 * into (or updates atomically) has a conflict between two iterations (loop_conflict() on
 * each), and it holds no loop with an axis but `unroll`. Then running its iterations in
 * any order, or at once, leaves every memory with the same bits (docs/analysis.md,
 * "Independent loops"). EXEMPT, when not NULL, is asked about each memory that has a
 * conflict: true lets the loop count as independent all the same (a memory the caller
 * gives each iteration a copy of: opt/private.c). */
bool loop_independent(UirProgram *p, Stmt *loop, bool (*exempt)(void *ctx, const Mem *m), void *ctx);

/* ---- check/captures.c ---- */
/* Fills Stmt.cap of every thread and global loop of checked program P. Linear in the
 * loops' bodies. */
void captures_compute(UirProgram *p);
/* How the body of thread or global loop LOOP uses memory M: CAP_LOAD | CAP_STORE |
 * CAP_ATOMIC, 0 when it does not (O(log n) in the memories it uses). */
unsigned loop_uses(const UirProgram *p, const Stmt *loop, const Mem *m);
/* The captures of any loop: Stmt.cap, computed on first use for a plain loop (the loop
 * optimiser's candidates). Linear in the loop's body. */
const Captures *loop_captures(UirProgram *p, Stmt *loop);

/* ---- check/ranges.c: value ranges, no-wrap and in-bounds facts, once per program ---- */
/* Fills Expr.rng, Expr.nowrap, Expr.in_bounds and Stmt.in_bounds over checked program P:
 * an interval analysis in which loop indices run over [0, bound - 1] and an `if` narrows
 * the names its condition compares. Every back end reads these facts instead of deriving
 * its own. Linear in the program's size. */
void ranges_compute(UirProgram *p);
/* The whole range of type T (known only for bool, i8, u8, i32, u32). */
Range range_full(UirType t);
/* Whether R is known and holds no value (the expression never runs). */
bool range_empty(Range r);
/* Whether R is known, not empty and lies in [LO, HI]. */
bool range_within(Range r, int64_t lo, int64_t hi);

/* ---- how a back end runs or compiles a program: interp.c, cli/engine.c, and the LLVM
 * back end through llvm/llvm_api.h (a change here is a new UIR_LLVM_API_VERSION) ---- */
typedef struct RunOptions {
	int threads;       /* worker threads for thread/global loops: 1 to 1024, 0 = default */
	bool bounds_check; /* check the accesses not proven in bounds (E0601) */
	int opt_level;     /* LLVM: 0: no optimisation (uir llvm -O0), else the O3 pipeline */
	const char *cpu;   /* LLVM: target CPU for compile ("generic", "x86-64-v3"...); NULL: host */
	/* `run --repeat N`: run the kernel REPEAT times (0 or 1: once), calling RESET(RESET_CTX)
	 * before every run after the first to give the buffers their starting values again
	 * (RESET returns 0, or non-zero after printing an error, which stops the runs). */
	int repeat;
	int (*reset)(void *reset_ctx);
	void *reset_ctx;
	bool no_opt;       /* run/llvm --no-opt: the JIT leaves loops as written (no automatic
	                    * parallel loops, no interchange; docs/llvm.md, "Loop optimisation") */
	bool no_cache;     /* run --no-cache: compile without the code cache (docs/llvm.md) */
} RunOptions;

#endif
