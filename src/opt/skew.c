/* skew.c - time skewing of a stencil's time loop, a decision of the loop optimiser (opt.c)
 * that opt/rewrite.c carries out on the program's text (docs/llvm.md, "Time skewing").
 * A time loop whose body is sweeps over one index,
 *
 *     loop t T {                       loop t_k NT {
 *       loop i N0 { S0 }                 loop t T {
 *       loop i N1 { S1 }       into        let i_lo0 = LO0  let i_hi0 = HI0
 *     }                                    loop i_s (sub i_hi0 i_lo0) { let i = add i_s i_lo0  S0 }
 *                                          let i_lo1 = LO1  let i_hi1 = HI1
 *                                          loop i_s (sub i_hi1 i_lo1) { let i = add i_s i_lo1  S1 }
 *                                        } }
 *
 * with LOs = clamp(t_k W - C sigma, 0, Ns) and HIs = clamp((t_k + 1) W - C sigma, 0, Ns),
 * sigma = 2t + s the step, runs the steps over one tile of the skewed index i + C sigma at
 * a time: a band of W values of i that moves C to the left at every step. Every instance
 * (t, s, i) runs exactly once, in the tile floor((i + C sigma) / W), and within a tile in
 * the original order. So the order of two instances changes only when the earlier one's
 * tile is the later one's: never, when no pair of instances that touch one element (at least
 * one writing) has the earlier at a larger i + C sigma -- the question conflict_isl.c's
 * isl_skew_ok() puts to ISL, for C = 1, then 3 (a larger C is legal wherever a smaller one is,
 * and as fast).
 * Then every memory gets its accesses in the original order, element by element, and every
 * bit is kept; every access is proven in bounds, so no fault moves.
 *
 * It pays when the steps sweep the same elements again (no offset uses t) and the memories
 * they stream through are larger than the second-level cache: a tile's band of W rows stays
 * in it for all T steps instead of every step reading the whole memory again.
 *
 * On more than one thread the skew's tiles, each needing the one before, would run in order
 * on one core; there the time loop is split instead (split tiling, when it holds): bands of
 * Bt steps, B = M Bt sweeps, each in two phases of `thread` loops -- the tiles, [k W - O + C
 * s, (k + 1) W - O - C s) of every sweep at local sweep s, O = C B, then the triangles between
 * them, [(k + 1) W - O - C s, (k + 1) W - O + C s) -- which together run every instance
 * once. Its condition is the dependence cone, |i2 - i1| <= C (sigma2 - sigma1) for every pair
 * of instances that touch one element, at least one writing (isl_skew_ok() with CONE): an
 * instance of a tile then depends only on its own tile's earlier instances, one of a
 * triangle on the tiles and its own triangle when W >= 3 C B, so the iterations of each
 * phase are independent and each runs its instances in the original order.
 *
 * Source: time skewing (Wolf and Lam, "A loop transformation theory and an algorithm to
 * maximize parallelism", IEEE TPDS 1991; Wonnacott, "Using time skewing to eliminate idle
 * time due to memory bandwidth", IPDPS 2000); split tiling (Krishnamoorthy et al.,
 * "Effective automatic parallelization of stencil computations", PLDI 2007; Grosser et al.,
 * "Split tiling for GPUs", GPGPU 2013); the legality as a check that a new schedule
 * keeps every dependence, as Polly and PPCG check theirs with ISL.
 */
#include "opt.h"
#include "../check/conflict_isl.h"
#include <stdlib.h>
#include <string.h>

/* One access inside the time loop: its memory, the question's form of it, its sweep. */
typedef struct SkAcc {
	const Mem *m;
	IslAccess a;
	int sweep;
} SkAcc;

typedef struct Sk {
	UirProgram *p;
	Stmt *loops[OPT_SKEW_MAX_DEPTH]; /* the time loop, the sweep, the loops down to here */
	int nl;
	const Stmt *ifs[64];
	bool thens[64];
	int nif;
	SkAcc *v;
	int n, cap;
	int sweep;
	bool ok;
} Sk;

static void note(Sk *k, const Mem *m, const Expr *off, int width, bool store, bool atomic, AtomicOp aop, bool in_bounds)
{
	if (!k->ok)
		return;
	if (!in_bounds || expr_refers_to(off, k->loops[0]->sym)) {
		/* a fault could move; the steps do not sweep the same elements again, so no
		 * tile would find its band in the cache */
		k->ok = false;
		return;
	}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->v = xrealloc(k->v, (size_t)k->cap * sizeof *k->v);
	}
	Arena *ar = &k->p->arena;
	Stmt **loops = arena_alloc(ar, (size_t)k->nl * sizeof *loops);
	memcpy(loops, k->loops, (size_t)k->nl * sizeof *loops);
	const Stmt **ifs = arena_alloc(ar, (size_t)k->nif * sizeof *ifs + 1);
	bool *thens = arena_alloc(ar, (size_t)k->nif * sizeof *thens + 1);
	memcpy(ifs, k->ifs, (size_t)k->nif * sizeof *ifs);
	memcpy(thens, k->thens, (size_t)k->nif * sizeof *thens);
	k->v[k->n++] = (SkAcc){ m, { off, width, store, atomic, aop, (Stmt *const *)loops, k->nl, ifs, thens, k->nif },
				k->sweep };
}

static void walk_expr(Sk *k, const Expr *e)
{
	if (!k->ok || e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		walk_expr(k, e->args[i]);
	if (e->op == OP_LOAD)
		note(k, e->mem, e->args[0], e->width, false, false, 0, e->in_bounds);
}

static void walk(Sk *k, const Stmt *s)
{
	for (; s && k->ok; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			walk_expr(k, s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			walk_expr(k, s->off);
			walk_expr(k, s->val);
			note(k, s->mem, s->off, s->kind == ST_STORE ? s->width : 1, true, s->kind == ST_ATOMIC, s->aop,
			     s->in_bounds);
			break;
		case ST_LOOP:
			if ((s->axis != AX_NONE && s->axis != AX_UNROLL) || k->nl == OPT_SKEW_MAX_DEPTH) {
				k->ok = false;
				return;
			}
			walk_expr(k, s->value);
			k->loops[k->nl++] = (Stmt *)s;
			walk(k, s->body);
			k->nl--;
			break;
		case ST_IF:
			if (k->nif == 64) {
				k->ok = false;
				return;
			}
			walk_expr(k, s->cond);
			k->ifs[k->nif] = s;
			k->thens[k->nif++] = true;
			walk(k, s->then_);
			k->thens[k->nif - 1] = false;
			walk(k, s->else_);
			k->nif--;
			break;
		default:
			k->ok = false; /* a declaration: an alloc homed here */
			return;
		}
	}
}

/* Whether every pair of the accesses K->v of each memory keeps its order under the skew C
 * (isl_skew_ok()); the loops around T are the question's outer loops. */
static bool skew_legal(Sk *k, struct isl_ctx *ctx, Stmt *t, int nsweeps, int c, bool cone, Hash128 *texts)
{
	Stmt *outer[64];
	int no = 0;
	for (Stmt *a = t->parent; a; a = a->parent)
		if (a->kind == ST_LOOP) {
			if (no == 64)
				return false;
			outer[no++] = a;
		}
	for (int i = 0; i < no / 2; i++) { /* outermost first */
		Stmt *x = outer[i];
		outer[i] = outer[no - 1 - i];
		outer[no - 1 - i] = x;
	}
	IslAccess *acc = xmalloc(((size_t)k->n + 1) * sizeof *acc);
	int *sweep = xmalloc(((size_t)k->n + 1) * sizeof *sweep);
	bool *done = xcalloc((size_t)k->n + 1, sizeof *done);
	bool ok = true;
	for (int i = 0; i < k->n && ok; i++) {
		if (done[i])
			continue;
		int n = 0;
		bool writes = false;
		for (int j = i; j < k->n; j++)
			if (k->v[j].m == k->v[i].m) {
				done[j] = true;
				acc[n] = k->v[j].a;
				sweep[n++] = k->v[j].sweep;
				writes |= k->v[j].a.store;
			}
		if (!writes)
			continue; /* read only: any order */
		IslQuestion q = { k->p, ctx, outer, no, acc, n, texts };
		const char *why;
		ok = isl_skew_ok(&q, sweep, nsweeps, c, cone, &why) == ISL_SKEW_OK;
	}
	free(acc);
	free(sweep);
	free(done);
	return ok;
}

/* The first of the NC skews CS that is legal (CONE: as the cone of split tiling), from the
 * answer cache, whose key is every question's text, or from ISL, one budget for all; -1:
 * none. */
static int first_legal(Sk *k, Stmt *t, int m, const int *cs, int nc, bool cone)
{
	UirProgram *p = k->p;
	int legal = -1;
	Hash128 key;
	bool keyed = answer_key(p, &key, cone ? "split" : "skew");
	for (int n = 0; keyed && n < nc; n++) {
		cache_hash_add(&key, &cs[n], sizeof cs[n]);
		skew_legal(k, NULL, t, m, cs[n], cone, &key);
	}
	if (!keyed || !answer_get(&key, &legal) || legal >= nc) {
		legal = -1;
		struct isl_ctx *ctx = isl_budget_ctx();
		for (int n = 0; n < nc && legal < 0; n++)
			if (skew_legal(k, ctx, t, m, cs[n], cone, NULL))
				legal = n;
		isl_budget_free(ctx);
		if (keyed)
			answer_put(&key, legal);
	}
	return legal;
}

/* The tiles of width W of the skew by C of STEPS sweeps of at most NMAX iterations; 0 when
 * the new loops' arithmetic would not fit in i32. */
static int64_t skew_tiles(int64_t nmax, int64_t steps, int c, int64_t w)
{
	int64_t ntiles = (nmax - 1 + c * (steps - 1)) / w + 1;
	return (ntiles + 1) * w + c * steps < INT32_MAX ? ntiles : 0;
}

/* Split tiling's plan for cone C and a time loop of TSTEPS steps of M sweeps: bands of BAND
 * steps, TILES tiles of WIDTH values of the sweeps' index, a tile's width W near the skew's
 * (so that its band's share of the memories stays in the cache) and at least 3 C B for a
 * band of B sweeps (the triangles of one band then touch no element in common), the tiles a
 * multiple of the THREADS, and the new loops' arithmetic in i32. False when no band of OPT_SPLIT_MIN_SWEEPS sweeps fits. */
typedef struct Split {
	int64_t band, width, tiles;
} Split;

static bool split_plan(int64_t nmax, int64_t tsteps, int m, int c, int64_t w, int threads, Split *sp)
{
	for (int64_t bmax = w / (3 * (int64_t)c) / m; bmax >= 1; bmax /= 2) {
		int64_t nb = (tsteps + bmax - 1) / bmax, band = (tsteps + nb - 1) / nb;
		if (m * band < OPT_SPLIT_MIN_SWEEPS)
			return false;
		int64_t off = (int64_t)c * m * band, span = nmax + 2 * off;
		int64_t tiles = (span + w - 1) / w;
		tiles = (tiles + threads - 1) / threads * threads;
		int64_t width = (span + tiles - 1) / tiles;
		if (width >= 3 * off && (tiles + 1) * width + off < INT32_MAX) {
			*sp = (Split){ band, width, tiles };
			return true;
		}
	}
	return false;
}

bool skew_candidate(OptCtx *o, Stmt *t)
{
	UirProgram *p = o->p;
	if (t->axis != AX_NONE || t->bound_lit < 2 || !t->body || !rewrite_layout_ok(p, t, NULL))
		return false;
	int m = 0;
	int64_t nmax = 0;
	for (const Stmt *s = t->body; s; s = s->next) {
		if (s->kind != ST_LOOP || s->axis != AX_NONE || s->bound_lit < 1 || !rewrite_layout_ok(p, s, NULL))
			return false;
		m++;
		if (s->bound_lit > nmax)
			nmax = s->bound_lit;
	}
	if (m * t->bound_lit < OPT_SKEW_MIN_STEPS || nmax < 2)
		return false;
	Sk k = { .p = p, .ok = true };
	k.loops[k.nl++] = t;
	for (Stmt *s = t->body; s && k.ok; s = s->next, k.sweep++) {
		walk_expr(&k, s->value);
		k.loops[k.nl++] = s;
		walk(&k, s->body);
		k.nl--;
	}
	/* the bytes of the memories the sweeps use, and a tile's share of them */
	double bytes = 0;
	for (int i = 0; i < k.n && k.ok; i++) {
		bool first = true;
		for (int j = 0; j < i && first; j++)
			first = k.v[j].m != k.v[i].m;
		if (first)
			bytes += (double)k.v[i].m->size * uir_type_size(k.v[i].m->ty);
	}
	int64_t steps = m * t->bound_lit, w = 0;
	if (k.ok && bytes >= OPT_SKEW_MIN_BYTES) {
		w = (int64_t)(OPT_SKEW_TILE_BYTES * (double)nmax / bytes);
		if (w < 1)
			w = 1;
	}
	/* the skews to try, in order: 1 (a stencil of radius 1), else the largest (a larger skew
	 * is legal wherever a smaller one is, a pair's steps differ or it is in order in one
	 * sweep, and runs as fast), while the new loops' arithmetic fits in i32 */
	static const int tries[] = { 1, OPT_SKEW_MAX };
	int cs[2], nc = 0;
	int64_t tiles[2];
	Split sp[2];
	int ns = 0;
	bool split = w > 0 && o->threads > 1 && !o->in_parallel;
	for (int n = 0; split && n < 2; n++)
		if (split_plan(nmax, t->bound_lit, m, tries[n], w, o->threads, &sp[ns]))
			cs[ns++] = tries[n];
	int legal = ns > 0 ? first_legal(&k, t, m, cs, ns, true) : -1;
	if (legal >= 0) {
		/* the cone holds for C, so the skew by C does too: its plan is the fallback where
		 * the split's text does not check (opt/rewrite.c) */
		int c = cs[legal];
		int64_t ntiles = skew_tiles(nmax, steps, c, w);
		t->opt_skew = c + 1;
		t->opt_split = sp[legal].band;
		t->opt_split_width = sp[legal].width;
		t->opt_split_tiles = sp[legal].tiles;
		t->opt_skew_width = ntiles ? w : 0;
		t->opt_skew_tiles = ntiles;
		free(k.v);
		return true;
	}
	if (w > 0 && sweeps_on_pool(o, t)) { /* each sweep on the pool instead */
		free(k.v);
		return false;
	}
	for (int n = 0; w > 0 && n < 2; n++) {
		int c = tries[n];
		int64_t ntiles = skew_tiles(nmax, steps, c, w);
		if (!ntiles)
			break;
		tiles[nc] = ntiles;
		cs[nc++] = c;
	}
	legal = nc > 0 ? first_legal(&k, t, m, cs, nc, false) : -1;
	bool ok = legal >= 0;
	if (ok) {
		t->opt_skew = cs[legal] + 1;
		t->opt_skew_width = w;
		t->opt_skew_tiles = tiles[legal];
	}
	free(k.v);
	return ok;
}
