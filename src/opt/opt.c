/* opt.c - the loop optimiser: decisions on the checked program, before any lowering, that
 * keep every bit of every buffer for every input and thread count (docs/llvm.md, "Loop
 * optimisation"). It records them on the tree; the LLVM lowering carries them out and `uir
 * opt` prints them.
 *
 *   Stmt.opt_parallel  a plain loop whose iterations are independent (loop_independent(),
 *                      the checker's exact analysis) and which has enough work: it runs on
 *                      the thread pool as a `thread` loop would. The outermost such loop of
 *                      a nest is taken; none inside a parallel loop, none holding one.
 *   Stmt.opt_inner     `loop j { LETS loop k { S } }` runs as `loop k { loop j { LETS S } }`
 *                      (interchange.c).
 */
#include "opt.h"
#include <stdlib.h>

/* The work (cost.c units) of running plain loop S once: its trips at most times its body. */
static double loop_work(const Stmt *s)
{
	Range b = s->value->rng;
	if (!b.known || b.hi < 2)
		return 0;
	return (double)b.hi * (1 + stmts_work(s->body));
}

static void walk(UirProgram *p, Stmt *s, bool in_parallel, double min_work)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			walk(p, s->then_, in_parallel, min_work);
			walk(p, s->else_, in_parallel, min_work);
			continue;
		}
		if (s->kind != ST_LOOP)
			continue;
		bool par = in_parallel || (s->axis != AX_NONE && s->axis != AX_UNROLL);
		if (!par && s->axis == AX_NONE && loop_work(s) >= min_work && loop_independent(p, s)) {
			s->opt_parallel = true;
			par = true;
		}
		if (s->axis == AX_NONE)
			s->opt_inner = interchange_inner(p, s);
		walk(p, s->body, par, min_work);
	}
}

void opt_program(UirProgram *p)
{
	if (p->optimised)
		return;
	p->optimised = true;
	double min_work = OPT_PARALLEL_WORK;
	const char *env = getenv("UIR_AUTO_PARALLEL_WORK");
	if (env && *env)
		min_work = atof(env);
	walk(p, p->top, false, min_work);
}
