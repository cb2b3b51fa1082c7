/* lower.c - a checked program to an LLVM module: statements, memory, functions and
 * parallel loops (expressions are in lower_ops.c).
 *
 *   i64 @uir_kernel(ptr noalias %b0, ...)      (renamed `kernel` by jit.c)
 *
 * runs the program and returns 0 or a fault code (lower.h). Loops are real loops over an
 * i32 phi; `unroll` loops are unrolled here; `local` loops are plain loops, so the phases
 * of a block run in order. Each `thread` or `global` loop is outlined into
 *
 *   i64 @NAME.chunk(ptr %ctx, i32 %lo, i32 %hi, i32 %worker) (loads the captured values,
 *       calls @NAME.iter for lo .. hi-1 in order, up to a fault)
 *   i64 @NAME.iter(i32 %NAME, i32 %worker, ptr %scratch, ptr noalias ..., captured ...)
 *
 * and run by uir_parallel_for_chunks(n, @NAME.chunk, ctx); a fault in any iteration comes
 * back as the code of the smallest faulting iteration. A grid of 2 or 3 dimensions (nested
 * global loops) is one such loop over the flat block number, x fastest; each loop of the
 * nest takes its index from it by udiv and urem where it stands.
 *
 * Allocs: an alloc with no home lives for the whole run (on the stack when small, else
 * calloc'ed); an alloc whose home is a parallel loop gets one copy per iteration, zeroed
 * at the start of it: on the stack of @NAME.iter when at most 64 KiB (small ones become
 * SSA values after SROA), else in per-worker heap scratch. Accesses are checked unless
 * check/ranges.c proves them in bounds (or checks are off): a failed check branches to the
 * function's `done` block with the fault code.
 */
#include "lower_int.h"
#include <stdlib.h>
#include <string.h>

/* Allocs above this many bytes are not kept on the stack; nor are more than STACK_TOTAL
 * bytes of allocs per function. */
#define STACK_ALLOC_MAX (64 * 1024)
#define STACK_TOTAL (256 * 1024)

static void lower_stmts(L *l, const Stmt *s);
static void lower_stmt(L *l, const Stmt *s);

int mem_slot(const L *l, const Mem *m)
{
	return m->is_alloc ? l->p->nbufs + m->index : m->index;
}

static LLVMAttributeRef enum_attr(L *l, const char *name)
{
	return LLVMCreateEnumAttribute(l->cx, LLVMGetEnumAttributeKindForName(name, strlen(name)), 0);
}

/* ---- functions and their exit block ---- */

/* The attributes of a function the lowering defines: nounwind; and, for a program whose
 * rows the optimiser runs side by side in vector loops (UirProgram.opt_wide, the row jam:
 * docs/llvm.md), vectors of 512 bits where the target has them (LLVM prefers 256 on x86-64:
 * the 1024 matrix product ran 1.7 times faster with 512). */
static void fn_attrs(L *l, LLVMValueRef fn)
{
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, enum_attr(l, "nounwind"));
	if (l->p->opt_wide)
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					LLVMCreateStringAttribute(l->cx, "prefer-vector-width", 19, "512", 3));
}

void fn_begin(L *l, Fn *f, LLVMValueRef fn, const Stmt *par)
{
	memset(f, 0, sizeof *f);
	f->fn = fn;
	f->par = par;
	f->entry = LLVMAppendBasicBlockInContext(l->cx, fn, "entry");
	f->done = LLVMCreateBasicBlockInContext(l->cx, "done");
	fn_attrs(l, fn);
	LLVMPositionBuilderAtEnd(l->b, f->entry);
	l->fn = f;
}

/* Adds an edge into `done` from the current block with CODE, and ends the block. */
static void fn_exit(L *l, LLVMValueRef code)
{
	Fn *f = l->fn;
	if (f->ncodes == f->capcodes) {
		f->capcodes = f->capcodes ? 2 * f->capcodes : 16;
		f->codes = xrealloc(f->codes, (size_t)f->capcodes * sizeof *f->codes);
		f->from = xrealloc(f->from, (size_t)f->capcodes * sizeof *f->from);
	}
	f->codes[f->ncodes] = code;
	f->from[f->ncodes] = LLVMGetInsertBlock(l->b);
	f->ncodes++;
	LLVMBuildBr(l->b, f->done);
}

/* Branches to `done` with CODE when FAIL is true; continues in a new block. */
static void fail_if(L *l, LLVMValueRef fail, LLVMValueRef code, const char *name)
{
	LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, name);
	LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "ok");
	LLVMBuildCondBr(l->b, fail, bad, ok);
	LLVMPositionBuilderAtEnd(l->b, bad);
	fn_exit(l, code);
	LLVMPositionBuilderAtEnd(l->b, ok);
}

/* Ends the normal path with code 0 and builds `done` (the phi of codes). The builder is
 * left at the end of `done`, before its return: the caller adds clean-up and returns
 * the value it gets. */
LLVMValueRef fn_close(L *l)
{
	Fn *f = l->fn;
	fn_exit(l, LLVMConstInt(l->t_i64, 0, 0));
	LLVMAppendExistingBasicBlock(f->fn, f->done);
	LLVMPositionBuilderAtEnd(l->b, f->done);
	LLVMValueRef phi = LLVMBuildPhi(l->b, l->t_i64, "code");
	LLVMAddIncoming(phi, f->codes, f->from, (unsigned)f->ncodes);
	free(f->codes);
	free(f->from);
	f->codes = NULL;
	f->from = NULL;
	return phi;
}

/* An alloca of type T (aligned to ALIGN bytes) at the start of the current function's
 * entry block, so that it is a static alloca whatever block the builder is in. */
LLVMValueRef entry_alloca(L *l, LLVMTypeRef t, const char *name, unsigned align)
{
	LLVMBuilderRef eb = LLVMCreateBuilderInContext(l->cx);
	LLVMValueRef first = LLVMGetFirstInstruction(l->fn->entry);
	if (first)
		LLVMPositionBuilderBefore(eb, first);
	else
		LLVMPositionBuilderAtEnd(eb, l->fn->entry);
	LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
	LLVMSetAlignment(a, align);
	LLVMDisposeBuilder(eb);
	return a;
}

/* The function NAME of the module, declared (external, nounwind) on first use. */
static LLVMValueRef declare(L *l, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n)
{
	LLVMValueRef f = LLVMGetNamedFunction(l->mod, name);
	if (!f) {
		f = LLVMAddFunction(l->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, enum_attr(l, "nounwind"));
	}
	return f;
}

/* A call of the external function NAME (declared on first use). */
static LLVMValueRef call(L *l, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, LLVMValueRef *args, int n)
{
	LLVMValueRef f = declare(l, name, ret, params, n);
	return LLVMBuildCall2(l->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

static LLVMValueRef i64c(L *l, int64_t v) { return LLVMConstInt(l->t_i64, (unsigned long long)v, 1); }

static int64_t mem_bytes(const Mem *m) { return m->size * uir_type_size(m->ty); }

/* ---- memory accesses ---- */

static int add_site(L *l, const Mem *m, Loc loc, const char *what, int width, const OverflowCheck *ovf)
{
	Lowered *o = l->out;
	if (o->nsites == l->capsites) {
		l->capsites = l->capsites ? 2 * l->capsites : 16;
		o->sites = xrealloc(o->sites, (size_t)l->capsites * sizeof *o->sites);
	}
	FaultSite *s = &o->sites[o->nsites];
	s->mem = m;
	s->loc = loc;
	s->what = arena_strndup(&l->p->arena, what, strlen(what));
	s->width = width;
	s->ovf = ovf;
	return o->nsites++;
}

LLVMValueRef lower_address(L *l, const Mem *m, LLVMValueRef off, bool proven, int width, Loc loc, const char *what)
{
	if (l->slot && l->slot[mem_slot(l, m)])
		return l->memptr[mem_slot(l, m)]; /* GPU: acc[t], this thread's register */
	LLVMValueRef idx;
	if (proven) {
		idx = LLVMBuildZExt(l->b, off, l->t_i64, "");
		if (LLVMIsAInstruction(idx))
			LLVMSetNNeg(idx, 1);
	} else {
		idx = LLVMBuildSExt(l->b, off, l->t_i64, "");
	}
	if (!proven && l->o->bounds_check) {
		int site = add_site(l, m, loc, what, width, NULL);
		int64_t limit = m->size - width; /* the largest first element */
		LLVMValueRef ok = limit < 0 ? LLVMConstInt(l->t_i1, 0, 0)
			: LLVMBuildICmp(l->b, LLVMIntULE, idx, i64c(l, limit), "inb");
		LLVMValueRef code = LLVMBuildOr(l->b, i64c(l, (int64_t)((uint64_t)(site + 1) << 32)),
						LLVMBuildZExt(l->b, off, l->t_i64, ""), "");
		if (l->gpu) { /* record the fault and go on at offset 0, as render-cuda does */
			l->gpu->fault(l, LLVMBuildNot(l->b, ok, ""), code);
			idx = LLVMBuildSelect(l->b, ok, idx, i64c(l, 0), "");
		} else {
			fail_if(l, LLVMBuildNot(l->b, ok, ""), code, "oob");
		}
	}
	LLVMValueRef base = l->memptr[mem_slot(l, m)];
	return LLVMBuildInBoundsGEP2(l->b, mem_type(l, m->ty), base, &idx, 1, "");
}

/* A value of type T (LANES lanes) as it is stored in memory (bool: one byte 0/1). */
static LLVMValueRef to_memory(L *l, LLVMValueRef v, UirType t, int lanes)
{
	if (t != UIR_BOOL)
		return v;
	LLVMTypeRef mt = lanes > 1 ? LLVMVectorType(l->t_i8, (unsigned)lanes) : l->t_i8;
	return LLVMBuildZExt(l->b, v, mt, "");
}

static void store(L *l, const Stmt *s)
{
	LLVMValueRef off = lower_expr(l, s->off);
	LLVMValueRef v = lower_expr(l, s->val);
	const char *what = msg_store_what(&l->p->arena, s);
	LLVMValueRef addr = lower_address(l, s->mem, off, s->in_bounds || block_checked(l, s), s->width, s->loc, what);
	LLVMValueRef st = LLVMBuildStore(l->b, to_memory(l, v, s->mem->ty, s->width), addr);
	LLVMSetAlignment(st, (unsigned)uir_type_size(s->mem->ty));
}

/* Float atomic.min/max on shared memory: a compare-and-swap loop on the bits,
 *
 *   old = load atomic iN monotonic; loop: r = llvm.minimum(old as float, v)
 *   done if r's bits are old's, or old is a NaN (the result stays a NaN); else cmpxchg
 *   old -> r, again with the value found while it fails.
 *
 * LLVM's atomicrmw fmin/fmax follow other rules for NaN and zeros than the min/max ops
 * (docs/language.md): llvm.minimum/maximum are exactly those ops. */
static void atomic_float(L *l, const Stmt *s, LLVMValueRef addr, LLVMValueRef v)
{
	const Mem *m = s->mem;
	LLVMTypeRef ft = mem_type(l, m->ty);
	LLVMTypeRef it = m->ty == UIR_F32 ? l->t_i32 : l->t_i64;
	unsigned align = (unsigned)uir_type_size(m->ty);
	LLVMValueRef first = LLVMBuildLoad2(l->b, it, addr, "");
	LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
	LLVMSetAlignment(first, align);
	LLVMBasicBlockRef from = LLVMGetInsertBlock(l->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "cas");
	LLVMBasicBlockRef try_ = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "cas.try");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "cas.done");
	LLVMBuildBr(l->b, loop);
	LLVMPositionBuilderAtEnd(l->b, loop);
	LLVMValueRef old = LLVMBuildPhi(l->b, it, "old");
	LLVMValueRef x = LLVMBuildBitCast(l->b, old, ft, "");
	LLVMValueRef args[2] = { x, v };
	LLVMValueRef r = call_intrinsic(l, s->aop == AT_MIN ? "llvm.minimum" : "llvm.maximum", &ft, 1, args, 2);
	LLVMValueRef rb = LLVMBuildBitCast(l->b, r, it, "");
	LLVMValueRef same = LLVMBuildOr(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, rb, old, ""),
					LLVMBuildFCmp(l->b, LLVMRealUNO, x, x, ""), "");
	LLVMBuildCondBr(l->b, same, done, try_);
	LLVMPositionBuilderAtEnd(l->b, try_);
	LLVMValueRef pair = LLVMBuildAtomicCmpXchg(l->b, addr, old, rb, LLVMAtomicOrderingMonotonic,
						   LLVMAtomicOrderingMonotonic, 0);
	LLVMValueRef seen = LLVMBuildExtractValue(l->b, pair, 0, "");
	LLVMBuildCondBr(l->b, LLVMBuildExtractValue(l->b, pair, 1, ""), done, loop);
	LLVMValueRef in_v[2] = { first, seen };
	LLVMBasicBlockRef in_b[2] = { from, try_ };
	LLVMAddIncoming(old, in_v, in_b, 2);
	LLVMPositionBuilderAtEnd(l->b, done);
}

/* atomic.OP: an atomicrmw where other iterations may touch the memory at the same time
 * (floats: a compare-and-swap loop), else a plain read-modify-write (sequential code, or
 * memory private to the iteration). */
/* What atomic.OP leaves in an element X of type TY updated with V (docs/language.md 4.7). */
static LLVMValueRef atomic_op(L *l, AtomicOp op, UirType ty, LLVMValueRef x, LLVMValueRef v)
{
	if (op == AT_ADD)
		return LLVMBuildAdd(l->b, x, v, ""); /* integers only (docs/language.md 4.7.3) */
	LLVMTypeRef t = mem_type(l, ty);
	LLVMValueRef args[2] = { x, v };
	bool sg = type_is_signed(ty);
	const char *n = type_is_float(ty) ? (op == AT_MIN ? "llvm.minimum" : "llvm.maximum")
		: op == AT_MIN ? (sg ? "llvm.smin" : "llvm.umin") : (sg ? "llvm.smax" : "llvm.umax");
	return call_intrinsic(l, n, &t, 1, args, 2);
}

static void atomic(L *l, const Stmt *s)
{
	LLVMValueRef off = lower_expr(l, s->off);
	LLVMValueRef v = lower_expr(l, s->val);
	const Mem *m = s->mem;
	LLVMValueRef addr = lower_address(l, m, off, s->in_bounds || block_checked(l, s), 1, s->loc,
					  msg_store_what(&l->p->arena, s));
	bool sg = type_is_signed(m->ty);
	bool shared = l->gpu || (l->fn->par && m->home != l->fn->par && !(l->own_copy && l->own_copy[mem_slot(l, m)]));
	bool fl = type_is_float(m->ty);
	if (shared && fl) {
		atomic_float(l, s, addr, v);
		return;
	}
	if (shared) {
		LLVMAtomicRMWBinOp op = s->aop == AT_ADD ? LLVMAtomicRMWBinOpAdd
			: s->aop == AT_MIN ? (sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin)
					   : (sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax);
		LLVMBuildAtomicRMW(l->b, op, addr, v, LLVMAtomicOrderingMonotonic, 0);
		return;
	}
	LLVMTypeRef t = mem_type(l, m->ty);
	LLVMValueRef x = LLVMBuildLoad2(l->b, t, addr, "");
	LLVMSetAlignment(x, (unsigned)uir_type_size(m->ty));
	LLVMValueRef st = LLVMBuildStore(l->b, atomic_op(l, s->aop, m->ty, x, v), addr);
	LLVMSetAlignment(st, (unsigned)uir_type_size(m->ty));
}

/* ---- control flow ---- */

static void let(L *l, const Stmt *s)
{
	LLVMValueRef v = lower_expr(l, s->value);
	name_value(v, s->sym->name);
	l->val[s->sym->slot] = v;
}

static char *block_name(L *l, const char *a, const char *b)
{
	return fmt_str(&l->p->arena, "%s.%s", a, b);
}

/* On entry to the loop S whose bound N is not a literal (the checker lists the offsets
 * whose top digit is S's index): when N >= 1, each largest offset BASE + COEF * ((N-1)/D)
 * must fit in i32, else E0601 (docs/language.md 4.8.3), checked in order as the interpreter does.
 * Returns the bound to use: N (on the GPU, 0 after recording a fault). */
static LLVMValueRef overflow_checks(L *l, const Stmt *s, LLVMValueRef n)
{
	if (!s->novf || !l->o->bounds_check)
		return n;
	LLVMValueRef use = n;
	LLVMValueRef n64 = LLVMBuildSExt(l->b, n, l->t_i64, "");
	LLVMValueRef some = LLVMBuildICmp(l->b, LLVMIntSGE, n, LLVMConstInt(l->t_i32, 1, 0), "");
	for (int k = 0; k < s->novf; k++) {
		const OverflowCheck *o = &s->ovf[k];
		int site = add_site(l, o->mem, o->at, "", 1, o);
		LLVMValueRef q = LLVMBuildSDiv(l->b, LLVMBuildSub(l->b, n64, i64c(l, 1), ""), i64c(l, o->d), "");
		LLVMValueRef top = LLVMBuildAdd(l->b, i64c(l, o->base), LLVMBuildMul(l->b, i64c(l, o->coef), q, ""), "top");
		LLVMValueRef bad = LLVMBuildAnd(l->b, some, LLVMBuildICmp(l->b, LLVMIntSGT, top, i64c(l, INT32_MAX), ""), "");
		LLVMValueRef code = LLVMBuildOr(l->b, i64c(l, (int64_t)((uint64_t)(site + 1) << 32)),
						LLVMBuildZExt(l->b, n, l->t_i64, ""), "");
		if (l->gpu) {
			l->gpu->fault(l, bad, code);
			use = LLVMBuildSelect(l->b, bad, LLVMConstInt(l->t_i32, 0, 0), use, "");
		} else {
			fail_if(l, bad, code, "overflow");
		}
	}
	return use;
}

/* What a loop runs each iteration: BODY(l, ARG). */
typedef void (*LoopBody)(L *l, const void *arg);

/* A sequential loop over the index and bound of S: NAME = 0 .. n-1 over an i32 phi, the
 * bound evaluated once, here; BODY(l, ARG) is each iteration. */
static void emit_loop(L *l, const Stmt *s, LoopBody body, const void *arg)
{
	LLVMValueRef n = lower_expr(l, s->value);
	n = overflow_checks(l, s, n);
	const char *name = s->sym->name;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(l->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, block_name(l, name, "loop"));
	LLVMBasicBlockRef after = LLVMCreateBasicBlockInContext(l->cx, block_name(l, name, "end"));
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSGT, n, LLVMConstInt(l->t_i32, 0, 0), ""), head, after);
	LLVMPositionBuilderAtEnd(l->b, head);
	LLVMValueRef i = LLVMBuildPhi(l->b, l->t_i32, name);
	l->val[s->sym->slot] = i;
	body(l, arg);
	LLVMValueRef next = LLVMBuildAdd(l->b, i, LLVMConstInt(l->t_i32, 1, 0), block_name(l, name, "next"));
	LLVMSetNSW(next, 1);
	LLVMSetNUW(next, 1);
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(l->b);
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, next, n, ""), head, after);
	LLVMValueRef in[2] = { LLVMConstInt(l->t_i32, 0, 0), next };
	LLVMBasicBlockRef from[2] = { pre, latch };
	LLVMAddIncoming(i, in, from, 2);
	LLVMAppendExistingBasicBlock(l->fn->fn, after);
	LLVMPositionBuilderAtEnd(l->b, after);
}

static void body_of(L *l, const void *arg)
{
	lower_stmts(l, ((const Stmt *)arg)->body);
}

/* The body of an interchanged j loop: j's lets, then the k loop's body. */
static void j_then_k_body(L *l, const void *arg)
{
	const Stmt *j = arg;
	const Stmt *s = j->body;
	for (; s->kind == ST_LET; s = s->next)
		lower_stmt(l, s);
	lower_stmts(l, s->body);
}

static void inner_j(L *l, const void *arg)
{
	emit_loop(l, arg, j_then_k_body, arg);
}

static void parallel_loop(L *l, const Stmt *s);

/* A sequential loop (no axis, or `local`), as the loop optimiser decided (src/opt/opt.c,
 * run when the lowering starts): on the thread pool (opt_parallel; on the CPU, with more
 * than one thread, outside any parallel loop), or interchanged with the loop it holds
 * (opt_inner), or as written. */
static void plain_loop(L *l, const Stmt *s)
{
	bool opt = l->o->opt_level > 0 && !l->o->no_opt;
	if (opt && s->opt_parallel && l->o->threads != 1 && !l->gpu && !l->fn->par) {
		parallel_loop(l, s);
		return;
	}
	const Stmt *k = opt ? s->opt_inner : NULL;
	if (k)
		emit_loop(l, k, inner_j, s);
	else
		emit_loop(l, s, body_of, s);
}

/* An `unroll` loop: its body once per index value, the index a constant; a plain loop when
 * the copies would be too much code (unroll_fits()). */
static void unrolled_loop(L *l, const Stmt *s)
{
	if (!unroll_fits(s)) {
		emit_loop(l, s, body_of, s);
		return;
	}
	int64_t n = s->bound_lit;
	for (int64_t k = 0; k < n; k++) {
		l->val[s->sym->slot] = LLVMConstInt(l->t_i32, (unsigned long long)k, 0);
		lower_stmts(l, s->body);
	}
}

static void if_stmt(L *l, const Stmt *s)
{
	LLVMValueRef c = lower_expr(l, s->cond);
	LLVMBasicBlockRef then_ = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "then");
	LLVMBasicBlockRef else_ = s->else_ ? LLVMCreateBasicBlockInContext(l->cx, "else") : NULL;
	LLVMBasicBlockRef end = LLVMCreateBasicBlockInContext(l->cx, "endif");
	LLVMBuildCondBr(l->b, c, then_, else_ ? else_ : end);
	LLVMPositionBuilderAtEnd(l->b, then_);
	lower_stmts(l, s->then_);
	LLVMBuildBr(l->b, end);
	if (else_) {
		LLVMAppendExistingBasicBlock(l->fn->fn, else_);
		LLVMPositionBuilderAtEnd(l->b, else_);
		lower_stmts(l, s->else_);
		LLVMBuildBr(l->b, end);
	}
	LLVMAppendExistingBasicBlock(l->fn->fn, end);
	LLVMPositionBuilderAtEnd(l->b, end);
}

/* ---- parallel loops ---- */

/* Where the allocs homed at a parallel loop live in one iteration. */
typedef struct Homes {
	bool *on_heap;      /* by homed index */
	int64_t *heap_off;  /* byte offset in a worker's scratch */
	int64_t stride;     /* bytes of scratch per worker (0: none) */
} Homes;

static void plan_homes(const Stmt *s, Homes *h)
{
	h->on_heap = xcalloc((size_t)s->nhomed + 1, sizeof *h->on_heap);
	h->heap_off = xcalloc((size_t)s->nhomed + 1, sizeof *h->heap_off);
	h->stride = 0;
	int64_t stack = 0;
	for (int k = 0; k < s->nhomed; k++) {
		int64_t bytes = mem_bytes(s->homed[k]);
		if (bytes <= STACK_ALLOC_MAX && stack + bytes <= STACK_TOTAL) {
			stack += bytes;
			continue;
		}
		h->on_heap[k] = true;
		h->heap_off[k] = h->stride;
		h->stride += (bytes + 63) / 64 * 64;
	}
}

/* Gives each alloc homed at S its memory for this iteration, zero-filled. */
static void zero_homes(L *l, const Stmt *s, const Homes *h, LLVMValueRef scratch, LLVMValueRef worker)
{
	LLVMValueRef mine = NULL;
	if (h->stride) {
		LLVMValueRef at = LLVMBuildMul(l->b, LLVMBuildZExt(l->b, worker, l->t_i64, ""), i64c(l, h->stride), "");
		mine = LLVMBuildInBoundsGEP2(l->b, l->t_i8, scratch, &at, 1, "mine");
	}
	for (int k = 0; k < s->nhomed; k++) {
		const Mem *m = s->homed[k];
		LLVMValueRef ptr;
		if (h->on_heap[k]) {
			LLVMValueRef at = i64c(l, h->heap_off[k]);
			ptr = LLVMBuildInBoundsGEP2(l->b, l->t_i8, mine, &at, 1, m->name);
		} else {
			LLVMTypeRef at = LLVMArrayType2(mem_type(l, m->ty), (uint64_t)m->size);
			ptr = entry_alloca(l, at, m->name, 16);
		}
		LLVMBuildMemSet(l->b, ptr, LLVMConstInt(l->t_i8, 0, 0), i64c(l, mem_bytes(m)), 16);
		l->memptr[mem_slot(l, m)] = ptr;
	}
}

/* The index of loop S of a grid's nest in the outlined body: the flat block number divided
 * by the stride of S's dimension, modulo its bound (the outermost loop needs no modulo). */
static LLVMValueRef nest_index(L *l, const Stmt *s)
{
	const Stmt *top = s->nest;
	LLVMValueRef v = l->grid_flat;
	int64_t stride = nest_stride(top, s->dim);
	if (stride > 1)
		v = LLVMBuildUDiv(l->b, v, LLVMConstInt(l->t_i32, (unsigned long long)stride, 0), "");
	if (s->dim < top->ndims - 1)
		v = LLVMBuildURem(l->b, v, LLVMConstInt(l->t_i32, (unsigned long long)s->bound_lit, 0), "");
	name_value(v, s->sym->name);
	return v;
}

/* An inner loop of a grid's nest: its index (the CPU's from the flat block number, the
 * GPU's a block index), then its body. */
static void grid_loop(L *l, const Stmt *s)
{
	l->val[s->sym->slot] = l->gpu ? l->gpu->block_index(l, s->dim) : nest_index(l, s);
	lower_stmts(l, s->body);
}

/* Builds @NAME.iter: one iteration of the parallel loop S. Parameters: the index, the
 * worker, then the context's fields FT: the scratch pointer, the captured memories, the
 * captured values. */
/* What build_iter() builds: the body as written, the body with the accesses of a
 * BlockCheck left unchecked, or that BlockCheck's test (1: every access in bounds). */
typedef enum { ITER_BODY, ITER_AHEAD, ITER_TEST } IterKind;

static LLVMValueRef build_iter(L *l, const Stmt *s, const int *mems, const bool *atomic, const int64_t *copy,
			       int64_t copy_stride, int nmems, const Homes *h, const LLVMTypeRef *ft, IterKind kind,
			       const BlockCheck *bc)
{
	static const char *const suffix[] = { "iter", "iter.ahead", "test" };
	const Captures *c = s->cap;
	int np = 3 + nmems + c->nsyms;
	LLVMTypeRef *pt = xmalloc((size_t)np * sizeof *pt);
	pt[0] = l->t_i32;
	pt[1] = l->t_i32;
	for (int k = 0; k < 1 + nmems + c->nsyms; k++)
		pt[2 + k] = ft[k]; /* scratch, memories, captured values */
	LLVMValueRef fn = LLVMAddFunction(l->mod, fmt_str(&l->p->arena, "%s.%s", s->sym->name, suffix[kind]),
					  LLVMFunctionType(l->t_i64, pt, (unsigned)np, 0));
	free(pt);
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMValueRef idx = LLVMGetParam(fn, 0), worker = LLVMGetParam(fn, 1), scratch = LLVMGetParam(fn, 2);
	LLVMSetValueName2(idx, s->sym->name, strlen(s->sym->name));
	LLVMSetValueName2(worker, "worker", 6);
	LLVMSetValueName2(scratch, "scratch", 7);
	for (int k = 0; k < nmems; k++) {
		int ms = mems[k];
		const Mem *m = ms < l->p->nbufs ? l->p->bufs[ms] : l->p->allocs[ms - l->p->nbufs];
		LLVMValueRef prm = LLVMGetParam(fn, (unsigned)(3 + k));
		LLVMSetValueName2(prm, m->name, strlen(m->name));
		l->memptr[ms] = prm;
		/* other iterations may update atomically accessed memory at the same time, unless
		 * each worker has its own copy */
		if (!atomic[k] || copy[k])
			LLVMAddAttributeAtIndex(fn, (unsigned)(3 + k + 1), enum_attr(l, "noalias"));
	}
	for (int k = 0; k < c->nsyms; k++) {
		LLVMValueRef prm = LLVMGetParam(fn, (unsigned)(3 + nmems + k));
		LLVMSetValueName2(prm, c->syms[k]->name, strlen(c->syms[k]->name));
		l->val[c->syms[k]->slot] = prm;
	}
	Fn f;
	fn_begin(l, &f, fn, s);
	for (int k = 0; k < nmems; k++) {
		if (!copy[k])
			continue;
		LLVMValueRef at = LLVMBuildMul(l->b, LLVMBuildZExt(l->b, worker, l->t_i64, ""), i64c(l, copy_stride), "");
		l->memptr[mems[k]] = LLVMBuildInBoundsGEP2(l->b, l->t_i8, l->memptr[mems[k]], &at, 1, "own");
		l->own_copy[mems[k]] = true;
	}
	if (kind == ITER_TEST) { /* block_check_plan(): no homes, no grid */
		l->val[s->sym->slot] = idx;
		LLVMValueRef ok = LLVMBuildZExt(l->b, block_check_lower(l, bc), l->t_i64, "");
		for (int k = 0; k < nmems; k++)
			l->own_copy[mems[k]] = false;
		fn_close(l);
		LLVMBuildRet(l->b, ok);
		return fn;
	}
	zero_homes(l, s, h, scratch, worker);
	if (s->axis == AX_GLOBAL && s->ndims > 1) {
		l->grid_flat = idx;
		l->val[s->sym->slot] = nest_index(l, s);
	} else {
		l->val[s->sym->slot] = idx;
	}
	l->checked_ahead = kind == ITER_AHEAD ? bc : NULL;
	lower_stmts(l, s->body);
	l->checked_ahead = NULL;
	l->grid_flat = NULL;
	for (int k = 0; k < nmems; k++)
		l->own_copy[mems[k]] = false;
	LLVMBuildRet(l->b, fn_close(l));
	return fn;
}

/* Calls ITER(i, ARGS[1..]) for i = FROM .. TO-1 in order (FROM < TO), at the builder;
 * a nonzero code goes to FAULT with the code added to FAULT's phi CODES; else the builder
 * ends after the loop. */
static void call_range(L *l, LLVMValueRef fn, LLVMValueRef iter, LLVMValueRef *args, int na, LLVMValueRef from,
		       LLVMValueRef to, LLVMBasicBlockRef fault, LLVMValueRef codes, const char *name)
{
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(l->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(l->cx, fn, name);
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(l->cx, fn, "next");
	LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(l->cx, fn, "after");
	LLVMBuildBr(l->b, loop);
	LLVMPositionBuilderAtEnd(l->b, loop);
	LLVMValueRef i = LLVMBuildPhi(l->b, l->t_i32, "i");
	args[0] = i;
	LLVMValueRef code = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(iter), iter, args, (unsigned)na, "code");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, code, i64c(l, 0), ""), fault, next);
	LLVMBasicBlockRef at = loop;
	LLVMAddIncoming(codes, &code, &at, 1);
	LLVMPositionBuilderAtEnd(l->b, next);
	LLVMValueRef i1 = LLVMBuildNSWAdd(l->b, i, LLVMConstInt(l->t_i32, 1, 0), "");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, i1, to, ""), loop, after);
	LLVMValueRef in_v[2] = { from, i1 };
	LLVMBasicBlockRef in_b[2] = { pre, next };
	LLVMAddIncoming(i, in_v, in_b, 2);
	LLVMPositionBuilderAtEnd(l->b, after);
}

enum { BLOCK_ITERATIONS = 128 }; /* a block of iterations checked ahead (block_check.c) */

/* Builds @NAME.chunk(ctx, lo, hi, worker), a uir_chunk_fn: unpacks the context struct CT
 * once and calls ITER for i = lo .. hi-1 in order, returning the first nonzero code (a
 * fault: the iterations after it in the chunk do not run), else 0. ITER, internal and
 * called once, is inlined: the chunk's loop is an ordinary loop that LLVM can vectorise,
 * not a call through a pointer per iteration.
 *
 * With TEST (block_check.c), the chunk goes by blocks of BLOCK_ITERATIONS: TEST over the
 * block first (a loop with no exit, which vectorises), then AHEAD over it when every TEST
 * gave 1 (the body with the tested accesses unchecked), else ITER. */
static LLVMValueRef build_chunk(L *l, const Stmt *s, LLVMTypeRef ct, int nfields, LLVMValueRef iter,
				LLVMValueRef ahead, LLVMValueRef test)
{
	LLVMTypeRef pt[4] = { l->t_ptr, l->t_i32, l->t_i32, l->t_i32 };
	LLVMValueRef fn = LLVMAddFunction(l->mod, fmt_str(&l->p->arena, "%s.chunk", s->sym->name),
					  LLVMFunctionType(l->t_i64, pt, 4, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	fn_attrs(l, fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(l->cx, fn, "entry");
	LLVMBasicBlockRef fault = LLVMAppendBasicBlockInContext(l->cx, fn, "fault");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(l->cx, fn, "done");
	LLVMPositionBuilderAtEnd(l->b, fault);
	LLVMValueRef codes = LLVMBuildPhi(l->b, l->t_i64, "code");
	LLVMBuildRet(l->b, codes);
	LLVMPositionBuilderAtEnd(l->b, entry);
	LLVMValueRef ctx = LLVMGetParam(fn, 0), lo = LLVMGetParam(fn, 1), hi = LLVMGetParam(fn, 2);
	LLVMValueRef worker = LLVMGetParam(fn, 3);
	LLVMSetValueName2(ctx, "ctx", 3);
	LLVMSetValueName2(lo, "lo", 2);
	LLVMSetValueName2(hi, "hi", 2);
	LLVMSetValueName2(worker, "worker", 6);
	int na = 2 + nfields;
	LLVMValueRef *args = xmalloc((size_t)na * sizeof *args);
	args[1] = worker;
	for (int k = 0; k < nfields; k++) {
		LLVMValueRef gep = LLVMBuildStructGEP2(l->b, ct, ctx, (unsigned)k, "");
		args[2 + k] = LLVMBuildLoad2(l->b, LLVMStructGetTypeAtIndex(ct, (unsigned)k), gep, "");
	}
	LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(l->cx, fn, test ? "block" : "start");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, lo, hi, ""), start, done);
	LLVMPositionBuilderAtEnd(l->b, start);
	if (!test) {
		call_range(l, fn, iter, args, na, lo, hi, fault, codes, "loop");
		LLVMBuildBr(l->b, done);
	} else {
		/* block: b = lo, lo + B, ...; bh = min(b + B, hi), without overflow */
		LLVMValueRef b = LLVMBuildPhi(l->b, l->t_i32, "b");
		LLVMValueRef big = LLVMBuildICmp(l->b, LLVMIntSGT, LLVMBuildSub(l->b, hi, b, ""),
						 LLVMConstInt(l->t_i32, BLOCK_ITERATIONS, 0), "");
		LLVMValueRef bh = LLVMBuildSelect(l->b, big, LLVMBuildNSWAdd(l->b, b, LLVMConstInt(l->t_i32, BLOCK_ITERATIONS, 0), ""),
						  hi, "bh");
		LLVMBasicBlockRef tloop = LLVMAppendBasicBlockInContext(l->cx, fn, "test");
		LLVMBasicBlockRef tend = LLVMAppendBasicBlockInContext(l->cx, fn, "test.end");
		LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(l->cx, fn, "ahead");
		LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(l->cx, fn, "as.written");
		LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(l->cx, fn, "block.next");
		LLVMBuildBr(l->b, tloop);
		LLVMPositionBuilderAtEnd(l->b, tloop);
		LLVMValueRef t = LLVMBuildPhi(l->b, l->t_i32, "t");
		LLVMValueRef okp = LLVMBuildPhi(l->b, l->t_i1, "ok");
		args[0] = t;
		LLVMValueRef r = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(test), test, args, (unsigned)na, "");
		LLVMValueRef ok = LLVMBuildAnd(l->b, okp, LLVMBuildICmp(l->b, LLVMIntNE, r, i64c(l, 0), ""), "");
		LLVMValueRef t1 = LLVMBuildNSWAdd(l->b, t, LLVMConstInt(l->t_i32, 1, 0), "");
		LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, t1, bh, ""), tloop, tend);
		LLVMValueRef tv[2] = { b, t1 }, okv[2] = { LLVMConstInt(l->t_i1, 1, 0), ok };
		LLVMBasicBlockRef tb[2] = { start, tloop };
		LLVMAddIncoming(t, tv, tb, 2);
		LLVMAddIncoming(okp, okv, tb, 2);
		LLVMPositionBuilderAtEnd(l->b, tend);
		LLVMBuildCondBr(l->b, ok, fast, slow);
		LLVMPositionBuilderAtEnd(l->b, fast);
		call_range(l, fn, ahead, args, na, b, bh, fault, codes, "ahead.loop");
		LLVMBuildBr(l->b, join);
		LLVMPositionBuilderAtEnd(l->b, slow);
		call_range(l, fn, iter, args, na, b, bh, fault, codes, "loop");
		LLVMBuildBr(l->b, join);
		LLVMPositionBuilderAtEnd(l->b, join);
		LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, bh, hi, ""), start, done);
		LLVMValueRef bv[2] = { lo, bh };
		LLVMBasicBlockRef bb[2] = { entry, join };
		LLVMAddIncoming(b, bv, bb, 2);
	}
	LLVMPositionBuilderAtEnd(l->b, done);
	LLVMBuildRet(l->b, i64c(l, 0));
	free(args);
	return fn;
}

/* Everything one parallel loop's outlining needs. */
typedef struct Outline {
	const Stmt *s;
	int *mems, nmems; /* mem slots the body gets from the context (its captures less the
	                   * allocs it homes, by slot) */
	bool *atomic;     /* per mems[k]: updated atomically in the body (other iterations may
	                   * update it at the same time) */
	int64_t *copy;    /* per mems[k]: 0, or the bytes of the workers' own copy of it
	                   * (private_atomic(), rounded up to 64): the context then holds the
	                   * first worker's copy */
	int64_t copy_stride; /* the bytes of a worker's copies together: from one worker's copy
	                      * of a memory to the next worker's */
	AtomicOp *copy_op;
	Homes h;
	int nf;           /* context fields: scratch, memories, captured values */
	LLVMTypeRef *ft;
	LLVMValueRef *fv; /* their values in the caller */
	LLVMTypeRef ct;   /* the context struct */
} Outline;

/* Whether the statements S update M only by atomics of one op, *OP (set by the first). */
static bool one_atomic_op(const Stmt *s, const Mem *m, AtomicOp *op, bool *seen)
{
	for (; s; s = s->next) {
		if (s->kind == ST_ATOMIC && s->mem == m) {
			if (*seen && s->aop != *op)
				return false;
			*op = s->aop;
			*seen = true;
		}
		if (!one_atomic_op(s->body, m, op, seen) || !one_atomic_op(s->then_, m, op, seen) ||
		    !one_atomic_op(s->else_, m, op, seen))
			return false;
	}
	return true;
}

/* Whether each worker running parallel loop S can update its own copy of memory M, which
 * the body accesses only by atomics (the caller checks), the copies combined into M when
 * the loop ends: M holds integers (wrapping add, min and max are associative and
 * commutative, so any grouping of the updates gives the same bits; a float sum is not
 * allowed at all, and float min/max are left alone, a NaN's bits depending on the order),
 * every atomic on it has one op (*OP), it is at most 64 KiB, and the loop has at least 4
 * iterations an element (combining costs an update per element and worker). Without the
 * copies, every update is a locked read-modify-write that the cores fight over: a
 * histogram of 16M values into 256 bins ran 1.8 times slower on two threads than on one. */
static bool private_atomic(const L *l, const Stmt *s, const Mem *m, AtomicOp *op)
{
	bool seen = false;
	Range n = s->value->rng;
	return !l->gpu && type_is_int(m->ty) && mem_bytes(m) <= 65536 && n.known && n.lo >= 4 * m->size &&
	       one_atomic_op(s->body, m, op, &seen) && seen;
}

/* A loop `for (i64 e = 0; e < N; e++)` built at the builder: count_begin() leaves the
 * builder in its body and returns e; count_end() closes it, the builder after the loop. */
typedef struct Count {
	LLVMBasicBlockRef pre, body, end;
	LLVMValueRef e, n;
} Count;

static LLVMValueRef count_begin(L *l, Count *c, LLVMValueRef n, const char *name)
{
	c->n = n;
	c->pre = LLVMGetInsertBlock(l->b);
	c->body = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, name);
	c->end = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "count.end");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSGT, n, i64c(l, 0), ""), c->body, c->end);
	LLVMPositionBuilderAtEnd(l->b, c->body);
	c->e = LLVMBuildPhi(l->b, l->t_i64, "e");
	return c->e;
}

static void count_end(L *l, Count *c)
{
	LLVMValueRef next = LLVMBuildNSWAdd(l->b, c->e, i64c(l, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(l->b);
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, next, c->n, ""), c->body, c->end);
	LLVMValueRef v[2] = { i64c(l, 0), next };
	LLVMBasicBlockRef b[2] = { c->pre, latch };
	LLVMAddIncoming(c->e, v, b, 2);
	LLVMPositionBuilderAtEnd(l->b, c->end);
}

/* The element that leaves any element unchanged under OP, in type TY's memory type. */
static LLVMValueRef atomic_identity(L *l, AtomicOp op, UirType ty)
{
	LLVMTypeRef t = mem_type(l, ty);
	int bits = type_bits(ty);
	if (op == AT_ADD || (op == AT_MAX && !type_is_signed(ty)))
		return LLVMConstInt(t, 0, 0);
	if (op == AT_MIN && !type_is_signed(ty))
		return LLVMConstAllOnes(t);
	unsigned long long top = 1ull << (bits - 1); /* the signed minimum's bits */
	return LLVMConstInt(t, op == AT_MAX ? top : top - 1, 0);
}

/* One pass over the workers' copies (own_copies()) of every memory O privatises, worker by
 * worker, element by element: with COMBINE, each memory's element becomes OP(element,
 * copy's element); without, each copy's element is set to OP's identity (none to do for an
 * add: calloc's zeros) and the context field of the memory to its first worker's copy. */
static void copies_pass(L *l, Outline *o, LLVMValueRef copies, LLVMValueRef block, LLVMValueRef workers, bool combine)
{
	const UirProgram *p = l->p;
	int64_t at = 0;
	for (int k = 0; k < o->nmems; k++) {
		if (!o->copy[k])
			continue;
		int m_slot = o->mems[k];
		const Mem *m = m_slot < p->nbufs ? p->bufs[m_slot] : p->allocs[m_slot - p->nbufs];
		LLVMTypeRef t = mem_type(l, m->ty);
		unsigned align = (unsigned)uir_type_size(m->ty);
		LLVMValueRef off = i64c(l, at);
		LLVMValueRef base = LLVMBuildInBoundsGEP2(l->b, l->t_i8, copies, &off, 1, m->name);
		at += o->copy[k];
		if (!combine)
			o->fv[1 + k] = base;
		if (!combine && o->copy_op[k] == AT_ADD)
			continue;
		Count w, e;
		LLVMValueRef wi = count_begin(l, &w, workers, combine ? "copy.combine" : "copy.fill");
		LLVMValueRef wat = LLVMBuildMul(l->b, wi, block, "");
		LLVMValueRef row = LLVMBuildInBoundsGEP2(l->b, l->t_i8, base, &wat, 1, "");
		LLVMValueRef ei = count_begin(l, &e, i64c(l, m->size), "copy.e");
		LLVMValueRef mine = LLVMBuildInBoundsGEP2(l->b, t, row, &ei, 1, "");
		LLVMValueRef v = atomic_identity(l, o->copy_op[k], m->ty), dst = mine;
		if (combine) {
			dst = LLVMBuildInBoundsGEP2(l->b, t, l->memptr[m_slot], &ei, 1, "");
			LLVMValueRef x = LLVMBuildLoad2(l->b, t, dst, ""), c = LLVMBuildLoad2(l->b, t, mine, "");
			LLVMSetAlignment(x, align);
			LLVMSetAlignment(c, align);
			v = atomic_op(l, o->copy_op[k], m->ty, x, c);
		}
		LLVMSetAlignment(LLVMBuildStore(l->b, v, dst), align);
		count_end(l, &e);
		count_end(l, &w);
	}
}

/* The workers' own copies of the memories O privatises (o->copy), one block of o->copy
 * bytes each per worker, filled with the op's identity; NULL when there are none. Sets
 * their context fields to the copies. *BLOCK gets a worker's bytes, *WORKERS their count,
 * *RAW the pointer to free. The blocks start on a 64-byte line (calloc's pointer rounded
 * up, one block more allocated): two workers never write one cache line (with calloc's
 * 16-byte alignment, a 256-bin histogram's first and last bins shared lines with the next
 * worker's). */
static LLVMValueRef own_copies(L *l, Outline *o, LLVMValueRef *block, LLVMValueRef *workers, LLVMValueRef *raw)
{
	int64_t total = 0;
	int first = -1;
	for (int k = 0; k < o->nmems; k++) {
		if (o->copy[k] && first < 0)
			first = k;
		total += o->copy[k];
	}
	if (!total)
		return NULL;
	const UirProgram *p = l->p;
	*workers = LLVMBuildZExt(l->b, call(l, "uir_parallel_workers", l->t_i32, NULL, NULL, 0), l->t_i64, "workers");
	*block = i64c(l, total);
	LLVMTypeRef pt[2] = { l->t_i64, l->t_i64 };
	LLVMValueRef args[2] = { LLVMBuildNUWAdd(l->b, *workers, i64c(l, 1), ""), *block };
	*raw = call(l, "calloc", l->t_ptr, pt, args, 2);
	l->out->uses_heap = true;
	int ms = o->mems[first];
	uint32_t oom = ms < p->nbufs ? (uint32_t)(p->nallocs + ms) : (uint32_t)(ms - p->nbufs); /* jit.c, fault_report() */
	fail_if(l, LLVMBuildIsNull(l->b, *raw, ""), i64c(l, (int64_t)(((uint64_t)UIR_CODE_OOM << 32) | oom)), "oom");
	LLVMValueRef addr = LLVMBuildPtrToInt(l->b, *raw, l->t_i64, "");
	LLVMValueRef pad = LLVMBuildAnd(l->b, LLVMBuildNeg(l->b, addr, ""), i64c(l, 63), "");
	LLVMValueRef copies = LLVMBuildInBoundsGEP2(l->b, l->t_i8, *raw, &pad, 1, "copies");
	copies_pass(l, o, copies, *block, *workers, false);
	return copies;
}

/* Combines the workers' copies (own_copies()) into their memories, in worker order, and
 * frees them. */
static void combine_copies(L *l, Outline *o, LLVMValueRef copies, LLVMValueRef raw, LLVMValueRef block,
			   LLVMValueRef workers)
{
	copies_pass(l, o, copies, block, workers, true);
	LLVMTypeRef fp = l->t_ptr;
	call(l, "free", l->t_void, &fp, &raw, 1);
}

/* Finds what the body of S uses from outside and lays out its context. */
static void outline_plan(L *l, const Stmt *s, Outline *o)
{
	const Captures *c = s->cap;
	memset(o, 0, sizeof *o);
	o->s = s;
	o->mems = xmalloc((size_t)c->nmems * sizeof *o->mems + 1);
	o->atomic = xmalloc((size_t)c->nmems * sizeof *o->atomic + 1);
	o->copy = xcalloc((size_t)c->nmems + 1, sizeof *o->copy);
	o->copy_op = xcalloc((size_t)c->nmems + 1, sizeof *o->copy_op);
	for (int k = 0; k < c->nmems; k++) { /* sorted by key, which is mem_slot() */
		const Mem *m = c->mems[c->sorted[k].at];
		if (m->home == s)
			continue;
		unsigned use = c->use[c->sorted[k].at];
		o->atomic[o->nmems] = use & CAP_ATOMIC;
		if (use == CAP_ATOMIC && private_atomic(l, s, m, &o->copy_op[o->nmems]))
			o->copy[o->nmems] = (mem_bytes(m) + 63) / 64 * 64;
		o->copy_stride += o->copy[o->nmems];
		o->mems[o->nmems++] = mem_slot(l, m);
	}
	plan_homes(s, &o->h);
	o->nf = 1 + o->nmems + c->nsyms;
	o->ft = xmalloc((size_t)o->nf * sizeof *o->ft);
	o->fv = xmalloc((size_t)o->nf * sizeof *o->fv);
	o->ft[0] = l->t_ptr;
	o->fv[0] = LLVMConstNull(l->t_ptr);
	for (int k = 0; k < o->nmems; k++) {
		o->ft[1 + k] = l->t_ptr;
		o->fv[1 + k] = l->memptr[o->mems[k]];
	}
	for (int k = 0; k < c->nsyms; k++) {
		o->fv[1 + o->nmems + k] = l->val[c->syms[k]->slot];
		o->ft[1 + o->nmems + k] = LLVMTypeOf(o->fv[1 + o->nmems + k]);
	}
	o->ct = LLVMStructTypeInContext(l->cx, o->ft, (unsigned)o->nf, 0);
}

static void outline_free(Outline *o)
{
	free(o->copy);
	free(o->copy_op);
	free(o->atomic);
	free(o->mems);
	free(o->h.on_heap);
	free(o->h.heap_off);
	free(o->ft);
	free(o->fv);
}

/* Allocates the per-worker scratch of S's large homed allocs (NULL when none): one
 * slice per worker, checked for out of memory. */
static LLVMValueRef worker_scratch(L *l, const Stmt *s, const Homes *h)
{
	if (!h->stride)
		return NULL;
	LLVMValueRef w = call(l, "uir_parallel_workers", l->t_i32, NULL, NULL, 0);
	LLVMValueRef bytes = LLVMBuildMul(l->b, LLVMBuildZExt(l->b, w, l->t_i64, ""), i64c(l, h->stride), "");
	LLVMTypeRef pt = l->t_i64;
	LLVMValueRef scratch = call(l, "malloc", l->t_ptr, &pt, &bytes, 1);
	l->out->uses_heap = true;
	int first = 0;
	while (!h->on_heap[first])
		first++;
	fail_if(l, LLVMBuildIsNull(l->b, scratch, ""),
		i64c(l, (int64_t)(((uint64_t)UIR_CODE_OOM << 32) | (uint64_t)s->homed[first]->index)), "oom");
	return scratch;
}

/* Builds S's outlined functions (returns @NAME.chunk), leaving the caller's state (its
 * function, values, memories, builder position) as it was. */
static LLVMValueRef outline_build(L *l, Outline *o)
{
	UirProgram *p = l->p;
	int nm = p->nbufs + p->nallocs;
	LLVMBasicBlockRef resume = LLVMGetInsertBlock(l->b);
	Fn *outer = l->fn;
	LLVMValueRef *memptr = xmalloc((size_t)nm * sizeof *memptr + 1);
	LLVMValueRef *val = xmalloc((size_t)p->nslots * sizeof *val + 1);
	memcpy(memptr, l->memptr, (size_t)nm * sizeof *memptr);
	memcpy(val, l->val, (size_t)p->nslots * sizeof *val);
	LLVMValueRef iter = build_iter(l, o->s, o->mems, o->atomic, o->copy, o->copy_stride, o->nmems, &o->h, o->ft,
				       ITER_BODY, NULL);
	LLVMValueRef ahead = NULL, test = NULL;
	BlockCheck bc;
	if (block_check_plan(l, o->s, &bc)) {
		ahead = build_iter(l, o->s, o->mems, o->atomic, o->copy, o->copy_stride, o->nmems, &o->h, o->ft,
				   ITER_AHEAD, &bc);
		test = build_iter(l, o->s, o->mems, o->atomic, o->copy, o->copy_stride, o->nmems, &o->h, o->ft,
				  ITER_TEST, &bc);
		block_check_free(&bc);
	}
	LLVMValueRef body = build_chunk(l, o->s, o->ct, o->nf, iter, ahead, test);
	l->fn = outer;
	memcpy(l->memptr, memptr, (size_t)nm * sizeof *memptr);
	memcpy(l->val, val, (size_t)p->nslots * sizeof *val);
	free(memptr);
	free(val);
	LLVMPositionBuilderAtEnd(l->b, resume);
	return body;
}

/* A `thread` or `global` loop: outlined and run by the thread pool. */
static void parallel_loop(L *l, const Stmt *s)
{
	LLVMValueRef n = lower_expr(l, s->value);
	overflow_checks(l, s, n);
	l->out->uses_parallel = true;
	Outline o;
	outline_plan(l, s, &o);
	LLVMValueRef scratch = worker_scratch(l, s, &o.h);
	if (scratch)
		o.fv[0] = scratch;
	LLVMValueRef block = NULL, workers = NULL, raw = NULL;
	LLVMValueRef copies = own_copies(l, &o, &block, &workers, &raw);
	if (s->axis == AX_GLOBAL && s->ndims > 1) /* the blocks of the whole grid */
		n = LLVMConstInt(l->t_i32, (unsigned long long)nest_stride(s, s->ndims), 0);
	/* aligned for any captured vector (a <16 x double> field wants 64 bytes) */
	LLVMValueRef ctx = entry_alloca(l, o.ct, fmt_str(&l->p->arena, "%s.ctx", s->sym->name), 64);
	for (int k = 0; k < o.nf; k++)
		LLVMBuildStore(l->b, o.fv[k], LLVMBuildStructGEP2(l->b, o.ct, ctx, (unsigned)k, ""));
	LLVMValueRef body = outline_build(l, &o);

	LLVMTypeRef pt[3] = { l->t_i32, l->t_ptr, l->t_ptr };
	LLVMValueRef args[3] = { n, body, ctx };
	LLVMValueRef code = call(l, "uir_parallel_for_chunks", l->t_i64, pt, args, 3);
	LLVMSetValueName2(code, "fault", 5);
	if (copies) /* after a fault too: nothing is printed then */
		combine_copies(l, &o, copies, raw, block, workers);
	if (scratch) {
		LLVMTypeRef fp = l->t_ptr;
		call(l, "free", l->t_void, &fp, &scratch, 1);
	}
	fail_if(l, LLVMBuildICmp(l->b, LLVMIntNE, code, i64c(l, 0), ""), code, "fault");
	outline_free(&o);
}

static void lower_stmt(L *l, const Stmt *s)
{
	switch (s->kind) {
	case ST_BUFFER:
	case ST_ALLOC:
		return;
	case ST_LET:
		let(l, s);
		return;
	case ST_STORE:
		store(l, s);
		return;
	case ST_ATOMIC:
		atomic(l, s);
		return;
	case ST_IF:
		if_stmt(l, s);
		return;
	case ST_LOOP:
		switch (s->axis) {
		case AX_UNROLL:
			unrolled_loop(l, s);
			return;
		case AX_THREAD:
		case AX_GLOBAL:
			if (s->axis == AX_GLOBAL && s->nest && s->nest != s) {
				grid_loop(l, s); /* in the body of its nest's outermost loop */
				return;
			}
			if (!l->fn->par) {
				parallel_loop(l, s);
				return;
			}
			plain_loop(l, s); /* never: the checker forbids nesting */
			return;
		case AX_LOCAL:
			if (l->gpu) {
				l->gpu->phase(l, s);
				return;
			}
			plain_loop(l, s);
			return;
		default:
			plain_loop(l, s);
			return;
		}
	}
	unreachable();
}

static void lower_stmts(L *l, const Stmt *s)
{
	for (; s; s = s->next)
		lower_stmt(l, s);
}

void lower_block(L *l, const Stmt *s)
{
	lower_stmts(l, s);
}

/* ---- the kernel ---- */

/* Gives every alloc without a home its memory for the whole run: small ones on the
 * stack (memset to zero), the rest from calloc (freed in `done`). Returns the calloc'ed
 * pointers (NULL entries for stack ones). */
static LLVMValueRef *top_allocs(L *l)
{
	UirProgram *p = l->p;
	LLVMValueRef *heap = xcalloc((size_t)p->nallocs + 1, sizeof *heap);
	int64_t stack = 0;
	LLVMValueRef anynull = NULL;
	int first = -1;
	for (int k = 0; k < p->nallocs; k++) {
		const Mem *m = p->allocs[k];
		if (m->home)
			continue;
		int64_t bytes = mem_bytes(m);
		LLVMValueRef ptr;
		if (bytes <= STACK_ALLOC_MAX && stack + bytes <= STACK_TOTAL) {
			stack += bytes;
			ptr = entry_alloca(l, LLVMArrayType2(mem_type(l, m->ty), (uint64_t)m->size), m->name, 16);
			LLVMBuildMemSet(l->b, ptr, LLVMConstInt(l->t_i8, 0, 0), i64c(l, bytes), 16);
		} else {
			LLVMTypeRef pt[2] = { l->t_i64, l->t_i64 };
			LLVMValueRef args[2] = { i64c(l, m->size), i64c(l, uir_type_size(m->ty)) };
			ptr = call(l, "calloc", l->t_ptr, pt, args, 2);
			name_value(ptr, m->name);
			heap[k] = ptr;
			l->out->uses_heap = true;
			LLVMValueRef isnull = LLVMBuildIsNull(l->b, ptr, "");
			if (first < 0)
				first = k;
			anynull = anynull ? LLVMBuildOr(l->b, anynull, isnull, "") : isnull;
		}
		l->memptr[mem_slot(l, m)] = ptr;
	}
	if (anynull)
		fail_if(l, anynull, i64c(l, (int64_t)(((uint64_t)UIR_CODE_OOM << 32) | (uint64_t)first)), "oom");
	return heap;
}

static void init_types(L *l)
{
	l->t_i1 = LLVMInt1TypeInContext(l->cx);
	l->t_i8 = LLVMInt8TypeInContext(l->cx);
	l->t_i32 = LLVMInt32TypeInContext(l->cx);
	l->t_i64 = LLVMInt64TypeInContext(l->cx);
	l->t_f32 = LLVMFloatTypeInContext(l->cx);
	l->t_f64 = LLVMDoubleTypeInContext(l->cx);
	l->t_ptr = LLVMPointerTypeInContext(l->cx, 0);
	l->t_void = LLVMVoidTypeInContext(l->cx);
}

void lower_begin(L *l, UirProgram *p, LLVMContextRef cx, LLVMTargetMachineRef tm, const RunOptions *o, Lowered *out)
{
	memset(out, 0, sizeof *out);
	memset(l, 0, sizeof *l);
	if (o->opt_level > 0 && !o->no_opt)
		opt_program(p); /* the loop optimiser's decisions, read by plain_loop() */
	l->p = p;
	l->o = o;
	l->cx = cx;
	l->out = out;
	init_types(l);
	l->mod = LLVMModuleCreateWithNameInContext(p->path, cx);
	char *triple = LLVMGetTargetMachineTriple(tm);
	LLVMSetTarget(l->mod, triple);
	LLVMDisposeMessage(triple);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(l->mod, td);
	LLVMDisposeTargetData(td);
	l->b = LLVMCreateBuilderInContext(cx);
	int nm = p->nbufs + p->nallocs;
	l->memptr = xcalloc((size_t)nm + 1, sizeof *l->memptr);
	l->own_copy = xcalloc((size_t)nm + 1, sizeof *l->own_copy);
	l->val = xcalloc((size_t)p->nslots + 1, sizeof *l->val);
}

void lower_end(L *l)
{
	free(l->own_copy);
	l->own_copy = NULL;
	free(l->memptr);
	free(l->val);
	free(l->slot);
	LLVMDisposeBuilder(l->b);
	l->memptr = NULL;
	l->val = NULL;
	l->slot = NULL;
	l->b = NULL;
}

bool lower_program(UirProgram *p, LLVMContextRef cx, LLVMTargetMachineRef tm, const RunOptions *o, Lowered *out)
{
	L l;
	lower_begin(&l, p, cx, tm, o, out);

	LLVMTypeRef *pt = xmalloc((size_t)p->nbufs * sizeof *pt + 1);
	for (int k = 0; k < p->nbufs; k++)
		pt[k] = l.t_ptr;
	LLVMValueRef fn = LLVMAddFunction(l.mod, "uir_kernel", LLVMFunctionType(l.t_i64, pt, (unsigned)p->nbufs, 0));
	free(pt);
	for (int k = 0; k < p->nbufs; k++) {
		LLVMValueRef prm = LLVMGetParam(fn, (unsigned)k);
		LLVMSetValueName2(prm, p->bufs[k]->name, strlen(p->bufs[k]->name));
		LLVMAddAttributeAtIndex(fn, (unsigned)k + 1, enum_attr(&l, "noalias"));
		l.memptr[k] = prm;
	}
	Fn f;
	fn_begin(&l, &f, fn, NULL);
	LLVMValueRef *heap = top_allocs(&l);
	lower_stmts(&l, p->top);
	LLVMValueRef code = fn_close(&l);
	for (int k = 0; k < p->nallocs; k++) {
		if (!heap[k])
			continue;
		LLVMTypeRef fp = l.t_ptr;
		call(&l, "free", l.t_void, &fp, &heap[k], 1);
	}
	LLVMBuildRet(l.b, code);
	out->mod = l.mod;
	out->kernel = fn;
	free(heap);
	lower_end(&l);
	return true;
}
