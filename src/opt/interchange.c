/* interchange.c - loop interchange, a decision of the loop optimiser (opt.c) that the LLVM
 * lowering carries out: it runs
 *
 *     loop j NJ { LETS  loop k NK { S } }     as     loop k NK { loop j NJ { LETS  S } }
 *
 * when that provably keeps every result bit and it makes the inner loop vectorisable.
 * The typical case is a naive matrix product, C[i,j] += A[i,k] * B[k,j]: the k loop is an
 * in-order float reduction that no vectoriser may reorder, while after the interchange the
 * j loop updates a row of C with stride 1 and each C[i,j] still receives its products in k
 * order (gcc gets the same effect by vectorising the j loop as an outer loop).
 *
 * Legality (sufficient, checked conservatively):
 *   - both loops are plain, J's body is lets then the k loop; each bound is an integer
 *     literal or an expression of names defined outside J that loads nothing (a triangular
 *     `loop k i`), so that it has the same value however often and wherever it is
 *     evaluated: NK once instead of once per j (it may not use j or LETS), NJ once per k
 *     instead of once. When either bound is 0 or less neither form runs S (LETS only
 *     compute values, their loads proven in bounds);
 *   - every access in LETS and S is proven in bounds (in_bounds, check/ranges.c), so no
 *     fault can move; a memory written in S is not read in LETS (they would run again
 *     after S's writes of the same j);
 *   - no two different iterations of j touch one element of a memory written in S, so the
 *     only dependences are between iterations with the same j, whose k order is kept;
 *     memory S only reads cannot carry a dependence. Shown for each written memory either
 *     at once, when it is accessed at one offset expression (one normal form) that is
 *     c + a*j + terms of loops outside j with a != 0, computed without wrapping (distinct
 *     j touch distinct elements); or else by asking the checker's exact analysis whether
 *     iterations of j can conflict on it (loop_conflict(), check/races.c), which decides
 *     for the program's sizes.
 * Profitability: some written memory has a = 1, and every access whose offset involves j
 * has j with coefficient 1 (stride 1 in the new inner loop), all scalar.
 *
 * interchange_swap_legal() asks the same of the other order, `loop k { loop j { S } }`
 * run as `loop j { loop k { S } }` (jam.c's swapped jam): every written memory at one
 * offset with a != 0 and no term of k or of what is inside k (no exact analysis: it
 * answers for iterations of j within one k), so that no two instances of distinct j touch
 * one element of it.
 *
 * interchange_sink_legal() asks it of a reduction loop outside two others, `loop t { loop r
 * { loop s { S } } }` run as `loop r { loop s { loop t { S } } }` (jam.c's sunk jam): every
 * written memory at one offset c + a*r + b*s + terms of loops outside t, with no t, a and b
 * nonzero and one of them larger than the other's whole span (|a| > |b| (S - 1) or |b| >
 * |a| (R - 1): a mixed radix), so distinct (r, s) touch distinct elements of it and every
 * element keeps its t order.
 */
#include "../check/normal.h"
#include <stdlib.h>
#include <string.h>

typedef struct Ix {
	UirProgram *p;
	const Stmt *jl, *kl;
	const Stmt *scope; /* terms of its index and of loops and lets inside it are "inner":
	                    * jl, or the k loop around jl (interchange_swap_legal()) */
	bool *written;    /* by mem_slot: stored or updated in S */
	Norm *form;       /* by mem_slot: the normal form of the written memories' offsets */
	bool *has_form;
	bool *ask;        /* by mem_slot: legality left to the exact analysis */
	bool ok;
	bool unit_write;  /* some written memory has j with coefficient 1 */
	bool red_write;   /* some written memory's offset is invariant in k (a reduction) */
	bool legal_only;  /* read-only memory's strides do not matter */
	bool swap;        /* interchange_swap_legal(): the exact analysis is not asked */
	bool column_read; /* some read-only memory has j with a coefficient other than 0, 1 */
	bool in_lets;     /* walking LETS: they run once per j, before the k loop */
	const Stmt *rl, *sl; /* interchange_sink_legal(): loops r and s inside jl, the loop t */
	bool t_strided;   /* ... some access has t in another term or a coefficient other than 0, 1 */
	NormCtx nc;
} Ix;

/* Memory M's index among the buffers, then the allocs. */
static int mem_key(const UirProgram *p, const Mem *m)
{
	return m->is_alloc ? p->nbufs + m->index : m->index;
}

/* Marks the memories the statements S store or update in; returns whether there is one. */
static bool mark_writes(Ix *x, const Stmt *s)
{
	bool any = false;
	for (; s; s = s->next) {
		if (s->kind == ST_STORE || s->kind == ST_ATOMIC)
			any = x->written[mem_key(x->p, s->mem)] = true;
		else if (s->kind == ST_LOOP)
			any |= mark_writes(x, s->body);
		else if (s->kind == ST_IF)
			any |= mark_writes(x, s->then_) | mark_writes(x, s->else_);
	}
	return any;
}

/* True when E, with lets inlined, evaluates its i32 arithmetic without wrapping. */
static bool exact(Ix *x, const Expr *e, int depth)
{
	if (depth > 64)
		return false;
	if (e->kind == EX_LIT)
		return true;
	if (e->kind == EX_NAME) {
		const Sym *y = e->sym;
		if (y && y->kind == SYM_LET && y->def && stmt_inside(y->def, x->jl))
			return exact(x, y->def->value, depth + 1);
		return true;
	}
	if (e->op == OP_LOAD)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!exact(x, e->args[i], depth + 1))
			return false;
	switch (e->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_SHL: case OP_NEG:
		return e->nowrap;
	default:
		return true; /* div, mod, min, max, casts ... never wrap on their own */
	}
}

/* True when E (lets inlined) uses the value of Y. */
static bool refers_to(const Expr *e, const Sym *y, int depth)
{
	if (depth > 64)
		return true;
	if (e->kind == EX_NAME)
		return e->sym == y || (e->sym && e->sym->kind == SYM_LET && e->sym->def &&
				       refers_to(e->sym->def->value, y, depth + 1));
	if (e->kind != EX_OP)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (refers_to(e->args[i], y, depth + 1))
			return true;
	return false;
}

bool expr_refers_to(const Expr *e, const Sym *y)
{
	return refers_to(e, y, 0);
}

/* How the normal form N depends on j. */
typedef struct JUse {
	int64_t coef;   /* the coefficient of the term j */
	bool other_j;   /* j also in a div, a mod or an opaque term */
	bool inner;     /* a term of k or of a loop inside the j loop, or any opaque term */
} JUse;

static bool j_use(Ix *x, const Norm *n, JUse *u)
{
	memset(u, 0, sizeof *u);
	if (n->bad)
		return false;
	const Sym *j = x->jl->sym;
	for (int i = 0; i < n->n; i++) {
		const Term *t = n->v[i].t;
		if (t->kind == TM_OPAQUE) {
			u->inner = true;
			u->other_j |= refers_to(t->expr, j, 0);
		} else if (t->index == j) {
			if (t->kind == TM_INDEX)
				u->coef += n->v[i].coef;
			else
				u->other_j = true;
		} else if (t->index && t->index->def && stmt_inside(t->index->def, x->scope)) {
			u->inner = true;
		}
	}
	return true;
}

/* The coefficients of t (the loop X->jl), r and s in N, for interchange_sink_legal();
 * false when N is bad or has another term of them or of a loop or let inside t. */
static bool rst_use(Ix *x, const Norm *n, int64_t *ct, int64_t *cr, int64_t *cs)
{
	*ct = *cr = *cs = 0;
	if (n->bad)
		return false;
	for (int i = 0; i < n->n; i++) {
		const Term *t = n->v[i].t;
		const Sym *y = t->index;
		if (t->kind == TM_OPAQUE)
			return false;
		if (t->kind == TM_INDEX && (y == x->jl->sym || y == x->rl->sym || y == x->sl->sym))
			*(y == x->jl->sym ? ct : y == x->rl->sym ? cr : cs) += n->v[i].coef;
		else if (y == x->jl->sym || (y->def && stmt_inside(y->def, x->jl)))
			return false;
	}
	return true;
}

/* Whether c + a*r + b*s over r in [0, R), s in [0, S) takes distinct values for distinct
 * (r, s): a and b nonzero, one larger than the other's whole span (a mixed radix). */
static bool mixed_radix(int64_t a, int64_t b, int64_t r_hi, int64_t s_hi)
{
	__int128 ua = a < 0 ? -(__int128)a : a, ub = b < 0 ? -(__int128)b : b;
	return a && b && (ua > ub * (s_hi - 1) || ub > ua * (r_hi - 1));
}

/* interchange_sink_legal()'s check of one access (access()'s arguments). */
static void sink_access(Ix *x, const Mem *m, const Expr *off, int width, bool in_bounds)
{
	int ms = mem_key(x->p, m);
	Norm n = normalize(&x->nc, off);
	int64_t ct, cr, cs;
	bool plain = rst_use(x, &n, &ct, &cr, &cs);
	if (!in_bounds || (x->written[ms] && (!plain || width != 1 || ct != 0 || !exact(x, off, 0)))) {
		x->ok = false;
		return;
	}
	if (x->written[ms]) {
		if (x->has_form[ms]) {
			x->ok = norm_equal(&x->form[ms], &n);
			return;
		}
		x->has_form[ms] = true;
		x->form[ms] = n;
		x->ok = mixed_radix(cr, cs, x->rl->value->rng.hi, x->sl->value->rng.hi);
		return;
	}
	/* read-only memory: any offset is legal; a column in s, a row (or nothing) in t pays */
	x->column_read |= plain && cs != 0 && cs != 1;
	x->t_strided |= !plain ? n.bad || expr_refers_to(off, x->jl->sym) : (ct != 0 && (ct != 1 || width != 1));
}

/* Checks one access of memory M at offset OFF, WIDTH elements (IN_BOUNDS: proven in
 * bounds). */
static void access(Ix *x, const Mem *m, const Expr *off, int width, bool in_bounds)
{
	if (!x->ok)
		return;
	if (x->rl) {
		sink_access(x, m, off, width, in_bounds);
		return;
	}
	if (!in_bounds) {
		x->ok = false;
		return;
	}
	int ms = mem_key(x->p, m);
	Norm n = normalize(&x->nc, off);
	JUse u;
	if (!j_use(x, &n, &u)) {
		x->ok = false;
		return;
	}
	int64_t a = u.coef;
	if (x->written[ms]) {
		if (x->in_lets) { /* LETS would run again after S's writes of the same j */
			x->ok = false;
			return;
		}
		if (x->ask[ms])
			return;
		if (width != 1 || u.other_j || u.inner || a == 0 || !exact(x, off, 0) ||
		    (x->has_form[ms] && !norm_equal(&x->form[ms], &n))) {
			x->ask[ms] = true;
			x->ok &= !x->swap;
			return;
		}
		if (!x->has_form[ms]) {
			x->has_form[ms] = true;
			x->form[ms] = n;
		}
		x->red_write = true; /* a != 0, no term of k: every k updates one element per j */
		if (a == 1)
			x->unit_write = true;
		return;
	}
	/* read-only memory: any offset is legal; stride 1 or invariant in j to be worth it */
	x->column_read |= !u.other_j && a != 0 && a != 1;
	if (!x->legal_only && (u.other_j || (a != 0 && a != 1) || (a != 0 && width != 1)))
		x->ok = false;
}

static void walk_expr(Ix *x, const Expr *e)
{
	if (!x->ok || e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		walk_expr(x, e->args[i]);
	if (e->op == OP_LOAD)
		access(x, e->mem, e->args[0], e->width, e->in_bounds);
}

static void walk(Ix *x, const Stmt *s)
{
	for (; s && x->ok; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			walk_expr(x, s->value);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			walk_expr(x, s->off);
			walk_expr(x, s->val);
			access(x, s->mem, s->off, s->kind == ST_STORE ? s->width : 1, s->in_bounds);
			break;
		case ST_LOOP:
			if (s->axis != AX_NONE && s->axis != AX_UNROLL) {
				x->ok = false;
				return;
			}
			walk_expr(x, s->value);
			walk(x, s->body);
			break;
		case ST_IF:
			walk_expr(x, s->cond);
			walk(x, s->then_);
			walk(x, s->else_);
			break;
		default:
			break;
		}
	}
}

bool invariant_bound(const Expr *e, const Stmt *j)
{
	switch (e->kind) {
	case EX_LIT:
		return true;
	case EX_NAME:
		return e->sym && e->sym != j->sym && !(e->sym->def && stmt_inside(e->sym->def, j));
	case EX_OP:
		if (e->op == OP_LOAD || e->lanes > 1)
			return false;
		for (int i = 0; i < e->nargs; i++)
			if (!invariant_bound(e->args[i], j))
				return false;
		return true;
	default:
		return false;
	}
}

/* The k loop of J's body when it is lets followed by one plain loop whose bound is
 * invariant in J. */
static const Stmt *inner_loop(const Stmt *j)
{
	const Stmt *s = j->body;
	while (s && s->kind == ST_LET)
		s = s->next;
	if (!s || s->kind != ST_LOOP || s->next || s->axis != AX_NONE || !invariant_bound(s->value, j) ||
	    !s->value->rng.known || s->value->rng.hi < 1)
		return NULL;
	return s;
}

/* Sets up X for the access walk over loops J and K (SCOPE: X->scope). */
static void ix_init(Ix *x, UirProgram *p, const Stmt *j, const Stmt *k, const Stmt *scope, bool legal_only)
{
	int nm = p->nbufs + p->nallocs;
	memset(x, 0, sizeof *x);
	x->legal_only = legal_only;
	x->p = p;
	x->jl = j;
	x->kl = k;
	x->scope = scope;
	x->ok = true;
	x->nc.a = &p->arena;
	x->nc.code = j;
	x->written = xcalloc((size_t)nm + 1, sizeof *x->written);
	x->form = xcalloc((size_t)nm + 1, sizeof *x->form);
	x->has_form = xcalloc((size_t)nm + 1, sizeof *x->has_form);
	x->ask = xcalloc((size_t)nm + 1, sizeof *x->ask);
}

/* Sets up X for loops J and K (inside J's body, after LETS) and walks LETS and K's body:
 * X->ok says whether every access is in bounds, stride 1 or invariant in j where it is
 * only read, and no LETS read what K writes. Returns whether K writes anything. */
static bool ix_walk(Ix *x, UirProgram *p, const Stmt *j, const Stmt *k, bool legal_only)
{
	ix_init(x, p, j, k, j, legal_only);
	bool any = mark_writes(x, k->body);
	if (any) {
		/* the lets before the k loop, then its body */
		x->in_lets = true;
		for (const Stmt *s = j->body; s != k && x->ok; s = s->next)
			if (s->kind == ST_LET)
				walk_expr(x, s->value);
		x->in_lets = false;
		walk(x, k->body);
	}
	return any;
}

static void ix_free(Ix *x)
{
	free(x->ask);
	free(x->written);
	free(x->form);
	free(x->has_form);
}

bool interchange_pays(UirProgram *p, const Stmt *j, const Stmt *k)
{
	Ix x;
	bool ok = ix_walk(&x, p, j, k, false) && x.ok;
	ix_free(&x);
	return ok;
}

bool row_vectorises(UirProgram *p, const Stmt *j)
{
	Ix x;
	ix_init(&x, p, j, j, j, false);
	bool ok = mark_writes(&x, j->body);
	if (ok)
		walk(&x, j->body);
	ok = ok && x.ok && x.unit_write;
	for (int i = 0; i < p->nbufs + p->nallocs && ok; i++)
		ok = !x.ask[i];
	ix_free(&x);
	return ok;
}

/* The k loop of J when `loop j { LETS loop k { S } }` may run as `loop k { loop j { LETS S
 * } }` with every bit kept; with PAYS, only when that also makes the inner loop stride 1
 * (interchange_inner()); else *RED says whether S reduces into memory at an offset that is
 * invariant in k (what unroll-and-jam wants). */
static const Stmt *interchange_of(UirProgram *p, const Stmt *j, bool pays, bool *red)
{
	if (j->axis != AX_NONE || !invariant_bound(j->value, j) || !j->value->rng.known || j->value->rng.hi < 2)
		return NULL;
	const Stmt *k = inner_loop(j);
	if (!k)
		return NULL;
	int nm = p->nbufs + p->nallocs;
	Ix x;
	bool ok = ix_walk(&x, p, j, k, !pays) && x.ok && (!pays || x.unit_write);
	for (int i = 0; i < nm && ok; i++) {
		const char *why;
		if (x.ask[i])
			ok = loop_conflict(p, j, i < p->nbufs ? p->bufs[i] : p->allocs[i - p->nbufs], &why) == LC_NONE;
	}
	if (red)
		*red = x.red_write;
	ix_free(&x);
	return ok ? k : NULL;
}

const Stmt *interchange_inner(UirProgram *p, const Stmt *j)
{
	return interchange_of(p, j, true, NULL);
}

const Stmt *interchange_legal(UirProgram *p, const Stmt *j, bool *reduction)
{
	return interchange_of(p, j, false, reduction);
}

const Stmt *interchange_swap_legal(UirProgram *p, const Stmt *k)
{
	const Stmt *j = k->body;
	/* K's bound is evaluated again for each block of j, J for the blocks and the rest */
	if (k->axis != AX_NONE || !j || j->next || j->kind != ST_LOOP || j->axis != AX_NONE ||
	    !invariant_bound(k->value, k) || !invariant_bound(j->value, k) || !j->value->rng.known || j->value->rng.hi < 2 ||
	    !k->value->rng.known || k->value->rng.hi < 2)
		return NULL;
	Ix x;
	/* a written offset may not use k: then distinct j touch distinct elements */
	ix_init(&x, p, j, k, k, true);
	x.swap = true;
	mark_writes(&x, j->body);
	walk(&x, j->body);
	bool ok = x.ok && x.red_write && x.column_read;
	ix_free(&x);
	return ok ? j : NULL;
}

const Stmt *interchange_sink_legal(UirProgram *p, const Stmt *t, bool *pays)
{
	const Stmt *r = t->body, *s = r ? r->body : NULL;
	*pays = false;
	if (t->axis != AX_NONE || !r || r->next || r->kind != ST_LOOP || r->axis != AX_NONE || !s || s->next ||
	    s->kind != ST_LOOP || s->axis != AX_NONE)
		return NULL;
	/* each bound is evaluated elsewhere in the new nest, and as often as it likes */
	const Stmt *loops[3] = { t, r, s };
	for (int i = 0; i < 3; i++)
		if (!invariant_bound(loops[i]->value, t) || !loops[i]->value->rng.known || loops[i]->value->rng.hi < 1)
			return NULL;
	Ix x;
	ix_init(&x, p, t, s, t, true);
	x.rl = r;
	x.sl = s;
	bool any = mark_writes(&x, s->body);
	walk(&x, s->body);
	bool ok = any && x.ok;
	*pays = ok && x.column_read && !x.t_strided;
	ix_free(&x);
	return ok ? s : NULL;
}
