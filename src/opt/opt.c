/* opt.c - the loop optimiser: decisions on the checked program, before any lowering, that
 * keep every bit of every buffer for every input and thread count (docs/llvm.md, "Loop
 * optimisation"). It records them on the tree; the LLVM lowering carries them out and `uir
 * opt` prints them.
 *
 *   Stmt.opt_parallel  a plain loop whose iterations are independent (loop_independent(),
 *                      the checker's exact analysis) and which has enough work: it runs on
 *                      the thread pool as a `thread` loop would. The outermost such loop of
 *                      a nest is taken; none inside a parallel loop, none holding one.
 *   Stmt.opt_private   the same, when the iterations are independent once some allocs have
 *                      a copy per iteration (private.c): carried out by rewriting the
 *                      program with `thread` on the loop, which makes it their home.
 *   Stmt.opt_expand    scalar expansion of an alloc over the loop, which is distributed
 *                      (expand.c), carried out by rewriting the program (rewrite.c); the
 *                      loops it makes are decided on the rewritten program.
 *   Stmt.opt_distribute  the same distribution with no alloc, where j's iterations are
 *                      independent and a loop of the body then interchanges (expand.c).
 *   Stmt.opt_inner     `loop j { LETS loop k { S } }` runs as `loop k { loop j { LETS S } }`
 *                      (interchange.c).
 *   Stmt.opt_jam_mem   the same nest, a reduction into memory per j, run U iterations of j
 *                      side by side inside k (jam.c), carried out by rewriting.
 *   Stmt.opt_jam_outer with opt_jam_mem on a loop r around such a j: U iterations of r
 *                      side by side inside k instead (jam.c, the outer jam).
 *   Stmt.opt_jam_swap  with opt_jam_mem on a loop k, `loop k { loop j { S } }` whose S reads a
 *                      column (a stride other than 1 in j): blocks of U iterations of j
 *                      outside k, side by side inside it (jam.c, the swapped jam).
 *   Stmt.opt_jam_sink  with opt_jam_mem on a loop t, `loop t { loop r { loop s { S } } }`
 *                      whose S reads a column in s: t runs inside s, blocks of U iterations
 *                      of r side by side inside t (jam.c, the sunk jam).
 *   Stmt.opt_jam_row   a loop i whose body holds nests `loop k { loop j { S } }` (or `loop j
 *                      { loop k { S } }` interchanged), i's iterations independent: U of
 *                      them side by side inside each j, the body distributed (jam.c, the
 *                      row jam), carried out by rewriting.
 *   Stmt.opt_skew      a time loop over sweeps, run over tiles of the sweeps' index skewed
 *                      in time (skew.c), carried out by rewriting.
 */
#include "opt.h"
#include <stdlib.h>
#include <string.h>

/* Whether the statements S hold a loop. */
static bool has_loop(const Stmt *s)
{
	for (; s; s = s->next)
		if (s->kind == ST_LOOP || (s->kind == ST_IF && (has_loop(s->then_) || has_loop(s->else_))))
			return true;
	return false;
}

/* The work (cost.c units) of running plain loop S once, its trips at most times its body;
 * 0 when it has fewer than two iterations or its bound is not known. */
static double loop_work(const Stmt *s)
{
	Range b = s->value->rng;
	if (!b.known || b.hi < 2)
		return 0;
	return (double)b.hi * (1 + stmts_work(s->body));
}

/* Whether loop S, privatised with the memories RENAME (those used outside it) given
 * allocs of their own, can run its last iteration apart, after the loop, on the memories
 * themselves: the text can be cut, and every alloc its body uses is one of RENAME (the
 * others would be used by the loop and by the peeled iteration, so no longer be homed in
 * the loop). */
static bool peel_ok(UirProgram *p, Stmt *s, Mem **rename, int nrename)
{
	if (!rewrite_bound_ok(p, s))
		return false;
	const Captures *cap = loop_captures(p, s);
	for (int i = 0; i < cap->nmems; i++) {
		bool found = !cap->mems[i]->is_alloc;
		for (int k = 0; k < nrename && !found; k++)
			found = rename[k] == cap->mems[i];
		if (!found)
			return false;
	}
	return true;
}

/* The allocs a candidate parallel loop gives a copy per iteration (loop_independent()'s
 * EXEMPT): those private to it (private.c), when the zero-filling of a copy per iteration
 * is small beside the iteration's work. */
typedef struct Priv {
	OptCtx *o;
	const Stmt *loop;
	double work;  /* of one iteration */
	bool used;    /* some alloc needed a copy */
	bool peel;    /* some memory's values after the loop are the last iteration's */
	Mem **rename; /* those used outside the loop too (Stmt.opt_rename) */
	int nrename;
} Priv;

static bool privatise(void *ctx, const Mem *m)
{
	Priv *v = ctx;
	bool outside, peel;
	if (!mem_private(v->o, v->loop, m, &outside, &peel) || (double)m->size > v->work)
		return false;
	v->used = true;
	v->peel |= peel;
	if (outside) {
		v->rename = xrealloc(v->rename, (size_t)(v->nrename + 1) * sizeof *v->rename);
		v->rename[v->nrename++] = (Mem *)m;
	}
	return true;
}

bool sweeps_on_pool(OptCtx *o, Stmt *t)
{
	if (o->threads < 2 || t->axis != AX_NONE || !t->body)
		return false;
	double scale = OPT_REPEATED_WORK / OPT_PARALLEL_WORK;
	for (Stmt *s = t->body; s; s = s->next)
		if (s->kind != ST_LOOP || s->axis != AX_NONE ||
		    loop_work(s) < (has_loop(s->body) ? o->min_work : o->min_flat) * scale ||
		    !loop_independent(o->p, s, NULL, NULL))
			return false;
	return true;
}

/* The loops of the statements S; IN_PARALLEL: inside a parallel loop; MIN_WORK, MIN_FLAT:
 * the work a loop there needs to run on the pool (opt.h). */
static void walk(OptCtx *o, Stmt *s, bool in_parallel, double min_work, double min_flat)
{
	UirProgram *p = o->p;
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			walk(o, s->then_, in_parallel, min_work, min_flat);
			walk(o, s->else_, in_parallel, min_work, min_flat);
			continue;
		}
		if (s->kind != ST_LOOP)
			continue;
		if (s->opt_fixed)
			continue; /* a time skew's tiles, in order, each over a band that fits a cache;
			           * a sweep over one band is too little work to wake the pool for */
		bool par = in_parallel || (s->axis != AX_NONE && s->axis != AX_UNROLL);
		if (s->axis == AX_NONE && !p->opt_no_rewrite && (s->opt_jam_mem = jam_sink_candidate(p, s)) != 0) {
			s->opt_jam_sink = p->opt_rewrites = true; /* the loops it makes are decided on the rewritten program */
			continue;
		}
		o->min_work = min_work;
		o->min_flat = min_flat;
		o->in_parallel = par;
		if (s->axis == AX_NONE && !p->opt_no_rewrite && skew_candidate(o, s)) {
			p->opt_rewrites = true; /* its sweeps are decided on the rewritten program */
			continue;
		}
		if (s->axis == AX_NONE && (s->opt_expand = expand_candidate(o, s)) != NULL) {
			/* the distributed loops are decided on the rewritten program, except the loop
			 * over the blocks of an unroll-and-jam, which holds the expanded alloc: its
			 * iterations are independent (expand.c), each with its copy of it */
			p->opt_rewrites = true;
			s->opt_jam_thread = s->opt_jam && !par && loop_work(s) >= min_work && thread_homes_ok(o, s, s->opt_expand);
			continue;
		}
		if (s->axis == AX_NONE && (s->opt_distribute = distribute_candidate(o, s))) {
			p->opt_rewrites = true; /* the loops it makes are decided on the rewritten program */
			continue;
		}
		if (s->axis == AX_NONE)
			s->opt_inner = interchange_inner(p, s);
		if (s->axis == AX_NONE && !s->opt_inner && !p->opt_no_rewrite && (s->opt_jam_mem = jam_swap_candidate(p, s)) != 0) {
			s->opt_jam_swap = p->opt_rewrites = true; /* as below */
			continue;
		}
		if (s->axis == AX_NONE && !s->opt_inner && (s->opt_jam_mem = jam_outer_candidate(p, s)) != 0) {
			s->opt_jam_outer = p->opt_rewrites = true; /* as below */
			continue;
		}
		if (s->axis == AX_NONE && !s->opt_inner && (s->opt_jam_mem = jam_candidate(p, s)) != 0) {
			p->opt_rewrites = true; /* the loops it makes are decided on the rewritten program */
			continue;
		}
		if ((s->axis == AX_THREAD || (s->axis == AX_NONE && !s->opt_inner)) && (!p->opt_no_rewrite || p->opt_rows) &&
		    (s->opt_jam_row = jam_row_candidate(p, s)) != 0) {
			p->opt_rewrites = true; /* the loops it makes are decided on the rewritten program */
			continue;
		}
		double work = loop_work(s);
		/* an interchange, which vectorises the nest, is preferred to running it on the pool */
		if (!par && !s->opt_inner && s->axis == AX_NONE && work > 0 &&
		    work >= (has_loop(s->body) ? min_work : min_flat)) {
			Priv v = { o, s, stmts_work(s->body), false, false, NULL, 0 };
			if (loop_independent(p, s, privatise, &v) && (!v.used || thread_homes_ok(o, s, NULL)) &&
			    (!v.peel || peel_ok(p, s, v.rename, v.nrename))) {
				if (v.used)
					s->opt_private = p->opt_rewrites = true;
				else
					s->opt_parallel = true;
				s->opt_peel = v.peel;
				s->opt_thread_ok = v.used || thread_homes_ok(o, s, NULL);
				if (v.nrename) {
					s->opt_rename = arena_alloc(&p->arena, (size_t)v.nrename * sizeof *s->opt_rename);
					memcpy(s->opt_rename, v.rename, (size_t)v.nrename * sizeof *s->opt_rename);
					s->nopt_rename = v.nrename;
				}
				par = true;
			}
			free(v.rename);
		}
		/* the loops inside start once per iteration of this one */
		walk(o, s->body, par, min_work * (OPT_REPEATED_WORK / OPT_PARALLEL_WORK),
		     min_flat * (OPT_REPEATED_WORK / OPT_PARALLEL_WORK));
	}
}

void opt_program(UirProgram *p)
{
	if (p->optimised)
		return;
	p->optimised = true;
	double min_work = OPT_PARALLEL_WORK, min_flat = OPT_FLAT_WORK;
	const char *env = getenv("UIR_AUTO_PARALLEL_WORK"); /* 0: every independent loop */
	if (env && *env) {
		min_work = atof(env);
		min_flat = min_work * (OPT_FLAT_WORK / OPT_PARALLEL_WORK);
	}
	int nm = p->nbufs + p->nallocs;
	OptCtx o = { .p = p, .accesses = xmalloc((size_t)nm * sizeof(int64_t) + 1),
		     .threads = p->opt_threads > 0 ? p->opt_threads : uir_cpus() };
	for (int i = 0; i < nm; i++)
		o.accesses[i] = -1;
	walk(&o, p->top, false, min_work, min_flat);
	free(o.accesses);
}
