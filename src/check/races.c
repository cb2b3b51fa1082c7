/* races.c - the rules that keep threads and blocks apart (docs/language.md section 7; E0501,
 * E0502, E0503).
 *
 * Three kinds of checked code, each with a parallel index p:
 *   phase check:  one local loop, p its thread index, the block's other indices fixed;
 *   kernel check: a whole global body across its phases, p the block index;
 *   thread check: a thread loop's body, p the thread index.
 * In a 2-D or 3-D grid or block (a nest of global or local loops, docs/language.md 6.5) p is
 * the tuple of the nest's indices: the digits must determine each of them, and the exact
 * analysis numbers the tuples by one flat index.
 * For each memory that the code stores into (and that is not private to an iteration of p),
 * every access must have a unique-number offset (E0501) whose digits determine p (E0502),
 * and all accesses must share one normal form (E0503). The extensions of docs/language.md
 * 7.5 - atomics, one-thread branches, guarded sums, a single iteration - are off under
 * --strict. A race message names the memory and the accesses and, when the program's sizes
 * are small enough to enumerate, a pair of iterations that really collide, or says that
 * none does and the rule is conservative here.
 */
#include "normal.h"
#include "conflict_isl.h"
#include "footprint.h"
#include <stdlib.h>
#include <string.h>

typedef enum { CK_PHASE, CK_KERNEL, CK_THREAD } CheckKind;

typedef struct Guard { Norm s; int64_t c; } Guard;

#define MAXIFS 32

typedef struct Access {
	Mem *mem;
	bool store, atomic;
	AtomicOp aop;
	int width;
	Loc loc;
	Stmt *stmt;          /* the statement holding it (its context is stmt->parent) */
	Expr *load;          /* NULL for a store or atomic */
	Expr *off;
	Norm norm;
	const char *onethread; /* in the then-branch of `if (eq p C)`: C's normal form */
	Guard guards[8];
	int nguards;
} Access;

/* A colliding pair as numbers: iterations PA and PB of p (flat numbers), element ELEM; both
 * write it, or PA writes what PB reads. */
typedef struct Witness { int64_t pa, pb, elem; bool both_write; } Witness;

typedef struct Code {
	UirProgram *p;
	CheckKind kind;
	Stmt *root;          /* the parallel loop (the outermost of its nest) */
	const Sym *psym;     /* its index */
	const Sym *pidx[3];  /* the parallel index: the tuple of the nest's indices, x first */
	int np;
	const Sym *miss;     /* the index of the tuple an E0502 is about (its advice) */
	bool strict;
	bool exact;          /* the exact analysis decides what the rules reject */
	bool rules_only;     /* rules_accept(): no exact analysis, not even for a message's advice */
	bool rules_need_check; /* rules_accept(): the rules wanted an overflow check on entry */
	Access *acc;
	int nacc, cap;
	NormCtx nc;
	const Stmt *ifs[MAXIFS];
	bool thens[MAXIFS];
	int nifs;
	int *mstart;           /* the accesses to memory k (mem_key) are mlist[mstart[k] .. mstart[k+1]) */
	int *mlist;            /* access indices grouped by memory, each group in program order */
	bool *mstored;         /* memory k is stored into in the code */
	const Mem *coll_mem;   /* the memory whose collision() is cached */
	const char *coll;
	const char *coll_why;  /* why collision() could not decide, or NULL */
	struct isl_ctx *isl;   /* made on first use: the ISL budget of the code (conflict_isl.h) */
	long tuples_left;      /* the enumeration's budgets, shared by the code's memories */
	long work_left;
	struct IfPath *paths; /* by access: the ifs around it (collect()) */
	Witness coll_w;        /* the pair of coll, when it names one */
	FpCode *fp;            /* recording the footprint (uir check --footprint), else NULL */
	long fp_tuples, fp_work; /* the footprint enumeration's own budgets */
} Code;

typedef struct Digit {
	int64_t coef, largest; /* largest -1: unbounded (bound not a literal) */
	const char *name;
	const Term *t;         /* NULL for a vector or guarded-sum digit */
} Digit;

static const char *who(const Code *c) { return c->kind == CK_KERNEL ? "blocks" : c->kind == CK_PHASE ? "threads" : "iterations"; }
static const char *who1(const Code *c) { return c->kind == CK_KERNEL ? "block" : c->kind == CK_PHASE ? "thread" : "iteration"; }
static const char *code_name(const Code *c)
{
	return c->kind == CK_KERNEL ? "kernel" : c->kind == CK_PHASE ? "phase" : "thread loop";
}

static bool inside_loop(const Code *c, const Sym *y)
{
	return y && y->kind == SYM_LOOP && stmt_inside(y->def, c->root);
}

/* Which index of the parallel tuple Y is (0 = x), or -1. */
static int p_dim(const Code *c, const Sym *y)
{
	if (!y || !y->key)
		return -1;
	for (int i = 0; i < c->np; i++)
		if (c->pidx[i]->key && !strcmp(y->key, c->pidx[i]->key))
			return i;
	return -1;
}

static bool is_p(const Code *c, const Sym *y)
{
	return p_dim(c, y) >= 0;
}

/* The literal bound of index I of the parallel tuple, or -1. */
static int64_t p_bound(const Code *c, int i)
{
	const Stmt *l = c->pidx[i]->def;
	return l->value->kind == EX_LIT ? l->bound_lit : -1;
}

/* An iteration of p by its flat number (x fastest) as messages write it: "t=5", or
 * "(ty=0, tx=5)" for a tuple. */
static const char *p_text(const Code *c, int64_t flat)
{
	if (c->np == 1)
		return fmt_str(&c->p->arena, "%s=%lld", c->pidx[0]->name, (long long)flat);
	int64_t v[3];
	for (int i = 0; i < c->np; i++) {
		int64_t b = p_bound(c, i) > 0 ? p_bound(c, i) : 1;
		v[i] = flat % b;
		flat /= b;
	}
	if (c->np == 2)
		return fmt_str(&c->p->arena, "(%s=%lld, %s=%lld)", c->pidx[1]->name, (long long)v[1], c->pidx[0]->name,
			       (long long)v[0]);
	return fmt_str(&c->p->arena, "(%s=%lld, %s=%lld, %s=%lld)", c->pidx[2]->name, (long long)v[2],
		       c->pidx[1]->name, (long long)v[1], c->pidx[0]->name, (long long)v[0]);
}

static bool skipped(const Code *c, const Mem *m)
{
	return c->kind != CK_PHASE && m->is_alloc && m->home == c->root;
}

/* Memories numbered for the per-memory tables of a Code: buffers, then allocs. */
static int mem_key(const Code *c, const Mem *m)
{
	return m->is_alloc ? c->p->nbufs + m->index : m->index;
}

/* The range of M's accesses in c->mlist. */
static int mbeg(const Code *c, const Mem *m) { return c->mstart[mem_key(c, m)]; }
static int mend(const Code *c, const Mem *m) { return c->mstart[mem_key(c, m) + 1]; }

static bool stored_in_code(const Code *c, const Mem *m)
{
	return c->mstored[mem_key(c, m)];
}

static bool uniform_expr(const Code *c, const Expr *e, bool outside, int depth, long *budget)
{
	if (depth > NORM_MAX_DEPTH || --*budget < 0)
		return false;
	switch (e->kind) {
	case EX_LIT:
		return true;
	case EX_NAME:
		if (!e->sym)
			return false;
		if (e->sym->kind == SYM_LET)
			return uniform_expr(c, e->sym->def->value, outside || !stmt_inside(e->sym->def, c->root), depth + 1, budget);
		return !inside_loop(c, e->sym);
	case EX_OP:
		if (e->op == OP_LOAD && !outside && (stored_in_code(c, e->mem) || skipped(c, e->mem)))
			return false;
		for (int i = 0; i < e->nargs; i++)
			if (!uniform_expr(c, e->args[i], outside, depth + 1, budget))
				return false;
		return true;
	}
	return false;
}

static bool uniform_term(const Code *c, const Term *t)
{
	if (t->kind != TM_OPAQUE)
		return !inside_loop(c, t->index);
	long budget = 100000;
	return uniform_expr(c, t->expr, t->outside, 0, &budget);
}

/* The largest value of a digit term, -1 when its loop's bound is not a literal. */
static int64_t largest(const Term *t)
{
	int64_t n = t->index->def->bound_lit;
	bool lit = t->index->def->value->kind == EX_LIT;
	if (lit && n < 1)
		return 0;
	switch (t->kind) {
	case TM_INDEX: return lit ? n - 1 : -1;
	case TM_DIV: return lit ? (n - 1) / t->d : -1;
	case TM_MOD: return lit ? (t->d < n ? t->d : n) - 1 : t->d - 1;
	default: return -1;
	}
}

/* ---- collecting accesses ---- */

static void add_access(Code *c, Mem *m, Stmt *at, Expr *load)
{
	if (c->nacc == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		c->acc = xrealloc(c->acc, (size_t)c->cap * sizeof *c->acc);
	}
	Access *a = &c->acc[c->nacc++];
	memset(a, 0, sizeof *a);
	a->mem = m;
	a->stmt = at;
	a->load = load;
	a->store = !load;
	a->atomic = !load && at->kind == ST_ATOMIC;
	a->aop = at->aop;
	a->width = load ? load->width : at->width;
	a->off = load ? load->args[0] : at->off;
	a->loc = a->off->loc; /* the caret goes under the offset */
}

/* the enclosing ifs of an access within the code (Code.paths) */
typedef struct IfPath { const Stmt *ifs[MAXIFS]; bool thens[MAXIFS]; int n; } IfPath;

/* Keeps the ifs around the position of the access just added. */
static void keep_path(Code *c)
{
	c->paths = xrealloc(c->paths, (size_t)c->cap * sizeof *c->paths);
	memcpy(c->paths[c->nacc - 1].ifs, c->ifs, sizeof c->ifs);
	memcpy(c->paths[c->nacc - 1].thens, c->thens, sizeof c->thens);
	c->paths[c->nacc - 1].n = c->nifs;
}

static void collect_expr(Code *c, Expr *e, Stmt *at)
{
	if (e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		collect_expr(c, e->args[i], at);
	if (e->op == OP_LOAD && e->mem) {
		add_access(c, e->mem, at, e);
		keep_path(c);
	}
}

static void collect(Code *c, Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			collect_expr(c, s->value, s);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			collect_expr(c, s->off, s);
			collect_expr(c, s->val, s);
			add_access(c, s->mem, s, NULL);
			keep_path(c);
			break;
		case ST_LOOP:
			collect_expr(c, s->value, s);
			collect(c, s->body);
			break;
		case ST_IF:
			collect_expr(c, s->cond, s);
			if (c->nifs < MAXIFS) {
				c->ifs[c->nifs] = s;
				c->thens[c->nifs] = true;
				c->nifs++;
				collect(c, s->then_);
				c->thens[c->nifs - 1] = false;
				collect(c, s->else_);
				c->nifs--;
			} else {
				/* deeper ifs are not recorded: their accesses count as always run, which
				 * can only add collisions (sound) */
				collect(c, s->then_);
				collect(c, s->else_);
			}
			break;
		default:
			break;
		}
	}
}

/* ---- digits ---- */

static int by_coef(const void *x, const void *y)
{
	const Digit *a = x, *b = y;
	/* unbounded digits sort last among equals so that a tie is still found */
	return a->coef < b->coef ? -1 : a->coef > b->coef;
}

/* Whether the digits D[0..n) form a unique number; on failure writes why into MSG. */
static bool unique_number(Code *c, Digit *d, int n, int64_t c0, char *msg, size_t msglen, bool check_max)
{
	qsort(d, (size_t)n, sizeof *d, by_coef);
	int64_t below = 0; /* the most the smaller digits add up to */
	for (int i = 0; i < n; i++) {
		if (d[i].largest < 0 && i != n - 1) {
			snprintf(msg, msglen, "digit %s has no literal bound, so it may only be the digit with the largest "
				 "coefficient, but %s has coefficient %lld > %lld", d[i].name, d[n - 1].name,
				 (long long)d[n - 1].coef, (long long)d[i].coef);
			return false;
		}
		if (i > 0 && d[i].coef == d[i - 1].coef) {
			snprintf(msg, msglen, "digits %s and %s have the same coefficient %lld", d[i - 1].name, d[i].name,
				 (long long)d[i].coef);
			return false;
		}
		if (d[i].coef <= below) {
			/* name the lower digits that overlap */
			char lower[512];
			size_t len = 0;
			lower[0] = 0;
			for (int j = 0; j < i && len < sizeof lower - 80; j++)
				len += (size_t)snprintf(lower + len, sizeof lower - len, "%s%s (coefficient %lld, largest %lld)",
							j ? " + " : "", d[j].name, (long long)d[j].coef, (long long)d[j].largest);
			snprintf(msg, msglen, "digits overlap: %s can reach %lld, which is not below the coefficient %lld of %s "
				 "(largest %lld)", lower, (long long)below, (long long)d[i].coef, d[i].name,
				 (long long)d[i].largest);
			return false;
		}
		if (d[i].largest >= 0) {
			int64_t v;
			if (__builtin_mul_overflow(d[i].coef, d[i].largest, &v) || __builtin_add_overflow(below, v, &below)) {
				snprintf(msg, msglen, "the largest offset is beyond 2^31-1");
				return false;
			}
		}
	}
	(void)c;
	if (check_max) {
		int64_t top;
		if (__builtin_add_overflow(c0, below, &top) || top > INT32_MAX) {
			snprintf(msg, msglen, "the largest offset, %lld, is beyond 2^31-1 = 2147483647 (it would wrap)",
				 (long long)(c0 + below));
			return false;
		}
	}
	return true;
}

/* A guarded sum (then-branch of `if (lt S C)` / `if (gt C S)`), or false. */
static bool guard_of(Code *c, const Stmt *ifs, Guard *g)
{
	const Expr *e = ifs->cond;
	if (e->kind != EX_OP || (e->op != OP_LT && e->op != OP_GT) || e->nargs != 2)
		return false;
	const Expr *s = e->op == OP_LT ? e->args[0] : e->args[1];
	const Expr *lim = e->op == OP_LT ? e->args[1] : e->args[0];
	if (lim->kind != EX_LIT || lim->ty != UIR_I32 || lim->val.i < 1 || s->ty != UIR_I32)
		return false;
	Norm n = normalize(&c->nc, s);
	if (n.bad || n.c0 < 0 || n.n == 0)
		return false;
	Digit d[64];
	int nd = 0, k = 0;
	for (int i = 0; i < n.n; i++) {
		const Term *t = n.v[i].t;
		if (t->kind == TM_OPAQUE || !inside_loop(c, t->index) || n.v[i].coef <= 0 || largest(t) < 0 || nd == 64)
			return false;
		if (largest(t) == 0)
			continue; /* digits whose largest value is 0 drop */
		d[nd++] = (Digit){ n.v[i].coef, largest(t), t->key, t };
		n.v[k++] = n.v[i];
	}
	n.n = k;
	if (nd == 0)
		return false;
	char msg[256];
	int64_t top = n.c0;
	for (int i = 0; i < nd; i++)
		top += d[i].coef * d[i].largest;
	if (!unique_number(c, d, nd, n.c0, msg, sizeof msg, true) || top > INT32_MAX)
		return false;
	g->s = n;
	g->c = lim->val.i;
	return true;
}

/* When COND is `eq p C` / `eq C p` with p an index of the parallel tuple and C uniform:
 * which index (0 = x), with C's normal form as text in *KEY; else -1. */
static int one_eq(Code *c, const Expr *cond, const char **key)
{
	if (cond->kind != EX_OP || cond->op != OP_EQ || cond->nargs != 2 || cond->args[0]->ty != UIR_I32)
		return -1;
	for (int k = 0; k < 2; k++) {
		Norm x = normalize(&c->nc, cond->args[k]);
		if (x.bad || x.c0 != 0 || x.n != 1 || x.v[0].coef != 1 || x.v[0].t->kind != TM_INDEX ||
		    !is_p(c, x.v[0].t->index))
			continue;
		Norm cn = normalize(&c->nc, cond->args[1 - k]);
		if (cn.bad)
			return -1;
		for (int i = 0; i < cn.n; i++)
			if (!uniform_term(c, cn.v[i].t))
				return -1;
		/* a canonical key: c0 and sorted term keys */
		char buf[2048];
		size_t len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)cn.c0);
		for (int i = 0; i < cn.n && len < sizeof buf - 200; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "|%lld*%.150s", (long long)cn.v[i].coef,
						cn.v[i].t->key);
		*key = arena_strndup(c->nc.a, buf, len);
		return p_dim(c, x.v[0].t->index);
	}
	return -1;
}

/* The indices of the parallel tuple that the then-branch of COND fixes: `eq p C` and the
 * operands of a bool `and` of such conditions (docs/language.md 7.5.2). KEYS[i] gets C's
 * form for index i, the first one found. */
static void one_facts(Code *c, const Expr *cond, const char **keys, int depth)
{
	if (cond->kind == EX_OP && cond->op == OP_AND && cond->nargs == 2 && cond->ty == UIR_BOOL && cond->lanes == 1 &&
	    depth < 64) {
		one_facts(c, cond->args[0], keys, depth + 1);
		one_facts(c, cond->args[1], keys, depth + 1);
		return;
	}
	const char *k = NULL;
	int d = one_eq(c, cond, &k);
	if (d >= 0 && !keys[d])
		keys[d] = k;
}

/* ---- the exact analysis: which iterations touch which elements ---- */

/* Exact for the program's sizes (docs/language.md 7.6): for every value of
 * the loops around the checked code that the code uses, every iteration of p with all the
 * loops inside it is run in the evaluator (eval.c, the interpreter's own ops) over the
 * accesses to one memory, recording which iteration of p wrote each element; a second
 * iteration of p that writes or reads a written element collides. Undecidable when an
 * offset, a guard or a bound needs a value that is not known when checking (a load, a name
 * with no value), or past the budgets below: then the rule's verdict stands. */

enum {
	EXACT_TUPLES = 1 << 21,      /* iteration tuples visited, at most, per checked code (all
	                              * its memories together: about 0.2 s) */
	EXACT_ELEMENTS = 1 << 20,    /* distinct elements written in one run of the code */
	EXACT_ISL_FROM = 1 << 13,    /* tuples from which ISL is asked first: enumerating costs
	                              * about 0.25-0.5 us a tuple (2^13: 2-4 ms, 2^16 took 15 ms),
	                              * an ISL question 1-3 ms at any size (docs/language.md
	                              * 7.6.4): the loop optimiser asks about every big loop */
};
#define EXACT_WORK 40000000L     /* expression nodes evaluated, at most, per checked code */

/* An element written in one run of the code: by iteration PVAL (access ACC), and when every
 * write so far is one atomic op (ATOM, AOP), perhaps by a second iteration PVAL2 (HAS2):
 * same-op atomics of two iterations commute, so they do not collide with each other. */
typedef struct Hit {
	int64_t off, pval, pval2;
	int acc, acc2;
	bool used, atom, has2;
	AtomicOp aop;
} Hit;

/* Open addressing, at most half full; SLOTS lists the slots in use, to clear them. */
typedef struct Table { Hit *v; size_t cap, used; size_t *slots; } Table;

static Hit *table_slot(Table *t, int64_t off)
{
	size_t h = (size_t)((uint64_t)off * 0x9E3779B97F4A7C15u >> 20) & (t->cap - 1);
	while (t->v[h].used && t->v[h].off != off)
		h = (h + 1) & (t->cap - 1);
	return &t->v[h];
}

/* Puts H into T (its element not there yet). */
static void table_put(Table *t, Hit h)
{
	if (t->used + 1 > t->cap / 2) {
		Hit *old = t->v;
		t->cap *= 2;
		t->v = xcalloc(t->cap, sizeof *t->v);
		t->slots = xrealloc(t->slots, t->cap / 2 * sizeof *t->slots);
		for (size_t i = 0; i < t->used; i++) {
			Hit *n = table_slot(t, old[t->slots[i]].off);
			*n = old[t->slots[i]];
			t->slots[i] = (size_t)(n - t->v);
		}
		free(old);
	}
	Hit *n = table_slot(t, h.off);
	*n = h;
	t->slots[t->used++] = (size_t)(n - t->v);
}

static void table_clear(Table *t)
{
	for (size_t i = 0; i < t->used; i++)
		t->v[t->slots[i]].used = false;
	t->used = 0;
}

typedef struct Enum {
	Code *c;
	const Mem *m;
	Table tab;
	int pass;          /* 0: record writes; 1: look for a conflict */
	int acc;           /* the access being enumerated */
	const Sym *syms[128];
	int64_t vals[128];
	int n;             /* bound names: the outer loops, then the access's own loops */
	long budget;       /* iteration tuples left */
	long work;         /* expression nodes left to evaluate */
	const char *why;   /* set when the question cannot be decided */
	bool over_budget;  /* ... because a budget ran out */
	char *found;
	Witness w;         /* found's pair */
	FpMem *rec;        /* the footprint's record: every access's elements go there, and
	                    * nothing is compared */
} Enum;

static void undecidable(Enum *en, const char *why)
{
	if (!en->why)
		en->why = why;
}

static void over_budget(Enum *en, const char *why)
{
	if (!en->why)
		en->over_budget = true;
	undecidable(en, why);
}

/* The witness messages, for the enumeration and for ISL alike: iterations PA and PB of the
 * parallel index (flat numbers, pvalue()) both write M[O] (accesses AA and AB), or PA
 * writes what PB reads. */
static char *both_write(const Code *c, const Mem *m, int64_t pa, int aa, int64_t pb, int ab, int64_t o)
{
	int64_t x = pa < pb ? pa : pb, y = pa < pb ? pb : pa;
	return fmt_str(&c->p->arena, "%s %s and %s both write %s[%lld] (lines %d and %d)", who(c), p_text(c, x),
		       p_text(c, y), m->name, (long long)o, c->acc[aa].loc.line, c->acc[ab].loc.line);
}

static char *write_read(const Code *c, const Mem *m, int64_t pw, int aw, int64_t pr, int ar, int64_t o)
{
	return fmt_str(&c->p->arena, "%s %s writes %s[%lld] (line %d), which %s %s reads (line %d)", who1(c),
		       p_text(c, pw), m->name, (long long)o, c->acc[aw].loc.line, who1(c), p_text(c, pr),
		       c->acc[ar].loc.line);
}

/* The iteration of p being visited, by its flat number: x fastest (docs/language.md 7.6.1:
 * two different tuples never share a number). */
static int64_t pvalue(Enum *en)
{
	int64_t v[3] = { 0, 0, 0 };
	for (int i = 0; i < en->n; i++) {
		int d = p_dim(en->c, en->syms[i]);
		if (d >= 0)
			v[d] = en->vals[i];
	}
	int64_t flat = 0;
	for (int d = en->c->np - 1; d >= 0; d--)
		flat = flat * (p_bound(en->c, d) > 0 ? p_bound(en->c, d) : 1) + v[d];
	return flat;
}

/* One iteration tuple: the access's guards, then its elements. */
static void visit(Enum *en)
{
	Code *c = en->c;
	Access *a = &c->acc[en->acc];
	EvalEnv env = { en->syms, en->vals, en->n, true };
	IfPath *ip = &c->paths[en->acc];
	for (int i = 0; i < ip->n; i++) {
		int64_t v;
		if (!eval_int_budget(ip->ifs[i]->cond, &env, &v, &en->work)) {
			(en->work < 0 ? over_budget : undecidable)(en, en->work < 0 ? "more than 4*10^7 expression nodes to evaluate" :
				    fmt_str(&c->p->arena, "the condition on line %d is not known when checking (it loads "
					    "memory or uses a value computed at run time)", ip->ifs[i]->loc.line));
			return;
		}
		if ((v != 0) != ip->thens[i])
			return;
	}
	int64_t off;
	if (!eval_int_budget(a->off, &env, &off, &en->work)) {
		(en->work < 0 ? over_budget : undecidable)(en, en->work < 0 ? "more than 4*10^7 expression nodes to evaluate" :
			    fmt_str(&c->p->arena, "the offset of %s on line %d is not known when checking (it loads memory "
				    "or uses a value computed at run time)", a->mem->name, a->loc.line));
		return;
	}
	int64_t pv = pvalue(en);
	if (en->rec) {
		for (int k = 0; k < a->width; k++)
			fp_touch(en->rec, (int64_t)(int32_t)(uint32_t)(off + k), pv, a->store);
		return;
	}
	for (int k = 0; k < a->width && !en->found; k++) {
		int64_t o = (int64_t)(int32_t)(uint32_t)(off + k);
		Hit *h = table_slot(&en->tab, o);
		if (en->pass == 0) {
			if (!a->store)
				continue;
			if (!h->used) {
				if (en->tab.used >= EXACT_ELEMENTS) {
					over_budget(en, "more than 2^20 elements written in one run of the code");
					return;
				}
				table_put(&en->tab, (Hit){ .off = o, .pval = pv, .acc = en->acc, .used = true,
							   .atom = a->atomic, .aop = a->aop });
				continue;
			}
			if (h->atom && a->atomic && a->aop == h->aop) {
				if (pv != h->pval && !h->has2) {
					h->pval2 = pv;
					h->acc2 = en->acc;
					h->has2 = true;
				}
				continue;
			}
			/* a plain write or another op: it collides with any other iteration's write */
			int64_t other = h->pval != pv ? h->pval : h->has2 ? h->pval2 : pv;
			int oacc = h->pval != pv ? h->acc : h->acc2;
			h->atom = false;
			if (other != pv) {
				en->found = both_write(c, a->mem, other, oacc, pv, en->acc, o);
				en->w = (Witness){ other, pv, o, true };
			}
		} else if (!a->store && h->used && (h->pval != pv || h->has2)) {
			int64_t w = h->pval != pv ? h->pval : h->pval2;
			int wacc = h->pval != pv ? h->acc : h->acc2;
			en->found = write_read(c, a->mem, w, wacc, pv, en->acc, o);
			en->w = (Witness){ w, pv, o, false };
		}
	}
}

/* The loops from the checked code's root down to access A, outermost first. In a nest
 * every loop of the parallel tuple comes first, also for an access in the lets between
 * them: every block (thread) of the tuple evaluates those (docs/language.md 6.5.5). */
static int access_loops(const Code *c, const Access *a, Stmt **out, int max)
{
	int n = 0;
	for (Stmt *s = a->stmt->parent; s; s = s->parent) {
		if (s->kind != ST_LOOP || !stmt_inside(s, c->root))
			continue;
		if (c->np > 1 && s->nest == c->root && s->axis == c->root->axis)
			continue; /* a loop of the tuple: added below */
		if (n + c->np >= max)
			return -1;
		out[n++] = s;
	}
	if (c->np > 1)
		for (int i = 0; i < c->np; i++)
			out[n++] = c->root->dims[i]; /* x first: reversed below */
	for (int i = 0; i < n / 2; i++) {
		Stmt *t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

/* The bound of loop L, evaluated with the names bound so far; false (the question is
 * undecidable) when it is not known when checking. */
static bool loop_bound(Enum *en, const Stmt *l, int64_t *bound)
{
	EvalEnv env = { en->syms, en->vals, en->n, true };
	if (eval_int_budget(l->value, &env, bound, &en->work))
		return true;
	undecidable(en, fmt_str(&en->c->p->arena, "the bound of loop %s (line %d) is not known when checking",
				l->sym->name, l->loc.line));
	return false;
}

/* Runs the loops L[i..n), then visits. */
static void enum_loops(Enum *en, Stmt **l, int i, int n)
{
	if (en->found || en->why)
		return;
	if (i == n) {
		if (--en->budget < 0) {
			over_budget(en, "more than 2^21 iterations to enumerate");
			return;
		}
		visit(en);
		return;
	}
	int64_t bound;
	if (!loop_bound(en, l[i], &bound))
		return;
	int k = en->n++;
	en->syms[k] = l[i]->sym;
	for (int64_t v = 0; v < bound && !en->found && !en->why; v++) {
		en->vals[k] = v;
		enum_loops(en, l, i + 1, n);
	}
	en->n--;
}

/* One run of the checked code, the outer loops' values fixed: writes, then reads. */
static void exact_run(Enum *en)
{
	Code *c = en->c;
	table_clear(&en->tab);
	for (en->pass = 0; en->pass < 2 && !en->found && !en->why; en->pass++)
		for (int j = mbeg(c, en->m); j < mend(c, en->m) && !en->found && !en->why; j++) {
			int i = c->mlist[j];
			Access *a = &c->acc[i];
			if (a->store != (en->pass == 0))
				continue;
			Stmt *l[64];
			int nl = access_loops(c, a, l, 64);
			if (nl < 0) {
				undecidable(en, "loops nested too deep to enumerate");
				return;
			}
			en->acc = i;
			enum_loops(en, l, 0, nl);
		}
}

/* Whether symbol Y is named in E (through lets); true when the walk runs out of budget. */
static bool names(const Expr *e, const Sym *y, int depth, long *budget)
{
	if (depth > NORM_MAX_DEPTH || --*budget < 0)
		return true;
	if (e->kind == EX_NAME)
		return e->sym == y || (e->sym && e->sym->kind == SYM_LET && names(e->sym->def->value, y, depth + 1, budget));
	for (int i = 0; i < e->nargs; i++)
		if (names(e->args[i], y, depth + 1, budget))
			return true;
	return false;
}

/* Whether the accesses to M in C (their offsets, guards and loop bounds) can depend on Y. */
static bool code_uses(const Code *c, const Mem *m, const Sym *y)
{
	long budget = 200000;
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		int i = c->mlist[j];
		const Access *a = &c->acc[i];
		if (names(a->off, y, 0, &budget))
			return true;
		for (int k = 0; k < c->paths[i].n; k++)
			if (names(c->paths[i].ifs[k]->cond, y, 0, &budget))
				return true;
		for (Stmt *s = a->stmt->parent; s && stmt_inside(s, c->root); s = s->parent)
			if (s->kind == ST_LOOP && names(s->value, y, 0, &budget))
				return true;
	}
	return false;
}

/* Every value of the outer loops L[i..n) whose USED is set, outermost first; a loop that
 * nothing depends on runs once, at 0 (one value stands for all), then one run of the code. */
static void exact_outer(Enum *en, Stmt **l, const bool *used, int i, int n)
{
	if (en->found || en->why)
		return;
	if (i == n) {
		exact_run(en);
		return;
	}
	int64_t bound = 1;
	if (used[i] && !loop_bound(en, l[i], &bound))
		return;
	int k = en->n++;
	en->syms[k] = l[i]->sym;
	for (int64_t v = 0; v < bound && !en->found && !en->why; v++) {
		en->vals[k] = v;
		exact_outer(en, l, used, i + 1, n);
	}
	en->n--;
}

/* A loop's trip count at most, from its bound's value range; *EXACT cleared when the
 * bound is not one known value. */
static double trips(const Stmt *l, bool *exact)
{
	Range r = l->value->rng;
	if (!r.known || r.lo != r.hi)
		*exact = false;
	return !r.known ? 2e9 : r.hi > 1 ? (double)r.hi : 1;
}

/* The most iteration tuples enumerating M's accesses could take (outer loops that USED
 * marks, then each access's own loops); *EXACT: every bound is one known value, so the
 * enumeration takes exactly that many. */
static double tuples_estimate(Code *c, const Mem *m, Stmt **outer, const bool *used, int no, bool *exact)
{
	double outer_n = 1, inner = 0;
	*exact = true;
	for (int i = 0; i < no; i++)
		if (used[i])
			outer_n *= trips(outer[i], exact);
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		Stmt *l[64];
		int nl = access_loops(c, &c->acc[c->mlist[j]], l, 64);
		double n = 1;
		for (int k = 0; k < nl; k++)
			n *= trips(l[k], exact);
		inner += n;
	}
	return outer_n * inner;
}

/* The question of collision_of() put to ISL (conflict_isl.c): a witness message, "" for no
 * collision, NULL (with *WHY) when it cannot decide. */
static const char *collision_isl(Code *c, const Mem *m, Stmt **outer, int no, const char **why, Witness *w)
{
	if (c->np > 1) { /* the question is put with one parallel index, not a tuple */
		*why = "the integer set library is asked about one parallel index, not a grid's or block's tuple";
		return NULL;
	}
	int n = mend(c, m) - mbeg(c, m);
	IslAccess *acc = xcalloc((size_t)n + 1, sizeof *acc);
	Stmt **loops = xmalloc(((size_t)n * 64 + 1) * sizeof *loops);
	int *at = xmalloc(((size_t)n + 1) * sizeof *at);
	const char *r = NULL;
	for (int k = 0; k < n; k++) {
		int i = c->mlist[mbeg(c, m) + k];
		const Access *a = &c->acc[i];
		at[k] = i;
		acc[k] = (IslAccess){ a->off, a->width, a->store, a->atomic, a->aop, loops + 64 * k, 0,
				      c->paths[i].ifs, c->paths[i].thens, c->paths[i].n };
		acc[k].nloops = access_loops(c, a, loops + 64 * k, 64);
		if (acc[k].nloops < 1) {
			*why = "loops nested too deep to enumerate";
			goto out;
		}
	}
	if (!c->isl)
		c->isl = isl_budget_ctx();
	IslQuestion q = { c->p, c->isl, outer, no, acc, n, NULL };
	IslPair pair;
	switch (isl_conflict(&q, &pair, why)) {
	case ISL_NONE:
		r = "";
		break;
	case ISL_FOUND:
		r = acc[pair.b].store ? both_write(c, m, pair.pa, at[pair.a], pair.pb, at[pair.b], pair.elem)
				      : write_read(c, m, pair.pa, at[pair.a], pair.pb, at[pair.b], pair.elem);
		*w = (Witness){ pair.pa, pair.pb, pair.elem, acc[pair.b].store };
		break;
	case ISL_UNKNOWN:
		break;
	}
out:
	free(acc);
	free(loops);
	free(at);
	return r;
}

/* An enumeration of M's accesses in C with budgets TUPLES and WORK (free with enum_close()). */
static void enum_open(Enum *en, Code *c, const Mem *m, long tuples, long work)
{
	memset(en, 0, sizeof *en);
	en->c = c;
	en->m = m;
	en->tab.cap = 1 << 6;
	en->tab.v = xcalloc(en->tab.cap, sizeof *en->tab.v);
	en->tab.slots = xmalloc(en->tab.cap / 2 * sizeof *en->tab.slots);
	en->budget = tuples;
	en->work = work;
}

static void enum_close(Enum *en)
{
	free(en->tab.v);
	free(en->tab.slots);
}

/* The loops around the checked code, outermost first, into OUTER (returns how many), and
 * which of them matter to M in USED: named by an access to M (its offset, guards, loop
 * bounds) or by the bound of an outer loop inside it; decided once, not per outer value. */
static int outer_loops(Enum *en, Stmt **outer, bool *used)
{
	Code *c = en->c;
	int no = 0;
	for (Stmt *s = c->root->parent; s && !en->why; s = s->parent) {
		if (s->kind != ST_LOOP)
			continue;
		if (no == 64)
			undecidable(en, "loops nested too deep to enumerate");
		else
			outer[no++] = s;
	}
	for (int i = 0; i < no / 2; i++) {
		Stmt *t = outer[i];
		outer[i] = outer[no - 1 - i];
		outer[no - 1 - i] = t;
	}
	for (int i = 0; i < no; i++) {
		used[i] = code_uses(c, en->m, outer[i]->sym);
		long budget = 200000;
		for (int j = i + 1; j < no && !used[i]; j++)
			used[i] = names(outer[j]->value, outer[i]->sym, 0, &budget);
	}
	return no;
}

/* The footprint of M in C (footprint.h): the enumeration of collision_of(), every access
 * recorded into FM, with the footprint's own budgets (the check's are not touched). */
static void footprint_memory(Code *c, const Mem *m, FpMem *fm)
{
	Enum en;
	enum_open(&en, c, m, c->fp_tuples, c->fp_work);
	en.rec = fm;
	Stmt *outer[64];
	bool used[64];
	int no = outer_loops(&en, outer, used);
	if (!en.why)
		exact_outer(&en, outer, used, 0, no);
	c->fp_tuples = en.budget > 0 ? en.budget : 0;
	c->fp_work = en.work > 0 ? en.work : 0;
	if (en.why)
		fp_stopped(fm, en.why, en.over_budget);
	enum_close(&en);
}

static const char *collision_of(Code *c, const Mem *m, const char **why, Witness *w)
{
	Enum en;
	enum_open(&en, c, m, c->tuples_left, c->work_left);
	Stmt *outer[64];
	bool used[64];
	int no = outer_loops(&en, outer, used);
	Witness iw = { 0, 0, 0, false };
	/* Enumerate where that is cheap; past the budget (seen beforehand from the bounds'
	 * ranges, or found on the way) ask ISL (docs/language.md 7.6).
	 * UIR_EXACT_ISL=1 asks ISL first at every size, =only asks ISL alone, =0 never: the
	 * tests and benchmarks compare the two (docs/testing.md). */
	const char *force = getenv("UIR_EXACT_ISL");
	bool isl_first = force && (!strcmp(force, "1") || !strcmp(force, "only"));
	bool no_isl = force && !strcmp(force, "0");
	bool exact_count;
	double tuples = en.why ? 0 : tuples_estimate(c, m, outer, used, no, &exact_count);
	bool big = !en.why && !no_isl && (isl_first || tuples > (double)EXACT_ISL_FROM);
	const char *iwhy = NULL, *r = NULL;
	if (big && (r = collision_isl(c, m, outer, no, &iwhy, &iw)) != NULL)
		goto done;
	if (big && isl_first && !strcmp(force, "only")) {
		en.why = iwhy;
		goto done;
	}
	if (!en.why && big && exact_count && tuples > (double)c->tuples_left)
		over_budget(&en, "more than 2^21 iterations to enumerate"); /* known without trying */
	if (!en.why)
		exact_outer(&en, outer, used, 0, no);
	c->tuples_left = en.budget > 0 ? en.budget : 0;
	c->work_left = en.work > 0 ? en.work : 0;
	if (en.over_budget && !big && !no_isl && (r = collision_isl(c, m, outer, no, &iwhy, &iw)) != NULL)
		goto done;
	if (en.over_budget && iwhy)
		en.why = fmt_str(&c->p->arena, "%s, and %s", en.why, iwhy);
done:
	enum_close(&en);
	if (r) {
		*why = NULL;
		if (w)
			*w = iw;
		return r;
	}
	*why = en.why;
	if (en.found) {
		if (w)
			*w = en.w;
		return en.found;
	}
	return en.why ? NULL : "";
}

/* "threads t=0 and t=8 both write tile[0] (lines 4 and 4)", "" when no two iterations of p
 * collide, NULL when that cannot be decided (c->coll_why says why). Cached: one
 * enumeration per memory and checked code. */
static const char *collision(Code *c, const Mem *m)
{
	if (c->rules_only)
		return NULL;
	if (c->coll_mem != m) {
		c->coll = collision_of(c, m, &c->coll_why, &c->coll_w);
		c->coll_mem = m;
	}
	return c->coll;
}

/* What went wrong, for the advice of a race message. */
typedef enum { R_OVERLAP, R_TERM, R_INDEX, R_TWO_OFFSETS } RaceKind;

static const char *advice(const Code *c, const Mem *m, RaceKind r, const char *pair)
{
	const char *fix;
	switch (r) {
	case R_OVERLAP:
		fix = fmt_str(&c->p->arena, "give each %s its own elements: every digit's coefficient must exceed what the "
			      "smaller digits can add up to (a guard `if (lt S C)` can bound a sum of digits)", who1(c));
		break;
	case R_TERM:
		fix = "build the offset from loop indices and literals, or load the value before the parallel loop (a let "
		      "outside it)";
		break;
	case R_INDEX: {
		const char *n = (c->miss ? c->miss : c->psym)->name;
		if (c->np > 1)
			fix = fmt_str(&c->p->arena, "use %s itself (or mod %s e with e >= its bound) in the offset so that each "
				      "%s has its own element; for one writer, an if that fixes every index, `if (and (eq %s 0) "
				      "(eq %s 0))`", n, n, who1(c), c->pidx[1]->name, c->pidx[0]->name);
		else
			fix = fmt_str(&c->p->arena, "use %s itself (or mod %s e with e >= its bound) in the offset so that each %s "
				      "has its own element; for one writer, `if (eq %s 0)`", n, n, who1(c), n);
		break;
	}
	default:
		fix = c->kind == CK_PHASE ? "write and read it in different phases (a second local loop), or use a double "
					    "buffer"
					  : "access it at one offset expression, or use a double buffer";
		break;
	}
	if (!pair && c->coll_why && c->exact)
		return fmt_str(&c->p->arena, "the exact analysis cannot decide this for the program's sizes: %s; usual "
			       "rewrite: %s", c->coll_why, fix);
	if (!pair)
		return fmt_str(&c->p->arena, "usual rewrite: %s", fix);
	if (!*pair)
		return fmt_str(&c->p->arena, "for this program's sizes no two %s touch the same element of %s: the rule is "
			       "conservative here; usual rewrite: %s", who(c), m->name, fix);
	return fmt_str(&c->p->arena, "%s\nusual rewrite: %s", pair, fix);
}

/* ---- the rules ---- */

static const char *acc_desc(Code *c, const Access *a)
{
	return fmt_str(&c->p->arena, "%s %s at offset %s (line %d)",
		       a->atomic ? "atomic" : a->store ? "store to" : "load of", a->mem->name,
		       norm_text(&c->p->arena, &a->norm), a->loc.line);
}

/* The top digit D[N-1] has no literal bound (D sorted by coefficient): on entry to its loop
 * run checks that the largest offset fits in i32 (docs/language.md 7.4.2). */
static void record_overflow_check(Code *c, const Access *a, const Digit *d, int n)
{
	if (c->rules_only) { /* rules_accept(): the loop has no such check; the rules do not decide */
		c->rules_need_check = true;
		return;
	}
	int64_t base = a->norm.c0, v;
	for (int j = 0; j < n - 1; j++) {
		if (__builtin_mul_overflow(d[j].coef, d[j].largest, &v) || __builtin_add_overflow(base, v, &base))
			return; /* already reported as E0501 */
	}
	const Term *t = d[n - 1].t;
	Stmt *loop = (Stmt *)t->index->def; /* the program's own arena: the checker annotates it */
	for (int i = 0; i < loop->novf; i++)
		if (loop->ovf[i].at.line == a->loc.line && loop->ovf[i].at.col == a->loc.col)
			return;
	OverflowCheck *o = arena_alloc(&c->p->arena, (size_t)(loop->novf + 1) * sizeof *o);
	if (loop->novf)
		memcpy(o, loop->ovf, (size_t)loop->novf * sizeof *o);
	o[loop->novf] = (OverflowCheck){ a->loc, a->mem, base, d[n - 1].coef, t->kind == TM_DIV ? t->d : 1 };
	loop->ovf = o;
	loop->novf++;
}

/* Unique number (E0501) and, unless EXEMPT_P, digits that determine p (E0502) for one
 * access. Returns false after reporting. */
static bool check_access(Code *c, Access *a, bool exempt_p)
{
	UirProgram *p = c->p;
	const char *m = a->mem->name;
	if (a->norm.bad) {
		if (a->norm.too_deep)
			diag_later(p, a->loc, "E0501", NULL,
				   "the offset of %s is too large to check: with its lets inlined it nests more than %d "
				   "operations and names deep (a chain of %d lets of one op each), or has too many terms; "
				   "it cannot be shown to be a unique number", m, NORM_MAX_DEPTH, NORM_MAX_DEPTH / 2);
		else
			diag_later(p, a->loc, "E0501", advice(c, a->mem, R_OVERLAP, collision(c, a->mem)),
				   "the offset of %s is too large to be a unique number (beyond 2^31-1)", m);
		return false;
	}
	Digit d[80];
	int nd = 0;
	for (int i = 0; i < a->norm.n; i++) {
		const Term *t = a->norm.v[i].t;
		int64_t coef = a->norm.v[i].coef;
		bool digit_like = t->kind != TM_OPAQUE && inside_loop(c, t->index);
		if (digit_like && coef > 0) {
			if (nd == 64) {
				diag_later(p, a->loc, "E0501", NULL, "the offset of %s has more than 64 digits: too many to "
					   "check", acc_desc(c, a));
				return false;
			}
			d[nd++] = (Digit){ coef, largest(t), term_text(&p->arena, t), t };
			continue;
		}
		if (!digit_like && uniform_term(c, t))
			continue;
		const char *why = digit_like ? "has a negative coefficient" : "is neither a digit (a loop index, or its div or "
			"mod by a literal, times a positive literal) nor uniform (the same for every iteration)";
		diag_later(p, a->loc, "E0501", advice(c, a->mem, R_TERM, collision(c, a->mem)),
			   "the offset of %s is not a unique number: the term %s %s", acc_desc(c, a),
			   term_text(&p->arena, t), why);
		return false;
	}
	/* which index of the parallel tuple the digits fail to determine (docs/language.md
	 * 7.4.3), looked at before guards and before dropping zero-range digits; -1: none */
	int undetermined = -1;
	for (int k = 0; k < c->np && undetermined < 0; k++) {
		int64_t pb = p_bound(c, k);
		if (pb == 1)
			continue;
		bool has_p = false, has_mod_big = false, pair = false;
		int64_t divs[16], mods[16];
		int ndiv = 0, nmod = 0;
		for (int i = 0; i < nd; i++) {
			if (p_dim(c, d[i].t->index) != k)
				continue;
			if (d[i].t->kind == TM_INDEX)
				has_p = true;
			else if (d[i].t->kind == TM_MOD && pb >= 0 && d[i].t->d >= pb)
				has_mod_big = true;
			if (d[i].t->kind == TM_DIV && ndiv < 16)
				divs[ndiv++] = d[i].t->d;
			if (d[i].t->kind == TM_MOD && nmod < 16)
				mods[nmod++] = d[i].t->d;
		}
		for (int i = 0; i < ndiv; i++)
			for (int j = 0; j < nmod; j++)
				pair |= mods[j] >= divs[i];
		if (!has_p && !has_mod_big && !pair)
			undetermined = k;
	}
	/* guarded sums (docs/language.md 7.5.3): m * (digits of S) may count as one digit of
	 * coefficient m and largest C - 1. "May": every subset of the guards is tried, and the
	 * access passes when one of them makes a unique number (the full set's failure is
	 * reported). */
	int ng = c->strict ? 0 : a->nguards;
	char why[1200], first_why[1200] = "";
	bool unique = false;
	for (int mask = (1 << ng) - 1; mask >= 0 && !unique; mask--) {
		Digit e[80];
		int ne = nd;
		memcpy(e, d, (size_t)nd * sizeof *d);
		for (int g = 0; g < ng; g++) {
			if (!(mask >> g & 1))
				continue;
			Guard *gd = &a->guards[g];
			int64_t mult = 0;
			int idx[64];
			bool ok = gd->s.n <= 64;
			for (int i = 0; i < gd->s.n && ok; i++) {
				idx[i] = -1;
				for (int j = 0; j < ne; j++)
					if (e[j].t && !strcmp(e[j].t->key, gd->s.v[i].t->key))
						idx[i] = j;
				if (idx[i] < 0) {
					ok = false;
					break;
				}
				int64_t cd = e[idx[i]].coef, cs = gd->s.v[i].coef;
				if (cd % cs != 0 || (mult && cd / cs != mult) || cd / cs <= 0)
					ok = false;
				else
					mult = cd / cs;
			}
			if (!ok)
				continue;
			for (int i = 0; i < gd->s.n; i++)
				e[idx[i]].coef = 0; /* removed below */
			int k = 0;
			for (int j = 0; j < ne; j++)
				if (e[j].coef)
					e[k++] = e[j];
			ne = k;
			e[ne++] = (Digit){ mult, gd->c - 1, fmt_str(&p->arena, "the guarded sum (< %lld)", (long long)gd->c), NULL };
		}
		if (a->width > 1 && ne < 80)
			e[ne++] = (Digit){ 1, a->width - 1, fmt_str(&p->arena, "the %d lanes", a->width), NULL };
		/* digits whose largest value is 0 drop */
		int k = 0;
		for (int j = 0; j < ne; j++)
			if (e[j].largest != 0)
				e[k++] = e[j];
		ne = k;
		unique = unique_number(c, e, ne, a->norm.c0, why, sizeof why, true);
		if (!unique && !first_why[0])
			memcpy(first_why, why, sizeof why);
		if (unique && ne > 0 && e[ne - 1].largest < 0 && e[ne - 1].t)
			record_overflow_check(c, a, e, ne);
	}
	if (!unique) {
		diag_later(p, a->loc, "E0501", advice(c, a->mem, R_OVERLAP, collision(c, a->mem)),
			   "the offset of %s is not a unique number: %s", acc_desc(c, a), first_why);
		return false;
	}
	if (exempt_p || undetermined < 0)
		return true;
	const char *pn = c->pidx[undetermined]->name;
	c->miss = c->pidx[undetermined];
	const char *adv = advice(c, a->mem, R_INDEX, collision(c, a->mem));
	c->miss = NULL;
	if (c->np == 1)
		diag_later(p, a->loc, "E0502", adv,
			   "the offset of %s does not determine %s %s: it needs %s itself, mod %s e with e >= its bound, or "
			   "both div %s d and mod %s e with e >= d", acc_desc(c, a), who1(c), pn, pn, pn, pn, pn);
	else
		diag_later(p, a->loc, "E0502", adv,
			   "the offset of %s does not determine %s index %s (the %c index of the %s): it needs %s itself, "
			   "mod %s e with e >= its bound, or both div %s d and mod %s e with e >= d", acc_desc(c, a), who1(c),
			   pn, "xyz"[undetermined], c->kind == CK_KERNEL ? "grid" : "block", pn, pn, pn, pn);
	return false;
}

static void rules_memory(Code *c, Mem *m);

/* The rules for memory M and, when they reject it, the exact analysis (docs/language.md 7.6,
 * off under --strict): the code is valid when no two iterations of p touch one element of M
 * with at least one write, for the program's sizes; a collision keeps the rule's error, which
 * then names the pair, and an undecidable question keeps it with the reason. */
static void check_memory(Code *c, Mem *m)
{
	int before = diag_pending(c->p);
	rules_memory(c, m);
	if (c->exact && diag_pending(c->p) != before) {
		const char *pair = collision(c, m);
		if (pair && !*pair)
			diag_truncate(c->p, before);
	}
	/* the footprint's collisions: those the messages name (the rule's error stands) */
	if (c->fp && diag_pending(c->p) != before && c->coll_mem == m && c->coll && *c->coll) {
		const Witness *w = &c->coll_w;
		int64_t x = w->both_write && w->pb < w->pa ? w->pb : w->pa, y = x == w->pa ? w->pb : w->pa;
		fp_collision(c->fp, m, w->elem, w->pa, w->pb, w->both_write,
			     fmt_str(&c->p->arena, "%s / %s", p_text(c, x), p_text(c, y)), c->coll);
	}
}

static void rules_memory(Code *c, Mem *m)
{
	UirProgram *p = c->p;
	Access *first = NULL;
	bool any_store = false, all_atomic = true, same_aop = true, any_atomic = false;
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		Access *a = &c->acc[c->mlist[j]];
		if (!first)
			first = a;
		any_store |= a->store;
		any_atomic |= a->atomic;
		all_atomic &= a->atomic;
		same_aop &= !a->atomic || !first->atomic || a->aop == first->aop;
	}
	if (!first || !any_store)
		return;
	/* atomics (docs/language.md 7.5.1): the same atomic.OP everywhere is exempt; mixing is
	 * E0503 */
	if (any_atomic) {
		for (int j = mbeg(c, m); j < mend(c, m); j++) {
			Access *a = &c->acc[c->mlist[j]];
			if (a->atomic != first->atomic || a->aop != first->aop) {
				diag_later(p, a->loc, "E0503", advice(c, m, R_TWO_OFFSETS, collision(c, m)),
					   "%s is accessed %s in one %s: %s (line %d) and %s (line %d); the order of the updates "
					   "would change the result", m->name,
					   a->atomic != first->atomic ? "atomically and not atomically" : "by two different atomic ops",
					   code_name(c), first->atomic ? "an atomic" : first->store ? "a store" : "a load",
					   first->loc.line, a->atomic ? "an atomic" : a->store ? "a store" : "a load", a->loc.line);
				return;
			}
		}
		if (all_atomic && same_aop && !c->strict)
			return;
	}
	/* one-thread branches (docs/language.md 7.5.2) */
	bool one = !c->strict;
	for (int j = mbeg(c, m); j < mend(c, m) && one; j++) {
		Access *a = &c->acc[c->mlist[j]];
		one = a->onethread && !strcmp(a->onethread, first->onethread ? first->onethread : "");
	}
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		Access *a = &c->acc[c->mlist[j]];
		if (!check_access(c, a, one))
			return;
	}
	if (one)
		return;
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		Access *a = &c->acc[c->mlist[j]];
		if (a == first)
			continue;
		if (!norm_equal(&a->norm, &first->norm) || a->width != first->width) {
			diag_later(p, a->loc, "E0503", advice(c, m, R_TWO_OFFSETS, collision(c, m)),
				   "%s is accessed at two different offsets in one %s: %s and %s", m->name, code_name(c),
				   acc_desc(c, first), acc_desc(c, a));
			return;
		}
	}
}

/* Collects the accesses of the code ROOT (the parallel index is ROOT's), groups them by
 * memory and finds their normal forms and guards. Free with code_close(). */
static void code_open(Code *c, UirProgram *p, CheckKind kind, Stmt *root, unsigned flags)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->kind = kind;
	c->root = root;
	c->psym = root->sym;
	c->np = 1;
	c->pidx[0] = root->sym;
	if ((kind == CK_KERNEL || kind == CK_PHASE) && root->ndims > 1) {
		c->np = root->ndims;
		for (int i = 0; i < c->np; i++)
			c->pidx[i] = root->dims[i]->sym;
	}
	bool strict = flags & UIR_CHECK_STRICT;
	c->strict = strict;
	c->exact = !strict && !(flags & UIR_CHECK_NO_EXACT);
	c->nc.a = &p->arena;
	c->nc.code = root;
	c->tuples_left = EXACT_TUPLES;
	c->work_left = EXACT_WORK;
	collect(c, root->body);
	/* the accesses grouped by memory (a counting sort: linear in the accesses) */
	int nk = p->nbufs + p->nallocs;
	c->mstart = xcalloc((size_t)nk + 2, sizeof *c->mstart);
	c->mlist = xmalloc(((size_t)c->nacc + 1) * sizeof *c->mlist);
	c->mstored = xcalloc((size_t)nk + 1, sizeof *c->mstored);
	for (int i = 0; i < c->nacc; i++) {
		c->mstart[mem_key(c, c->acc[i].mem) + 1]++;
		c->mstored[mem_key(c, c->acc[i].mem)] |= c->acc[i].store;
	}
	for (int k = 0; k < nk; k++)
		c->mstart[k + 1] += c->mstart[k];
	int *fill = xmalloc(((size_t)nk + 1) * sizeof *fill);
	memcpy(fill, c->mstart, (size_t)nk * sizeof *fill);
	for (int i = 0; i < c->nacc; i++)
		c->mlist[fill[mem_key(c, c->acc[i].mem)]++] = i;
	free(fill);
	for (int i = 0; i < c->nacc; i++) {
		Access *a = &c->acc[i];
		a->norm = normalize(&c->nc, a->off);
		IfPath *ip = &c->paths[i];
		const char *keys[3] = { NULL, NULL, NULL };
		for (int k = 0; k < ip->n && !strict; k++) {
			if (!ip->thens[k])
				continue;
			one_facts(c, ip->ifs[k]->cond, keys, 0);
			if (a->nguards < 8 && guard_of(c, ip->ifs[k], &a->guards[a->nguards]))
				a->nguards++;
		}
		/* a one-thread branch fixes every index of the tuple (docs/language.md 7.5.2); an
		 * index of one value needs no fixing */
		bool all = !strict;
		for (int k = 0; k < c->np; k++) {
			if (!keys[k] && c->np > 1 && p_bound(c, k) == 1)
				keys[k] = "0";
			all &= keys[k] != NULL;
		}
		if (all && c->np == 1)
			a->onethread = keys[0];
		else if (all)
			a->onethread = fmt_str(&p->arena, "%s;%s;%s", keys[0], keys[1], c->np > 2 ? keys[2] : "");
	}
}

static void code_close(Code *c)
{
	isl_budget_free(c->isl);
	free(c->mstart);
	free(c->mlist);
	free(c->mstored);
	free(c->acc);
	free(c->paths);
}

/* ---- the footprint (uir check --footprint, footprint.h) ---- */

/* Starts recording code C: its title names it, its loops and how many iterations p has. */
static void footprint_open(Code *c)
{
	int64_t iters = 1;
	for (int i = 0; i < c->np; i++)
		iters = p_bound(c, i) < 0 || iters < 0 ? -1 : iters * p_bound(c, i);
	const char *pname = c->np == 1 ? c->pidx[0]->name
			    : c->np == 2 ? fmt_str(&c->p->arena, "(%s, %s)", c->pidx[1]->name, c->pidx[0]->name)
					 : fmt_str(&c->p->arena, "(%s, %s, %s)", c->pidx[2]->name, c->pidx[1]->name,
						   c->pidx[0]->name);
	const char *count = iters < 0 ? fmt_str(&c->p->arena, "a bound not known when checking")
				      : fmt_str(&c->p->arena, "%lld %s", (long long)iters,
						iters == 1 ? who1(c) : who(c));
	const char *axis = c->kind == CK_PHASE ? "local" : c->kind == CK_KERNEL ? "global" : "thread";
	const char *in = c->kind == CK_PHASE && c->root->kernel
				 ? fmt_str(&c->p->arena, ", in the kernel at line %d", c->root->kernel->loc.line)
				 : "";
	const char *title = fmt_str(&c->p->arena, "%s: the %s loop%s %s at line %d (%s)%s; colour: the %s %s",
				    c->kind == CK_PHASE ? "phase" : code_name(c), axis, c->np > 1 ? "s" : "", pname,
				    c->root->loc.line, count, in, who1(c), pname);
	c->fp = fp_code(c->p->footprint, c->kind == CK_PHASE ? "phase" : code_name(c), c->root->loc, title, pname, iters);
	c->fp_tuples = EXACT_TUPLES;
	c->fp_work = EXACT_WORK;
}

/* Records every memory of code C, in order of first access (after its check). */
static void footprint_code(Code *c)
{
	for (int i = 0; i < c->nacc; i++) {
		Mem *m = c->acc[i].mem;
		if (c->mlist[mbeg(c, m)] != i)
			continue;
		bool sk = skipped(c, m);
		const char *why = !sk ? NULL
			: c->kind == CK_KERNEL ? "shared memory, private to each block, not compared across blocks (the phases show it)"
					       : "private to each iteration (their home is this loop), not compared across iterations";
		FpMem *fm = fp_mem(c->fp, m, stored_in_code(c, m), why);
		if (!sk)
			footprint_memory(c, m, fm);
	}
}

static void run_check(UirProgram *p, CheckKind kind, Stmt *root, unsigned flags)
{
	/* a single iteration (docs/language.md 7.5.4): nothing to keep apart; a nest (a grid or
	 * a block of 2 or 3 dimensions) has one when each of its loops has one */
	bool single = true;
	int nd = root->ndims > 1 && kind != CK_THREAD ? root->ndims : 1;
	for (int i = 0; i < nd; i++) {
		const Stmt *l = nd > 1 ? root->dims[i] : root;
		single &= l->value->kind == EX_LIT && l->bound_lit == 1;
	}
	/* a `thread` loop of a split's text that this check proved before (Stmt.opt_proven) is
	 * not asked again */
	bool none = !(flags & UIR_CHECK_STRICT) && (single || root->opt_proven);
	if (none && !p->footprint)
		return;
	Code c;
	code_open(&c, p, kind, root, flags);
	if (p->footprint)
		footprint_open(&c);
	/* every memory once, in order of first access */
	for (int i = 0; i < c.nacc && !none; i++) {
		Mem *m = c.acc[i].mem;
		if (c.mlist[mbeg(&c, m)] == i && !skipped(&c, m))
			check_memory(&c, m);
	}
	if (c.fp)
		footprint_code(&c);
	code_close(&c);
}

/* Whether S (a statement list) holds a loop with an axis other than `unroll`. */
static bool has_parallel_loop(const Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && s->axis != AX_NONE && s->axis != AX_UNROLL)
			return true;
		if (has_parallel_loop(s->body) || has_parallel_loop(s->then_) || has_parallel_loop(s->else_))
			return true;
	}
	return false;
}

bool loop_independent(UirProgram *p, Stmt *loop, bool (*exempt)(void *ctx, const Mem *m), void *ctx)
{
	if (loop->kind != ST_LOOP || loop->axis != AX_NONE || has_parallel_loop(loop->body))
		return false;
	const Captures *cap = loop_captures(p, loop);
	for (int i = 0; i < cap->nmems; i++) {
		const char *w;
		if ((cap->use[i] & (CAP_STORE | CAP_ATOMIC)) && loop_conflict(p, loop, cap->mems[i], &w) != LC_NONE &&
		    !(exempt && exempt(ctx, cap->mems[i])))
			return false;
	}
	return true;
}

/* Whether the rules alone (the digit rule, docs/language.md 7.5) accept M's accesses in C,
 * none of them atomic or in a one-thread branch (the two exemptions that allow two
 * iterations on one element) and none needing the check on entry that its offsets fit in
 * i32 (which a plain loop does not make: record_overflow_check()): then no two iterations
 * touch one element of M, without the exact analysis (whose ISL question costs
 * milliseconds on a big nest). Leaves no diagnostic and no check behind. */
static bool rules_accept(Code *c, Mem *m)
{
	for (int j = mbeg(c, m); j < mend(c, m); j++) {
		const Access *a = &c->acc[c->mlist[j]];
		if (a->atomic || a->onethread)
			return false;
	}
	int before = diag_pending(c->p);
	c->rules_only = true;
	c->rules_need_check = false;
	rules_memory(c, m);
	c->rules_only = false;
	bool ok = diag_pending(c->p) == before && !c->rules_need_check;
	diag_truncate(c->p, before);
	return ok;
}

/* Whether E (no load, no vector), at a store reached by store_every_iteration(), has the
 * same value in every iteration of LOOP once the indices of the loops inside LOOP around
 * it are 0: literals, names defined outside LOOP and those indices (each of those loops
 * runs at least once, so its iteration 0 is reached in every iteration of LOOP). */
static bool same_in_every_iteration(const Expr *e, const Stmt *loop)
{
	switch (e->kind) {
	case EX_LIT:
		return true;
	case EX_NAME:
		if (!e->sym || e->sym == loop->sym)
			return false;
		if (e->sym->kind == SYM_LOOP)
			return true; /* outside LOOP, or one of the loops around the store inside it */
		return !(e->sym->def && stmt_inside(e->sym->def, loop));
	case EX_OP:
		if (e->op == OP_LOAD || e->lanes > 1)
			return false;
		for (int i = 0; i < e->nargs; i++)
			if (!same_in_every_iteration(e->args[i], loop))
				return false;
		return true;
	default:
		return false;
	}
}

/* A store into M in the statements S, outside any if, inside loops that each run at least
 * once, at an offset that is the same in every iteration of LOOP with those loops at their
 * iteration 0 (same_in_every_iteration()); NULL when there is none. */
static const Stmt *store_every_iteration(const Stmt *s, const Stmt *loop, const Mem *m, int depth)
{
	for (; s && depth < 64; s = s->next) {
		if (s->kind == ST_STORE && s->mem == m && same_in_every_iteration(s->off, loop))
			return s;
		if (s->kind == ST_LOOP && s->value->rng.known && s->value->rng.lo >= 1) {
			const Stmt *t = store_every_iteration(s->body, loop, m, depth + 1);
			if (t)
				return t;
		}
	}
	return NULL;
}

/* When LOOP runs at least two iterations and every iteration stores into one element of
 * M (store_every_iteration()), iterations 0 and 1 both write it: a conflict found
 * without the exact analysis, whose ISL question costs milliseconds on a big nest (the
 * scalar accumulator `store acc 0 ...` of a reduction nest, asked about each loop around
 * it; the time loop of a stencil, each step of which writes b[i + 1] for every i). NULL
 * when that is not shown. */
static const Stmt *same_element_store(const Stmt *loop, const Mem *m)
{
	if (!loop->value->rng.known || loop->value->rng.lo < 2)
		return NULL;
	return store_every_iteration(loop->body, loop, m, 0);
}

LoopConflict loop_conflict(UirProgram *p, const Stmt *loop, const Mem *m, const char **witness)
{
	*witness = NULL;
	const Stmt *same = same_element_store(loop, m);
	if (same) { /* the element, with every loop around the store at 0 */
		const Sym *syms[64];
		int64_t zeros[64] = { 0 };
		int n = 0;
		for (const Stmt *a = same->parent; a && n < 64; a = a->parent)
			if (a->kind == ST_LOOP)
				syms[n++] = a->sym;
		EvalEnv env = { syms, zeros, n, false };
		int64_t at;
		*witness = eval_int(same->off, &env, &at)
			? fmt_str(&p->arena, "iterations %s=0 and %s=1 both write %s[%lld] (lines %d and %d)", loop->sym->name,
				  loop->sym->name, m->name, (long long)at, same->loc.line, same->loc.line)
			: fmt_str(&p->arena, "iterations %s=0 and %s=1 both write one element of %s (lines %d and %d)",
				  loop->sym->name, loop->sym->name, m->name, same->loc.line, same->loc.line);
		return LC_CONFLICT;
	}
	Code c;
	code_open(&c, p, CK_THREAD, (Stmt *)loop, 0); /* only reads the tree */
	LoopConflict r = LC_NONE;
	if (mbeg(&c, m) < mend(&c, m) && c.mstored[mem_key(&c, m)] && !rules_accept(&c, (Mem *)m)) {
		const char *why = NULL;
		const char *found = collision_of(&c, m, &why, NULL);
		if (!found) {
			r = LC_UNKNOWN;
			*witness = why;
		} else if (*found) {
			r = LC_CONFLICT;
			*witness = found;
		}
	}
	code_close(&c);
	return r;
}

static void find_codes(UirProgram *p, Stmt *s, unsigned flags)
{
	for (; s; s = s->next) {
		if (s->kind == ST_IF) {
			find_codes(p, s->then_, flags);
			find_codes(p, s->else_, flags);
		} else if (s->kind == ST_LOOP) {
			/* phases before their kernel: when both reject an access, the message of the
			 * phase (threads of one block) is the one shown */
			find_codes(p, s->body, flags);
			if (s->axis == AX_THREAD)
				run_check(p, CK_THREAD, s, flags);
			else if (s->axis == AX_GLOBAL && s->nest == s)
				run_check(p, CK_KERNEL, s, flags); /* a nest is one kernel */
			else if (s->axis == AX_LOCAL && s->nest == s)
				run_check(p, CK_PHASE, s, flags); /* a nest is one phase */
		}
	}
}

bool check_races(UirProgram *p, unsigned flags)
{
	if (p->footprint)
		fp_ran(p->footprint);
	find_codes(p, p->top, flags);
	/* the first rule broken anywhere in the program comes first: E0501, E0502, E0503
	 * (docs/language.md 7.4.5; the phase, kernel and thread checks together) */
	return diag_flush_by_code(p) == 0;
}
