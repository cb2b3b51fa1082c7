/* test_cost.c - unit tests of src/cost.c: the work and code size of small programs, and
 * which `unroll` loops unroll_fits() lets the JIT and `ptx` unroll. Prints `N passed, N
 * failed`; exits 1 when any failed. */
#include "uir_internal.h"
#include <string.h>

static int passed, failed;

static void expect(const char *what, double got, double want)
{
	if (got == want) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: got %g, want %g\n", what, got, want);
	}
}

static UirProgram *load(const char *text)
{
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = uir_load_text("unit.uir", text, strlen(text), devnull);
	fclose(devnull);
	if (!p) {
		failed++;
		printf("FAIL did not load:\n%s", text);
	}
	return p;
}

/* The work and code size of TEXT. */
static void sizes(const char *what, const char *text, double work, double code)
{
	UirProgram *p = load(text);
	if (!p)
		return;
	char w[256];
	snprintf(w, sizeof w, "%s: work", what);
	expect(w, stmts_work(p->top), work);
	snprintf(w, sizeof w, "%s: code size", what);
	expect(w, stmts_code_size(p->top), code);
	uir_free(p);
}

/* Whether the first `unroll` loop of TEXT's top level (or the first one nested in the first
 * top-level loop) unroll_fits(). */
static void fits(const char *what, const char *text, bool want)
{
	UirProgram *p = load(text);
	if (!p)
		return;
	const Stmt *s = p->top;
	while (s && (s->kind != ST_LOOP || (s->axis != AX_UNROLL && !(s->body && s->body->kind == ST_LOOP))))
		s = s->next;
	if (s && s->axis != AX_UNROLL)
		s = s->body;
	expect(what, s ? unroll_fits(s) : -1, want);
	uir_free(p);
}

int main(void)
{
	/* a store of an add: 1 (store) + 1 (add) + 1 (load) */
	sizes("scalar store", "buffer a i32 4\nstore a 0 (add (load a 1) 1)\n", 3, 3);
	/* a loop counts 1 + its body, its body BOUND times for work, once for code */
	sizes("plain loop", "buffer a i32 4\nloop i 4 {\n  store a i (add (load a i) 1)\n}\n", 16, 4);
	/* unrolled: BOUND copies of the body in the code too */
	sizes("unroll loop", "buffer a i32 4\nloop i 4 unroll {\n  store a i (add (load a i) 1)\n}\n", 16, 16);
	/* a vector op: once in the work, once per lane in the code (store 1, add 4, load.4 4,
	 * splat.4 4) */
	sizes("vector store", "buffer a f64 8\nstore.4 a 0 (add (load.4 a 4) (splat.4 1.5))\n", 4, 13);
	/* the budget: 64 x (1 + 127) = 8192 units fit, 64 x (1 + 128) do not (a store of a load
	 * and N adds is N + 2 units) */
	char text[4096];
	for (int n = 125; n <= 126; n++) {
		int len = snprintf(text, sizeof text, "buffer a i32 64\nloop i 64 unroll {\n  store a i ");
		for (int k = 0; k < n; k++)
			len += snprintf(text + len, sizeof text - len, "(add ");
		len += snprintf(text + len, sizeof text - len, "(load a i)");
		for (int k = 0; k < n; k++)
			len += snprintf(text + len, sizeof text - len, " 1)");
		snprintf(text + len, sizeof text - len, "\n}\n");
		fits(n == 125 ? "64 copies of 1 + 127 units fit" : "64 copies of 1 + 128 units do not", text, n == 125);
	}
	/* uirgen seed 64736: 16 x 8 copies of a loop nest with 4-lane f64 division fitted the
	 * budget when a vector op counted once, and ptxas took 4 minutes on the 30,000 lines of
	 * PTX; counted per lane, the outer loop stays a loop. Here: 16 x (1 + 8 x (1 + 1 + 27 +
	 * 26 + 26)) = 10384 units (once a vector op: 16 x (1 + 8 x 36) = 4624) */
	fits("nested unroll with vector ops",
	     "buffer a f64 4096\nloop i 16 unroll {\n  loop j 8 unroll {\n    loop k 3 {\n"
	     "      store.4 a (add (mul k 4) (mul j 12)) (div (add (splat.4 1.5) (load.4 a (mul k 4))) "
	     "(splat.4 (fma (load a j) 2.0 3.0)))\n"
	     "      store.4 a (add (mul k 8) 100) (div (sub (splat.4 2.5) (load.4 a (mul k 4))) "
	     "(splat.4 (fma (load a j) 2.0 3.0)))\n"
	     "      store.4 a (add (mul k 8) 200) (div (sub (splat.4 2.5) (load.4 a (mul k 4))) "
	     "(splat.4 (fma (load a j) 2.0 3.0)))\n"
	     "    }\n  }\n}\n",
	     false);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
