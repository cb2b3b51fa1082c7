/* conflict_isl.h - the exact analysis's question, "can two different iterations of the
 * parallel index touch one element of a memory, at least one of them writing it?", put to
 * ISL, the integer set library (Verdoolaege, "isl: An Integer Set Library for the
 * Polyhedral Model", ICMS 2010; the library under Polly, GCC's Graphite and PPCG) where the
 * iteration space is too large to enumerate (docs/language.md 7.6, docs/analysis.md). */
#ifndef UIR_CHECK_CONFLICT_ISL_H
#define UIR_CHECK_CONFLICT_ISL_H

#include "../uir_internal.h"

/* One access to the memory in question. */
typedef struct IslAccess {
	const Expr *off;
	int width;
	bool store, atomic;     /* store: a store or an atomic (atomic: an atomic) */
	AtomicOp aop;
	Stmt *const *loops;     /* loops[0] is the parallel loop, then the loops down to the access */
	int nloops;
	const Stmt *const *ifs; /* the ifs around it inside the parallel loop, and which branch */
	const bool *thens;
	int nifs;
} IslAccess;

typedef struct IslQuestion {
	UirProgram *p;
	struct isl_ctx *ctx;    /* from isl_budget_ctx(): one per checked code, whose operation
	                         * budget all its questions share */
	Stmt *const *outer;     /* the loops around the parallel loop, outermost first */
	int nouter;
	const IslAccess *acc;   /* every access to the memory inside the parallel loop */
	int nacc;
	struct Hash128 *texts;  /* isl_skew_ok(): when set, the questions' texts are added to it
	                         * and nothing is asked (opt/answer_cache.c) */
} IslQuestion;

/* A colliding pair: the outer loops' values, the two values of the parallel index, the
 * element, and which accesses (indices into acc; a is a write). */
typedef struct IslPair {
	int64_t outer[64];
	int64_t pa, pb, elem;
	int a, b;
} IslPair;

typedef enum { ISL_NONE, ISL_FOUND, ISL_UNKNOWN } IslAnswer;

/* Answers Q. ISL_FOUND fills *PAIR with a real collision (the translation was exact);
 * ISL_UNKNOWN sets *WHY (in P's arena): an offset that is not quasi-affine in the loop
 * indices (or loads memory the program stores), a guard or bound that is not and made the
 * question inexact, or ISL's operation budget. Same-op atomic updates do not collide. */
IslAnswer isl_conflict(const IslQuestion *q, IslPair *pair, const char **why);

/* Whether every element access A (its loops from the outermost loop of the program down,
 * the ifs around it) touches lies in [0, SIZE): the set of iterations reaching an element
 * outside is empty. False when it is not, or cannot be shown (an offset that is not
 * quasi-affine or that loads, the budget). Loads are never translated, not even from the
 * INIT of memory the program never stores (the race analysis does that): `run --input` can
 * replace it, and this fact lets back ends drop bounds checks. */
bool isl_in_bounds(UirProgram *p, struct isl_ctx *ctx, const IslAccess *a, int64_t size);

/* The time skew's question (opt/skew.c, docs/llvm.md "Time skewing"). Q's accesses are
 * every access of one memory inside a loop t (loops[0]) whose body is NSWEEPS loops run in
 * turn, the sweeps; loops[1] of access k is sweep SWEEP[k] (0 .. NSWEEPS-1) with index i.
 * Step sigma = NSWEEPS * t + sweep. Whether any two instances of them touch one element, at
 * least one writing, the earlier in t's order at (sigma1, i1) and the later at (sigma2, i2),
 * with i1 + C * sigma1 > i2 + C * sigma2: ISL_SKEW_OK proves there are none, so tiles of the
 * skewed index i + C * sigma, run one after the other, each over every step in order, keep
 * the order of every pair that touches one element. Loads in offsets are never translated
 * (the fact holds for every input); atomics count as writes. With Q->texts set, adds the
 * text of every question to it instead of asking ISL, and answers ISL_SKEW_OK (UNKNOWN where
 * a question cannot be written, as when asking). CONE: also with i1 - C * sigma1 < i2 - C *
 * sigma2, so ISL_SKEW_OK proves |i2 - i1| <= C * (sigma2 - sigma1) for every such pair: the
 * dependence cone of split tiling (opt/skew.c), whose sweeps then have independent
 * iterations. */
typedef enum { ISL_SKEW_OK, ISL_SKEW_NO, ISL_SKEW_UNKNOWN } IslSkew;
IslSkew isl_skew_ok(const IslQuestion *q, const int *sweep, int nsweeps, int c, bool cone, const char **why);

/* A new ISL context with the operation budget of one checked code (ISL_MAX_OPERATIONS
 * operations in all, so that no checked code takes more than a fraction of a second in
 * ISL, on any machine, with the same verdict); free with isl_budget_free(). */
struct isl_ctx *isl_budget_ctx(void);
void isl_budget_free(struct isl_ctx *ctx);

#endif
