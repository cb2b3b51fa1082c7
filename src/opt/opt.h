/* opt.h - the loop optimiser (src/opt/): decisions on the checked program that keep every
 * result bit, recorded on the tree for the LLVM lowering and `uir opt` (docs/llvm.md, "Loop
 * optimisation"). */
#ifndef UIR_OPT_H
#define UIR_OPT_H

#include "../uir_internal.h"
#include "../util/cache.h"

/* Work (src/cost.c units) from which a plain loop is worth the thread pool: waking the
 * workers and handing out chunks costs some microseconds each time the loop starts. So a
 * loop inside another loop, which starts once per iteration of it, needs
 * OPT_REPEATED_WORK (a loop of 150,000 units started 21,000 times, PolyBench's doitgen,
 * ran 1.6 times slower on two threads than on one). UIR_AUTO_PARALLEL_WORK in the
 * environment overrides them (the tests set 0: every independent loop). */
#define OPT_PARALLEL_WORK 100000.0
#define OPT_REPEATED_WORK 1000000.0
/* The same for a flat loop (its body holds no loop): its iterations, a few ops each, are
 * mostly memory traffic that a second core barely speeds up (a saxpy of 262,144 elements
 * ran as fast on two threads as on one, a polynomial of 5 ops over 4M elements 1.3 times
 * faster), so it takes more work to be worth waking the pool. */
#define OPT_FLAT_WORK 1000000.0

/* The largest alloc (bytes) given a copy per iteration of a loop the optimiser runs in
 * parallel: each iteration starts with its copy zero-filled (docs/language.md 5.2.2). */
#define OPT_PRIVATE_BYTES 65536
/* Scalar expansion (expand.c): allocs of at most OPT_EXPAND_SCALAR elements, expanded into
 * at most OPT_EXPAND_ELEMENTS (a row that stays in the first-level cache). */
#define OPT_EXPAND_SCALAR 16
#define OPT_EXPAND_ELEMENTS 16384
/* ... and only around a reduction of more iterations than this (expand.c). */
#define OPT_EXPAND_MIN_TRIPS 64
/* Rows run side by side by an unroll-and-jam (expand.c): 8 chains of float additions of 4
 * cycles' latency keep 2 adders a cycle busy. */
#define OPT_JAM 8

/* The row jam (jam.c): the allocs a `thread` loop homes get a row per iteration run side by
 * side, at most this many bytes in all (they stay in the second-level cache). */
#define OPT_ROW_HOMED_BYTES (256 * 1024)

/* Time skewing (skew.c): a time loop of at least OPT_SKEW_MIN_STEPS sweeps in all over
 * memories of at least OPT_SKEW_MIN_BYTES (past the second-level cache), in tiles whose
 * share of those memories is about OPT_SKEW_TILE_BYTES (half of a 1 MiB second-level
 * cache), skewed by at most OPT_SKEW_MAX a step; at most OPT_SKEW_MAX_DEPTH loops from the
 * time loop down to an access (sweeps of one or two dimensions: a deeper nest's legality
 * questions cost ISL about 100 ms). */
#define OPT_SKEW_MIN_STEPS 8
#define OPT_SKEW_MIN_BYTES (2.0 * 1024 * 1024)
#define OPT_SKEW_TILE_BYTES (512.0 * 1024)
#define OPT_SKEW_MAX 3
#define OPT_SKEW_MAX_DEPTH 3
/* Split tiling (skew.c), on more than one thread: bands of at least this many sweeps. */
#define OPT_SPLIT_MIN_SWEEPS 8

/* Sets Stmt.opt_parallel, opt_private, opt_expand and opt_inner over checked program P,
 * once (UirProgram.optimised), and UirProgram.opt_rewrites when some decision needs the
 * program rewritten (opt_rewrite()). Its cost is the exact analysis's for the candidate
 * loops. */
void opt_program(UirProgram *p);

/* rewrite.c: the program `run` executes for checked program P after opt_program(): NULL
 * when P runs as it is (no decision needs a rewrite), else a new checked and optimised
 * program parsed from P's text rewritten -- `thread` on every loop that opt_parallel or
 * opt_private marks, every opt_expand carried out (expand.c) -- to free with uir_free().
 * With OWN_TEXT, its source is that text (`uir opt` prints it); else its source and
 * locations are P's, so that a fault is reported where P has the access. NULL as well when
 * the rewritten text does not check: then P's decisions that need a rewrite are cleared
 * and P runs, and `uir opt` prints it, with the others (UIR_OPT_DEBUG=1 in the
 * environment prints why). */
UirProgram *opt_rewrite(UirProgram *p, bool own_text);
/* The text `uir opt` prints for optimised program P (opt_rewrite()'s, with its own text):
 * P's text with `thread` on its opt_parallel and opt_private loops, its opt_expand carried
 * out, and a comment line above every opt_inner nest. Malloc'ed, length in *LEN. */
char *opt_text(UirProgram *p, size_t *len);
/* Whether the text of loop LOOP's bound and braces are placed, so that a rewrite can cut
 * them: for a peeled last iteration (opt_peel) or the swapped jam (opt_jam_swap). */
bool rewrite_bound_ok(UirProgram *p, const Stmt *loop);
/* Whether loop J's body is laid out as opt_text() can cut it: one statement per line, the
 * body's first statement on a line after the `{`, the `}` alone at the start of its line,
 * every access of M (the alloc expanded) placed in the text. */
bool rewrite_layout_ok(UirProgram *p, const Stmt *j, const Mem *m);

/* What the decisions share: the program and, by memory key (buffers, then allocs), its
 * number of accesses, counted on first use (-1 before). */
typedef struct OptCtx {
	UirProgram *p;
	int64_t *accesses;
	int threads;         /* the run's threads (UirProgram.opt_threads, else uir_cpus()) */
	double min_work, min_flat; /* the work a loop needs for the pool where walk() is (opt.c) */
	bool in_parallel;    /* walk() is inside a parallel loop (no loop there goes on the pool) */
} OptCtx;

/* private.c: whether memory M can be given a copy per iteration of plain loop LOOP with
 * every result bit kept (every iteration writes each element it reads first; no value
 * LOOP leaves in M is read, or *PEEL: they are the last iteration's, which then runs
 * apart on M). *OUTSIDE says whether code outside LOOP uses M too (always, for a buffer):
 * then LOOP's accesses must go to an alloc of their own (opt/rewrite.c renames them). */
bool mem_private(OptCtx *o, const Stmt *loop, const Mem *m, bool *outside, bool *peel);
/* Whether plain loop LOOP may be written as a `thread` loop with every bit kept: its bound
 * is a literal (a `thread` loop with another bound checks its offsets on entry), and every
 * alloc the loop would become the home of (no home yet, every access in it; SKIP aside)
 * is written before it is read in each iteration, so that a copy per iteration, zero-filled
 * at its start (docs/language.md 5.2.2), changes nothing. */
bool thread_homes_ok(OptCtx *o, Stmt *loop, const Mem *skip);
/* The loads, stores and atomics of M in the statements S (and below). */
int64_t mem_accesses(const Stmt *s, const Mem *m);

/* expand.c: the scalar alloc that loop J's iterations can each have a copy of, J then
 * distributed (docs/llvm.md, "Scalar expansion"), else NULL. */
Mem *expand_candidate(OptCtx *o, Stmt *j);

/* interchange.c: whether E, lets inlined, uses the value of Y (true, too, past 64 levels
 * of lets). */
bool expr_refers_to(const Expr *e, const Sym *y);
/* interchange.c: whether E, a loop bound, is an integer literal or loads nothing and names
 * only what is defined outside loop J (not J's index, not its lets): the same value
 * wherever in J's nest it is evaluated. */
bool invariant_bound(const Expr *e, const Stmt *j);
/* expand.c: whether loop J, whose iterations are independent, can be distributed over the
 * statements of its body as the expansion distributes it (no alloc expanded), and some
 * loop of it then interchanged to stride 1 (Stmt.opt_distribute). */
bool distribute_candidate(OptCtx *o, Stmt *j);
/* interchange.c: the k loop of plain loop J when `loop j { LETS loop k { S } }` may run as
 * `loop k { loop j { LETS S } }` with every result bit kept and it pays, else NULL. */
const Stmt *interchange_inner(UirProgram *p, const Stmt *j);
/* interchange.c: the k loop of plain loop J when `loop j { LETS loop k { S } }` may run as
 * `loop k { loop j { LETS S } }` with every result bit kept, paying or not, else NULL;
 * *REDUCTION: some memory S writes is at an offset invariant in k and distinct for each j
 * (an in-order reduction per j, which unroll-and-jam runs side by side). */
const Stmt *interchange_legal(UirProgram *p, const Stmt *j, bool *reduction);
/* The unroll-and-jam of plain loop J over the loop its body holds (opt/jam.c, Stmt.opt_jam_mem):
 * the number of iterations run side by side, or 0 when it is not done. */
int jam_candidate(UirProgram *p, const Stmt *j);
/* jam.c: whether a jam of loop J (OPT_JAM iterations side by side, in an unroll loop
 * around statements COPIED: J's body, or the body of the loop inside it, by jam.c or
 * expand.c's unroll-and-jam) leaves a program that checks and stays small: OPT_JAM copies
 * of COPIED within an eighth of UIR_UNROLL_MAX_SIZE, the unroll loops around and inside J
 * times OPT_JAM within UIR_UNROLL_MAX_NESTED, and J in no grid or block. */
bool jam_fits(const Stmt *j, const Stmt *copied);
/* The swapped jam (opt/jam.c, Stmt.opt_jam_swap): the number of iterations of j run side
 * by side inside plain loop K, `loop k K { loop j J { S } }`, where the interchange
 * interchange_swap_legal() allows runs S along rows instead of a column; 0: not done. */
int jam_swap_candidate(UirProgram *p, const Stmt *k);
/* interchange.c: the j loop of plain loop K when `loop k { loop j { S } }` may run as `loop
 * j { loop k { S } }` with every bit kept -- every access proven in bounds, J invariant in
 * k, and every memory S writes accessed at one offset that uses j (times a nonzero
 * coefficient, computed without wrapping) and no index of k or inside it, so distinct j
 * touch distinct elements and each element keeps its k order -- and some memory S only
 * reads has j with a coefficient other than 0 and 1 (a column); else NULL. */
const Stmt *interchange_swap_legal(UirProgram *p, const Stmt *k);
/* interchange.c: the s loop of plain loop T when `loop t { loop r { loop s { S } } }` may
 * run as `loop r { loop s { loop t { S } } }` with every bit kept -- every access proven in
 * bounds, the bounds invariant in the nest, and every memory S writes accessed at one
 * offset without t whose r and s terms form a mixed radix (distinct (r, s), distinct
 * elements: each element keeps its t order) -- else NULL; *PAYS: some memory S only reads
 * is a column in s (a coefficient other than 0 and 1), and every access that uses t has
 * it with coefficient 1 (a row in the new inner loop). */
const Stmt *interchange_sink_legal(UirProgram *p, const Stmt *t, bool *pays);
/* The sunk jam (opt/jam.c, Stmt.opt_jam_sink): the number of iterations of r run side by
 * side inside plain loop T of `loop t T { loop r R { loop s S { BODY } } }`, once t runs
 * inside s (interchange_sink_legal()); 0: not done. */
int jam_sink_candidate(UirProgram *p, const Stmt *t);
/* The outer jam (opt/jam.c, Stmt.opt_jam_outer): the number of iterations of plain loop R
 * run side by side inside the k loop of the loop J its body holds, where J would be jammed
 * (jam_candidate()) and R's iterations are independent; 0 when it is not done. */
int jam_outer_candidate(UirProgram *p, const Stmt *r);
/* Whether running plain loop K (in J's body, after lets) outside J would pay: every access
 * in K that only reads is stride 1 or invariant in j, and every access is proven in bounds
 * (legality aside: expand.c asks it of the loops it is about to make). */
bool interchange_pays(UirProgram *p, const Stmt *j, const Stmt *k);

/* interchange.c: whether plain loop J's body, which holds no loop, is a vector loop over j:
 * every access proven in bounds, every memory it only reads at stride 1 or invariant in j,
 * every memory it writes at one offset c + a*j + terms of loops outside j (a != 0, no
 * wrapping), one of them with a = 1 (the row jam's `loop k { loop j { S } }`). */
bool row_vectorises(UirProgram *p, const Stmt *j);
/* jam.c: whether statement N of the body of loop I is a nest the row jam runs with OPT_JAM
 * rows of I side by side in its inner loop: `loop j { LETS loop k { S } }` that the
 * interchange runs with k outside (interchange_inner()), or `loop k { LETS loop j { S } }`
 * (LETS load nothing) whose j is a vector loop (row_vectorises()); S holds no loop, k runs
 * more than OPT_EXPAND_MIN_TRIPS times and j at least 2 OPT_JAM, both bounds invariant in
 * I, the copies within jam_fits(). Then *K and *J are its loops k and j. */
bool jam_row_nest(UirProgram *p, const Stmt *i, const Stmt *n, const Stmt **k, const Stmt **j);
/* The row jam (jam.c, Stmt.opt_jam_row): the number of iterations of loop I (plain with
 * independent iterations, or `thread`, a literal bound they divide) run side by side, the
 * body distributed over its statements and each nest (jam_row_nest()) run as `loop k {
 * loop j { loop i_u U unroll { S } } }`; 0: not done. */
int jam_row_candidate(UirProgram *p, const Stmt *i);

/* skew.c: whether plain loop T, a time loop whose body is sweeps (loops with literal
 * bounds), may run over tiles of the sweeps' index skewed in time with every bit kept, and
 * it pays; then sets T's opt_skew, opt_skew_width and opt_skew_tiles, and, for a run on
 * more than one thread where the dependence cone holds, opt_split (split tiling). */
bool skew_candidate(OptCtx *o, Stmt *t);
/* opt.c: whether loop T (where O's walk is) is a time loop whose sweeps would each run on
 * the thread pool of a run with more than one thread: every statement of its body is a
 * loop with independent iterations and the work a loop inside T needs. Then the time skew,
 * whose tiles run in order on one thread, is not done where split tiling is not
 * (skew_candidate() asks it once the cheap conditions hold and the split's cone does not):
 * on two threads its sweeps on the pool ran stencil_time about 1.7 times faster than the
 * skew on an AMD EPYC, 0.93 times as fast on a Sapphire Rapids (docs/llvm.md, "Time
 * skewing"). */
bool sweeps_on_pool(OptCtx *o, Stmt *t);

/* answer_cache.c: the verdicts of ISL questions kept in the user's cache folder (docs/llvm.md,
 * "Answer cache"). answer_key() starts *KEY for questions of KIND from this build and ISL's
 * version; false, with no key, when P is not to use the cache (UirProgram.opt_no_cache) or
 * the build's file cannot be found. The caller adds the texts of every question whose
 * verdict the key is to name (cache_hash_str()). answer_get() reads the VERDICT (-1 to 64)
 * kept under KEY: false when there is none (no cache folder, UIR_CACHE=0, no file, a file
 * that does not hold a whole verdict). answer_put() keeps it; nothing when it cannot. */
bool answer_key(const UirProgram *p, Hash128 *key, const char *kind);
bool answer_get(const Hash128 *key, int *verdict);
void answer_put(const Hash128 *key, int verdict);

#endif
