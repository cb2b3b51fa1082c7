/* normal.c - the normal form of an offset (docs/language.md 7.2): inline every let, then write the
 * offset as c0 + sum of ci * termi. Products with literals expand over sums, `sub a b` is
 * a + (-1)b, literal arithmetic folds, like terms merge, zero terms drop; `shl i K`,
 * `shr i K` and `and i (2^K-1)` on a loop index count as mul, div and mod by 2^K.
 *
 * Terms are keyed by a canonical string, so two offsets have the same normal form exactly
 * when their c0 and (key, coefficient) lists are equal. Loop indices are keyed by Sym.key
 * (docs/language.md 7.2.3: the thread index of every phase of a kernel is one index).
 */
#include "normal.h"
#include "uir_ops.h"
#include <stdlib.h>
#include <string.h>

static bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

static void add_term(NormCtx *c, Norm *n, Term *t, int64_t coef)
{
	if (coef == 0)
		return;
	for (int i = 0; i < n->n; i++)
		if (!strcmp(n->v[i].t->key, t->key)) {
			if (!add_ok(n->v[i].coef, coef, &n->v[i].coef))
				n->bad = true;
			return;
		}
	if (n->n == n->cap) {
		int cap = n->cap ? 2 * n->cap : 8;
		LinTerm *v = arena_alloc(c->a, (size_t)cap * sizeof *v);
		if (n->n)
			memcpy(v, n->v, (size_t)n->n * sizeof *v);
		n->v = v;
		n->cap = cap;
	}
	n->v[n->n].t = t;
	n->v[n->n].coef = coef;
	n->n++;
}

static void drop_zeros(Norm *n)
{
	int k = 0;
	for (int i = 0; i < n->n; i++)
		if (n->v[i].coef != 0)
			n->v[k++] = n->v[i];
	n->n = k;
}

/* A canonical text of an expression with lets inlined (the key of an opaque term). */
static void key_rec(NormCtx *c, const Expr *e, char **buf, size_t *len, size_t *cap, int depth);

static void put(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static void key_rec(NormCtx *c, const Expr *e, char **buf, size_t *len, size_t *cap, int depth)
{
	char tmp[96];
	if (depth > NORM_MAX_DEPTH || --c->budget < 0) {
		/* too big to spell out: a key that equals no other term's (conservative) */
		snprintf(tmp, sizeof tmp, "#unique%p", (const void *)e);
		put(buf, len, cap, tmp);
		c->truncated = true;
		return;
	}
	switch (e->kind) {
	case EX_LIT:
		snprintf(tmp, sizeof tmp, "%s:%llx", uir_type_name(e->ty), (unsigned long long)e->val.u);
		put(buf, len, cap, tmp);
		return;
	case EX_NAME:
		if (!e->sym)
			put(buf, len, cap, "?");
		else if (e->sym->kind == SYM_LET)
			key_rec(c, e->sym->def->value, buf, len, cap, depth + 1);
		else
			put(buf, len, cap, e->sym->key ? e->sym->key : e->sym->name);
		return;
	case EX_OP:
		put(buf, len, cap, "(");
		put(buf, len, cap, e->text ? e->text : op_info[e->op].name);
		if (e->op == OP_CAST || e->op == OP_BITCAST) {
			put(buf, len, cap, " ");
			put(buf, len, cap, uir_type_name(e->to));
		}
		if (e->op == OP_LOAD) {
			put(buf, len, cap, " ");
			put(buf, len, cap, e->mem->name);
		}
		for (int i = 0; i < e->nargs; i++) {
			put(buf, len, cap, " ");
			key_rec(c, e->args[i], buf, len, cap, depth + 1);
		}
		put(buf, len, cap, ")");
		return;
	}
}

static const char *expr_key(NormCtx *c, const Expr *e)
{
	c->truncated = false;
	size_t len = 0, cap = 64;
	char *buf = xmalloc(cap);
	buf[0] = 0;
	key_rec(c, e, &buf, &len, &cap, 0);
	if (c->truncated) {
		/* a cut key must not equal another: make the whole key unique */
		len = (size_t)snprintf(buf, cap, "#unique%p", (const void *)e);
	}
	char *r = arena_strndup(c->a, buf, len);
	free(buf);
	return r;
}

static Term *index_term(NormCtx *c, TermKind k, const Sym *index, int64_t d)
{
	Term *t = arena_alloc(c->a, sizeof *t);
	t->kind = k;
	t->index = index;
	t->d = d;
	const char *ik = index->key ? index->key : index->name;
	if (k == TM_INDEX)
		t->key = ik;
	else
		t->key = fmt_str(c->a, "(%s %s %lld)", k == TM_DIV ? "div" : "mod", ik, (long long)d);
	return t;
}

static Term *opaque_term(NormCtx *c, const Expr *e, bool outside)
{
	Term *t = arena_alloc(c->a, sizeof *t);
	t->kind = TM_OPAQUE;
	t->expr = e;
	t->outside = outside;
	t->key = expr_key(c, e);
	return t;
}

static bool is_const(const Norm *n) { return !n->bad && n->n == 0; }

/* The loop index that N is exactly (1 * index, c0 = 0), or NULL. */
static const Sym *single_index(const Norm *n)
{
	if (n->bad || n->c0 != 0 || n->n != 1 || n->v[0].coef != 1 || n->v[0].t->kind != TM_INDEX)
		return NULL;
	return n->v[0].t->index;
}

static void norm_rec(NormCtx *c, const Expr *e, Norm *out, int64_t scale, bool outside, int depth);

static Norm sub_norm(NormCtx *c, const Expr *e, bool outside, int depth)
{
	Norm n = { 0 };
	norm_rec(c, e, &n, 1, outside, depth + 1);
	drop_zeros(&n);
	return n;
}

static void add_scaled(Norm *out, const Norm *n, int64_t scale, NormCtx *c)
{
	int64_t v;
	out->too_deep |= n->too_deep;
	if (n->bad || !mul_ok(n->c0, scale, &v) || !add_ok(out->c0, v, &out->c0))
		out->bad = true;
	for (int i = 0; i < n->n; i++) {
		if (!mul_ok(n->v[i].coef, scale, &v))
			out->bad = true;
		else
			add_term(c, out, n->v[i].t, v);
	}
}

static void add_const(Norm *out, int64_t k, int64_t scale)
{
	int64_t v;
	if (!mul_ok(k, scale, &v) || !add_ok(out->c0, v, &out->c0))
		out->bad = true;
}

static void norm_rec(NormCtx *c, const Expr *e, Norm *out, int64_t scale, bool outside, int depth)
{
	if (depth > NORM_MAX_DEPTH || --c->budget < 0) {
		out->bad = true;
		out->too_deep = true;
		return;
	}
	if (e->ty != UIR_I32 || e->lanes != 1) {
		add_term(c, out, opaque_term(c, e, outside), scale);
		return;
	}
	switch (e->kind) {
	case EX_LIT:
		add_const(out, e->val.i, scale);
		return;
	case EX_NAME:
		if (!e->sym) {
			out->bad = true;
		} else if (e->sym->kind == SYM_LET) {
			bool out2 = outside || (c->code && !stmt_inside(e->sym->def, c->code));
			norm_rec(c, e->sym->def->value, out, scale, out2, depth + 1);
		} else {
			add_term(c, out, index_term(c, TM_INDEX, e->sym, 0), scale);
		}
		return;
	case EX_OP:
		break;
	}
	Norm a, b;
	int64_t k;
	switch (e->op) {
	case OP_ADD:
		norm_rec(c, e->args[0], out, scale, outside, depth + 1);
		norm_rec(c, e->args[1], out, scale, outside, depth + 1);
		return;
	case OP_SUB:
		norm_rec(c, e->args[0], out, scale, outside, depth + 1);
		if (!mul_ok(scale, -1, &k)) {
			out->bad = true;
			return;
		}
		norm_rec(c, e->args[1], out, k, outside, depth + 1);
		return;
	case OP_NEG:
		if (!mul_ok(scale, -1, &k)) {
			out->bad = true;
			return;
		}
		norm_rec(c, e->args[0], out, k, outside, depth + 1);
		return;
	case OP_MUL:
		a = sub_norm(c, e->args[0], outside, depth);
		b = sub_norm(c, e->args[1], outside, depth);
		if (is_const(&a) && mul_ok(scale, a.c0, &k)) {
			add_scaled(out, &b, k, c);
			return;
		}
		if (is_const(&b) && mul_ok(scale, b.c0, &k)) {
			add_scaled(out, &a, k, c);
			return;
		}
		break;
	case OP_SHL:
		b = sub_norm(c, e->args[1], outside, depth);
		if (is_const(&b) && b.c0 >= 0 && b.c0 < 31 && mul_ok(scale, (int64_t)1 << b.c0, &k)) {
			a = sub_norm(c, e->args[0], outside, depth);
			if (is_const(&a)) {
				add_const(out, uir_shl_i32((int32_t)a.c0, (int32_t)b.c0), scale);
				return;
			}
			add_scaled(out, &a, k, c);
			return;
		}
		break;
	case OP_DIV:
	case OP_MOD:
	case OP_SHR:
	case OP_AND: {
		a = sub_norm(c, e->args[0], outside, depth);
		b = sub_norm(c, e->args[1], outside, depth);
		if (e->op == OP_AND && is_const(&a) && !is_const(&b)) {
			Norm t = a;
			a = b;
			b = t; /* and M i counts as and i M (docs/language.md 7.2.2) */
		}
		if (is_const(&a) && is_const(&b) && a.c0 >= INT32_MIN && a.c0 <= INT32_MAX &&
		    b.c0 >= INT32_MIN && b.c0 <= INT32_MAX) {
			int32_t x = (int32_t)a.c0, y = (int32_t)b.c0;
			int32_t r = e->op == OP_DIV ? uir_div_i32(x, y) : e->op == OP_MOD ? uir_mod_i32(x, y)
				  : e->op == OP_SHR ? uir_shr_i32(x, y) : (x & y);
			add_const(out, r, scale);
			return;
		}
		const Sym *ix = single_index(&a);
		if (!ix || !is_const(&b))
			break;
		int64_t d = b.c0;
		if (e->op == OP_SHR) {
			if (d < 0 || d > 30)
				break;
			d = (int64_t)1 << d;
		} else if (e->op == OP_AND) {
			if (d < 0 || (d & (d + 1)) != 0)
				break;
			d = d + 1; /* and i (2^K-1) = mod i 2^K */
			if (d == 1)
				return; /* and i 0 = 0 */
			add_term(c, out, index_term(c, TM_MOD, ix, d), scale);
			return;
		}
		if (d <= 0)
			break;
		bool is_div = e->op == OP_DIV || e->op == OP_SHR;
		if (d == 1) {
			if (is_div)
				add_term(c, out, index_term(c, TM_INDEX, ix, 0), scale); /* div p 1 is p */
			return;                                                         /* mod i 1 is 0 */
		}
		add_term(c, out, index_term(c, is_div ? TM_DIV : TM_MOD, ix, d), scale);
		return;
	}
	default: {
		/* an op of literals folds */
		int64_t v;
		EvalEnv none = { NULL, NULL, 0, false };
		if (eval_int(e, &none, &v)) {
			add_const(out, v, scale);
			return;
		}
		break;
	}
	}
	add_term(c, out, opaque_term(c, e, outside), scale);
}

Norm normalize(NormCtx *c, const Expr *e)
{
	Norm n = { 0 };
	c->budget = 100000;
	norm_rec(c, e, &n, 1, false, 0);
	drop_zeros(&n);
	return n;
}

bool norm_equal(const Norm *a, const Norm *b)
{
	if (a->bad || b->bad || a->c0 != b->c0 || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;
		for (int j = 0; j < b->n && !found; j++)
			found = a->v[i].coef == b->v[j].coef && !strcmp(a->v[i].t->key, b->v[j].t->key);
		if (!found)
			return false;
	}
	return true;
}

/* A readable name of a term: "t", "(g / 8)", "(t % 16)", or the op text. */
const char *term_text(Arena *a, const Term *t)
{
	switch (t->kind) {
	case TM_INDEX: return t->index->name;
	case TM_DIV: return fmt_str(a, "div %s %lld", t->index->name, (long long)t->d);
	case TM_MOD: return fmt_str(a, "mod %s %lld", t->index->name, (long long)t->d);
	case TM_OPAQUE:
		if (t->expr->kind == EX_OP && t->expr->op == OP_LOAD)
			return fmt_str(a, "load %s ...", t->expr->mem->name);
		return fmt_str(a, "%s ...", t->expr->kind == EX_OP ? t->expr->text : "?");
	}
	return "?";
}

const char *norm_text(Arena *a, const Norm *n)
{
	char buf[1024];
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n->n && len < sizeof buf - 100; i++) {
		const char *tt = term_text(a, n->v[i].t);
		bool paren = n->v[i].t->kind != TM_INDEX;
		if (n->v[i].coef == 1)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s%s%s", i ? " + " : "", paren ? "(" : "", tt, paren ? ")" : "");
		else
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld*%s%s%s", i ? " + " : "", (long long)n->v[i].coef,
						paren ? "(" : "", tt, paren ? ")" : "");
	}
	if (n->c0 != 0 || n->n == 0)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", n->n ? (n->c0 < 0 ? " - " : " + ") : "",
					(long long)(n->n && n->c0 < 0 ? -n->c0 : n->c0));
	return arena_strndup(a, buf, len);
}
