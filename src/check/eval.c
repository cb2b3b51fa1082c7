/* eval.c - evaluates expressions of literals, lets and loop indices at check time: E0301's
 * certain faults, the folding of literal terms in normal forms, and the enumeration of
 * colliding iterations in race messages. Sub-expressions may have any type and any width
 * (`cast i32 15.5`, `lane (splat.2 15) 0`); each op's value comes from the interpreter's
 * instruction for it (ops_apply in interp/eval_ops.c), the reference meaning. */
#include "../uir_internal.h"

/* The value of lane LANE of E (a scalar when E has one lane), in E's type as the
 * interpreter's registers hold it (interp_int.h). Every op goes through ops_apply(), the
 * interpreter's own instruction for it, so a value at check time is the value at run time. */
static bool eval_rec(const Expr *e, int lane, const EvalEnv *env, Scalar *out, int depth, long *budget)
{
	if (depth > 4000 || --*budget < 0 || e->ty >= UIR_NTYPES)
		return false;
	switch (e->kind) {
	case EX_LIT:
		*out = e->val;
		return true;
	case EX_NAME:
		if (!e->sym)
			return false;
		if (e->sym->kind == SYM_LET)
			return eval_rec(e->sym->def->value, lane, env, out, depth + 1, budget);
		for (int i = 0; i < env->n; i++)
			if (env->syms[i] == e->sym) {
				out->i = env->vals[i];
				return true;
			}
		return false;
	case EX_OP:
		break;
	}
	switch (e->op) {
	case OP_LOAD: {
		/* a buffer the program never stores holds its INIT (or run --input's values) */
		Mem *m = e->mem;
		Scalar o;
		if (!env->loads || !m || m->is_alloc || m->stored || !eval_rec(e->args[0], 0, env, &o, depth + 1, budget))
			return false;
		int64_t at = (int64_t)(int32_t)o.i + (e->width > 1 ? lane : 0);
		if (at < 0 || at >= m->size)
			return false; /* a fault at run time, not a value */
		if (m->check_data)
			*out = scalar_at(m->check_data, m->ty, at);
		else if (!init_element(m, at, out))
			return false;
		m->read_by_check = true;
		return true;
	}
	case OP_LANE:
		return eval_rec(e->args[0], (int)e->args[1]->val.i, env, out, depth + 1, budget);
	case OP_SPLAT:
		return eval_rec(e->args[0], 0, env, out, depth + 1, budget);
	case OP_VEC:
		return lane < e->nargs && eval_rec(e->args[lane], 0, env, out, depth + 1, budget);
	default:
		break;
	}
	if (e->nargs < 1 || e->nargs > 3)
		return false;
	Scalar a[3];
	for (int i = 0; i < e->nargs; i++)
		if (!eval_rec(e->args[i], lane, env, &a[i], depth + 1, budget))
			return false;
	/* the operand type that picks the instruction: select's values, else the first */
	UirType t = e->op == OP_SELECT ? e->args[1]->ty : e->args[0]->ty;
	return ops_apply(e->op, t, e->ty, a, e->nargs, out);
}

static bool eval_top(const Expr *e, const EvalEnv *env, int64_t *out, long *budget)
{
	Scalar v;
	if (e->lanes != 1 || (e->ty != UIR_I32 && e->ty != UIR_BOOL) || !eval_rec(e, 0, env, &v, 0, budget))
		return false;
	*out = e->ty == UIR_BOOL ? (int64_t)v.u : (int64_t)(int32_t)v.i;
	return true;
}

bool eval_int(const Expr *e, const EvalEnv *env, int64_t *out)
{
	long budget = 100000;
	return eval_top(e, env, out, &budget);
}

bool eval_int_budget(const Expr *e, const EvalEnv *env, int64_t *out, long *budget)
{
	return eval_top(e, env, out, budget);
}
