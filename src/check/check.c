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

/* The innermost thread or global loop around S; for a global loop, the outermost loop of
 * its nest (docs/language.md 6.5: a block's shared memory is homed in the whole nest). */
static Stmt *par_loop(Stmt *s)
{
	for (; s; s = s->parent)
		if (s->kind == ST_LOOP && (s->axis == AX_THREAD || s->axis == AX_GLOBAL))
			return s->axis == AX_GLOBAL && s->nest ? s->nest : s;
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
	Stmt *global_loop;   /* enclosing global loop (the innermost of its nest) */
	Stmt *local_loop;    /* enclosing local loop (the innermost of its nest) */
	bool if_in_kernel;   /* an if between the global loop and here */
	int64_t unroll;      /* product of enclosing unroll bounds */
	int gdepth, ldepth;  /* loops in the nest of global_loop, of local_loop */
} AxisCtx;

/* Whether loop S stands directly in a loop of its own axis whose body is lets followed by
 * S alone: the shape of a nest (docs/language.md 6.5.1, 6.5.3). */
static bool directly_nested(const Stmt *s)
{
	const Stmt *up = s->parent;
	if (!up || up->kind != ST_LOOP || up->axis != s->axis || s->next)
		return false;
	for (const Stmt *x = up->body; x && x != s; x = x->next)
		if (x->kind != ST_LET)
			return false;
	return true;
}


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
			case AX_GLOBAL: {
				/* a grid of 2 or 3 dimensions (docs/language.md 6.5.1) */
				bool in_global = c->global_loop && !c->local_loop && !c->thread_loop &&
						 s->parent == c->global_loop;
				bool nested = in_global && directly_nested(s) && c->gdepth < 3;
				if (in_global && !nested && directly_nested(s))
					diag_later(c->p, al, "E0401", NULL, "a fourth nested global loop: a grid has at most "
						   "three dimensions (x, y, z)");
				else if (in_global && !nested)
					diag_later(c->p, al, "E0401", NULL, "a global loop inside global loop '%s' whose body holds "
						   "more than lets and this loop: nested global loops form one grid, so the outer "
						   "loop's body is lets followed by the inner loop alone",
						   c->global_loop->sym->name);
				else if (!nested && (c->thread_loop || c->global_loop))
					diag_later(c->p, al, "E0401", NULL, "a global loop inside a %s loop: kernels do not nest "
						   "(a 2-D or 3-D grid is global loops directly inside one another)",
						   c->local_loop ? "local" : c->thread_loop ? "thread" : "plain or unroll");
				s->nest = nested ? s->parent->nest : s;
				in.gdepth = nested ? c->gdepth + 1 : 1;
				in.global_loop = s;
				in.local_loop = NULL;
				in.ldepth = 0;
				in.if_in_kernel = false;
				break;
			}
			case AX_LOCAL: {
				/* a block of 2 or 3 dimensions (docs/language.md 6.5.3) */
				bool in_local = c->local_loop && s->parent == c->local_loop;
				bool nested = in_local && directly_nested(s) && c->ldepth < 3;
				if (!c->global_loop)
					diag_later(c->p, al, "E0401", NULL, "a local loop outside every global loop: "
						   "threads exist only inside a block");
				else if (in_local && !nested && directly_nested(s))
					diag_later(c->p, al, "E0401", NULL, "a fourth nested local loop: a block has at most "
						   "three dimensions (x, y, z)");
				else if (in_local && !nested)
					diag_later(c->p, al, "E0401", NULL, "a local loop inside local loop '%s' whose body holds "
						   "more than lets and this loop: nested local loops form one phase, so the outer "
						   "loop's body is lets followed by the inner loop alone", c->local_loop->sym->name);
				else if (c->local_loop && !nested)
					diag_later(c->p, al, "E0401", NULL, "a local loop inside local loop '%s' but not directly: "
						   "a block's threads are one nest of local loops, each directly inside the other",
						   c->local_loop->sym->name);
				else if (c->if_in_kernel)
					diag_later(c->p, al, "E0401", NULL, "a local loop inside an if: every thread of the block "
						   "must reach each phase (put the if inside the local loop)");
				if (s->value->kind != EX_LIT || s->bound_lit < 1 || s->bound_lit > 1024)
					diag_later(c->p, s->value->loc, "E0402", NULL,
						   "the bound of a local loop is the block size: an integer literal from 1 to 1024");
				s->nest = nested ? s->parent->nest : s;
				in.ldepth = nested ? c->ldepth + 1 : 1;
				in.local_loop = s;
				break;
			}
			case AX_UNROLL:
				if (s->value->kind != EX_LIT || s->bound_lit < 1 || s->bound_lit > 64) {
					diag_later(c->p, s->value->loc, "E0402", NULL,
						   "the bound of an unroll loop must be an integer literal from 1 to 64");
				} else {
					in.unroll = c->unroll * s->bound_lit;
					if (in.unroll > UIR_UNROLL_MAX_NESTED && c->unroll <= UIR_UNROLL_MAX_NESTED)
						diag_later(c->p, s->value->loc, "E0402", NULL,
							   "nested unroll loops multiply to %lld iterations; at most %d",
							   (long long)in.unroll, UIR_UNROLL_MAX_NESTED);
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

/* ---- nests of global and local loops (docs/language.md 6.5) ---- */

/* Fills dims, ndims and dim of the nest whose outermost loop is TOP (check_axes set every
 * loop's nest), and checks its bounds (E0402): a grid's are integer literals, y and z at
 * most 65535, at most 2^31-1 blocks in all; a block has at most 1024 threads, z at most 64. */
static void nest_facts(UirProgram *p, Stmt *top)
{
	Stmt *chain[3];
	int n = 0;
	for (Stmt *cur = top; cur && n < 3;) {
		chain[n++] = cur;
		Stmt *last = cur->body;
		while (last && last->next)
			last = last->next;
		cur = last && last->kind == ST_LOOP && last->axis == top->axis && last->nest == top ? last : NULL;
	}
	top->ndims = n;
	for (int i = 0; i < n; i++) {
		top->dims[i] = chain[n - 1 - i];
		top->dims[i]->dim = i;
	}
	static const char xyz[] = "xyz";
	if (top->axis == AX_GLOBAL && n > 1) {
		bool lits = true;
		int64_t blocks = 1;
		for (int i = 0; i < n; i++) {
			Stmt *d = top->dims[i];
			int64_t most = i ? 65535 : INT32_MAX;
			if (d->value->kind != EX_LIT || d->bound_lit < 1 || d->bound_lit > most) {
				diag_later(p, d->value->loc, "E0402", NULL, "the bound of global loop '%s' (the %c dimension of a "
					   "%d-D grid) must be an integer literal from 1 to %lld", d->sym->name, xyz[i], n,
					   (long long)most);
				lits = false;
			} else {
				blocks *= d->bound_lit;
			}
		}
		if (lits && blocks > INT32_MAX)
			diag_later(p, top->value->loc, "E0402", NULL, "this grid has %lld blocks in all; a grid has at most "
				   "2147483647 (2^31-1)", (long long)blocks);
	}
	if (top->axis == AX_LOCAL && n > 1) {
		int64_t threads = 1;
		for (int i = 0; i < n; i++) {
			if (top->dims[i]->bound_lit < 1 || top->dims[i]->bound_lit > 1024)
				return; /* reported by check_axes */
			threads *= top->dims[i]->bound_lit;
		}
		if (threads > 1024)
			diag_later(p, top->value->loc, "E0402", NULL, "this block has %lld threads in all (the product of the "
				   "bounds of its local loops); a block has at most 1024", (long long)threads);
		if (n == 3 && top->bound_lit > 64)
			diag_later(p, top->value->loc, "E0402", NULL, "the bound of local loop '%s' (the z dimension of a "
				   "3-D block) is at most 64", top->sym->name);
	}
}

static void nests(UirProgram *p, Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			nests(p, s->then_);
			nests(p, s->else_);
		} else if (s->kind == ST_LOOP) {
			if ((s->axis == AX_GLOBAL || s->axis == AX_LOCAL) && s->nest == s)
				nest_facts(p, s);
			nests(p, s->body);
		}
	}
}

/* The shape of phase TOP (a nest of local loops) as "16x16" (outer loop first), and its
 * bounds by dimension in B (1 where it has none). */
static const char *phase_shape(UirProgram *p, const Stmt *top, int64_t b[3])
{
	char buf[64];
	size_t len = 0;
	b[0] = b[1] = b[2] = 1;
	for (int i = top->ndims - 1; i >= 0; i--) {
		b[i] = top->dims[i]->bound_lit;
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", i == top->ndims - 1 ? "" : "x",
					(long long)b[i]);
	}
	return arena_strndup(&p->arena, buf, len);
}

/* One block per kernel: every phase (nest of local loops) of a kernel has the same bounds,
 * dimension by dimension (docs/language.md 6.4.2, 6.5.4). */
static void block_sizes(UirProgram *p, Stmt *s, Stmt *kernel, Stmt **first)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			block_sizes(p, s->then_, kernel, first);
			block_sizes(p, s->else_, kernel, first);
		} else if (s->kind == ST_LOOP) {
			if (s->axis == AX_GLOBAL && s->nest == s) {
				Stmt *f = NULL;
				block_sizes(p, s->body, s, &f);
				continue;
			}
			if (s->axis == AX_LOCAL && kernel) {
				s->kernel = kernel;
				bool in_local = false; /* misplaced: E0401 already */
				for (const Stmt *up = s->parent; up && !in_local; up = up->parent)
					in_local = up->kind == ST_LOOP && up->axis == AX_LOCAL;
				if (s->nest != s || in_local) {
					/* an inner loop of a phase: its shape is the phase's */
				} else if (!*first) {
					*first = s;
				} else if (s->ndims == 1 && (*first)->ndims == 1) {
					if (s->bound_lit >= 1 && (*first)->bound_lit >= 1 && s->bound_lit != (*first)->bound_lit)
						diag_later(p, s->value->loc, "E0402", NULL,
							   "a kernel has one block size: this local loop has %lld threads, the one on line %d has %lld",
							   (long long)s->bound_lit, (*first)->loc.line, (long long)(*first)->bound_lit);
				} else {
					int64_t a[3], b[3];
					const char *sa = phase_shape(p, s, a), *sb = phase_shape(p, *first, b);
					bool valid = true;
					for (int i = 0; i < 3; i++)
						valid &= a[i] >= 1 && b[i] >= 1;
					if (valid && (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]))
						diag_later(p, s->value->loc, "E0402", NULL,
							   "every phase of a kernel has the same block: this phase is %s threads, the one "
							   "on line %d is %s (the bounds of its local loops, outer first)", sa,
							   (*first)->loc.line, sb);
				}
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
				/* one index for every phase of the kernel, whatever its name, per dimension
				 * (docs/language.md 7.2.3) */
				s->sym->key = fmt_str(&p->arena, "#t%d:%d%s", s->kernel->loc.line, s->kernel->loc.col,
						      s->dim == 2 ? ".z" : s->dim == 1 ? ".y" : "");
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
			if (s->axis == AX_GLOBAL && s->nest == s) {
				int k = 0;
				number_phases(s->body, &k);
				continue;
			}
			if (s->axis == AX_LOCAL)
				s->phase = s->nest == s ? (*n)++ : s->nest->phase;
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
	AxisCtx ac = { p, NULL, NULL, NULL, false, 1, 0, 0 };
	check_axes(&ac, p->top);
	nests(p, p->top);
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
