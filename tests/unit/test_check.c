/* test_check.c - unit tests of the offset normaliser (src/check/normal.c), of the
 * digit rule (src/check/races.c) on small programs, and of the footprint picture's C API.
 * Prints `N passed, N failed`. */
#include "uir_internal.h"
#include "check/normal.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void expect_str(const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: got '%s', want '%s'\n", what, got, want);
	}
}

static UirProgram *load(const char *text, FILE *devnull)
{
	return uir_load_text("unit.uir", text, strlen(text), devnull);
}

/* The normal form of the value of the last `let o = ...` in a loop nest. */
static void normal_of(const char *lets, const char *want)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "buffer out i32 65536\nbuffer idx i32 4\nloop g 64 global {\n  loop k 4 {\n    loop t 256 local {\n"
		 "      %s\n      store out 0 o\n    }\n  }\n}\n", lets);
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = load(text, devnull);
	if (!p) {
		failed++;
		printf("FAIL normal form of '%s': did not load\n", lets);
		fclose(devnull);
		return;
	}
	uir_check(p, 0, devnull); /* sets the loop keys; races are irrelevant here */
	Stmt *s = p->top->next->next; /* the global loop */
	s = s->body->body->body;      /* first statement in the local loop */
	Stmt *o = NULL;
	for (; s; s = s->next)
		if (s->kind == ST_LET && !strcmp(s->sym->name, "o"))
			o = s;
	NormCtx c = { .a = &p->arena };
	Norm n = normalize(&c, o->value);
	expect_str(lets, norm_text(&p->arena, &n), want);
	uir_free(p);
	fclose(devnull);
}

/* The first error code of checking TEXT ("" when valid). */
static void code_of(const char *what, const char *text, unsigned flags, const char *want)
{
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = load(text, devnull);
	const char *got = "load failed";
	if (p) {
		uir_check(p, flags, devnull);
		got = uir_first_error(p);
	}
	expect_str(what, got, want);
	uir_free(p);
	fclose(devnull);
}

/* TEXT loaded and checked, or NULL (counted as a failure of WHAT) when it is not valid. */
static UirProgram *load_valid(const char *what, const char *text, FILE *devnull)
{
	UirProgram *p = load(text, devnull);
	if (p && !uir_check(p, 0, devnull))
		return p;
	failed++;
	printf("FAIL %s: not a valid program\n", what);
	if (p)
		uir_free(p);
	return NULL;
}

/* The first loop named NAME in the statements S (depth first). */
static Stmt *find_loop(Stmt *s, const char *name)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && !strcmp(s->sym->name, name))
			return s;
		Stmt *r = s->kind == ST_LOOP ? find_loop(s->body, name) : NULL;
		if (!r && s->kind == ST_IF)
			r = find_loop(s->then_, name);
		if (!r && s->kind == ST_IF)
			r = find_loop(s->else_, name);
		if (r)
			return r;
	}
	return NULL;
}

/* loop_conflict() for loop LOOP and buffer MEM of TEXT: WANT, and a witness starting with
 * WITNESS (NULL: none). */
static void conflict_of(const char *what, const char *text, const char *loop, const char *mem, LoopConflict want,
			const char *witness)
{
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = load_valid(what, text, devnull);
	if (!p) {
		fclose(devnull);
		return;
	}
	Stmt *l = find_loop(p->top, loop);
	const Mem *m = NULL;
	for (int i = 0; i < p->nbufs; i++)
		if (!strcmp(p->bufs[i]->name, mem))
			m = p->bufs[i];
	const char *w = NULL;
	LoopConflict got = l && m ? loop_conflict(p, l, m, &w) : LC_UNKNOWN;
	bool ok = got == want && (witness ? w && !strncmp(w, witness, strlen(witness)) : !w);
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: got %d (%s), want %d (%s)\n", what, (int)got, w ? w : "no witness", (int)want,
		       witness ? witness : "no witness");
	}
	uir_free(p);
	fclose(devnull);
}

/* The facts of a grid's and a block's nests (docs/language.md 6.5) in TEXT, whose kernel is
 * global loop KERNEL: "grid GXxGYxGZ/N block BXxBYxBZ/N home H dims L0,L1 keys ..." with
 * the home of the first alloc, the kernel's loops by dimension and the keys of the loops
 * named in KEYS (space-separated); then whether PHASE (a local loop) follows a barrier. */
static void nest_of(const char *what, const char *text, const char *kernel, const char *keys, const char *phase,
		    const char *want)
{
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = load_valid(what, text, devnull);
	if (!p) {
		fclose(devnull);
		return;
	}
	Stmt *k = find_loop(p->top, kernel);
	int64_t g[3], b[3];
	int ng, nb;
	kernel_grid(k, g, &ng);
	kernel_block(k, b, &nb);
	char got[1024];
	size_t n = (size_t)snprintf(got, sizeof got, "grid %lldx%lldx%lld/%d block %lldx%lldx%lld/%d home %s dims",
				    (long long)g[0], (long long)g[1], (long long)g[2], ng, (long long)b[0], (long long)b[1],
				    (long long)b[2], nb, p->nallocs && p->allocs[0]->home ? p->allocs[0]->home->sym->name : "-");
	for (int i = 0; i < k->ndims; i++)
		n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", i ? "," : " ", k->dims[i]->sym->name);
	n += (size_t)snprintf(got + n, sizeof got - n, " keys");
	char names[256];
	snprintf(names, sizeof names, "%s", keys);
	for (char *w = strtok(names, " "); w; w = strtok(NULL, " ")) {
		Stmt *l = find_loop(p->top, w);
		n += (size_t)snprintf(got + n, sizeof got - n, " %s", l ? l->sym->key : "?");
	}
	Stmt *ph = find_loop(p->top, phase);
	snprintf(got + n, sizeof got - n, " barrier %s", ph && phase_follows_barrier(ph, k) ? "no" : "yes");
	expect_str(what, got, want);
	uir_free(p);
	fclose(devnull);
}

/* The captures of thread or global loop LOOP of TEXT, as "syms | mem:use ...". */
static void captures_of(const char *what, const char *text, const char *loop, const char *want)
{
	FILE *devnull = fopen("/dev/null", "w");
	UirProgram *p = load(text, devnull);
	char got[512] = "not a valid program";
	if (p && !uir_check(p, 0, devnull)) {
		Stmt *l = find_loop(p->top, loop);
		size_t n = 0;
		got[0] = 0;
		for (int i = 0; l && i < l->cap->nsyms; i++)
			n += (size_t)snprintf(got + n, sizeof got - n, "%s ", l->cap->syms[i]->name);
		n += (size_t)snprintf(got + n, sizeof got - n, "|");
		for (int i = 0; l && i < l->cap->nmems; i++) {
			unsigned u = loop_uses(p, l, l->cap->mems[i]);
			n += (size_t)snprintf(got + n, sizeof got - n, " %s:%s%s%s", l->cap->mems[i]->name, u & CAP_LOAD ? "l" : "",
					      u & CAP_STORE ? "s" : "", u & CAP_ATOMIC ? "a" : "");
		}
		for (int i = 0; l && i < p->nbufs; i++) /* a memory the body never names */
			if (!strcmp(p->bufs[i]->name, "unused") && loop_uses(p, l, p->bufs[i]))
				n += (size_t)snprintf(got + n, sizeof got - n, " unused is used");
	}
	expect_str(what, got, want);
	if (p)
		uir_free(p);
	fclose(devnull);
}

/* The C API of the footprint picture (include/uir/uir.h): what the Python binding and
 * `check --footprint` call. */
static void footprint_api(void)
{
	FILE *devnull = fopen("/dev/null", "w");
	const char *race = "buffer in f32 64 = iota\nbuffer out f32 64\nalloc tile f32 17\nloop g 4 global {\n"
			   "  loop t 16 local {\n    store tile t (load in (add (mul g 16) t))\n"
			   "    store out (add (mul g 16) t) (load tile (add t 1))\n  }\n}\n";
	UirProgram *p = load(race, devnull);
	expect_str("footprint: uir_check_footprint() counts check's errors", uir_check_footprint(p, 0, devnull) == 1 ? "1" : "not 1", "1");
	expect_str("footprint: the same first error as uir_check()", uir_first_error(p), "E0503");
	size_t len = 0;
	char *svg = uir_footprint_svg(p, &len);
	expect_str("footprint: a picture of a program that races", svg && len == strlen(svg) ? "svg" : "none", "svg");
	expect_str("footprint: the colliding pair", svg && strstr(svg, "data-collision=\"t=1 / t=0\"") ? "found" : "missing",
		   "found");
	/* a later plain check records nothing and keeps the picture */
	uir_check(p, 0, devnull);
	char *again = uir_footprint_svg(p, NULL);
	expect_str("footprint: a later uir_check() leaves it", again && svg && !strcmp(again, svg) ? "same" : "changed", "same");
	free(again);
	free(svg);
	char path[] = "/tmp/uir-unit-footprint-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	const char *why = NULL;
	expect_str("footprint: uir_footprint_write()", fd >= 0 && uir_footprint_write(p, path, &why) == 0 ? "0" : "-1", "0");
	FILE *f = fopen(path, "r");
	char head[6] = "";
	if (f) {
		if (!fgets(head, sizeof head, f))
			head[0] = 0;
		fclose(f);
	}
	expect_str("footprint: the file written", head, "<?xml");
	remove(path);
	expect_str("footprint: a write into a missing folder",
		   uir_footprint_write(p, "/nonexistent-uir-dir/x.svg", &why) == -1 && why ? why : "(none)",
		   "No such file or directory");
	uir_free(p);
	/* nothing is recorded without uir_check_footprint(), nor when checking stops before the
	 * race rules */
	p = load(race, devnull);
	uir_check(p, 0, devnull);
	expect_str("footprint: none after plain uir_check()", uir_footprint_svg(p, NULL) ? "svg" : "none", "none");
	uir_free(p);
	p = load("buffer a i32 4\nstore a 9 1\n", devnull);
	uir_check_footprint(p, 0, devnull);
	expect_str("footprint: none after E0301", uir_footprint_svg(p, NULL) ? "svg" : "none", "none");
	uir_free(p);
	fclose(devnull);
}

int main(void)
{
	/* normal forms */
	normal_of("let o = add (mul (div g 8) 64) t", "64*(div g 8) + t");
	normal_of("let o = mul (add t 3) 4", "4*t + 12");
	normal_of("let o = sub (add t k) k", "t");
	normal_of("let o = add (shl t 2) (shr k 1)", "4*t + (div k 2)");
	normal_of("let o = and t 15", "(mod t 16)");
	normal_of("let o = and 15 t", "(mod t 16)");
	normal_of("let o = div t 1", "t");
	normal_of("let o = mod t 1", "0");
	normal_of("let a = mul 2 3\n      let o = add (mul a t) (sub 10 4)", "6*t + 6");
	normal_of("let o = neg (sub k t)", "-1*k + t");
	normal_of("let o = mul t t", "(mul ...)");
	normal_of("let o = add (load idx 0) t", "(load idx ...) + t");

	/* the digit rule */
	const char *head = "buffer out i32 8192\nloop g 16 global {\n  loop t 256 local {\n";
	char buf[1024];
#define CASE(name, body, flags, code) \
	snprintf(buf, sizeof buf, "%s    %s\n  }\n}\n", head, body); \
	code_of(name, buf, flags, code)
	CASE("t + 256 g is unique", "store out (add t (mul g 256)) 1", 0, "");
	CASE("t + 255 g overlaps", "store out (add t (mul g 255)) 1", 0, "E0501");
	CASE("tie of coefficients", "store out (add (mod t 16) (div t 16)) 1", 0, "E0501");
	CASE("div t 2 loses t", "store out (div t 2) 1", 0, "E0502");
	CASE("div and mod pair determine t", "store out (add (mul (mod t 16) 16) (div t 16)) 1", 0, "E0502");
	CASE("mod e >= bound determines t", "store out (add (mod t 256) (mul g 256)) 1", 0, "");
	CASE("uniform term is ignored in the phase", "store out (add (add t (mul g 256)) 7) 1", 0, "");
	CASE("negative coefficient", "store out (sub 4095 t) 1", 0, "E0501");
	/* the phase check gives E0503, the kernel check E0502 (every block writes out[t]): the
	 * race stage reports E0502 first (docs/errors.md) */
	CASE("two offsets", "store out t (load out (add t 1))", 0, "E0502");
	code_of("single iteration passes", "buffer out i32 4\nloop p 1 thread {\n  store out 0 1\n}\n", 0, "");
	code_of("single iteration in strict mode", "buffer out i32 4\nloop p 1 thread {\n  store out 0 1\n}\n", UIR_CHECK_STRICT, "");
	code_of("atomics exempt", "buffer h i32 4\nloop p 64 thread {\n  atomic.add h (mod p 4) 1\n}\n", 0, "");
	code_of("atomics in strict mode", "buffer h i32 4\nloop p 64 thread {\n  atomic.add h (mod p 4) 1\n}\n", UIR_CHECK_STRICT, "E0502");
	code_of("atomic mixed with store", "buffer h i32 4\nloop p 64 thread {\n  atomic.add h 0 1\n  store h 0 2\n}\n", 0, "E0503");
	code_of("offset too large", "buffer out i32 4\nloop p 512 thread {\n  if (ge p 0) {\n    store out (mul p 16777216) 1\n  }\n}\n", 0, "E0501");
	code_of("certain fault", "buffer out i32 4\nloop i 5 {\n  store out i 1\n}\n", 0, "E0301");
	code_of("guarded fault is not certain", "buffer out i32 4\nloop i 5 {\n  if (lt i 9) {\n    store out i 1\n  }\n}\n", 0, "");
	code_of("store in block code", "buffer out i32 4\nloop g 4 global {\n  store out g 1\n}\n", 0, "E0403");
	code_of("local outside global", "buffer out i32 4\nloop t 4 local {\n  store out t 1\n}\n", 0, "E0401");
	code_of("two block sizes", "buffer out i32 64\nloop g 1 global {\n  loop t 4 local {\n    store out t 1\n  }\n  loop t 8 local {\n    store out t 1\n  }\n}\n", 0, "E0402");
	/* captures: names from outside in order of first use, memories with how they are used */
	captures_of("lets, indices and memories of a thread loop",
		    "buffer unused i32 1\nbuffer a f32 64\nbuffer h i32 4\nbuffer b f32 64\nlet n = 4\nloop r 2 {\n  let w = add r 1\n"
		    "  loop p 32 thread {\n    let q = add p w\n    store b (add (mul r 32) p) (load a (add (mul r 32) p))\n"
		    "    atomic.add h (mod q n) 1\n    store a (add (mul r 32) p) (load b (add (mul r 32) p))\n  }\n}\n",
		    "p", "w r n | a:ls b:ls h:a");
	captures_of("a block's shared memory is listed with its use",
		    "buffer out f32 64\nalloc tile f32 32\nloop g 2 global {\n  loop t 32 local {\n    store tile t 1.0\n  }\n"
		    "  loop t 32 local {\n    store out (add (mul g 32) t) (load tile (sub 31 t))\n  }\n}\n",
		    "g", "| tile:ls out:s");
	/* grids and blocks of 2 and 3 dimensions (docs/language.md 6.5) */
	nest_of("a 2-D grid of 2-D blocks",
		"buffer out f32 8192\nalloc sh f32 256\nloop gy 4 global {\n  loop gx 8 global {\n    loop ty 16 local {\n"
		"      loop tx 16 local {\n        store sh (add (mul ty 16) tx) 1.0\n"
		"        store out (add (mul (add (mul gy 8) gx) 256) (add (mul ty 16) tx)) (load sh (add (mul ty 16) tx))\n"
		"      }\n    }\n  }\n}\n",
		"gy", "gy gx ty tx", "ty",
		"grid 8x4x1/2 block 16x16x1/2 home gy dims gx,gy keys gy#4 gx#8 #t3:1.y #t3:1 barrier no");
	nest_of("lets in the grid's nest put a barrier before the first phase",
		"buffer out f32 64\nloop gz 2 global {\n  let a = mul gz 2\n  loop gy 2 global {\n    loop gx 2 global {\n"
		"      loop t 8 local {\n        store out (add (mul (add (mul (add a gy) 2) gx) 8) t) 1.0\n      }\n"
		"    }\n  }\n}\n",
		"gz", "t", "t", "grid 2x2x2/3 block 8x1x1/1 home - dims gx,gy,gz keys #t2:1 barrier yes");
	nest_of("a 1-D grid of 3-D blocks",
		"buffer out i32 64\nloop g 1 global {\n  loop tz 2 local {\n    loop ty 4 local {\n      loop tx 8 local {\n"
		"        store out (add (mul tz 32) (add (mul ty 8) tx)) 1\n      }\n    }\n  }\n}\n",
		"g", "tz ty tx", "tz", "grid 1x1x1/1 block 8x4x2/3 home - dims g keys #t2:1.z #t2:1.y #t2:1 barrier no");
	code_of("a grid's race: the y index is missing",
		"buffer out f32 16\nloop gy 4 global {\n  loop gx 4 global {\n    loop t 1 local {\n      store out gx 1.0\n"
		"    }\n  }\n}\n", 0, "E0502");
	code_of("a one-thread branch must fix every thread index",
		"buffer out f32 4\nloop g 4 global {\n  loop ty 2 local {\n    loop tx 2 local {\n"
		"      if (eq tx 0) {\n        store out g 1.0\n      }\n    }\n  }\n}\n", UIR_CHECK_NO_EXACT, "E0502");
	code_of("`and` of the two indices is a one-thread branch",
		"buffer out f32 4\nloop g 4 global {\n  loop ty 2 local {\n    loop tx 2 local {\n"
		"      if (and (eq tx 0) (eq ty 1)) {\n        store out g 1.0\n      }\n    }\n  }\n}\n", UIR_CHECK_NO_EXACT, "");
	code_of("a 2-D block's y of one thread needs no digit",
		"buffer out f32 16\nloop g 4 global {\n  loop ty 1 local {\n    loop tx 4 local {\n"
		"      store out (add (mul g 4) tx) 1.0\n    }\n  }\n}\n", UIR_CHECK_NO_EXACT, "");
	/* the JIT's question: can two iterations of a plain loop conflict on a memory? */
	const char *nest = "buffer B f32 256\nbuffer R f32 256\nloop i 16 {\n  loop j 16 {\n    loop k 16 {\n"
			   "      store R (add (mul i 16) (mod (add j 5) %d)) (load B (add (mul k 16) j))\n    }\n  }\n}\n";
	snprintf(buf, sizeof buf, nest, 16);
	conflict_of("rotation: distinct j write distinct elements", buf, "j", "R", LC_NONE, NULL);
	conflict_of("every k writes the same elements", buf, "k", "R", LC_CONFLICT, "iterations k=0 and k=1 both write R[");
	conflict_of("read-only memory never conflicts", buf, "j", "B", LC_NONE, NULL);
	conflict_of("every time step writes the row (inner index at 0)",
		    "buffer a f32 8\nbuffer b f32 8\nloop t 4 {\n  loop i 6 {\n    store b (add i 1) (load a i)\n  }\n}\n", "t",
		    "b", LC_CONFLICT, "iterations t=0 and t=1 both write b[1] (lines 5 and 5)");
	conflict_of("an inner loop that may not run is left to the exact analysis",
		    "buffer b f32 8\nloop t 4 {\n  loop i t {\n    store b i 1.0\n  }\n}\n", "t", "b", LC_CONFLICT,
		    "iterations t=1 and t=2 both write b[0] (lines 4 and 4)");
	snprintf(buf, sizeof buf, nest, 8);
	conflict_of("mod 8: j and j+8 collide", buf, "j", "R", LC_CONFLICT, "iterations j=0 and j=8 both write R[5] (lines 6 and 6)");
	conflict_of("same-op atomics commute", "buffer h i32 4\nloop p 64 {\n  atomic.add h (mod p 4) 1\n}\n", "p", "h",
		    LC_NONE, NULL);
	conflict_of("a read of another iteration's write",
		    "buffer a i32 9\nloop p 8 {\n  store a p (load a (add p 1))\n}\n", "p", "a", LC_CONFLICT,
		    "iteration p=1 writes a[1] (line 3), which iteration p=0 reads");
	conflict_of("an offset loaded from stored memory is undecidable",
		    "buffer a i32 8\nbuffer ix i32 8\nloop p 8 {\n  store ix p 0\n  store a (load ix p) 1\n}\n", "p", "a",
		    LC_UNKNOWN, "the offset of a on line 5 is not known");
	footprint_api();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
