/* cost.c - what a program costs, in units of one op, load, store or loop iteration: the work
 * it executes and the size of the code it compiles to, which `run --engine auto` weighs
 * against each other (engine_auto_jit(), src/cli/engine.c); and unroll_fits(), the one rule
 * that decides which `unroll` loops are unrolled. The LLVM lowering follows it (lower.c: the
 * JIT, `llvm`, `compile`, and `ptx`, whose kernels are lowered by the same code), and so do
 * both renderers (render/stmt.c: `render` and `render-cuda`, which past the budget emit a
 * loop with an unroll hint); the interpreter unrolls nothing. See uir_internal.h. */
#include "uir_internal.h"

/* Ops of expression E (loads count as ops; names and literals as nothing); with CODE, an
 * op on vectors counts once per lane: most compile to one instruction a lane (NVPTX has no
 * vector arithmetic at all), and a division to a guarded sequence a lane. */
static double expr_cost(const Expr *e, bool code)
{
	if (!e || e->kind != EX_OP)
		return 0;
	double c = code && e->lanes > 1 ? e->lanes : 1;
	for (int i = 0; i < e->nargs; i++)
		c += expr_cost(e->args[i], code);
	return c;
}

/* Whether `unroll` loop S, whose body is BODY units of code, is unrolled (unroll_fits()).
 * count() passes the body's size it has already counted: asking unroll_fits() there
 * counted every body twice per level, 2^D walks for D nested `unroll` loops (28 nested
 * `loop 1 unroll` took `run` 3 s). */
static bool fits(const Stmt *s, double body)
{
	return s->axis == AX_UNROLL && s->bound_lit >= 1 && (double)s->bound_lit * (1 + body) <= UIR_UNROLL_MAX_SIZE;
}

/* The units of S: with CODE, of the code it compiles to (a loop's body once, BOUND times for
 * an `unroll` loop that unroll_fits()); else of the work it executes (a loop's body its
 * trip count times, UIR_UNKNOWN_TRIPS for a non-literal bound). */
static double count(const Stmt *s, bool code)
{
	double c = 0;
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			c += expr_cost(s->value, code);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			c += 1 + expr_cost(s->off, code) + expr_cost(s->val, code);
			break;
		case ST_IF:
			c += 1 + expr_cost(s->cond, code) + count(s->then_, code) + count(s->else_, code);
			break;
		case ST_LOOP: {
			double body = count(s->body, code), times;
			if (code)
				times = fits(s, body) ? (double)s->bound_lit : 1;
			else
				times = s->bound_lit >= 0 ? (double)s->bound_lit : UIR_UNKNOWN_TRIPS;
			c += expr_cost(s->value, code) + times * (1 + body);
			break;
		}
		default:
			break;
		}
	}
	return c;
}

double stmts_work(const Stmt *s)
{
	return count(s, false);
}

bool unroll_fits(const Stmt *s)
{
	return s->axis == AX_UNROLL && fits(s, stmts_code_size(s->body));
}

double stmts_code_size(const Stmt *s)
{
	return count(s, true);
}
