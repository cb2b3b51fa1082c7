/* emit.c - the emitter's state shared by both renderers: C names of the program's
 * memories and names, use counts, output lines, helper and support bookkeeping, and the
 * fault sites of bounds checks (each holding `run`'s E0601 message around the offset). */
#include "render_int.h"
#include "uir_helpers.h"
#include <stdlib.h>
#include <string.h>

bool nameset_has(const NameSet *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

bool nameset_add(NameSet *s, const char *name)
{
	if (nameset_has(s, name))
		return false;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
	}
	s->v[s->n++] = name;
	return true;
}

SymInfo *sym_info(Emitter *E, const Sym *s)
{
	if (!s || s->slot < 0 || s->slot >= E->p->nslots)
		unreachable();
	return &E->syms[s->slot];
}

MemInfo *mem_info(Emitter *E, const Mem *m)
{
	return m->is_alloc ? &E->allocs[m->index] : &E->bufs[m->index];
}

const char *mem_cname(Emitter *E, const Mem *m)
{
	MemInfo *mi = mem_info(E, m);
	mi->refs++;
	return mi->cname;
}

const char *ctype(UirType t)
{
	static const char *const names[UIR_NTYPES] = {
		"uint8_t", "int8_t", "uint8_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "float", "double",
	};
	if ((unsigned)t >= UIR_NTYPES)
		unreachable();
	return names[t];
}

int64_t mem_bytes(const Mem *m)
{
	return m->size * uir_type_size(m->ty);
}

void line(Emitter *E, const char *fmt, ...)
{
	for (int i = 0; i < E->indent; i++)
		str_put(E->out, "\t");
	va_list ap;
	va_start(ap, fmt);
	str_vprintf(E->out, fmt, ap);
	va_end(ap);
	str_put(E->out, "\n");
}

void use_helper(Emitter *E, const char *name)
{
	if (!uir_helper_find(name))
		uir_internal_error(__FILE__, __LINE__, name);
	nameset_add(E->host ? &E->host_helpers : &E->helpers, name);
}

const char *temp_name(Emitter *E, const char *prefix)
{
	return fmt_str(E->a, "uir_%s%d", prefix, ++E->ntemp);
}

/* ---- names ---- */

typedef struct NameList {
	const char **v;
	int n, cap;
} NameList;

static void names_add(NameList *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	l->v[l->n++] = s;
}

static bool names_has(const NameList *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* The C name of NAME: itself, or with trailing _ until it is neither reserved nor another
 * name of the program (ALL). */
static const char *c_name(Emitter *E, const NameList *all, const char *name)
{
	if (!name_reserved(name))
		return name;
	char *s = fmt_str(E->a, "%s_", name);
	for (int i = 0; name_listed(s) || names_has(all, s); i++) {
		if (i > all->n + 8)
			unreachable(); /* each step passes a different name: cannot happen */
		s = fmt_str(E->a, "%s_", s);
	}
	return s;
}

static void count_expr(Emitter *E, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_NAME && e->sym && e->sym->kind != SYM_MEM)
		sym_info(E, e->sym)->uses++;
	if (e->kind == EX_OP)
		for (int i = 0; i < e->nargs; i++)
			count_expr(E, e->args[i]);
}

/* Names every let and loop index, counts references, marks used memories. */
static void walk_syms(Emitter *E, const Stmt *s, const NameList *all)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LET || s->kind == ST_LOOP)
			sym_info(E, s->sym)->cname = c_name(E, all, s->sym->name);
		count_expr(E, s->value);
		count_expr(E, s->off);
		count_expr(E, s->val);
		count_expr(E, s->cond);
		if (s->kind == ST_STORE || s->kind == ST_ATOMIC)
			mem_info(E, s->mem)->used = true;
		walk_syms(E, s->body, all);
		walk_syms(E, s->then_, all);
		walk_syms(E, s->else_, all);
	}
}

static void mark_loads(Emitter *E, const Expr *e)
{
	if (!e || e->kind != EX_OP)
		return;
	if (e->op == OP_LOAD && e->mem)
		mem_info(E, e->mem)->used = true;
	for (int i = 0; i < e->nargs; i++)
		mark_loads(E, e->args[i]);
}

static void walk_loads(Emitter *E, const Stmt *s)
{
	for (; s; s = s->next) {
		mark_loads(E, s->value);
		mark_loads(E, s->off);
		mark_loads(E, s->val);
		mark_loads(E, s->cond);
		walk_loads(E, s->body);
		walk_loads(E, s->then_);
		walk_loads(E, s->else_);
	}
}

static void all_names(const Stmt *s, NameList *l)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LET || s->kind == ST_LOOP)
			names_add(l, s->sym->name);
		all_names(s->body, l);
		all_names(s->then_, l);
		all_names(s->else_, l);
	}
}

void emit_init(Emitter *E, UirProgram *p, bool cuda)
{
	memset(E, 0, sizeof *E);
	E->p = p;
	E->a = &p->arena;
	E->cuda = cuda;
	E->syms = xcalloc((size_t)p->nslots + 1, sizeof *E->syms);
	E->bufs = xcalloc((size_t)p->nbufs + 1, sizeof *E->bufs);
	E->allocs = xcalloc((size_t)p->nallocs + 1, sizeof *E->allocs);
	NameList all = { 0 };
	for (int i = 0; i < p->nbufs; i++)
		names_add(&all, p->bufs[i]->name);
	for (int i = 0; i < p->nallocs; i++)
		names_add(&all, p->allocs[i]->name);
	all_names(p->top, &all);
	for (int i = 0; i < p->nbufs; i++)
		E->bufs[i].cname = c_name(E, &all, p->bufs[i]->name);
	for (int i = 0; i < p->nallocs; i++)
		E->allocs[i].cname = c_name(E, &all, p->allocs[i]->name);
	walk_syms(E, p->top, &all);
	walk_loads(E, p->top);
	free(all.v);
}

void emit_free(Emitter *E)
{
	free(E->syms);
	free(E->bufs);
	free(E->allocs);
	free(E->helpers.v);
	free(E->host_helpers.v);
	free(E->time_helpers.v);
	free(E->support.v);
	free(E->sites);
	free(E->hoists);
	memset(E, 0, sizeof *E);
}

/* ---- fault sites ---- */

void diag_template(Emitter *E, Loc at, const char *code, const char *msg, const char **head, const char **mid,
		   const char **tail)
{
	char *text = diag_text(E->p, at, code, msg);
	char *a = strchr(text, 1), *b = a ? strchr(a, 2) : NULL;
	if (!a)
		uir_internal_error(__FILE__, __LINE__, "a template without its placeholder");
	*head = arena_strndup(E->a, text, (size_t)(a - text));
	*mid = b ? arena_strndup(E->a, a + 1, (size_t)(b - a - 1)) : "";
	const char *t = b ? b + 1 : a + 1;
	*tail = arena_strndup(E->a, t, strlen(t));
	free(text);
}

const char *oom_format(Emitter *E, const char *kind)
{
	char msg[MSG_MAX];
	msg_out_of_memory(msg, diag_shown(E->a, E->p->path), kind, MSG_A, MSG_B);
	char *fmt = msg_printf_format(msg, "%s", "%lld");
	Str b = { 0 };
	str_put(&b, "\"");
	str_put_cstring(&b, fmt, strlen(fmt));
	str_put(&b, "\"");
	const char *r = arena_strndup(E->a, str_cstr(&b), b.n);
	str_free(&b);
	free(fmt);
	return r;
}

/* The number of the site with these texts, added if new (the same access rendered again,
 * in an unrolled copy or a lane, shares it). */
static int site_of(Emitter *E, const char *head, const char *mid, const char *tail, int k)
{
	for (int i = 0; i < E->nsites; i++)
		if (E->sites[i].k == k && !strcmp(E->sites[i].head, head) && !strcmp(E->sites[i].mid, mid) &&
		    !strcmp(E->sites[i].tail, tail))
			return i;
	if (E->nsites == E->capsites) {
		E->capsites = E->capsites ? 2 * E->capsites : 16;
		E->sites = xrealloc(E->sites, (size_t)E->capsites * sizeof *E->sites);
	}
	SiteText *st = &E->sites[E->nsites];
	st->head = arena_strndup(E->a, head, strlen(head));
	st->mid = arena_strndup(E->a, mid, strlen(mid));
	st->tail = arena_strndup(E->a, tail, strlen(tail));
	st->k = k;
	E->need |= NEED_FAULT;
	return E->nsites++;
}

/* The site of fault site S (K: its width, or -1 for an overflow check). */
static int site_for(Emitter *E, const FaultSite *s, int k)
{
	char msg[MSG_MAX];
	const char *head, *mid, *tail;
	msg_fault(msg, s, MSG_A, MSG_B);
	diag_template(E, s->loc, "E0601", msg, &head, &mid, &tail);
	return site_of(E, head, mid, tail, k);
}

int add_site(Emitter *E, const Mem *m, Loc loc, const char *what, int k)
{
	FaultSite s = { m, loc, what, k, NULL };
	return site_for(E, &s, k);
}

int add_overflow_site(Emitter *E, const OverflowCheck *o)
{
	FaultSite s = { o->mem, o->at, NULL, 1, o };
	return site_for(E, &s, -1);
}
