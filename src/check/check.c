/* check.c - the checker's driver: alloc homes (docs/language.md 5.2), certain faults (E0301,
 * 4.8.2), axis placement and bounds (E0401-E0403, section 6), then the race rules
 * (E0501-E0503, section 7, in races.c). Each stage reports all its errors in source
 * order; a later stage runs only when the earlier ones found nothing.
 */
#include "../uir_internal.h"
#include <stdlib.h>
#include <string.h>

bool stmt_inside(const Stmt *s, const Stmt *ancestor)
{
	for (; s; s = s->parent)
		if (s == ancestor)
			return true;
	return false;
}

/* ---- walking every access ---- */

typedef void (*AccessFn)(void *ctx, Mem *m, Stmt *at, Expr *load);

static void walk_expr(Expr *e, Stmt *at, AccessFn fn, void *ctx)
{
	if (e->kind != EX_OP)
		return;
	if (e->op == OP_LOAD && e->mem)
		fn(ctx, e->mem, at, e);
	for (int i = 0; i < e->nargs; i++)
		walk_expr(e->args[i], at, fn, ctx);
}

/* Calls FN for every load (LOAD set) and every store or atomic (LOAD NULL), in order.
 * AT is the statement holding the access; its context is AT->parent (a loop's bound and an
 * if's condition are evaluated outside the loop or if). */
static void walk_accesses(Stmt *s, AccessFn fn, void *ctx)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			walk_expr(s->value, s, fn, ctx);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			walk_expr(s->off, s, fn, ctx);
			walk_expr(s->val, s, fn, ctx);
			fn(ctx, s->mem, s, NULL);
			break;
		case ST_LOOP:
			walk_expr(s->value, s, fn, ctx);
			walk_accesses(s->body, fn, ctx);
			break;
		case ST_IF:
			walk_expr(s->cond, s, fn, ctx);
			walk_accesses(s->then_, fn, ctx);
			walk_accesses(s->else_, fn, ctx);
			break;
		default:
			break;
		}
	}
}

/* ---- homes (docs/language.md 5.2) ---- */

static Stmt *par_loop(Stmt *s)
{
	for (; s; s = s->parent)
		if (s->kind == ST_LOOP && (s->axis == AX_THREAD || s->axis == AX_GLOBAL))
			return s;
	return NULL;
}

typedef struct HomeCtx { Arena *a; } HomeCtx;

static void home_access(void *vctx, Mem *m, Stmt *at, Expr *load)
{
	(void)vctx;
	(void)load;
	if (!m->is_alloc)
		return;
	Stmt *where = at->parent;
	Stmt *home = par_loop(where);
	if (!m->used) {
		m->used = true;
		m->home = home;
		return;
	}
	/* the innermost parallel loop holding both: walk up from the old home */
	Stmt *h = m->home;
	while (h && !stmt_inside(where, h))
		h = par_loop(h->parent);
	m->home = h;
}

static void compute_homes(UirProgram *p)
{
	for (int i = 0; i < p->nallocs; i++) {
		p->allocs[i]->used = false;
		p->allocs[i]->home = NULL;
	}
	HomeCtx hc = { &p->arena };
	walk_accesses(p->top, home_access, &hc);
	for (int i = 0; i < p->nallocs; i++) {
		Mem *m = p->allocs[i];
		if (!m->home)
			continue;
		Stmt *h = m->home;
		Mem **v = arena_alloc(&p->arena, (size_t)(h->nhomed + 1) * sizeof *v);
		if (h->nhomed)
			memcpy(v, h->homed, (size_t)h->nhomed * sizeof *v);
		v[h->nhomed++] = m;
		h->homed = v;
	}
}

/* ---- E0301: accesses that certainly fault (docs/language.md 4.8.2) ---- */

typedef struct FaultCtx { UirProgram *p; } FaultCtx;

static void fault_access(void *vctx, Mem *m, Stmt *at, Expr *load)
{
	FaultCtx *fc = vctx;
	Expr *off = load ? load->args[0] : at->off;
	int width = load ? load->width : at->width;
	/* under no if, every enclosing loop with an integer-literal bound >= 1 */
	const Sym *syms[256];
	int64_t lo[256], hi[256];
	int n = 0;
	for (Stmt *s = at->parent; s; s = s->parent) {
		if (s->kind == ST_IF)
			return;
		if (s->kind == ST_LOOP) {
			if (s->value->kind != EX_LIT || s->bound_lit < 1 || n == 256)
				return;
			syms[n] = s->sym;
			lo[n] = 0;
			hi[n] = s->bound_lit - 1;
			n++;
		}
	}
	EvalEnv env = { syms, lo, n, false };
	int64_t a, b;
	if (!eval_int(off, &env, &a))
		return;
	env.vals = hi;
	if (!eval_int(off, &env, &b))
		return;
	int64_t size = m->size;
	bool bad_a = a < 0 || a + width - 1 >= size;
	bool bad_b = b < 0 || b + width - 1 >= size;
	if (!bad_a && !bad_b)
		return;
	int64_t v = bad_a ? a : b;
	const char *when = n == 0 ? "" : bad_a ? " when every loop index is 0" : " when every loop index is at its largest";
	Loc loc = off->loc; /* the caret goes under the offset */
	if (width > 1)
		diag_later(fc->p, loc, "E0301", NULL, "%s of %s[%lld..%lld] is always out of bounds%s: %s has %lld elements",
			   load ? "load" : "store", m->name, (long long)v, (long long)(v + width - 1), when, m->name,
			   (long long)size);
	else
		diag_later(fc->p, loc, "E0301", NULL, "%s of %s[%lld] is always out of bounds%s: %s has %lld elements",
			   load ? "load" : at->kind == ST_ATOMIC ? "atomic" : "store", m->name, (long long)v, when,
			   m->name, (long long)size);
}

/* ---- E0401-E0403: axes ---- */

typedef struct AxisCtx {
	UirProgram *p;
	Stmt *thread_loop;   /* enclosing thread loop */
	Stmt *global_loop;   /* enclosing global loop */
	Stmt *local_loop;    /* enclosing local loop */
	bool if_in_kernel;   /* an if between the global loop and here */
	int64_t unroll;      /* product of enclosing unroll bounds */
} AxisCtx;


static void check_axes(AxisCtx *c, Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_STORE:
		case ST_ATOMIC:
			if (c->global_loop && !c->local_loop)
				diag_later(c->p, s->loc, "E0403", NULL,
					   "%s in block code (inside global loop '%s' but outside every local loop): "
					   "block code runs on every thread of the block in CUDA; move it into a local loop "
					   "(for one writer, `if (eq t 0)`)",
					   s->kind == ST_STORE ? "a store" : "an atomic", c->global_loop->sym->name);
			break;
		case ST_IF: {
			AxisCtx in = *c;
			if (c->global_loop && !c->local_loop)
				in.if_in_kernel = true;
			check_axes(&in, s->then_);
			check_axes(&in, s->else_);
			break;
		}
		case ST_LOOP: {
			AxisCtx in = *c;
			Loc al = s->axis_loc;
			switch (s->axis) {
			case AX_THREAD:
				if (c->thread_loop || c->global_loop)
					diag_later(c->p, al, "E0401", NULL, "a thread loop inside a %s loop: parallel loops do not nest",
						   c->local_loop ? "local" : c->thread_loop ? "thread" : "global");
				in.thread_loop = s;
				break;
			case AX_GLOBAL:
				if (c->thread_loop || c->global_loop)
					diag_later(c->p, al, "E0401", NULL, "a global loop inside a %s loop: kernels do not nest",
						   c->local_loop ? "local" : c->thread_loop ? "thread" : "global");
				in.global_loop = s;
				in.local_loop = NULL;
				in.if_in_kernel = false;
				break;
			case AX_LOCAL:
				if (!c->global_loop)
					diag_later(c->p, al, "E0401", NULL, "a local loop outside every global loop: "
						   "threads exist only inside a block");
				else if (c->local_loop)
					diag_later(c->p, al, "E0401", NULL, "a local loop inside local loop '%s': a block has one "
						   "level of threads", c->local_loop->sym->name);
				else if (c->if_in_kernel)
					diag_later(c->p, al, "E0401", NULL, "a local loop inside an if: every thread of the block "
						   "must reach each phase (put the if inside the local loop)");
				if (s->value->kind != EX_LIT || s->bound_lit < 1 || s->bound_lit > 1024)
					diag_later(c->p, s->value->loc, "E0402", NULL,
						   "the bound of a local loop is the block size: an integer literal from 1 to 1024");
				in.local_loop = s;
				break;
			case AX_UNROLL:
				if (s->value->kind != EX_LIT || s->bound_lit < 1 || s->bound_lit > 64) {
					diag_later(c->p, s->value->loc, "E0402", NULL,
						   "the bound of an unroll loop must be an integer literal from 1 to 64");
				} else {
					in.unroll = c->unroll * s->bound_lit;
					if (in.unroll > 4096 && c->unroll <= 4096)
						diag_later(c->p, s->value->loc, "E0402", NULL,
							   "nested unroll loops multiply to %lld iterations; at most 4096",
							   (long long)in.unroll);
				}
				break;
			case AX_NONE:
				break;
			}
			check_axes(&in, s->body);
			break;
		}
		default:
			break;
		}
	}
}

/* One block size per kernel: every local loop of a global loop has the same bound. */
static void block_sizes(UirProgram *p, Stmt *s, Stmt *kernel, Stmt **first)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			block_sizes(p, s->then_, kernel, first);
			block_sizes(p, s->else_, kernel, first);
		} else if (s->kind == ST_LOOP) {
			if (s->axis == AX_GLOBAL) {
				Stmt *f = NULL;
				block_sizes(p, s->body, s, &f);
				continue;
			}
			if (s->axis == AX_LOCAL && kernel) {
				s->kernel = kernel;
				if (!*first)
					*first = s;
				else if (s->bound_lit >= 1 && (*first)->bound_lit >= 1 && s->bound_lit != (*first)->bound_lit)
					diag_later(p, s->value->loc, "E0402", NULL,
						   "a kernel has one block size: this local loop has %lld threads, the one on line %d has %lld",
						   (long long)s->bound_lit, (*first)->loc.line, (long long)(*first)->bound_lit);
			}
			block_sizes(p, s->body, kernel, first);
		}
	}
}

/* ---- loop keys for normal forms (docs/language.md 7.2.3) ---- */

static void loop_keys(UirProgram *p, Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			loop_keys(p, s->then_);
			loop_keys(p, s->else_);
		} else if (s->kind == ST_LOOP) {
			if (s->axis == AX_LOCAL && s->kernel)
				/* one index for every phase of the kernel, whatever its name
				 * (docs/language.md 7.2.3) */
				s->sym->key = fmt_str(&p->arena, "#t%d:%d", s->kernel->loc.line, s->kernel->loc.col);
			else if (s->value->kind == EX_LIT)
				s->sym->key = fmt_str(&p->arena, "%s#%lld", s->sym->name, (long long)s->bound_lit);
			else
				s->sym->key = fmt_str(&p->arena, "%s@%d:%d", s->sym->name, s->loc.line, s->loc.col);
			loop_keys(p, s->body);
		}
	}
}

/* Phase numbers of local loops, in program order within their kernel. */
static void number_phases(Stmt *s, int *n)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			number_phases(s->then_, n);
			number_phases(s->else_, n);
		} else if (s->kind == ST_LOOP) {
			if (s->axis == AX_GLOBAL) {
				int k = 0;
				number_phases(s->body, &k);
				continue;
			}
			if (s->axis == AX_LOCAL)
				s->phase = (*n)++;
			number_phases(s->body, n);
		}
	}
}

static void mark_stored(void *ctx, Mem *m, Stmt *at, Expr *load)
{
	(void)ctx;
	(void)at;
	if (!load)
		m->stored = true;
}

bool check_program(UirProgram *p, unsigned flags)
{
	walk_accesses(p->top, mark_stored, NULL);
	/* E03 */
	FaultCtx fc = { p };
	walk_accesses(p->top, fault_access, &fc);
	if (diag_flush(p))
		return false;
	/* E04 */
	AxisCtx ac = { p, NULL, NULL, NULL, false, 1 };
	check_axes(&ac, p->top);
	Stmt *first = NULL;
	block_sizes(p, p->top, NULL, &first);
	if (diag_flush(p))
		return false;
	/* facts for the back ends */
	compute_homes(p);
	loop_keys(p, p->top);
	int n = 0;
	number_phases(p->top, &n);
	ranges_compute(p);
	captures_compute(p);
	/* E05 */
	return check_races(p, flags);
}
