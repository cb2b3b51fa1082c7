/* stmt.c - .uir statements as C statements, shared by both renderers: let, store,
 * store.K, atomic.OP, if, plain loops and unrolled loops; thread, global and local loops
 * go to the renderer's hook.
 *
 * Bounds checks and the order of faults. `run` evaluates the operands of every op left to
 * right and reports the first access out of bounds; C leaves the order of operands
 * unspecified. So before writing a statement, prepare() finds its accesses that need a
 * check (check/ranges.c could not prove them in bounds), in `run`'s evaluation order. With at
 * most one such access the check stays inline (x[uir_at(i, 8, 3)]): nothing else in the
 * statement can fault, so order does not matter. With two or more, or with one under an
 * arm of `select` (whose arms `run` always evaluates, and C's ?: does not), every check
 * is hoisted into a declaration before the statement, in evaluation order
 * (`const int32_t uir_o1 = uir_at(i, 8, 3);`), and the accesses read x[uir_o1]. The
 * statement's own store is then the last access, as in `run`.
 *
 * Vectors: a vector access reads its offset once (a name, a literal, or a hoisted
 * uir_oN), lanes are written one by one; a store.K whose value reads the stored memory
 * elsewhere than lane-for-lane first builds the value in an array (uir_vN).
 */
#include "render_int.h"
#include <stdlib.h>
#include <string.h>

/* ---- the loads of a statement, in evaluation order ---- */

typedef struct StmtLoad {
	const Expr *e;      /* the load */
	bool checked;
	bool under_select;  /* inside an arm of select */
} StmtLoad;

typedef struct StmtLoads {
	StmtLoad *v;
	int n, cap;
} StmtLoads;

static void collect(Emitter *E, const Expr *e, bool sel, StmtLoads *l)
{
	if (!e || e->kind != EX_OP)
		return;
	for (int i = 0; i < e->nargs; i++)
		collect(E, e->args[i], sel || (e->op == OP_SELECT && i > 0), l);
	if (e->op != OP_LOAD)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	bool reg = mem_info(E, e->mem)->reg;
	l->v[l->n++] = (StmtLoad){ e, !reg && !e->in_bounds, sel };
}

static void hoist(Emitter *E, const Expr *key, const char *name)
{
	if (E->nhoists == E->caphoists) {
		E->caphoists = E->caphoists ? 2 * E->caphoists : 8;
		E->hoists = xrealloc(E->hoists, (size_t)E->caphoists * sizeof *E->hoists);
	}
	E->hoists[E->nhoists++] = (Hoist){ key, name, false };
}

static const char *hoisted(Emitter *E, const Expr *key)
{
	for (int i = 0; key && i < E->nhoists; i++)
		if (E->hoists[i].e == key) {
			E->hoists[i].used = true;
			return E->hoists[i].name;
		}
	return NULL;
}

/* Whether E is a name or literal. */
static bool atom(const Expr *e)
{
	return e->kind == EX_LIT || e->kind == EX_NAME;
}

/* The text of a checked offset: uir_at(OFF, SIZE, SITE) or uir_at_k(OFF, SIZE, K, SITE). */
static const char *checked_off(Emitter *E, const Mem *m, const Expr *off, int k, Loc loc, const char *what)
{
	int site = add_site(E, m, loc, what, k);
	E->need |= NEED_AT;
	const char *o = expr_str(E, off, -1);
	if (k > 1) {
		nameset_add(&E->support, "uir_at_k");
		return fmt_str(E->a, "uir_at_k(%s, %lld, %d, %d)", o, (long long)m->size, k, site);
	}
	nameset_add(&E->support, "uir_at");
	return fmt_str(E->a, "uir_at(%s, %lld, %d)", o, (long long)m->size, site);
}

/* Declares `const int32_t NAME = TEXT;` for the access KEY and records it. */
static void hoist_decl(Emitter *E, const Expr *key, const char *text)
{
	const char *name = temp_name(E, "o");
	line(E, "const int32_t %s = %s;", name, text);
	E->decls++;
	hoist(E, key, name);
}

bool prepare(Emitter *E, const Expr *const *ex, int nex, const Stmt *store)
{
	StmtLoads l = { 0 };
	for (int i = 0; i < nex; i++)
		collect(E, ex[i], false, &l);
	bool store_checked = store && !mem_info(E, store->mem)->reg && !store->in_bounds;
	int nchecked = store_checked;
	bool sel = false;
	for (int i = 0; i < l.n; i++) {
		nchecked += l.v[i].checked;
		sel |= l.v[i].checked && l.v[i].under_select;
	}
	bool strict = nchecked >= 2 || sel;
	for (int i = 0; i < l.n; i++) {
		const Expr *e = l.v[i].e;
		const Expr *off = e->args[0];
		const char *what = msg_load_what(E->a, e);
		if (l.v[i].checked && (strict || e->width > 1))
			hoist_decl(E, e, checked_off(E, e->mem, off, e->width, e->loc, what));
		else if (e->width > 1 && !atom(off))
			hoist_decl(E, e, expr_str(E, off, -1));
	}
	free(l.v);
	return store_checked;
}

void finish(Emitter *E)
{
	/* a checked offset hoisted for run's fault order whose access the text left out (the
	 * other lanes of `lane (vec ...) I`) still runs its check; -Wunused-variable asks
	 * for a use */
	for (int i = 0; i < E->nhoists; i++)
		if (!E->hoists[i].used)
			line(E, "(void)%s;", E->hoists[i].name);
	E->nhoists = 0;
}

/* The index text OFF + LANE for vector accesses (OFF a name, literal or hoisted name). */
static const char *lane_index(Emitter *E, const char *off, int lane)
{
	if (lane <= 0)
		return off;
	char *end;
	long long v = strtoll(off, &end, 10);
	if (*off && !*end)
		return fmt_str(E->a, "%lld", v + lane);
	return fmt_str(E->a, "%s + %d", off, lane);
}

const char *access_text(Emitter *E, const Mem *m, const Expr *off, int k, int lane, bool checked, Loc loc,
			const char *what, const Expr *key)
{
	MemInfo *mi = mem_info(E, m);
	if (mi->reg)
		return mi->cname;
	const char *h = hoisted(E, key);
	if (k == 1) {
		if (h)
			return fmt_str(E->a, "%s[%s]", mi->cname, h);
		if (checked)
			return fmt_str(E->a, "%s[%s]", mi->cname, checked_off(E, m, off, 1, loc, what));
		return fmt_str(E->a, "%s[%s]", mi->cname, expr_str(E, off, -1));
	}
	if (lane < 0)
		unreachable();
	const char *o = h;
	if (!o && checked)
		o = checked_off(E, m, off, k, loc, what); /* not prepared: check in every lane */
	if (!o) {
		CExpr c = expr_c(E, off, -1);
		o = atom(off) ? c.s : fmt_str(E->a, "(%s)", c.s);
	}
	if (E->cuda && m->size < k)
		lane = 0; /* always faults; CUDA goes on after recording it: stay inside */
	return fmt_str(E->a, "%s[%s]", mi->cname, lane_index(E, o, lane));
}

void mark_unused(Emitter *E, const Sym *s, int before)
{
	SymInfo *si = sym_info(E, s);
	if (si->refs == before)
		line(E, "(void)%s;", si->cname);
}

/* ---- let ---- */

/* ---- CUDA: vector types for aligned K-lane accesses ---- */

/* Whether i32 expression E is a multiple of K (2 or 4) whatever the values of its loop
 * indices: a literal multiple, a product with such a factor, a sum, difference or negation
 * of such terms, a left shift by log2 K or more, a let of such a value. i32 arithmetic
 * wraps modulo 2^32, which keeps multiples of K. */
static bool multiple_of(const Expr *e, int k)
{
	switch (e->kind) {
	case EX_LIT:
		return e->ty == UIR_I32 && e->lanes == 1 && e->val.i % k == 0;
	case EX_NAME:
		return e->sym && e->sym->kind == SYM_LET && e->sym->def && e->lanes == 1 &&
		       multiple_of(e->sym->def->value, k);
	case EX_OP:
		if (e->lanes != 1 || e->ty != UIR_I32)
			return false;
		switch (e->op) {
		case OP_MUL:
			return multiple_of(e->args[0], k) || multiple_of(e->args[1], k);
		case OP_ADD:
		case OP_SUB:
			return multiple_of(e->args[0], k) && multiple_of(e->args[1], k);
		case OP_NEG:
			return multiple_of(e->args[0], k);
		case OP_SHL:
			return multiple_of(e->args[0], k) ||
			       (e->args[1]->kind == EX_LIT && (e->args[1]->val.i & 31) >= (k == 2 ? 1 : 2));
		default:
			return false;
		}
	}
	return false;
}

/* CUDA's vector type for K lanes of T (float4, int2, ...) when an access of K elements of
 * buffer M at OFF is one aligned vector access: M a buffer (cudaMalloc aligns it to 256
 * bytes), K x the element size 8 or 16 bytes, OFF a multiple of K. Else NULL. */
static const char *cuda_vector_type(Emitter *E, const Mem *m, const Expr *off, int k)
{
	if (!E->cuda || E->host || m->is_alloc || (k != 2 && k != 4))
		return NULL;
	static const struct {
		UirType t;
		int k;
		const char *name;
	} types[] = {
		{ UIR_F32, 2, "float2" },  { UIR_F32, 4, "float4" },  { UIR_I32, 2, "int2" },
		{ UIR_I32, 4, "int4" },    { UIR_U32, 2, "uint2" },   { UIR_U32, 4, "uint4" },
		{ UIR_F64, 2, "double2" }, { UIR_I64, 2, "longlong2" }, { UIR_U64, 2, "ulonglong2" },
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (types[i].t == m->ty && types[i].k == k)
			return multiple_of(off, k) ? types[i].name : NULL;
	return NULL;
}

static const char *const vector_lane[4] = { "x", "y", "z", "w" };

/* Lane L of vector VAL as an array initialiser: C++ (CUDA) rejects an int in a brace
 * initialiser of a narrower type (nvcc #2361-D, narrowing), so 1-byte lanes get a cast. */
static const char *lane_init(Emitter *E, const Expr *val, int l)
{
	const char *t = expr_str(E, val, l);
	if (E->cuda && uir_type_size(val->ty) == 1)
		return fmt_str(E->a, "(%s)(%s)", ctype(val->ty), t);
	return t;
}

static void let_stmt(Emitter *E, const Stmt *s)
{
	const Expr *v = s->value;
	const Expr *ex[1] = { v };
	prepare(E, ex, 1, NULL);
	SymInfo *si = sym_info(E, s->sym);
	const char *vt = E->cuda && v->kind == EX_OP && v->op == OP_LOAD && v->width > 1 && v->in_bounds
	                 ? cuda_vector_type(E, v->mem, v->args[0], v->width)
	                 : NULL;
	if (v->lanes == 1) {
		line(E, "const %s %s = %s;", ctype(v->ty), si->cname, expr_str(E, v, -1));
	} else if (vt) {
		/* one aligned vector load (float4-style, docs/render.md "CUDA"), then its lanes */
		const char *t = temp_name(E, "v");
		const char *o = hoisted(E, v);
		line(E, "const %s %s = *(const %s *)&%s[%s];", vt, t, vt, mem_cname(E, v->mem),
		     o ? o : expr_str(E, v->args[0], -1));
		Str b = { 0 };
		for (int l = 0; l < v->lanes; l++)
			str_printf(&b, "%s%s.%s", l ? ", " : "", t, vector_lane[l]);
		line(E, "const %s %s[%d] = { %s };", ctype(v->ty), si->cname, v->lanes, str_cstr(&b));
		str_free(&b);
		E->decls++;
	} else {
		Str b = { 0 };
		size_t len = 0;
		const char **lanes = arena_alloc(E->a, (size_t)v->lanes * sizeof *lanes);
		for (int l = 0; l < v->lanes; l++) {
			lanes[l] = lane_init(E, v, l);
			len += strlen(lanes[l]) + 2;
		}
		if (len < 72) {
			for (int l = 0; l < v->lanes; l++)
				str_printf(&b, "%s%s", l ? ", " : "", lanes[l]);
			line(E, "const %s %s[%d] = { %s };", ctype(v->ty), si->cname, v->lanes, str_cstr(&b));
		} else {
			line(E, "const %s %s[%d] = {", ctype(v->ty), si->cname, v->lanes);
			E->indent++;
			for (int l = 0; l < v->lanes; l++)
				line(E, "%s%s", lanes[l], l + 1 < v->lanes ? "," : "");
			E->indent--;
			line(E, "};");
		}
		str_free(&b);
	}
	E->decls++;
	finish(E);
}

/* ---- store, store.K, atomic ---- */

/* Whether the value of a store.K to M at OFF reads M anywhere but lane for lane (a load.K
 * of M at the same offset name or literal), so lanes cannot be stored one by one. */
static bool reads_other(const Expr *e, const Mem *m, const Expr *off, int k)
{
	if (!e || e->kind != EX_OP)
		return false;
	if (e->op == OP_LOAD && e->mem == m) {
		const Expr *o = e->args[0];
		bool same = e->width == k &&
			    ((o->kind == EX_NAME && off->kind == EX_NAME && o->sym == off->sym) ||
			     (o->kind == EX_LIT && off->kind == EX_LIT && o->val.i == off->val.i));
		if (!same)
			return true;
	}
	for (int i = 0; i < e->nargs; i++)
		if (reads_other(e->args[i], m, off, k))
			return true;
	return false;
}

static void vector_store(Emitter *E, const Stmt *s, bool checked)
{
	const Mem *m = s->mem;
	int k = s->width;
	const char *what = msg_store_what(E->a, s);
	static const Expr key; /* the store's own entry among the hoists */
	if (checked)
		hoist_decl(E, &key, checked_off(E, m, s->off, k, s->loc, what));
	else if (!atom(s->off))
		hoist_decl(E, &key, expr_str(E, s->off, -1));
	const char *vt = checked ? NULL : cuda_vector_type(E, m, s->off, k);
	if (vt) {
		/* one aligned vector store (float4-style, docs/render.md "CUDA"), every lane
		 * computed first */
		const char *o = hoisted(E, &key);
		const char *dst = fmt_str(E->a, "*(%s *)&%s[%s]", vt, mem_cname(E, m), o ? o : expr_str(E, s->off, -1));
		const char **lanes = arena_alloc(E->a, (size_t)k * sizeof *lanes);
		size_t len = strlen(dst);
		for (int l = 0; l < k; l++) {
			lanes[l] = expr_str(E, s->val, l);
			len += strlen(lanes[l]) + 2;
		}
		if (len < 80) {
			Str b = { 0 };
			for (int l = 0; l < k; l++)
				str_printf(&b, "%s%s", l ? ", " : "", lanes[l]);
			line(E, "%s = make_%s(%s);", dst, vt, str_cstr(&b));
			str_free(&b);
		} else {
			line(E, "%s = make_%s(", dst, vt);
			E->indent++;
			for (int l = 0; l < k; l++)
				line(E, "%s%s", lanes[l], l + 1 < k ? "," : ");");
			E->indent--;
		}
		return;
	}
	if (!reads_other(s->val, m, s->off, k)) {
		for (int l = 0; l < k; l++)
			line(E, "%s = %s;", access_text(E, m, s->off, k, l, false, s->loc, what, &key),
			     expr_str(E, s->val, l));
		return;
	}
	const char *v = temp_name(E, "v");
	Str b = { 0 };
	for (int l = 0; l < k; l++)
		str_printf(&b, "%s%s", l ? ", " : "", lane_init(E, s->val, l));
	line(E, "const %s %s[%d] = { %s };", ctype(s->val->ty), v, k, str_cstr(&b));
	str_free(&b);
	E->decls++;
	const char *o = hoisted(E, &key);
	if (!o)
		o = expr_str(E, s->off, -1);
	line(E, "for (int uir_l = 0; uir_l < %d; uir_l++)", k);
	line(E, "\t%s[%s + uir_l] = %s[uir_l];", mem_cname(E, m), o, v);
}

static const char *atomic_name(AtomicOp op)
{
	return op == AT_ADD ? "add" : op == AT_MIN ? "min" : "max";
}

/* atomic.OP: C: uir_atomic_OP_T(&m[i], v) (support.c); CUDA: atomicAdd/Min/Max, with a
 * cast where CUDA's overloads need one (64-bit types), or the byte and float helpers.
 * Float min/max are compare-and-swap loops around the min/max op's own helper. */
static void atomic_stmt(Emitter *E, const Stmt *s)
{
	const Expr *ex[2] = { s->off, s->val };
	bool checked = prepare(E, ex, 2, s);
	const char *what = msg_store_what(E->a, s);
	const char *dst = access_text(E, s->mem, s->off, 1, -1, checked, s->loc, what, NULL);
	const char *val = expr_str(E, s->val, -1);
	UirType t = s->mem->ty;
	const char *op = atomic_name(s->aop);
	if (mem_info(E, s->mem)->reg)
		unreachable();
	if (t == UIR_F32 || t == UIR_F64)
		use_helper(E, fmt_str(E->a, "uir_%s_%s", op, uir_type_name(t)));
	if (!E->cuda || t == UIR_I8 || t == UIR_U8 || t == UIR_F32 || t == UIR_F64) {
		const char *f = fmt_str(E->a, "uir_atomic_%s_%s", op, uir_type_name(t));
		nameset_add(&E->support, f);
		line(E, "%s(&%s, %s);", f, dst, val);
	} else {
		const char *cop = s->aop == AT_ADD ? "atomicAdd" : s->aop == AT_MIN ? "atomicMin" : "atomicMax";
		const char *ptr = "", *vt = "";
		if (t == UIR_I64) {
			ptr = s->aop == AT_ADD ? "(unsigned long long *)" : "(long long *)";
			vt = s->aop == AT_ADD ? "(unsigned long long)" : "(long long)";
		} else if (t == UIR_U64) {
			ptr = "(unsigned long long *)";
			vt = "(unsigned long long)";
		}
		const char *v = val;
		if (*vt) {
			bool simple = strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
				      strlen(val);
			v = fmt_str(E->a, simple ? "%s%s" : "%s(%s)", vt, val);
		}
		line(E, "%s(%s&%s, %s);", cop, ptr, dst, v);
	}
	finish(E);
}

static void store_stmt(Emitter *E, const Stmt *s)
{
	if (s->kind == ST_ATOMIC) {
		atomic_stmt(E, s);
		return;
	}
	const Expr *ex[2] = { s->off, s->val };
	bool checked = prepare(E, ex, 2, s);
	if (s->width > 1) {
		vector_store(E, s, checked);
	} else {
		const char *dst = access_text(E, s->mem, s->off, 1, -1, checked, s->loc, msg_store_what(E->a, s), NULL);
		line(E, "%s = %s;", dst, expr_str(E, s->val, -1));
	}
	finish(E);
}

/* ---- if ---- */

/* Whether rendering E needs declarations before its statement (a hoisted offset). */
static bool needs_hoist(Emitter *E, const Expr *e)
{
	StmtLoads l = { 0 };
	collect(E, e, false, &l);
	bool r = false;
	for (int i = 0; i < l.n; i++)
		if (l.v[i].e->width > 1 && (l.v[i].checked || !atom(l.v[i].e->args[0])))
			r = true;
	int n = 0;
	bool sel = false;
	for (int i = 0; i < l.n; i++) {
		n += l.v[i].checked;
		sel |= l.v[i].checked && l.v[i].under_select;
	}
	free(l.v);
	return r || n >= 2 || sel;
}

/* Renders an if; FIRST false: as the `else if` of the enclosing chain. */
static void if_chain(Emitter *E, const Stmt *s, bool first)
{
	if (first) {
		const Expr *ex[1] = { s->cond };
		prepare(E, ex, 1, NULL);
		line(E, "if (%s) {", expr_str(E, s->cond, -1));
		finish(E);
	} else {
		line(E, "} else if (%s) {", expr_str(E, s->cond, -1));
	}
	emit_body(E, s->then_);
	if (s->else_) {
		const Stmt *el = s->else_;
		if (el->kind == ST_IF && !el->next && !needs_hoist(E, el->cond)) {
			if_chain(E, el, false);
		} else {
			line(E, "} else {");
			emit_body(E, el);
		}
	}
	if (first)
		line(E, "}");
}

static void if_stmt(Emitter *E, const Stmt *s)
{
	if_chain(E, s, true);
}

/* ---- loops ---- */

const char *loop_bound(Emitter *E, const Stmt *s)
{
	const Expr *ex[1] = { s->value };
	prepare(E, ex, 1, NULL);
	const char *b;
	if (atom(s->value)) {
		b = expr_str(E, s->value, -1);
	} else {
		b = temp_name(E, "n");
		line(E, "const int32_t %s = %s;", b, expr_str(E, s->value, -1));
		E->decls++;
	}
	finish(E);
	/* run's check on entry: an offset whose top digit is this index must not overflow.
	 * uir_top gives the bound back (CUDA: 0 after recording the fault, so that the loop
	 * does not run) */
	for (int i = 0; i < s->novf; i++) {
		const OverflowCheck *o = &s->ovf[i];
		Range r = s->value->rng;
		if (range_empty(r) || (r.known && o->base + o->coef * ((r.hi > 1 ? r.hi - 1 : 0) / o->d) <= INT32_MAX))
			continue; /* no bound it can have makes it overflow */
		int site = add_overflow_site(E, o);
		nameset_add(&E->support, "uir_top");
		const char *n = temp_name(E, "n");
		line(E, "const int32_t %s = uir_top(%s, INT64_C(%lld), INT64_C(%lld), %lld, %d); /* offsets of %s fit */", n,
		     b, (long long)o->base, (long long)o->coef, (long long)o->d, site, mem_cname(E, o->mem));
		E->decls++;
		b = n;
	}
	return b;
}

static void plain_loop(Emitter *E, const Stmt *s)
{
	const char *n = loop_bound(E, s);
	SymInfo *si = sym_info(E, s->sym);
	const char *i = si->cname;
	line(E, "for (int32_t %s = 0; %s < %s; %s++) {", i, i, n, i);
	emit_body(E, s->body);
	line(E, "}");
}

/* Removes one leading tab from every line of B. */
static void outdent(Str *dst, const Str *b)
{
	const char *s = str_cstr(b);
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s + 1) : strlen(s);
		if (*s == '\t') {
			s++;
			n--;
		}
		str_putn(dst, s, n);
		s += n;
	}
}

static void unroll_loop(Emitter *E, const Stmt *s)
{
	SymInfo *si = sym_info(E, s->sym);
	line(E, "/* loop %s %lld unroll */", s->sym->name, (long long)s->bound_lit);
	for (int64_t v = 0; v < s->bound_lit; v++) {
		Str b = { 0 }, *out = E->out;
		int decls = E->decls;
		si->fixed = true;
		si->value = v;
		E->out = &b;
		E->decls = 0;
		E->indent++;
		emit_block(E, s->body);
		E->indent--;
		bool wrap = E->decls > 0;
		E->out = out;
		E->decls = decls;
		if (wrap) {
			line(E, "{");
			str_put(E->out, str_cstr(&b));
			line(E, "}");
		} else {
			outdent(E->out, &b);
		}
		str_free(&b);
	}
	si->fixed = false;
}

/* An `unroll` loop past the code-size budget (unroll_fits(), src/cost.c: its copies would
 * come to more than UIR_UNROLL_MAX_SIZE units of code, which nested 64 x 64 loops reach; the
 * JIT and `ptx` keep the same loops as loops): a plain loop (docs/render.md, "Unrolling"), with the hint
 * to unroll it by the largest divisor of its bound whose copies fit the budget (none when
 * that is 1). `#pragma GCC unroll N` is gcc's and clang's; nvcc's is `#pragma unroll N`. Its
 * index is a variable, not a literal (maybe_const in expr.c, check/ranges.c). */
static void hinted_loop(Emitter *E, const Stmt *s)
{
	double body = 1 + stmts_code_size(s->body);
	int64_t n = 1;
	for (int64_t d = s->bound_lit - 1; d > 1; d--)
		if (s->bound_lit % d == 0 && (double)d * body <= UIR_UNROLL_MAX_SIZE) {
			n = d;
			break;
		}
	line(E, "/* loop %s %lld unroll: %lld copies of %.0f units of code each are past the budget of "
		"%.0f (docs/render.md) */", s->sym->name, (long long)s->bound_lit, (long long)s->bound_lit, body,
	     UIR_UNROLL_MAX_SIZE);
	if (n > 1 && E->cuda) {
		/* g++ 12 warns about it under -Wall, and its -Wunknown-pragmas cannot be silenced
		 * by a pragma in C++ (gcc bug 53431): only nvcc (and clang in CUDA mode) see it */
		line(E, "#ifdef __CUDACC__");
		line(E, "#pragma unroll %lld", (long long)n);
		line(E, "#endif");
	} else if (n > 1) {
		line(E, "#pragma GCC unroll %lld", (long long)n);
	}
	plain_loop(E, s);
}

/* ---- blocks ---- */

void emit_block(Emitter *E, const Stmt *s)
{
	/* lets declared here, and their refs then: unreferenced ones get (void) at the end */
	const Sym **lets = NULL;
	int *before = NULL, nlets = 0;
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_BUFFER:
		case ST_ALLOC:
			break;
		case ST_LET:
			lets = xrealloc(lets, (size_t)(nlets + 1) * sizeof *lets);
			before = xrealloc(before, (size_t)(nlets + 1) * sizeof *before);
			lets[nlets] = s->sym;
			before[nlets++] = sym_info(E, s->sym)->refs;
			let_stmt(E, s);
			break;
		case ST_STORE:
		case ST_ATOMIC:
			store_stmt(E, s);
			break;
		case ST_IF:
			if_stmt(E, s);
			break;
		case ST_LOOP:
			if (s->axis == AX_NONE)
				plain_loop(E, s);
			else if (s->axis == AX_UNROLL && unroll_fits(s))
				unroll_loop(E, s); /* completely, within the budget */
			else if (s->axis == AX_UNROLL && s->bound_lit >= 1)
				hinted_loop(E, s);
			else if (!E->loop_hook || !E->loop_hook(E, s))
				plain_loop(E, s);
			break;
		}
	}
	for (int i = 0; i < nlets; i++)
		mark_unused(E, lets[i], before[i]);
	free(lets);
	free(before);
}

void emit_body(Emitter *E, const Stmt *s)
{
	int decls = E->decls;
	E->decls = 0;
	E->indent++;
	emit_block(E, s);
	E->indent--;
	E->decls = decls;
}
