/* render_int.h - the inside of the renderers (src/render/): `uir render` (portable C,
 * docs/language.md 8.1) and `uir render-cuda` (CUDA C++, docs/language.md 8.3).
 *
 * Both renderers walk the checked program once, in program order, and write C through one
 * shared emitter (emit.c, expr.c, stmt.c): names, literals, expressions and the plain
 * statements (let, store, atomic, if, plain and unrolled loops) are rendered the same way
 * in both dialects; each renderer adds its own parallel loops (render_c.c, render_cuda.c)
 * through a hook. Runtime helpers are pasted from the table generated from runtime/uir_*.h by
 * runtime/embed.py (helpers.c), each once, dependencies first.
 *
 * Exactness. Every op keeps its spec meaning with no undefined behaviour: signed
 * arithmetic, shifts, integer division and float-to-int casts go through the runtime
 * helpers unless the interval analysis (check/ranges.c) proves that the plain C operator gives the
 * same value without overflow. Every memory access that the same analysis cannot prove in
 * bounds is checked (E0601, exactly as `run` reports it); when one statement holds two or
 * more checked accesses, their checks are hoisted in evaluation order, so the first fault
 * reported is the one `run` reports.
 */
#ifndef UIR_RENDER_INT_H
#define UIR_RENDER_INT_H

#include "../uir_internal.h"
#include "../util/messages.h"
#include <stdarg.h>

/* ---- str.c: a growing text buffer ---- */
typedef struct Str {
	char *s;   /* NUL-terminated (NULL while empty) */
	size_t n, cap;
} Str;
void str_put(Str *b, const char *s);
void str_putn(Str *b, const char *s, size_t n);
void str_printf(Str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void str_vprintf(Str *b, const char *fmt, va_list ap);
void str_free(Str *b);
const char *str_cstr(const Str *b); /* "" when empty */
/* Appends S as the body of a C string literal (no quotes): escapes \ " and control bytes,
 * breaks "??" trigraphs. */
void str_put_cstring(Str *b, const char *s, size_t n);
/* Appends S for a block comment: as str_put_cstring, and a '/' next to a '*' as \057. No
 * byte sequence (a path with `*' '/`, newlines, a backslash) can then end the comment, start
 * a nested one (-Wcomment), splice lines or leave the comment's line; the text reads as
 * the string literal of S. */
void str_put_comment(Str *b, const char *s, size_t n);

/* ---- emitter state (emit.c) ---- */
typedef struct Emitter Emitter;

typedef struct SymInfo {
	const char *cname;  /* the C name (keywords get a trailing _) */
	bool fixed;         /* an unrolled loop's index in one copy: always `value` */
	int64_t value;
	int uses;           /* references in the whole program */
	int refs;           /* references rendered so far (some vanish: acc[t] as a register) */
	const char *text;   /* when set, what a reference renders as (CUDA: threadIdx.x) */
} SymInfo;

typedef struct MemInfo {
	const char *cname;  /* the C name */
	bool reg;           /* CUDA: kept in a per-thread register (acc[t], docs/language.md 5.4.1) */
	bool used;          /* accessed somewhere */
	int refs;           /* times mem_cname() gave its name so far (outline(): a captured
	                     * buffer that the body never names gets `(void)NAME;`) */
} MemInfo;

/* Support code a rendering needs beyond the runtime helpers (flags of Emitter.need). */
enum {
	NEED_AT = 1,         /* uir_at / uir_at_k: bounds checks */
	NEED_FAULT = 2,      /* the fault sites and uir_fault */
	NEED_PARALLEL = 4,   /* the pool and uir_parallel_loop (C) */
	NEED_ZALLOC = 8,     /* uir_zalloc (C: heap allocs) */
	NEED_MEMCPY = 16,
};

/* The support functions a rendering calls, by name, each emitted once: integer min/max,
 * atomics, constant-range compares. */
typedef struct NameSet {
	const char **v;
	int n, cap;
} NameSet;
bool nameset_add(NameSet *s, const char *name); /* true when newly added */
bool nameset_has(const NameSet *s, const char *name);

/* A bounds-check site: one access that may fault, with the pieces of its E0601 message
 * around the offset (as `run` prints it, source line and caret included). */
typedef struct SiteText {
	const char *head;   /* "FILE:L:C: error[E0601]: load of x[" */
	const char *mid;    /* overflow sites: between the bound and the largest offset */
	const char *tail;   /* "] is out of bounds: x has 8 elements\n <source line>\n <caret>\n" */
	int k;              /* elements accessed (vector width); -1: an offset that would overflow */
} SiteText;

/* A hoisted check or offset of the current statement: the load (or vector store) EXPR
 * reads its offset from the C variable NAME. */
typedef struct Hoist {
	const Expr *e;
	const char *name;
	bool used; /* read by the statement's text (else finish() writes `(void)NAME;`) */
} Hoist;

/* What the structure-specific renderer does with a thread, global or local loop. Returns
 * true when it rendered S. */
typedef bool (*LoopHook)(Emitter *E, const Stmt *s);

struct Emitter {
	UirProgram *p;
	Arena *a;            /* the program's arena: every string lives as long as it */
	bool cuda;           /* CUDA dialect (device code) */
	Str *out;            /* where statements go now */
	int indent;          /* tabs */
	SymInfo *syms;       /* by Sym.slot */
	MemInfo *bufs;       /* by Mem.index */
	MemInfo *allocs;
	NameSet helpers;     /* runtime helpers called (by name), device code in CUDA */
	NameSet host_helpers;/* CUDA: runtime helpers called by host code (--main) */
	NameSet time_helpers;/* CUDA: those called by the timing main of -DUIR_TIME */
	NameSet support;     /* renderer support functions called */
	unsigned need;       /* NEED_* */
	SiteText *sites;
	int nsites, capsites;
	int ntemp;           /* counter for uir_oN / uir_vN / uir_nN names */
	Hoist *hoists;       /* of the current statement */
	int nhoists, caphoists;
	int decls;           /* declarations written at the current block level */
	LoopHook loop_hook;
	void *ctx;           /* the renderer's own state */
	bool host;           /* CUDA: writing host code (helpers go to host_helpers) */
};

/* ---- emit.c ---- */
/* Sets up E for P (checked): C names of every memory and name, use counts, ranges. */
void emit_init(Emitter *E, UirProgram *p, bool cuda);
void emit_free(Emitter *E);
SymInfo *sym_info(Emitter *E, const Sym *s);
MemInfo *mem_info(Emitter *E, const Mem *m);
const char *mem_cname(Emitter *E, const Mem *m);
/* Writes one line at the current indentation (printf style; a newline is added). */
void line(Emitter *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The C type of element type T ("float", "uint8_t"). */
const char *ctype(UirType t);
/* Records that the code calls runtime helper NAME (must exist in the table). */
void use_helper(Emitter *E, const char *name);
/* A fresh name "uir_PREFIXN". */
const char *temp_name(Emitter *E, const char *prefix);
/* Adds a fault site for an access to M at LOC ("load of", "store.4 to", ...) and returns
 * its number. */
int add_site(Emitter *E, const Mem *m, Loc loc, const char *what, int k);
/* Adds a site for the check on entry to a loop whose bound is not a literal: offsets of
 * O->mem whose top digit is the loop's index would overflow (docs/language.md 4.8.3). */
int add_overflow_site(Emitter *E, const OverflowCheck *o);
/* The diagnostic of CODE at AT with template MSG (util/messages.h), as `run` prints it
 * (source line and caret included), cut at its placeholders: the text before MSG_A, between
 * MSG_A and MSG_B ("" without MSG_B), and after the last; in E's arena. */
void diag_template(Emitter *E, Loc at, const char *code, const char *msg, const char **head, const char **mid,
		   const char **tail);
/* `run`'s out-of-memory line for KIND ("alloc", "buffer") as a C string literal of a printf
 * format taking the name (a string) and the bytes (a long long). */
const char *oom_format(Emitter *E, const char *kind);
/* The total bytes of memory M. */
int64_t mem_bytes(const Mem *m);

/* ---- names.c ---- */
/* Whether NAME is a C, C++ or CUDA keyword or a name the rendered code or its headers
 * define (so it needs a trailing _). */
bool name_reserved(const char *name);
/* Whether NAME itself is one of the listed names (a renamed `_Bool_` or `M_PI_` is not,
 * though it still has a reserved prefix: only the exact names and macros can clash). */
bool name_listed(const char *name);

/* ---- expr.c: expressions ---- */
/* C precedence levels, higher binds tighter. */
enum {
	P_COMMA = 1, P_ASSIGN = 2, P_COND = 3, P_LOR = 4, P_LAND = 5, P_BOR = 6, P_BXOR = 7,
	P_BAND = 8, P_EQ = 9, P_REL = 10, P_SHIFT = 11, P_ADD = 12, P_MUL = 13, P_UNARY = 15,
	P_POSTFIX = 16
};
/* A rendered C expression: its text, its precedence, and whether its C type is narrower
 * than the uint64_t a u64 expression has in the program (NARROW: `unsigned int`, as `5u`
 * and what C's arithmetic makes of such operands). Each rendering says what it is, so that
 * where the width matters (~, unary -, + - *, <<) a narrow operand is given its type, and
 * no consumer has to predict what the printer wrote. */
typedef struct CExpr {
	const char *s;
	int prec;
	bool narrow;
} CExpr;
/* The C text of E (scalar), or of lane LANE of the vector E (LANE >= 0). */
CExpr expr_c(Emitter *E, const Expr *e, int lane);
/* As expr_c, as a string good as a whole expression or a function argument. */
const char *expr_str(Emitter *E, const Expr *e, int lane);
/* The C text of literal value V of type T (f32 2.5f, u32 7u, ...). */
const char *literal_text(Emitter *E, UirType t, Scalar v);
/* Whether E contains a load of memory M. */
bool expr_loads(const Expr *e, const Mem *m);

/* ---- stmt.c: statements ---- */
/* Renders the statements from S on at the current indentation. */
void emit_block(Emitter *E, const Stmt *s);
/* Renders a block in braces-free form at indentation +1 (for loop and if bodies). */
void emit_body(Emitter *E, const Stmt *s);
/* Prepares a statement's expressions (up to 3; NULL ignored): decides which checks are
 * hoisted and writes the hoisted declarations. STORE is the statement when it is a store
 * or atomic (NULL otherwise); returns whether its own access needs an inline check. Which
 * accesses need a check at all is the in_bounds fact of check/ranges.c. */
bool prepare(Emitter *E, const Expr *const *ex, int nex, const Stmt *store);
/* Ends the current statement: forgets its hoists. */
void finish(Emitter *E);
/* The C text of the access M[OFF] (scalar, K = 1) or of lane LANE of the vector access
 * M[OFF .. OFF+K-1], checked when CHECKED (site WHAT at LOC). */
const char *access_text(Emitter *E, const Mem *m, const Expr *off, int k, int lane, bool checked, Loc loc,
			const char *what, const Expr *key);
/* The C name of the plain for-loop bound of S (literal or a hoisted temp), after the
 * checks `run` makes on entry to S (offsets that would overflow, docs/language.md 4.8.3). */
const char *loop_bound(Emitter *E, const Stmt *s);
/* "(void)NAME;" when S has not been referenced in the rendering since its count was
 * BEFORE (the refs of S when it was declared). */
void mark_unused(Emitter *E, const Sym *s, int before);

/* ---- helpers.c: runtime helper texts ---- */
/* Writes, in dependency order and each once, the text of every helper in SET (and those
 * they need) that is not in SKIP (may be NULL). Adds the written names to DONE if given. */
void helpers_write(Str *out, const NameSet *set, const NameSet *skip, NameSet *done);
/* The closure of SET under `needs`. */
void helpers_closure(const NameSet *set, NameSet *out);

/* ---- support.c: the renderer's own support functions (not runtime semantics) ---- */
/* Writes the definitions of the support functions E->support names, and of the fault
 * sites, for the dialect (CUDA: device functions). */
void support_write(Emitter *E, Str *out);

/* CUDA --main: the host's sites table and uir_report. */
void support_write_cuda_host(Emitter *E, Str *out);

/* ---- main_gen.c: --main ---- */
/* Writes the buffer set-up statements of `run` for buffer M into OUT at indentation 1,
 * with the C variable NAME pointing at the (host) memory; helpers used go to E->host
 * set. */
void main_init_buffer(Emitter *E, Str *out, const Mem *m, const char *name);
/* Writes the statement printing buffer M (host memory NAME) as `run` does. */
void main_print_buffer(Emitter *E, Str *out, const Mem *m, const char *name);
/* The timing main of `# cuda speed` (render_cuda.c): when M's INIT is `random`, writes the
 * statements that draw its host memory NAME from the seed in the variable uir_seed, as `run
 * --seed` does; nothing for another INIT. */
void main_seed_buffer(Emitter *E, Str *out, const Mem *m, const char *name);
/* The timing main: writes (at INDENT) the comparison of buffer M's memory GOT with the
 * expected WANT, bit for bit (any NaN as any NaN), calling uir_time_differs(uir_ref,
 * uir_round, NAME, element, expected text, got text, count) on a difference; uses the
 * variables uir_nd and uir_e. */
void main_compare_buffer(Emitter *E, Str *out, const Mem *m, const char *got, const char *want, const char *indent);
/* Writes uir_buffer(N, SIZE, NAME): calloc, or `run`'s out-of-memory line and exit 1. */
void main_buffer_alloc(Emitter *E, Str *out);

/* ---- render_c.c / render_cuda.c ---- */
typedef struct RenderOptions {
	bool main;          /* --main: add a main() that sets up, runs and prints */
} RenderOptions;
/* Renders checked program P as portable C into OUT. Returns 0. */
int render_c(UirProgram *p, const RenderOptions *o, Str *out);
/* Renders checked program P as CUDA into OUT. Returns 0, or UIR_EXIT_NOT_KERNEL with the
 * reason (one line, no newline) in WHY when P is not in kernel form. */
int render_cuda(UirProgram *p, const RenderOptions *o, Str *out, char *why, size_t whylen);

/* ---- entry.c ---- */
/* What `uir render` and `uir render-cuda` (CUDA when CUDA) do with the loaded program P, for
 * the command (cli/render.c) and the library (src/api/): check it (its diagnostics on
 * p->err), then render it into OUT. Returns 0; 1 after the diagnostics of a wrong program;
 * UIR_EXIT_NOT_KERNEL after printing `invalid: REASON` on p->err, the reason (one line)
 * also in WHY (WHYLEN bytes), for a valid program that render-cuda cannot render. */
int render_program(UirProgram *p, bool cuda, const RenderOptions *o, Str *out, char *why, size_t whylen);

#endif
