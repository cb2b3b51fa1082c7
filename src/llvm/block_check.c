/* block_check.c - bounds checks done ahead, a block of iterations at a time, for the body
 * of a parallel loop (docs/llvm.md, "Bounds checks ahead of a block").
 *
 * A histogram's `atomic.add h (load x e) 1` cannot be shown in bounds: its offset is data.
 * Checked in the loop, every iteration carries a compare and a branch out of the loop,
 * which keeps LLVM from unrolling it (1.2-1.4 times the unchecked loop's time). When such
 * an offset depends only on the loop index, values from outside the loop and loads of
 * memory the body never writes (each itself in bounds), it has the same value before the
 * iteration as in it: a pass over a block of iterations can compute every such offset and
 * check it first (a loop with no branch out, which vectorises), and when all are in bounds
 * the block runs with those checks left out. When one is not, the block runs as written,
 * checks included, and faults where it always did: the check pass writes nothing, so
 * running the block after it is running it alone.
 */
#include "lower_int.h"
#include <stdlib.h>
#include <string.h>

enum { BLOCK_CHECK_STMTS = 32 }; /* bodies longer than this are lowered as they are */

/* Whether the body S of the loop stores into (or updates atomically) M. */
static bool written(const Stmt *s, const Mem *m)
{
	for (; s; s = s->next)
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && s->mem == m)
			return true;
	return false;
}

static bool let_known(const BlockCheck *bc, const Stmt *def)
{
	for (int i = 0; i < bc->nlets; i++)
		if (bc->lets[i] == def)
			return true;
	return false;
}

/* Whether E has the same value before an iteration of LOOP as at its point in it, and can
 * be computed with no fault: literals, the index, names from outside LOOP and the lets
 * already found so, and loads in bounds of memory the body never writes. */
static bool ahead(const BlockCheck *bc, const Stmt *loop, const Expr *e, int depth)
{
	if (depth > 64)
		return false;
	switch (e->kind) {
	case EX_LIT:
		return true;
	case EX_NAME:
		if (!e->sym)
			return false;
		if (e->sym == loop->sym || !(e->sym->def && stmt_inside(e->sym->def, loop)))
			return true;
		return e->sym->kind == SYM_LET && let_known(bc, e->sym->def);
	case EX_OP:
		if (e->op == OP_LOAD &&
		    (!e->in_bounds || e->mem->home == loop || written(loop->body, e->mem)))
			return false;
		for (int i = 0; i < e->nargs; i++)
			if (!ahead(bc, loop, e->args[i], depth + 1))
				return false;
		return true;
	default:
		return false;
	}
}

static void add_access(BlockCheck *bc, const void *node, const Mem *m, const Expr *off, int width)
{
	bc->acc = xrealloc(bc->acc, (size_t)(bc->nacc + 1) * sizeof *bc->acc);
	bc->acc[bc->nacc++] = (BlockAccess){ node, m, off, width };
}

/* The loads of E that are not shown in bounds and whose offsets can be computed ahead. */
static void find_loads(BlockCheck *bc, const Stmt *loop, const Expr *e, int depth)
{
	if (e->kind != EX_OP || depth > 64)
		return;
	for (int i = 0; i < e->nargs; i++)
		find_loads(bc, loop, e->args[i], depth + 1);
	if (e->op == OP_LOAD && !e->in_bounds && ahead(bc, loop, e->args[0], 0))
		add_access(bc, e, e->mem, e->args[0], e->width > 1 ? e->width : 1);
}

bool block_check_plan(const L *l, const Stmt *s, BlockCheck *bc)
{
	memset(bc, 0, sizeof *bc);
	if (l->gpu || !l->o->bounds_check || (s->axis == AX_GLOBAL && s->ndims > 1))
		return false;
	int n = 0;
	for (const Stmt *t = s->body; t; t = t->next, n++)
		if (n == BLOCK_CHECK_STMTS || (t->kind != ST_LET && t->kind != ST_STORE && t->kind != ST_ATOMIC))
			return false;
	bc->lets = xmalloc((size_t)n * sizeof *bc->lets + 1);
	for (const Stmt *t = s->body; t; t = t->next) {
		if (t->kind == ST_LET) {
			find_loads(bc, s, t->value, 0);
			if (t->value->lanes == 1 && ahead(bc, s, t->value, 0))
				bc->lets[bc->nlets++] = t;
			continue;
		}
		find_loads(bc, s, t->off, 0);
		find_loads(bc, s, t->val, 0);
		if (!t->in_bounds && ahead(bc, s, t->off, 0))
			add_access(bc, t, t->mem, t->off, t->kind == ST_STORE && t->width > 1 ? t->width : 1);
	}
	if (!bc->nacc)
		block_check_free(bc);
	return bc->nacc > 0;
}

void block_check_free(BlockCheck *bc)
{
	free(bc->acc);
	free(bc->lets);
	memset(bc, 0, sizeof *bc);
}

bool block_checked(const L *l, const void *node)
{
	const BlockCheck *bc = l->checked_ahead;
	for (int i = 0; bc && i < bc->nacc; i++)
		if (bc->acc[i].node == node)
			return true;
	return false;
}

LLVMValueRef block_check_lower(L *l, const BlockCheck *bc)
{
	for (int i = 0; i < bc->nlets; i++)
		l->val[bc->lets[i]->sym->slot] = lower_expr(l, bc->lets[i]->value);
	LLVMValueRef ok = LLVMConstInt(l->t_i1, 1, 0);
	for (int i = 0; i < bc->nacc; i++) {
		const BlockAccess *a = &bc->acc[i];
		int64_t limit = a->mem->size - a->width; /* lower_address()'s test */
		LLVMValueRef idx = LLVMBuildSExt(l->b, lower_expr(l, a->off), l->t_i64, "");
		LLVMValueRef in = limit < 0 ? LLVMConstInt(l->t_i1, 0, 0)
			: LLVMBuildICmp(l->b, LLVMIntULE, idx, LLVMConstInt(l->t_i64, (unsigned long long)limit, 0), "inb");
		ok = LLVMBuildAnd(l->b, ok, in, "");
	}
	return ok;
}
