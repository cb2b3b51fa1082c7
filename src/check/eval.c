/* eval.c - evaluates small integer expressions at check time: E0301's certain faults and
 * the enumeration of colliding iterations in race messages. Integer semantics come from
 * runtime/uir_ops.h, the single definition every back end uses. */
#include "../uir_internal.h"
#include "uir_ops.h"

static bool eval_rec(const Expr *e, const EvalEnv *env, int64_t *out, int depth, long *budget)
{
	if (depth > 4000 || --*budget < 0 || e->lanes != 1 || (e->ty != UIR_I32 && e->ty != UIR_BOOL))
		return false;
	switch (e->kind) {
	case EX_LIT:
		*out = e->ty == UIR_BOOL ? (int64_t)e->val.u : e->val.i;
		return true;
	case EX_NAME:
		if (!e->sym)
			return false;
		if (e->sym->kind == SYM_LET)
			return eval_rec(e->sym->def->value, env, out, depth + 1, budget);
		for (int i = 0; i < env->n; i++)
			if (env->syms[i] == e->sym) {
				*out = env->vals[i];
				return true;
			}
		return false;
	case EX_OP:
		break;
	}
	int64_t a[3] = { 0, 0, 0 };
	if (e->op == OP_LOAD || e->op == OP_LANE || e->op == OP_VEC || e->op == OP_SPLAT)
		return false;
	if (e->op == OP_CAST) {
		const Expr *x = e->args[0];
		if (!eval_rec(x, env, &a[0], depth + 1, budget))
			return false;
		*out = e->ty == UIR_BOOL ? a[0] != 0 : (int64_t)(int32_t)(uint32_t)a[0];
		return true;
	}
	if (e->nargs > 3)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!eval_rec(e->args[i], env, &a[i], depth + 1, budget))
			return false;
	int32_t x = (int32_t)a[0], y = (int32_t)a[1];
	bool isb = e->args[0]->ty == UIR_BOOL;
	switch (e->op) {
	case OP_ADD: *out = uir_add_i32(x, y); return true;
	case OP_SUB: *out = uir_sub_i32(x, y); return true;
	case OP_MUL: *out = uir_mul_i32(x, y); return true;
	case OP_DIV: *out = uir_div_i32(x, y); return true;
	case OP_MOD: *out = uir_mod_i32(x, y); return true;
	case OP_NEG: *out = uir_neg_i32(x); return true;
	case OP_ABS: *out = uir_abs_i32(x); return true;
	case OP_MIN: *out = x < y ? x : y; return true;
	case OP_MAX: *out = x > y ? x : y; return true;
	case OP_SHL: *out = uir_shl_i32(x, y); return true;
	case OP_SHR: *out = uir_shr_i32(x, y); return true;
	case OP_AND: *out = isb ? (a[0] & a[1]) : (x & y); return true;
	case OP_OR: *out = isb ? (a[0] | a[1]) : (x | y); return true;
	case OP_XOR: *out = isb ? (a[0] ^ a[1]) : (x ^ y); return true;
	case OP_NOT: *out = isb ? !a[0] : ~x; return true;
	case OP_LT: *out = a[0] < a[1]; return true;
	case OP_LE: *out = a[0] <= a[1]; return true;
	case OP_GT: *out = a[0] > a[1]; return true;
	case OP_GE: *out = a[0] >= a[1]; return true;
	case OP_EQ: *out = a[0] == a[1]; return true;
	case OP_NE: *out = a[0] != a[1]; return true;
	case OP_SELECT: *out = a[0] ? a[1] : a[2]; return true;
	default: return false;
	}
}

bool eval_int(const Expr *e, const EvalEnv *env, int64_t *out)
{
	long budget = 100000;
	return eval_rec(e, env, out, 0, &budget);
}

bool eval_int_budget(const Expr *e, const EvalEnv *env, int64_t *out, long *budget)
{
	return eval_rec(e, env, out, 0, budget);
}
