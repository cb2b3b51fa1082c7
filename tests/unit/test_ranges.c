/* test_ranges.c - soundness of the value-range analysis (src/check/ranges.c), which every
 * back end trusts to leave out bounds checks and wrapping helpers.
 *
 * Random well-typed integer expressions (bool, i8, u8, i32, u32; every op the analysis
 * models, shifts by any count, division by zero, casts) over two loop indices and an `if`
 * are checked, and then evaluated at every index pair with the interpreter's own op
 * instructions (ops_apply): every value an evaluated node takes must lie in its range, a
 * node that runs must not have an empty range, and an op marked nowrap must give its exact
 * mathematical result. A few fixed programs check the in-bounds facts and the narrowing by
 * an `if`. Prints `N passed, N failed`; exits 1 on a failure. */
#include "uir_internal.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

/* ---- generating ---- */

static const char *const tname[] = { "bool", "i8", "u8", "i32", "u32" };

typedef struct Buf { char *s; size_t n, cap; } Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if ((size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap * 2 + (size_t)k + 64;
		b->s = realloc(b->s, b->cap);
	}
}

static void literal(Buf *b, int t)
{
	static const long long edges[] = { 0, 1, 2, 3, 5, 7, 31, 32, 100, 127, 128, 255, 256, 1000, 65535,
					   2147483647LL, 4294967295LL };
	if (t == 0) {
		put(b, rnd(2) ? "true" : "false");
		return;
	}
	long long v = edges[rnd(sizeof edges / sizeof *edges)];
	if (rnd(3) == 0)
		v = rnd(20);
	bool neg = (t == 1 || t == 3) && rnd(2);
	switch (t) {
	case 1: v = v % 129; break;
	case 2: v = v % 256; break;
	case 3: v = v % 2147483648LL; break;
	default: break;
	}
	if (neg)
		v = -v;
	if (t == 1 && v == 128)
		v = 127;
	put(b, "%lld:%s", v, tname[t]);
}

static void gen(Buf *b, int t, int depth, int nlets)
{
	if (depth <= 0 || rnd(5) == 0) {
		unsigned k = rnd(4);
		if (k == 0 || (t != 3 && k < 2)) {
			literal(b, t);
		} else if (k == 1 || t != 3) {
			/* a name of type t: cast of an index, or a let */
			if (nlets > 0 && rnd(2))
				put(b, "(cast %s x%u)", tname[t], rnd((unsigned)nlets));
			else
				put(b, "(cast %s %s)", tname[t], rnd(2) ? "i" : "j");
		} else {
			put(b, "%s", rnd(2) ? "i" : "j");
		}
		return;
	}
	if (t == 0) {
		static const char *const cmp[] = { "lt", "le", "gt", "ge", "eq", "ne" };
		unsigned k = rnd(5);
		if (k == 0) {
			put(b, "(not ");
			gen(b, 0, depth - 1, nlets);
			put(b, ")");
		} else if (k == 1) {
			put(b, rnd(2) ? "(and " : "(or ");
			gen(b, 0, depth - 1, nlets);
			put(b, " ");
			gen(b, 0, depth - 1, nlets);
			put(b, ")");
		} else {
			int u = 1 + (int)rnd(4);
			put(b, "(%s ", cmp[rnd(6)]);
			gen(b, u, depth - 1, nlets);
			put(b, " ");
			gen(b, u, depth - 1, nlets);
			put(b, ")");
		}
		return;
	}
	static const char *const bin[] = { "add", "sub", "mul", "div", "mod", "min", "max", "and", "or", "xor",
					   "shl", "shr" };
	static const char *const un[] = { "neg", "abs", "not" };
	unsigned k = rnd(10);
	if (k < 6) {
		put(b, "(%s ", bin[rnd(12)]);
		gen(b, t, depth - 1, nlets);
		put(b, " ");
		gen(b, t, depth - 1, nlets);
		put(b, ")");
	} else if (k < 7) {
		const char *op = un[rnd(3)];
		if ((t == 2 || t == 4) && !strcmp(op, "neg"))
			op = "not";
		put(b, "(%s ", op);
		gen(b, t, depth - 1, nlets);
		put(b, ")");
	} else if (k < 8) {
		put(b, "(select ");
		gen(b, 0, depth - 1, nlets);
		put(b, " ");
		gen(b, t, depth - 1, nlets);
		put(b, " ");
		gen(b, t, depth - 1, nlets);
		put(b, ")");
	} else {
		put(b, "(cast %s ", tname[t]);
		gen(b, (int)rnd(5), depth - 1, nlets);
		put(b, ")");
	}
}

/* ---- evaluating ---- */

typedef struct Env { const Sym *i, *j; int64_t vi, vj; } Env;

static bool small_int(UirType t)
{
	return t == UIR_BOOL || t == UIR_I8 || t == UIR_U8 || t == UIR_I32 || t == UIR_U32;
}

/* The value of a scalar as a mathematical integer in its type's reading. */
static int64_t math(UirType t, Scalar v)
{
	return t == UIR_BOOL ? (int64_t)(v.u != 0) : type_is_signed(t) ? v.i : (int64_t)v.u;
}

static const char *program;

static void fail(const char *what, const Expr *e, int64_t vi, int64_t vj, long long v)
{
	failed++;
	if (failed <= 10)
		printf("FAIL %s at line %d col %d (i=%lld j=%lld): value %lld, range [%lld, %lld]%s\n%s\n", what,
		       e->loc.line, e->loc.col, (long long)vi, (long long)vj, v, (long long)e->rng.lo,
		       (long long)e->rng.hi, e->rng.known ? "" : " unknown", program);
}

/* Evaluates E and checks every node it evaluates against its facts. */
static Scalar eval(const Expr *e, const Env *env)
{
	Scalar out = { 0 };
	if (e->kind == EX_LIT) {
		out = e->val;
	} else if (e->kind == EX_NAME) {
		if (e->sym == env->i)
			out.i = env->vi;
		else if (e->sym == env->j)
			out.i = env->vj;
		else
			out = eval(e->sym->def->value, env);
	} else {
		Scalar a[3];
		for (int k = 0; k < e->nargs; k++)
			a[k] = eval(e->args[k], env);
		UirType t = e->op == OP_SELECT ? e->args[1]->ty : e->args[0]->ty;
		if (!ops_apply(e->op, t, e->ty, a, e->nargs, &out)) {
			failed++;
			printf("FAIL ops_apply refused op %d\n", (int)e->op);
			return out;
		}
		if (e->nowrap) {
			__int128 x = math(t, a[0]), y = e->nargs > 1 ? math(e->args[1]->ty, a[1]) : 0, r = 0;
			switch (e->op) {
			case OP_ADD: r = x + y; break;
			case OP_SUB: r = x - y; break;
			case OP_MUL: r = x * y; break;
			case OP_NEG: r = -x; break;
			case OP_SHL: r = x * ((__int128)1 << (y & (type_bits(t) - 1))); break;
			default: r = math(e->ty, out); break;
			}
			if (r != math(e->ty, out))
				fail("nowrap op wrapped", e, env->vi, env->vj, (long long)math(e->ty, out));
			else
				passed++;
		}
	}
	if (e->lanes == 1 && small_int(e->ty)) {
		int64_t v = math(e->ty, out);
		if (!e->rng.known)
			fail("no range for a small integer", e, env->vi, env->vj, (long long)v);
		else if (e->rng.lo > e->rng.hi)
			fail("empty range on a node that runs", e, env->vi, env->vj, (long long)v);
		else if (v < e->rng.lo || v > e->rng.hi)
			fail("value outside its range", e, env->vi, env->vj, (long long)v);
		else
			passed++;
	}
	return out;
}

static bool truth(const Expr *c, const Env *env)
{
	return eval(c, env).u != 0;
}

/* Runs the statements S at ENV, evaluating every let, store and condition that runs. */
static void run(const Stmt *s, Env *env)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_LET:
			eval(s->value, env);
			break;
		case ST_STORE:
			eval(s->off, env);
			eval(s->val, env);
			break;
		case ST_IF:
			run(truth(s->cond, env) ? s->then_ : s->else_, env);
			break;
		case ST_LOOP: {
			int64_t n = math(UIR_I32, eval(s->value, env));
			for (int64_t v = 0; v < n; v++) {
				if (!env->i) {
					env->i = s->sym;
					env->vi = v;
				} else {
					env->j = s->sym;
					env->vj = v;
				}
				run(s->body, env);
				if (env->j == s->sym)
					env->j = NULL;
				else
					env->i = NULL;
			}
			break;
		}
		default:
			break;
		}
	}
}

/* With STAND, checked as for a run whose INITs stand (UirProgram.inits_stand), but buffer
 * REPLACED's (an --input), when not NULL. */
static const char *stand_replaced;
static bool stand;

static UirProgram *load_checked(const char *text, FILE *devnull)
{
	UirProgram *p = uir_load_text("unit.uir", text, strlen(text), devnull);
	if (!p)
		return NULL;
	p->inits_stand = stand;
	for (int i = 0; i < p->nbufs; i++)
		p->bufs[i]->replaced = stand_replaced && !strcmp(p->bufs[i]->name, stand_replaced);
	if (uir_check(p, 0, devnull) != 0) {
		uir_free(p);
		return NULL;
	}
	return p;
}

static void random_programs(int count, FILE *devnull)
{
	int ran = 0;
	for (int n = 0; n < count; n++) {
		Buf b = { 0 };
		int bi = 1 + (int)rnd(9);
		put(&b, "buffer o i32 1\nloop i %d {\n  loop j %s {\n", bi, rnd(4) ? "(add (mod i 4) 2)" : "(sub 3 i)");
		int nl = 1 + (int)rnd(4);
		put(&b, "    if ");
		gen(&b, 0, 2, 0);
		put(&b, " {\n");
		for (int k = 0; k < nl; k++) {
			put(&b, "      let x%d = ", k);
			gen(&b, 1 + (int)rnd(4), 4, k);
			put(&b, "\n");
		}
		put(&b, "      store o 0 (cast i32 x%d)\n    } else {\n      let y = ", nl - 1);
		gen(&b, 3, 3, 0);
		put(&b, "\n      store o 0 y\n    }\n  }\n}\n");
		program = b.s;
		UirProgram *p = load_checked(b.s, devnull);
		if (p) {
			Env env = { 0 };
			run(p->top, &env);
			uir_free(p);
			ran++;
		}
		free(b.s);
	}
	/* most programs must be valid, or the test tests little */
	if (ran * 10 < count * 9) {
		failed++;
		printf("FAIL only %d of %d generated programs were valid\n", ran, count);
	} else {
		passed++;
	}
}

/* ---- fixed facts ---- */

static const Stmt *nth_store(const Stmt *s, int *n)
{
	for (; s; s = s->next) {
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && (*n)-- == 0)
			return s;
		const Stmt *r = s->kind == ST_LOOP ? nth_store(s->body, n) : NULL;
		if (!r && s->kind == ST_IF)
			r = nth_store(s->then_, n);
		if (!r && s->kind == ST_IF)
			r = nth_store(s->else_, n);
		if (r)
			return r;
	}
	return NULL;
}

/* The in_bounds fact of the K-th store (0-based) of TEXT and of the load that is its value. */
static void bounds(const char *text, int k, bool want_store, bool want_load, FILE *devnull)
{
	UirProgram *p = load_checked(text, devnull);
	if (!p) {
		failed++;
		printf("FAIL did not check:\n%s\n", text);
		return;
	}
	int n = k;
	const Stmt *s = nth_store(p->top, &n);
	bool ok = s && s->in_bounds == want_store &&
		  (s->val->kind != EX_OP || s->val->op != OP_LOAD || s->val->in_bounds == want_load);
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL in_bounds of store %d (want store %d, load %d):\n%s\n", k, want_store, want_load, text);
	}
	uir_free(p);
}

int main(void)
{
	FILE *devnull = fopen("/dev/null", "w");
	bounds("buffer a f32 8\nbuffer b f32 8\nloop i 7 { store a (add i 1) (load b i) }\n", 0, true, true, devnull);
	/* (the guards on loaded values keep the checker from proving a fault certain: E0301) */
	bounds("buffer a f32 7\nbuffer b f32 8\nbuffer n i32 1\nloop i 7 { if (eq (load n 0) 1) { store a (add i 1) "
	       "(load b (add i 1)) } }\n", 0, false, true, devnull);
	/* an if narrows its names: x < 300 in the then-branch, x >= 300 in the else-branch */
	bounds("buffer a i32 300\nbuffer n i32 1\nloop i 1000 { if (lt i 300) { store a i (load a i) } else "
	       "{ store a (sub i 300) 1 } }\n", 0, true, true, devnull);
	bounds("buffer a i32 700\nbuffer n i32 1\nloop i 1000 { if (lt i 300) { store a i 1 } else "
	       "{ store a (sub i 300) (load a (sub i 301)) } }\n", 1, true, false, devnull);
	/* an index offset by a loaded value is not proven */
	bounds("buffer a i32 8\nbuffer n i32 1\nloop i 4 { store a (add i (load n 0)) 1 }\n", 0, false, false, devnull);
	/* store.K: the last element counts */
	bounds("buffer a f32 8\nloop i 2 { store.4 a (mul i 4) (splat.4 1.0) }\n", 0, true, true, devnull);
	bounds("buffer a f32 8\nbuffer n i32 1\nloop i 3 { if (eq (load n 0) 1) { store.4 a (mul i 3) (splat.4 1.0) } }\n", 0,
	       false, true, devnull);
	/* shifts and masks by literals */
	bounds("buffer a i32 16\nloop i 100000 { store a (and i 15) 1 }\n", 0, true, true, devnull);
	bounds("buffer a i32 16\nloop i 1024 { store a (shr i 6) 1 }\n", 0, true, true, devnull);
	bounds("buffer a i32 16\nbuffer n i32 1\nloop i 1025 { if (eq (load n 0) 1) { store a (shr i 6) 1 } }\n", 0, false,
	       true, devnull);
	/* ISL past the intervals (docs/analysis.md, "Value ranges"): a triangular nest, j = jj + i
	 * below 64 since jj < 64 - i; one element more puts the store out of bounds, not the
	 * load (k < i) */
	bounds("buffer a f64 4096\nloop i 64 { loop jj (sub 64 i) { let j = add jj i\n loop k i {\n"
	       " store a (add (mul i 64) j) (load a (add (mul k 64) j)) } } }\n", 0, true, true, devnull);
	bounds("buffer a f64 4096\nloop i 64 { loop jj (sub 65 i) { let j = add jj i\n loop k i {\n"
	       " store a (add (mul i 64) j) (load a (add (mul k 64) j)) } } }\n", 0, false, true, devnull);
	/* an if on the indices counts; one on a loaded value or a loaded bound does not (`run
	 * --input` may replace the memory's INIT) */
	bounds("buffer a i32 8\nloop i 8 { loop j 8 { if (lt (add i j) 8) { store a (add i j) 1 } } }\n", 0, true, true,
	       devnull);
	bounds("buffer a i32 8\nbuffer n i32 1 = [4]\nloop i 8 { loop j 8 { if (lt (add i j) (load n 0)) { store a (add i j) 1 } } }\n",
	       0, false, true, devnull);
	bounds("buffer a i32 8\nbuffer n i32 1 = [4]\nloop i (load n 0) { loop j 4 { store a (add i j) 1 } }\n", 0, false,
	       true, devnull);
	/* a loop of bound `sub H L` over `let i = add s L` (a time skew's sweeps, docs/llvm.md):
	 * L <= i < H, though the loaded n keeps ISL out */
	bounds("buffer a f32 100\nbuffer n i32 1\nloop t 4 { let lo = max 0 (min 99 (load n 0))\n"
	       "let hi = max 0 (min 99 (add (load n 0) 10))\nloop s (sub hi lo) { let i = add s lo\n"
	       "store a (add i 1) (load a i) } }\n", 0, true, true, devnull);
	bounds("buffer a f32 99\nbuffer n i32 1\nloop t 4 { let lo = max 0 (min 99 (load n 0))\n"
	       "let hi = max 0 (min 99 (add (load n 0) 10))\nloop s (sub hi lo) { let i = add s lo\n"
	       "store a (add i 1) (load a i) } }\n", 0, false, true, devnull);
	/* an offset loaded from a buffer the program never stores, in a run whose INITs stand:
	 * the INIT's values (docs/analysis.md, "Value ranges"); not where --input replaces it,
	 * the program stores it, or outside a run */
	static const struct {
		const char *text;
		bool want;
	} inits[] = {
		{ "buffer a i32 16\nbuffer x i32 8 = random 3 0 16\nloop i 8 { store a (load x i) 1 }\n", true },
		{ "buffer a i32 16\nbuffer x i32 8 = random 3 0 17\nloop i 8 { store a (load x i) 1 }\n", false },
		{ "buffer a i32 16\nbuffer x i32 8 = random 3 -2 14\nloop i 8 { store a (add (load x i) 2) 1 }\n", true },
		{ "buffer a i32 16\nbuffer x i32 8 = random 3 -2 14\nloop i 8 { store a (add (load x i) 1) 1 }\n", false },
		{ "buffer a i32 16\nbuffer x u8 8 = random 3 0 16\nloop i 8 { store a (cast i32 (load x i)) 1 }\n", true },
		{ "buffer a i32 16\nbuffer x i32 16 = iota\nloop i 16 { store a (load x i) 1 }\n", true },
		{ "buffer a i32 15\nbuffer x i32 16 = iota\nloop i 16 { store a (load x i) 1 }\n", false },
		{ "buffer a i32 16\nbuffer x i32 4 = fill 15\nloop i 4 { store a (load x i) 1 }\n", true },
		{ "buffer a i32 16\nbuffer x i32 4 = fill 16\nloop i 4 { store a (load x i) 1 }\n", false },
		{ "buffer a i32 16\nbuffer x i32 4\nloop i 4 { store a (add (load x i) 15) 1 }\n", true },
		{ "buffer a i32 16\nbuffer x i32 8 = random 3 0 16\nloop i 8 { store a (load x i) 1 }\nstore x 0 5\n", false },
	};
	for (size_t k = 0; k < sizeof inits / sizeof *inits; k++) {
		stand = true;
		bounds(inits[k].text, 0, inits[k].want, true, devnull);
		stand_replaced = "x";
		bounds(inits[k].text, 0, false, true, devnull);
		stand_replaced = NULL;
		stand = false;
		bounds(inits[k].text, 0, false, true, devnull);
	}
	random_programs(3000, devnull);
	fclose(devnull);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
