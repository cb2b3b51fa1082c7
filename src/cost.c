/* cost.c - what a program costs: the work it executes (for `run --engine auto`) and the size
 * of the code it compiles to, with the one rule that decides which `unroll` loops are
 * unrolled (the JIT, `ptx` and `render` all follow unroll_fits()). See uir_internal.h. */
#include "uir_internal.h"

/* Ops of expression E (loads count as ops; names and literals as nothing). */
static double expr_cost(const Expr *e)
{
	if (!e || e->kind != EX_OP)
		return 0;
	double c = 1;
	for (int i = 0; i < e->nargs; i++)
		c += expr_cost(e->args[i]);
	return c;
}

double stmts_work(const Stmt *s)
{
	double c = 0;
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			c += expr_cost(s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			c += 1 + expr_cost(s->off) + expr_cost(s->val);
			break;
		case ST_IF:
			c += 1 + expr_cost(s->cond) + stmts_work(s->then_) + stmts_work(s->else_);
			break;
		case ST_LOOP: {
			double trips = s->bound_lit >= 0 ? (double)s->bound_lit : UIR_UNKNOWN_TRIPS;
			c += expr_cost(s->value) + trips * (1 + stmts_work(s->body));
			break;
		}
		default:
			break;
		}
	}
	return c;
}

bool unroll_fits(const Stmt *s)
{
	return s->axis == AX_UNROLL && s->bound_lit >= 1 &&
	       (double)s->bound_lit * (1 + stmts_code_size(s->body)) <= UIR_UNROLL_MAX_SIZE;
}

double stmts_code_size(const Stmt *s)
{
	double c = 0;
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			c += expr_cost(s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			c += 1 + expr_cost(s->off) + expr_cost(s->val);
			break;
		case ST_IF:
			c += 1 + expr_cost(s->cond) + stmts_code_size(s->then_) + stmts_code_size(s->else_);
			break;
		case ST_LOOP: {
			double copies = unroll_fits(s) ? (double)s->bound_lit : 1;
			c += expr_cost(s->value) + copies * (1 + stmts_code_size(s->body));
			break;
		}
		default:
			break;
		}
	}
	return c;
}
