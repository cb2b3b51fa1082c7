/* parse.c - recursive-descent parser with names and scopes (docs/language.md sections 1, 3, 4).
 *
 * Builds the syntax tree of a program; every node carries its line and column. Names are
 * resolved while parsing (E0102 unknown or used before its declaration, E0103 defined twice
 * or shadowing). A syntax error (E0101) stops the parse and is the only diagnostic printed
 * (docs/language.md 9.3); name errors are reported in source order when the file parses.
 */
#include "../uir_internal.h"
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <search.h>

/* A name of the file and the symbol it names where the parser stands (NULL: none visible).
 * One per distinct name, kept in a balanced tree (glibc's tsearch, a red-black tree) for
 * the whole parse: a lookup costs O(log names) whatever the names look like (glibc's
 * hsearch_r hashes only a name's first 8 characters: 40,000 names `variable_N` took it
 * 4.4 s; docs/language.md 4.3.4). */
typedef struct Name {
	const char *s;
	size_t len;
	Sym *visible;
	int depth;      /* the scope (index into Parser.scopes) where VISIBLE was defined */
} Name;

/* What a scope changed, undone when it closes: NAME named PREV (defined in scope DEPTH). */
typedef struct Binding {
	Name *name;
	Sym *prev;
	int depth;
} Binding;

typedef struct Scope {
	Binding *b;
	int n, cap;
} Scope;

typedef struct Parser {
	UirProgram *p;
	Lexer lx;
	Token tok;      /* current token */
	Token ahead;    /* one token of look-ahead */
	bool have_ahead;
	Scope *scopes;
	int nscopes, capscopes;
	void *names;    /* tsearch tree of Name */
	int capbufs, capallocs; /* allocated room of p->bufs and p->allocs */
	jmp_buf fail;
	Stmt *parent;   /* enclosing loop or if */
	int depth;      /* nesting of ( ) and { }, limited so that no input overflows the stack */
	const char **decl_names; /* sorted names of every buffer and alloc of the file */
	int ndecl_names;
} Parser;

#define MAX_NESTING 256

static const char *const keywords[] = {
	"buffer", "alloc", "let", "store", "loop", "if", "else", "atomic",
	"thread", "global", "local", "unroll",
	"zeros", "fill", "iota", "random", "file",
	"inf", "nan", "true", "false", NULL
};

/* Reserved words are not names (docs/language.md 1.2.2). */
static bool is_reserved(const char *s, size_t n)
{
	for (int i = 0; keywords[i]; i++)
		if (strlen(keywords[i]) == n && !memcmp(keywords[i], s, n))
			return true;
	if (type_lookup(s, n) >= 0 || op_lookup(s, n) >= 0)
		return true;
	return n >= 4 && !memcmp(s, "uir_", 4);
}

static bool word_is(const Token *t, const char *w)
{
	return t->kind == TK_WORD && (size_t)t->len == strlen(w) && !memcmp(t->s, w, (size_t)t->len);
}

static _Noreturn void syntax(Parser *ps, Loc at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void syntax(Parser *ps, Loc at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_discard(ps->p);
	diag(ps->p, at, "E0101", "%s", msg);
	longjmp(ps->fail, 1);
}

static const char *tok_desc(Parser *ps, const Token *t)
{
	switch (t->kind) {
	case TK_EOF: return "the end of the file";
	case TK_NEWLINE: return "a line break";
	case TK_ERROR: return fmt_str(&ps->p->arena, "'%.*s'", t->len > 40 ? 40 : t->len, t->s);
	default: return fmt_str(&ps->p->arena, "'%.*s'", t->len > 40 ? 40 : t->len, t->s);
	}
}

static void next(Parser *ps)
{
	if (ps->have_ahead) {
		ps->tok = ps->ahead;
		ps->have_ahead = false;
	} else {
		ps->tok = lex_next(&ps->lx);
	}
	if (ps->tok.kind == TK_ERROR) {
		if (ps->tok.s[0] == '"')
			syntax(ps, ps->tok.loc, "unterminated string");
		if ((unsigned char)ps->tok.s[0] >= 0x80)
			syntax(ps, ps->tok.loc, "a non-ASCII character: names are ASCII letters, digits and '_'");
		syntax(ps, ps->tok.loc, "unexpected %s", tok_desc(ps, &ps->tok));
	}
}

static Token *peek2(Parser *ps)
{
	if (!ps->have_ahead) {
		ps->ahead = lex_next(&ps->lx);
		ps->have_ahead = true;
	}
	return &ps->ahead;
}

static void expect(Parser *ps, TokKind k, const char *what)
{
	if (ps->tok.kind != k)
		syntax(ps, ps->tok.loc, "expected %s, found %s", what, tok_desc(ps, &ps->tok));
	next(ps);
}

/* ---- scopes ---- */

static void push_scope(Parser *ps)
{
	if (ps->nscopes == ps->capscopes) {
		ps->capscopes = ps->capscopes ? 2 * ps->capscopes : 8;
		ps->scopes = xrealloc(ps->scopes, (size_t)ps->capscopes * sizeof *ps->scopes);
	}
	ps->scopes[ps->nscopes++] = (Scope){ 0 };
}

/* Closes the innermost scope: every name it defined names again what it named before. */
static void pop_scope(Parser *ps)
{
	Scope *sc = &ps->scopes[--ps->nscopes];
	for (int i = sc->n - 1; i >= 0; i--) {
		sc->b[i].name->visible = sc->b[i].prev;
		sc->b[i].name->depth = sc->b[i].depth;
	}
	free(sc->b);
}

static int cmp_name(const void *x, const void *y)
{
	const Name *a = x, *b = y;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->s, b->s, a->len);
}

/* The Name of S (N bytes); with ADD, created when the file has not used it yet. */
static Name *find_name(Parser *ps, const char *s, size_t n, bool add)
{
	Name key = { s, n, NULL, 0 };
	if (!add) {
		Name **f = tfind(&key, &ps->names, cmp_name);
		return f ? *f : NULL;
	}
	Name *nm = arena_alloc(&ps->p->arena, sizeof *nm);
	*nm = key;
	Name **f = tsearch(nm, &ps->names, cmp_name);
	if (!f)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	return *f;
}

static Sym *lookup(Parser *ps, const char *s, size_t n)
{
	Name *nm = find_name(ps, s, n, false);
	return nm ? nm->visible : NULL;
}

/* The names of every buffer and alloc of the file, sorted, to tell "used before its
 * declaration" from "unknown" in one lookup (a scan per unknown name would be quadratic). */
static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void collect_decl_names(Parser *ps)
{
	Lexer lx;
	lex_init(&lx, ps->p);
	int n = 0, cap = 16;
	const char **v = arena_alloc(&ps->p->arena, (size_t)cap * sizeof *v);
	Token prev = { 0 };
	for (Token t = lex_next(&lx); t.kind != TK_EOF; prev = t, t = lex_next(&lx)) {
		if (t.kind != TK_WORD || prev.kind != TK_WORD)
			continue;
		if (!((prev.len == 6 && !memcmp(prev.s, "buffer", 6)) || (prev.len == 5 && !memcmp(prev.s, "alloc", 5))))
			continue;
		if (n == cap) {
			const char **w = arena_alloc(&ps->p->arena, (size_t)(cap *= 2) * sizeof *v);
			memcpy(w, v, (size_t)n * sizeof *v);
			v = w;
		}
		v[n++] = arena_strndup(&ps->p->arena, t.s, (size_t)t.len);
	}
	qsort(v, (size_t)n, sizeof *v, cmp_str);
	ps->decl_names = v;
	ps->ndecl_names = n;
}

/* A memory NAME declared somewhere in the file but not visible here: later in the file. */
static bool declared_later(Parser *ps, const char *s, size_t n)
{
	char key[256];
	if (n >= sizeof key || ps->ndecl_names == 0)
		return false;
	memcpy(key, s, n);
	key[n] = 0;
	const char *k = key;
	return bsearch(&k, ps->decl_names, (size_t)ps->ndecl_names, sizeof *ps->decl_names, cmp_str) != NULL;
}

/* A new symbol NAME in the innermost scope. A name defined twice in one scope keeps
 * naming the first (E0103); one that shadows names the new symbol to the end of its scope. */
static Sym *define(Parser *ps, const Token *name, SymKind kind)
{
	Name *nm = find_name(ps, name->s, (size_t)name->len, true);
	Sym *old = nm->visible;
	bool same = old && nm->depth == ps->nscopes - 1;
	if (old) {
		diag_later(ps->p, name->loc, "E0103", NULL, "'%.*s' is %s (line %d)", name->len, name->s,
			   same ? "already defined in this scope" : "already visible here: a name may not shadow another",
			   old->loc.line);
	}
	Sym *y = arena_alloc(&ps->p->arena, sizeof *y);
	y->name = arena_strndup(&ps->p->arena, name->s, (size_t)name->len);
	y->kind = kind;
	y->loc = name->loc;
	if (kind != SYM_MEM)
		y->slot = ps->p->nslots++;
	if (same)
		return y;
	Scope *sc = &ps->scopes[ps->nscopes - 1];
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 8;
		sc->b = xrealloc(sc->b, (size_t)sc->cap * sizeof *sc->b);
	}
	sc->b[sc->n++] = (Binding){ nm, old, nm->depth };
	nm->visible = y;
	nm->depth = ps->nscopes - 1;
	return y;
}

/* A name token where a new name is defined. */
static Token name_token(Parser *ps, const char *what)
{
	Token t = ps->tok;
	if (t.kind != TK_WORD)
		syntax(ps, t.loc, "expected %s, found %s", what, tok_desc(ps, &t));
	if (memchr(t.s, '.', (size_t)t.len) || is_reserved(t.s, (size_t)t.len))
		syntax(ps, t.loc, "'%.*s' is a reserved word and cannot be used as %s", t.len, t.s, what);
	next(ps);
	return t;
}

/* A use of a name: resolved now; unknown names are E0102 (deferred). */
static Sym *use_name(Parser *ps, const Token *t)
{
	Sym *y = lookup(ps, t->s, (size_t)t->len);
	if (!y) {
		if (declared_later(ps, t->s, (size_t)t->len))
			diag_later(ps->p, t->loc, "E0102", NULL, "'%.*s' is used before its declaration", t->len, t->s);
		else
			diag_later(ps->p, t->loc, "E0102", NULL, "unknown name '%.*s'", t->len, t->s);
	}
	return y;
}

/* ---- expressions ---- */

static Expr *new_expr(Parser *ps, ExprKind k, Loc loc)
{
	Expr *e = arena_alloc(&ps->p->arena, sizeof *e);
	e->kind = k;
	e->loc = loc;
	e->ty = UIR_NTYPES; /* not typed yet */
	e->lanes = 1;
	e->width = 1;
	return e;
}

static bool is_literal_tok(const Token *t)
{
	if (t->kind == TK_INT || t->kind == TK_FLOAT)
		return true;
	if (t->kind != TK_WORD)
		return false;
	size_t n = (size_t)t->typelen;
	return (n == 3 && (!memcmp(t->s, "inf", 3) || !memcmp(t->s, "nan", 3))) ||
	       (n == 4 && !memcmp(t->s, "true", 4)) || (n == 5 && !memcmp(t->s, "false", 5));
}

/* literal := INT | FLOAT | inf | -inf | nan | true | false, each with an optional :TYPE */
static Expr *literal(Parser *ps)
{
	Token t = ps->tok;
	if (!is_literal_tok(&t))
		syntax(ps, t.loc, "expected a literal, found %s", tok_desc(ps, &t));
	Expr *e = new_expr(ps, EX_LIT, t.loc);
	e->text = arena_strndup(&ps->p->arena, t.s, (size_t)t.typelen);
	e->lit_float = t.kind == TK_FLOAT || (t.kind == TK_WORD && (t.s[0] == 'i' || t.s[0] == 'n'));
	e->lit_bool = t.kind == TK_WORD && (t.s[0] == 't' || t.s[0] == 'f');
	if (t.typelen < t.len) {
		const char *ty = t.s + t.typelen + 1;
		int tl = t.len - t.typelen - 1;
		int k = type_lookup(ty, (size_t)tl);
		if (k < 0)
			syntax(ps, t.loc, "unknown type '%.*s' on a literal", tl, ty);
		e->lit_typed = true;
		e->lit_type = (UirType)k;
	}
	next(ps);
	return e;
}

static bool ends_expr(const Token *t)
{
	return t->kind == TK_NEWLINE || t->kind == TK_EOF || t->kind == TK_RPAREN ||
	       t->kind == TK_RBRACE || t->kind == TK_LBRACE || t->kind == TK_RBRACK;
}

static Expr *expr(Parser *ps);

/* arg := atom | '(' expr ')'     atom := NAME | literal */
static Expr *arg(Parser *ps)
{
	Token t = ps->tok;
	if (t.kind == TK_LPAREN) {
		if (++ps->depth > MAX_NESTING)
			syntax(ps, t.loc, "parentheses nested more than %d deep", MAX_NESTING);
		next(ps);
		Expr *e = expr(ps);
		expect(ps, TK_RPAREN, "')'");
		ps->depth--;
		return e;
	}
	if (is_literal_tok(&t))
		return literal(ps);
	if (t.kind == TK_WORD) {
		if (memchr(t.s, '.', (size_t)t.len) || is_reserved(t.s, (size_t)t.len))
			syntax(ps, t.loc, "'%.*s' cannot stand here: an op applied to operands needs parentheses, "
				   "a reserved word is not a name", t.len, t.s);
		Expr *e = new_expr(ps, EX_NAME, t.loc);
		e->text = arena_strndup(&ps->p->arena, t.s, (size_t)t.len);
		e->sym = use_name(ps, &t);
		next(ps);
		return e;
	}
	syntax(ps, t.loc, "expected an operand, found %s", tok_desc(ps, &t));
}

/* The dotted suffix of an op word as a width: load.4 -> 4; -1 when absent, 0 if bad. */
static int suffix_width(const Token *t, size_t base)
{
	if ((size_t)t->len == base)
		return -1;
	int w = 0;
	for (size_t i = base + 1; i < (size_t)t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9' || w > 100000)
			return 0;
		w = w * 10 + (t->s[i] - '0');
	}
	return w;
}

/* expr := arg | OP arg...   (cast and bitcast take a type first; load takes a memory) */
static Expr *expr(Parser *ps)
{
	Token t = ps->tok;
	if (t.kind != TK_WORD || is_literal_tok(&t))
		return arg(ps);
	const char *dot = memchr(t.s, '.', (size_t)t.len);
	size_t base = dot ? (size_t)(dot - t.s) : (size_t)t.len;
	int op = op_lookup(t.s, base);
	if (op < 0) {
		/* a plain name, or an unknown op when operands follow */
		if (!dot && !is_reserved(t.s, (size_t)t.len) && ends_expr(peek2(ps)))
			return arg(ps);
		if (is_reserved(t.s, base) && type_lookup(t.s, base) < 0 && !dot)
			syntax(ps, t.loc, "'%.*s' is a reserved word, not an op", t.len, t.s);
	}
	Expr *e = new_expr(ps, EX_OP, t.loc);
	e->text = arena_strndup(&ps->p->arena, t.s, (size_t)t.len);
	e->op = op < 0 ? OP_COUNT : (Op)op;
	if (op >= 0 && dot) {
		int w = suffix_width(&t, base);
		if (w == 1)
			w = 0; /* load.1 is not a vector width */
		if (op == OP_LOAD || op == OP_SPLAT)
			e->width = w;
		else
			e->op = OP_COUNT; /* add.4 and the like: unknown op (E0202) */
	} else if (op == OP_SPLAT) {
		e->width = -1; /* splat needs .K */
	}
	next(ps);
	if (e->op == OP_CAST || e->op == OP_BITCAST) {
		Token ty = ps->tok;
		int k = ty.kind == TK_WORD ? type_lookup(ty.s, (size_t)ty.len) : -1;
		if (k < 0)
			syntax(ps, ty.loc, "%s needs a type first (bool i8 u8 i32 u32 i64 u64 f32 f64), found %s",
			       op_info[e->op].name, tok_desc(ps, &ty));
		e->to = (UirType)k;
		next(ps);
	}
	if (e->op == OP_LOAD) {
		Token m = ps->tok;
		if (m.kind != TK_WORD || is_reserved(m.s, (size_t)m.len) || memchr(m.s, '.', (size_t)m.len))
			syntax(ps, m.loc, "load needs a buffer or alloc name, found %s", tok_desc(ps, &m));
		Sym *y = use_name(ps, &m);
		e->mem_loc = m.loc;
		if (y && y->kind == SYM_MEM)
			e->mem = y->mem;
		else if (y)
			e->sym = y; /* not a memory: E0201 in types.c */
		e->text = arena_strndup(&ps->p->arena, t.s, (size_t)t.len);
		next(ps);
	}
	Expr *argv[64];
	int n = 0;
	while (!ends_expr(&ps->tok)) {
		if (n == 64)
			syntax(ps, ps->tok.loc, "too many operands");
		argv[n++] = arg(ps);
	}
	e->nargs = n;
	e->args = arena_alloc(&ps->p->arena, (size_t)(n ? n : 1) * sizeof *e->args);
	memcpy(e->args, argv, (size_t)n * sizeof *argv);
	return e;
}

/* ---- statements ---- */

static Stmt *new_stmt(Parser *ps, StmtKind k, Loc loc)
{
	Stmt *s = arena_alloc(&ps->p->arena, sizeof *s);
	s->kind = k;
	s->loc = loc;
	s->parent = ps->parent;
	s->bound_lit = -1;
	return s;
}

static Stmt *block(Parser *ps, Stmt *owner);

/* A statement ends at a line break, before '}', or at the end of the file. */
static void end_stmt(Parser *ps)
{
	if (ps->tok.kind == TK_NEWLINE)
		next(ps);
	else if (ps->tok.kind != TK_RBRACE && ps->tok.kind != TK_EOF)
		syntax(ps, ps->tok.loc, "expected the end of the statement, found %s", tok_desc(ps, &ps->tok));
}

/* The memory named by a store or atomic. */
static void store_target(Parser *ps, Stmt *s)
{
	Token m = ps->tok;
	if (m.kind != TK_WORD || is_reserved(m.s, (size_t)m.len) || memchr(m.s, '.', (size_t)m.len))
		syntax(ps, m.loc, "expected a buffer or alloc name, found %s", tok_desc(ps, &m));
	Sym *y = use_name(ps, &m);
	s->mem_loc = m.loc;
	if (y && y->kind == SYM_MEM)
		s->mem = y->mem;
	else if (y)
		s->sym = y; /* E0201 in types.c */
	next(ps);
}

/* Room for one more Mem * in V (N used, *CAP allocated), doubling: linear in all. */
static Mem **grow(Mem **v, int n, int *cap)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 16;
	return xrealloc(v, (size_t)*cap * sizeof *v);
}

/* decl := ('buffer' | 'alloc') NAME TYPE SIZE ['=' init] */
static Stmt *decl(Parser *ps, bool is_alloc)
{
	Loc loc = ps->tok.loc;
	if (ps->nscopes > 1)
		syntax(ps, loc, "declarations stand at the top level, not inside a loop or if");
	next(ps);
	Token name = name_token(ps, is_alloc ? "an alloc name" : "a buffer name");
	Stmt *s = new_stmt(ps, is_alloc ? ST_ALLOC : ST_BUFFER, loc);
	Mem *m = arena_alloc(&ps->p->arena, sizeof *m);
	m->name = arena_strndup(&ps->p->arena, name.s, (size_t)name.len);
	m->loc = name.loc;
	m->is_alloc = is_alloc;
	s->mem = m;
	Token ty = ps->tok;
	int k = ty.kind == TK_WORD ? type_lookup(ty.s, (size_t)ty.len) : -1;
	if (k < 0)
		syntax(ps, ty.loc, "expected an element type (bool i8 u8 i32 u32 i64 u64 f32 f64), found %s",
		       tok_desc(ps, &ty));
	m->ty = (UirType)k;
	next(ps);
	if (ps->tok.kind != TK_INT)
		syntax(ps, ps->tok.loc, "expected the size (an integer literal), found %s", tok_desc(ps, &ps->tok));
	m->size_lit = literal(ps);
	m->init = INIT_ZEROS;
	if (ps->tok.kind == TK_EQ) {
		if (is_alloc)
			syntax(ps, ps->tok.loc, "an alloc has no INIT: it starts as zeros");
		next(ps);
		Token w = ps->tok;
		m->init_loc = w.loc;
		if (word_is(&w, "zeros")) {
			next(ps);
		} else if (word_is(&w, "iota")) {
			m->init = INIT_IOTA;
			next(ps);
		} else if (word_is(&w, "fill")) {
			m->init = INIT_FILL;
			next(ps);
			m->fill = literal(ps);
		} else if (word_is(&w, "random")) {
			m->init = INIT_RANDOM;
			next(ps);
			m->seed = literal(ps);
			if (!ends_expr(&ps->tok)) {
				m->lo = literal(ps);
				m->hi = literal(ps);
				m->has_range = true;
			}
		} else if (word_is(&w, "file")) {
			m->init = INIT_FILE;
			next(ps);
			if (ps->tok.kind != TK_STRING)
				syntax(ps, ps->tok.loc, "expected a quoted path after file, found %s", tok_desc(ps, &ps->tok));
			m->path = arena_strndup(&ps->p->arena, ps->tok.s + 1, (size_t)ps->tok.len - 2);
			next(ps);
		} else if (w.kind == TK_LBRACK) {
			m->init = INIT_LIST;
			next(ps);
			/* arena memory: a syntax error inside the list longjmps out */
			int cap = 16, n = 0;
			Expr **v = arena_alloc(&ps->p->arena, (size_t)cap * sizeof *v);
			while (ps->tok.kind != TK_RBRACK) {
				if (ps->tok.kind == TK_EOF)
					syntax(ps, ps->tok.loc, "unclosed '[': expected ']'");
				if (n == cap) {
					Expr **w2 = arena_alloc(&ps->p->arena, (size_t)(cap *= 2) * sizeof *v);
					memcpy(w2, v, (size_t)n * sizeof *v);
					v = w2;
				}
				if (!is_literal_tok(&ps->tok))
					syntax(ps, ps->tok.loc, "expected a literal in the list, found %s", tok_desc(ps, &ps->tok));
				v[n++] = literal(ps);
			}
			m->list = v;
			m->nlist = n;
			next(ps);
		} else {
			syntax(ps, w.loc, "expected zeros, fill, iota, random, [values] or file after '=', found %s",
			       tok_desc(ps, &w));
		}
	}
	Sym *y = define(ps, &name, SYM_MEM);
	y->mem = m;
	if (is_alloc) {
		m->index = ps->p->nallocs;
		ps->p->allocs = grow(ps->p->allocs, ps->p->nallocs, &ps->capallocs);
		ps->p->allocs[ps->p->nallocs++] = m;
	} else {
		m->index = ps->p->nbufs;
		ps->p->bufs = grow(ps->p->bufs, ps->p->nbufs, &ps->capbufs);
		ps->p->bufs[ps->p->nbufs++] = m;
	}
	end_stmt(ps);
	return s;
}

/* if := 'if' arg '{' block '}' ['else' ('{' block '}' | if)] */
static Stmt *if_stmt(Parser *ps)
{
	Stmt *s = new_stmt(ps, ST_IF, ps->tok.loc);
	next(ps);
	s->cond = arg(ps);
	if (ps->tok.kind != TK_LBRACE)
		syntax(ps, ps->tok.loc, "expected '{' after the if condition, found %s", tok_desc(ps, &ps->tok));
	s->then_ = block(ps, s);
	if (word_is(&ps->tok, "else")) {
		next(ps);
		if (word_is(&ps->tok, "if")) {
			Stmt *saved = ps->parent;
			ps->parent = s;
			push_scope(ps);
			s->else_ = if_stmt(ps);
			pop_scope(ps);
			ps->parent = saved;
			return s;
		}
		if (ps->tok.kind != TK_LBRACE)
			syntax(ps, ps->tok.loc, "expected '{' or 'if' after else, found %s", tok_desc(ps, &ps->tok));
		s->else_ = block(ps, s);
	}
	return s;
}

/* stmt := decl | 'let' NAME '=' expr | ('store' | 'store.K') MEM arg arg
 *       | 'atomic.OP' MEM arg arg | 'loop' NAME arg [AXIS] block | if
 * AXIS := 'unroll' | 'thread' | 'global' | 'local'; MEM names a buffer or an alloc; OP is
 * add, min or max (another is E0202, in types.c). A loop or an if ends at its '}', any other
 * statement at a line break, before '}' or at the end of the file (end_stmt()). */
static Stmt *stmt(Parser *ps)
{
	Token t = ps->tok;
	if (t.kind != TK_WORD)
		syntax(ps, t.loc, "expected a statement, found %s", tok_desc(ps, &t));
	if (word_is(&t, "buffer"))
		return decl(ps, false);
	if (word_is(&t, "alloc"))
		return decl(ps, true);
	if (word_is(&t, "let")) {
		Stmt *s = new_stmt(ps, ST_LET, t.loc);
		next(ps);
		Token name = name_token(ps, "a name");
		expect(ps, TK_EQ, "'='");
		if (ends_expr(&ps->tok))
			syntax(ps, ps->tok.loc, "expected a value after '=', found %s", tok_desc(ps, &ps->tok));
		s->value = expr(ps);
		s->sym = define(ps, &name, SYM_LET);
		s->sym->def = s;
		end_stmt(ps);
		return s;
	}
	const char *dot = memchr(t.s, '.', (size_t)t.len);
	size_t base = dot ? (size_t)(dot - t.s) : (size_t)t.len;
	if (base == 5 && !memcmp(t.s, "store", 5)) {
		Stmt *s = new_stmt(ps, ST_STORE, t.loc);
		s->width = dot ? suffix_width(&t, base) : 1;
		if (dot && s->width == 1)
			s->width = 0; /* store.1 is not a vector width */
		next(ps);
		store_target(ps, s);
		s->off = arg(ps);
		s->val = arg(ps);
		end_stmt(ps);
		return s;
	}
	if (base == 6 && !memcmp(t.s, "atomic", 6)) {
		Stmt *s = new_stmt(ps, ST_ATOMIC, t.loc);
		const char *opn = dot ? dot + 1 : "";
		size_t on = dot ? (size_t)t.len - base - 1 : 0;
		if (on == 3 && !memcmp(opn, "add", 3))
			s->aop = AT_ADD;
		else if (on == 3 && !memcmp(opn, "min", 3))
			s->aop = AT_MIN;
		else if (on == 3 && !memcmp(opn, "max", 3))
			s->aop = AT_MAX;
		else
			s->width = -1; /* unknown atomic op: E0202 in types.c */
		next(ps);
		store_target(ps, s);
		s->off = arg(ps);
		s->val = arg(ps);
		end_stmt(ps);
		return s;
	}
	if (word_is(&t, "loop")) {
		Stmt *s = new_stmt(ps, ST_LOOP, t.loc);
		next(ps);
		Token name = name_token(ps, "a loop index name");
		s->value = arg(ps);
		if (ps->tok.kind == TK_WORD) {
			static const char *const ax[] = { "", "unroll", "thread", "global", "local" };
			s->axis = AX_NONE;
			for (int i = 1; i < 5; i++)
				if (word_is(&ps->tok, ax[i]))
					s->axis = (Axis)i;
			if (s->axis == AX_NONE)
				syntax(ps, ps->tok.loc, "expected an axis (unroll, thread, global, local) or '{', found %s",
				       tok_desc(ps, &ps->tok));
			s->axis_loc = ps->tok.loc;
			next(ps);
		}
		if (ps->tok.kind != TK_LBRACE)
			syntax(ps, ps->tok.loc, "expected '{' to open the loop body, found %s", tok_desc(ps, &ps->tok));
		push_scope(ps);
		s->sym = define(ps, &name, SYM_LOOP);
		s->sym->def = s;
		s->sym->ty = UIR_I32;
		s->sym->lanes = 1;
		s->body = block(ps, s);
		pop_scope(ps);
		return s; /* its '}' ended it: another statement may follow on the line */
	}
	if (word_is(&t, "if"))
		return if_stmt(ps); /* its '}' ended it */
	if (word_is(&t, "else"))
		syntax(ps, t.loc, "'else' must follow the '}' of an if on the same line");
	syntax(ps, t.loc, "expected a statement (buffer, alloc, let, store, atomic, loop, if), found %s",
	       tok_desc(ps, &t));
}

/* Statements up to (not including) the closing token; skips blank lines. */
static Stmt *stmts(Parser *ps, TokKind close)
{
	Stmt head = { 0 }, *tail = &head;
	for (;;) {
		while (ps->tok.kind == TK_NEWLINE)
			next(ps);
		if (ps->tok.kind == close)
			break;
		if (ps->tok.kind == TK_EOF)
			syntax(ps, ps->tok.loc, "unexpected end of the file: a '{' is not closed");
		if (ps->tok.kind == TK_RBRACE)
			syntax(ps, ps->tok.loc, "unexpected '}' with no open '{'");
		tail->next = stmt(ps);
		tail = tail->next;
	}
	return head.next;
}

/* block := '{' stmts '}'  with its own scope (the current token is '{') */
static Stmt *block(Parser *ps, Stmt *owner)
{
	if (++ps->depth > MAX_NESTING)
		syntax(ps, ps->tok.loc, "blocks nested more than %d deep", MAX_NESTING);
	next(ps);
	Stmt *saved = ps->parent;
	ps->parent = owner;
	push_scope(ps);
	Stmt *b = stmts(ps, TK_RBRACE);
	pop_scope(ps);
	ps->parent = saved;
	next(ps);
	ps->depth--;
	return b;
}

static void no_free(void *name)
{
	(void)name; /* Names live in the program's arena */
}

bool parse_program(UirProgram *p)
{
	Parser *ps = xcalloc(1, sizeof *ps);
	ps->p = p;
	lex_init(&ps->lx, p);
	bool ok = false;
	collect_decl_names(ps);
	if (!setjmp(ps->fail)) {
		push_scope(ps);
		next(ps);
		p->top = stmts(ps, TK_EOF);
		ok = diag_flush(p) == 0;
	}
	while (ps->nscopes > 0)
		pop_scope(ps);
	tdestroy(ps->names, no_free);
	free(ps->scopes);
	free(ps);
	return ok;
}
