/* support.c - the renderers' own support code, written into a rendering only when it is
 * used: the E0601 fault sites and bounds checks, parallel loops (C: on the runtime's thread
 * pool, runtime/uir_parallel.c, pasted as it is), integer min/max, and atomic
 * read-modify-writes. None of this defines an op's value differently from the runtime:
 * integer min/max are the one C expression the runtime leaves to back ends
 * (runtime/uir_ops.h), and the atomics add, min and max exactly as `run` does, only
 * indivisibly.
 */
#include "render_int.h"
#include <string.h>

/* ---- fault sites ---- */

/* Longest piece of a site's message in one string literal (-pedantic's limit is 4095). */
enum { PIECE = 2000 };

/* The sites table: head, tail and width of each site; a tail longer than PIECE continues
 * in the following rows, whose k is 0. */
static void sites_table(Emitter *E, Str *o, const char *qual)
{
	str_printf(o, "\n/* The accesses that may fault, with `run`'s E0601 message around the offsets. */\n");
	str_printf(o, "%sconst struct uir_site {\n\tconst char *head, *mid, *tail; /* around the first number, the second */\n"
		      "\tint k; /* elements; -1: an offset that would overflow; 0: more of the tail above */\n"
		      "} uir_sites[] = {\n", qual);
	for (int i = 0; i < E->nsites; i++) {
		const SiteText *s = &E->sites[i];
		size_t n = strlen(s->tail);
		for (size_t at = 0; at < n || at == 0; at += PIECE) {
			size_t len = n - at < PIECE ? n - at : PIECE;
			str_put(o, "\t{ \"");
			if (at == 0)
				str_put_cstring(o, s->head, strlen(s->head));
			str_put(o, "\", \"");
			if (at == 0)
				str_put_cstring(o, s->mid, strlen(s->mid));
			str_put(o, "\", \"");
			str_put_cstring(o, s->tail + at, len);
			str_printf(o, "\", %d },\n", at == 0 ? s->k : 0);
			if (n == 0)
				break;
		}
	}
	str_put(o, "};\n");
}

static const char report_c[] =
	"\n"
	"/* Prints the E0601 message of SITE, as `run` does, and exits 1: for an access, A is its\n"
	" * offset; for an offset that would overflow, A is the loop bound and B the offset. */\n"
	"%sstatic void uir_report(int site, int64_t a, int64_t b)\n"
	"{\n"
	"\tint i;\n"
	"\tfprintf(stderr, \"%%s%%lld\", uir_sites[site].head, (long long)a);\n"
	"\tif (uir_sites[site].k != 1)\n"
	"\t\tfprintf(stderr, \"%%s%%lld\", uir_sites[site].mid,\n"
	"\t\t\tuir_sites[site].k > 1 ? (long long)a + uir_sites[site].k - 1 : (long long)b);\n"
	"\tfputs(uir_sites[site].tail, stderr);\n"
	"\tfor (i = site + 1; i < (int)(sizeof uir_sites / sizeof uir_sites[0]) && uir_sites[i].k == 0; i++)\n"
	"\t\tfputs(uir_sites[i].tail, stderr);\n"
	"\texit(1);\n"
	"}\n";

static const char fault_c_seq[] =
	"\n"
	"/* The fault E0601 at SITE (see uir_report). */\n"
	"_Noreturn static void uir_fault(int site, int64_t a, int64_t b)\n"
	"{\n"
	"\tuir_report(site, a, b);\n"
	"}\n";

/* With parallel loops: a fault inside a chunk that the pool (runtime/uir_parallel.c) runs
 * leaves that chunk (longjmp) after filling its worker's record; uir_parallel_loop then
 * reports the fault of the lowest faulting chunk, which is the first fault in program order,
 * as `run` reports it. A worker whose chunk faulted runs no other chunk of that loop. */
static const char fault_c_par[] =
	"\n"
	"/* Set while this thread runs a chunk of a parallel loop: where a fault jumps to, and the\n"
	" * worker whose record it fills. */\n"
	"static _Thread_local jmp_buf *uir_fault_jump;\n"
	"static _Thread_local int32_t uir_fault_worker;\n"
	"\n"
	"/* The fault of each worker in the running parallel loop. */\n"
	"static struct uir_fault_rec {\n"
	"\tint site;\n"
	"\tint64_t a, b;\n"
	"} uir_faults[UIR_PARALLEL_MAX];\n"
	"\n"
	"/* The fault E0601 at SITE (see uir_report). */\n"
	"_Noreturn static void uir_fault(int site, int64_t a, int64_t b)\n"
	"{\n"
	"\tif (uir_fault_jump) {\n"
	"\t\tuir_faults[uir_fault_worker].site = site;\n"
	"\t\tuir_faults[uir_fault_worker].a = a;\n"
	"\t\tuir_faults[uir_fault_worker].b = b;\n"
	"\t\tlongjmp(*uir_fault_jump, 1);\n"
	"\t}\n"
	"\tuir_report(site, a, b);\n"
	"}\n";

static const char at_c[] =
	"\n"
	"/* The offset I of an access to an array of N elements, or the fault at SITE. */\n"
	"static inline int32_t uir_at(int32_t i, int32_t n, int site)\n"
	"{\n"
	"\tif (i < 0 || i >= n)\n"
	"\t\tuir_fault(site, i, 0);\n"
	"\treturn i;\n"
	"}\n";

/* On entry to a loop whose bound is not a literal (C: the fault does not return). */
static const char top_c[] =
	"\n"
	"/* On entry to a loop of N iterations (N not a literal): an access whose top digit is the\n"
	" * loop's index reaches offset BASE + COEF * ((N - 1) / D), which must fit in i32\n"
	" * (docs/language.md 4.8.3 of uir), else the fault at SITE. Returns N. */\n"
	"static inline int32_t uir_top(int32_t n, int64_t base, int64_t coef, int64_t d, int site)\n"
	"{\n"
	"\tif (n >= 1 && base + coef * (((int64_t)n - 1) / d) > INT32_MAX)\n"
	"\t\tuir_fault(site, n, base + coef * (((int64_t)n - 1) / d));\n"
	"\treturn n;\n"
	"}\n";

static const char top_cuda[] =
	"\n"
	"/* On entry to a loop of N iterations (N not a literal): an access whose top digit is the\n"
	" * loop's index reaches offset BASE + COEF * ((N - 1) / D), which must fit in i32\n"
	" * (docs/language.md 4.8.3 of uir). Returns N, or records the fault at SITE and returns 0\n"
	" * (the loop does not run). */\n"
	"static __device__ inline int32_t uir_top(int32_t n, int64_t base, int64_t coef, int64_t d, int site)\n"
	"{\n"
	"\tif (n >= 1 && base + coef * (((int64_t)n - 1) / d) > INT32_MAX) {\n"
	"\t\tuir_fault(site, n, base + coef * (((int64_t)n - 1) / d));\n"
	"\t\treturn 0;\n"
	"\t}\n"
	"\treturn n;\n"
	"}\n";

static const char at_k_c[] =
	"\n"
	"/* The offset I of an access to elements I .. I+K-1 of an array of N, or the fault. */\n"
	"static inline int32_t uir_at_k(int32_t i, int32_t n, int k, int site)\n"
	"{\n"
	"\tif (i < 0 || i > n - k)\n"
	"\t\tuir_fault(site, i, 0);\n"
	"\treturn i;\n"
	"}\n";

/* CUDA: a device thread cannot stop the program; it records the first fault and goes on
 * with offset 0 (in bounds), and the host reports the fault after the launches. */
static const char fault_cuda[] =
	"\n"
	"/* The first fault (E0601): its site (-1: none) and numbers (see uir_report). */\n"
	"__device__ int uir_fault_site = -1;\n"
	"__device__ long long uir_fault_a, uir_fault_b;\n"
	"\n"
	"/* Records a fault at SITE with numbers A, B unless one is recorded already. */\n"
	"static __device__ void uir_fault(int site, int64_t a, int64_t b)\n"
	"{\n"
	"\tif (atomicCAS(&uir_fault_site, -1, site) == -1) {\n"
	"\t\tuir_fault_a = a;\n"
	"\t\tuir_fault_b = b;\n"
	"\t}\n"
	"}\n";

static const char at_cuda[] =
	"\n"
	"/* The offset I of an access to an array of N elements; out of bounds: records the\n"
	" * fault at SITE and gives 0. */\n"
	"static __device__ inline int32_t uir_at(int32_t i, int32_t n, int site)\n"
	"{\n"
	"\tif (i < 0 || i >= n) {\n"
	"\t\tuir_fault(site, i, 0);\n"
	"\t\treturn 0;\n"
	"\t}\n"
	"\treturn i;\n"
	"}\n";

static const char at_k_cuda[] =
	"\n"
	"/* The offset I of an access to elements I .. I+K-1 of an array of N; out of bounds:\n"
	" * records the fault at SITE and gives 0. */\n"
	"static __device__ inline int32_t uir_at_k(int32_t i, int32_t n, int k, int site)\n"
	"{\n"
	"\tif (i < 0 || i > n - k) {\n"
	"\t\tuir_fault(site, i, 0);\n"
	"\t\treturn 0;\n"
	"\t}\n"
	"\treturn i;\n"
	"}\n";

/* ---- parallel loops: the runtime's pool ---- */

extern const char uir_parallel_h_text[], uir_parallel_c_text[]; /* parallel_gen.c */

/* The thread pool, runtime/uir_parallel.h and uir_parallel.c as they are, its functions
 * private to the file (and unused ones not warned about). */
static void pool_c(Str *o)
{
	str_put(o, "\n/* ---- the thread pool of uir: runtime/uir_parallel.h and runtime/uir_parallel.c ----\n"
		   " * The checker proved that the iterations of a parallel loop do not interfere, so the\n"
		   " * result does not depend on the number of threads (UIR_THREADS, else the number of\n"
		   " * cores). */\n"
		   "#define UIR_PARALLEL_API static __attribute__((unused))\n");
	str_put(o, uir_parallel_h_text);
	str_put(o, "\n");
	str_put(o, uir_parallel_c_text);
	str_put(o, "\n/* ---- the end of the thread pool ---- */\n");
}

/* uir_parallel_loop(n, body, ctx): an outlined body (a chunk of iterations) on the pool;
 * the loop and its context, then the chunk and the loop where an access can fault
 * (loop_c_fault) or where none can (loop_c). */
static const char loop_struct_c[] =
	"\n"
	"/* A parallel loop's outlined body, which runs iterations lo .. hi-1, and its context. */\n"
	"struct uir_loop {\n"
	"\tvoid (*body)(void *ctx, int32_t lo, int32_t hi);\n"
	"\tvoid *ctx;\n"
	"};\n";

static const char loop_c_fault[] =
	"\n"
	"/* A chunk for the pool: iterations LO .. HI-1 of LOOP on WORKER. Returns 0, or after a fault\n"
	" * WORKER + 1: its record in uir_faults. */\n"
	"static uint64_t uir_chunk(void *loop, int32_t lo, int32_t hi, int32_t worker)\n"
	"{\n"
	"\tconst struct uir_loop *l = loop;\n"
	"\tjmp_buf jump;\n"
	"\tuir_fault_worker = worker;\n"
	"\tuir_fault_jump = &jump;\n"
	"\tif (setjmp(jump)) {\n"
	"\t\tuir_fault_jump = NULL;\n"
	"\t\treturn (uint64_t)uir_fault_worker + 1;\n"
	"\t}\n"
	"\tl->body(l->ctx, lo, hi);\n"
	"\tuir_fault_jump = NULL;\n"
	"\treturn 0;\n"
	"}\n"
	"\n"
	"/* Runs BODY(CTX, lo, hi) over chunks of the iterations 0 .. N-1 (none when N <= 0) on the\n"
	" * pool, and reports the first fault in program order, as `run` does. */\n"
	"static void uir_parallel_loop(int32_t n, void (*body)(void *ctx, int32_t lo, int32_t hi), void *ctx)\n"
	"{\n"
	"\tstruct uir_loop l;\n"
	"\tuint64_t code;\n"
	"\tl.body = body;\n"
	"\tl.ctx = ctx;\n"
	"\tcode = uir_parallel_for_chunks(n, uir_chunk, &l);\n"
	"\tif (code)\n"
	"\t\tuir_report(uir_faults[code - 1].site, uir_faults[code - 1].a, uir_faults[code - 1].b);\n"
	"}\n";

/* The same when no access of the program can fault. */
static const char loop_c[] =
	"\n"
	"/* A chunk for the pool: iterations LO .. HI-1 of LOOP (no access can fault). */\n"
	"static uint64_t uir_chunk(void *loop, int32_t lo, int32_t hi, int32_t worker)\n"
	"{\n"
	"\tconst struct uir_loop *l = loop;\n"
	"\t(void)worker;\n"
	"\tl->body(l->ctx, lo, hi);\n"
	"\treturn 0;\n"
	"}\n"
	"\n"
	"/* Runs BODY(CTX, lo, hi) over chunks of the iterations 0 .. N-1 (none when N <= 0) on the\n"
	" * pool. */\n"
	"static void uir_parallel_loop(int32_t n, void (*body)(void *ctx, int32_t lo, int32_t hi), void *ctx)\n"
	"{\n"
	"\tstruct uir_loop l;\n"
	"\tl.body = body;\n"
	"\tl.ctx = ctx;\n"
	"\t(void)uir_parallel_for_chunks(n, uir_chunk, &l);\n"
	"}\n";

/* uir_zalloc(): N zeroed elements of SIZE bytes on the heap for alloc NAME, or `run`'s
 * message and exit 1. */
static void zalloc_c(Emitter *E, Str *o)
{
	str_put(o, "\n/* N zeroed elements of SIZE bytes on the heap for alloc NAME, or exits 1. */\n");
	str_put(o, "static void *uir_zalloc(int64_t n, size_t size, const char *name)\n{\n");
	str_put(o, "\tvoid *p = calloc((size_t)n, size);\n\tif (!p) {\n");
	str_printf(o, "\t\tfprintf(stderr, %s, name, (long long)n * (long long)size);\n", oom_format(E, "alloc"));
	str_put(o, "\t\texit(1);\n\t}\n\treturn p;\n}\n");
}

/* ---- min, max, atomics ---- */

static void minmax_fn(Str *o, const char *qual, const char *name)
{
	/* name: uir_min_T */
	const char *t = strrchr(name, '_') + 1;
	bool is_min = !strncmp(name, "uir_min_", 8);
	UirType ty = UIR_I32;
	for (int i = 0; i < UIR_NTYPES; i++)
		if (!strcmp(uir_type_name((UirType)i), t))
			ty = (UirType)i;
	const char *c = ctype(ty);
	str_printf(o, "\n/* The %s of a and b. */\n", is_min ? "smaller" : "larger");
	str_printf(o, "%s %s %s(%s a, %s b)\n{\n\treturn a %s b ? a : b;\n}\n", qual, c, name, c, c, is_min ? "<" : ">");
}

/* C: float min and max, by compare-and-swap of the float's bits (gcc's and clang's
 * generic __atomic builtins compare bits, so -0 and +0 differ) until the stored value is
 * uir_min_T/uir_max_T of itself and v (the op's helper, pasted with the runtime helpers);
 * a stored NaN stays. */
static void atomic_float_c(Str *o, const char *name, UirType ty, const char *op)
{
	const char *c = ctype(ty), *t = uir_type_name(ty);
	str_printf(o, "\n/* *p = uir_%s_%s(*p, v), indivisibly: compare-and-swap of the bits. */\n", op, t);
	str_printf(o, "static inline void %s(%s *p, %s v)\n{\n", name, c, c);
	str_printf(o, "\t%s old, r;\n", c);
	str_put(o, "\t__atomic_load(p, &old, __ATOMIC_RELAXED);\n");
	str_put(o, "\tdo {\n");
	str_printf(o, "\t\tr = uir_%s_%s(old, v);\n", op, t);
	str_put(o, "\t\tif (old != old || memcmp(&r, &old, sizeof r) == 0)\n\t\t\treturn;\n");
	str_put(o, "\t} while (!__atomic_compare_exchange(p, &old, &r, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));\n}\n");
}

/* C: uir_atomic_OP_T(&m[i], v), with the __atomic builtins of gcc and clang; add wraps
 * (done on the unsigned type), min and max compare-and-swap. */
static void atomic_fn_c(Str *o, const char *name, UirType ty, const char *op)
{
	const char *c = ctype(ty);
	if (ty == UIR_F32 || ty == UIR_F64) {
		atomic_float_c(o, name, ty, op);
		return;
	}
	static const char *const ut[UIR_NTYPES] = {
		"uint8_t", "uint8_t", "uint8_t", "uint32_t", "uint32_t", "uint64_t", "uint64_t", "", "",
	};
	if (!strcmp(op, "add")) {
		str_printf(o, "\n/* *p = *p + v (wrapping), indivisibly. */\n");
		str_printf(o, "static inline void %s(%s *p, %s v)\n{\n", name, c, c);
		str_printf(o, "\t__atomic_fetch_add((%s *)p, (%s)v, __ATOMIC_RELAXED);\n}\n", ut[ty], ut[ty]);
		return;
	}
	bool is_min = !strcmp(op, "min");
	str_printf(o, "\n/* *p = %s(*p, v), indivisibly. */\n", op);
	str_printf(o, "static inline void %s(%s *p, %s v)\n{\n", name, c, c);
	str_printf(o, "\t%s old = __atomic_load_n(p, __ATOMIC_RELAXED);\n", c);
	str_printf(o, "\twhile (v %s old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {\n\t}\n}\n",
		   is_min ? "<" : ">");
}

/* CUDA: float min and max, by atomicCAS on the float's bits (unsigned int, unsigned long
 * long) until the stored value is uir_min_T/uir_max_T of itself and v; a stored NaN stays.
 * CUDA's own float atomics have no min/max with the op's NaN and -0 rules. */
static void atomic_float_cuda(Str *o, const char *name, UirType ty, const char *op)
{
	const char *c = ctype(ty), *t = uir_type_name(ty);
	const char *u = ty == UIR_F32 ? "unsigned int" : "unsigned long long";
	const char *z = ty == UIR_F32 ? "0u" : "0ull";
	str_printf(o, "\n/* *p = uir_%s_%s(*p, v), indivisibly: compare-and-swap of the bits. */\n", op, t);
	str_printf(o, "static __device__ inline void %s(%s *p, %s v)\n{\n", name, c, c);
	str_printf(o, "\t%s *w = (%s *)p;\n", u, u);
	str_printf(o, "\t%s old = atomicCAS(w, %s, %s), assumed, b;\n", u, z, z);
	str_printf(o, "\t%s x, r;\n", c);
	str_put(o, "\tdo {\n\t\tassumed = old;\n\t\tmemcpy(&x, &assumed, sizeof x);\n");
	str_printf(o, "\t\tr = uir_%s_%s(x, v);\n", op, t);
	str_put(o, "\t\tmemcpy(&b, &r, sizeof b);\n");
	str_put(o, "\t\tif (x != x || b == assumed)\n\t\t\treturn;\n");
	str_put(o, "\t\told = atomicCAS(w, assumed, b);\n");
	str_put(o, "\t} while (old != assumed);\n}\n");
}

/* CUDA: atomics on one byte, by compare-and-swap of the aligned 32-bit word holding it
 * (byte arrays are padded to whole words, see render_cuda.c); float min and max. */
static void atomic_fn_cuda(Str *o, const char *name, UirType ty, const char *op)
{
	const char *c = ctype(ty);
	if (ty == UIR_F32 || ty == UIR_F64) {
		atomic_float_cuda(o, name, ty, op);
		return;
	}
	str_printf(o, "\n/* *p = %s(*p, v) on one byte, indivisibly: compare-and-swap of its word. */\n",
		   !strcmp(op, "add") ? "add" : op);
	str_printf(o, "static __device__ inline void %s(%s *p, %s v)\n{\n", name, c, c);
	str_put(o, "\tunsigned int *w = (unsigned int *)((uintptr_t)p & ~(uintptr_t)3);\n");
	str_put(o, "\tunsigned int shift = (unsigned int)((uintptr_t)p & 3) * 8;\n");
	str_put(o, "\tunsigned int old = atomicCAS(w, 0u, 0u), assumed;\n");
	str_put(o, "\tdo {\n\t\tunsigned int b;\n\t\tassumed = old;\n");
	str_printf(o, "\t\tb = (%s)(assumed >> shift & 0xFFu);\n", ty == UIR_I8 ? "unsigned int)(int8_t" : "unsigned int");
	if (!strcmp(op, "add"))
		str_put(o, "\t\tb = (b + (uint8_t)v) & 0xFFu;\n");
	else if (ty == UIR_I8)
		str_printf(o, "\t\tb = (int8_t)b %s v ? (uint8_t)v : b & 0xFFu;\n", !strcmp(op, "min") ? ">" : "<");
	else
		str_printf(o, "\t\tb = b %s v ? v : b;\n", !strcmp(op, "min") ? ">" : "<");
	str_put(o, "\t\told = atomicCAS(w, assumed, (assumed & ~(0xFFu << shift)) | (b & 0xFFu) << shift);\n");
	str_put(o, "\t} while (old != assumed);\n}\n");
}

static void support_fns(Emitter *E, Str *o)
{
	const char *qual = E->cuda ? "static __device__ inline" : "static inline";
	for (int i = 0; i < E->support.n; i++) {
		const char *n = E->support.v[i];
		if (!strncmp(n, "uir_min_", 8) || !strncmp(n, "uir_max_", 8)) {
			minmax_fn(o, qual, n);
		} else if (!strncmp(n, "uir_atomic_", 11)) {
			char op[8];
			const char *rest = n + 11;
			size_t k = strcspn(rest, "_");
			if (k >= sizeof op)
				unreachable();
			memcpy(op, rest, k);
			op[k] = 0;
			UirType ty = UIR_I32;
			for (int t = 0; t < UIR_NTYPES; t++)
				if (!strcmp(uir_type_name((UirType)t), rest + k + 1))
					ty = (UirType)t;
			if (E->cuda)
				atomic_fn_cuda(o, n, ty, op);
			else
				atomic_fn_c(o, n, ty, op);
		}
	}
}

void support_write(Emitter *E, Str *o)
{
	bool par = !E->cuda && (E->need & NEED_PARALLEL);
	if (par)
		pool_c(o); /* first: the fault records are per worker, UIR_PARALLEL_MAX of them */
	if (E->need & NEED_FAULT) {
		if (E->cuda) {
			str_put(o, fault_cuda);
		} else {
			sites_table(E, o, "static ");
			str_printf(o, report_c, "_Noreturn ");
			str_put(o, par ? fault_c_par : fault_c_seq);
		}
	}
	if (nameset_has(&E->support, "uir_at"))
		str_put(o, E->cuda ? at_cuda : at_c);
	if (nameset_has(&E->support, "uir_at_k"))
		str_put(o, E->cuda ? at_k_cuda : at_k_c);
	if (nameset_has(&E->support, "uir_top"))
		str_put(o, E->cuda ? top_cuda : top_c);
	if (par) {
		str_put(o, loop_struct_c);
		str_put(o, E->need & NEED_FAULT ? loop_c_fault : loop_c);
	}
	if (E->need & NEED_ZALLOC)
		zalloc_c(E, o);
	support_fns(E, o);
}

/* The host side of CUDA faults: the sites table and the report (render_cuda.c calls it
 * for --main). */

void support_write_cuda_host(Emitter *E, Str *o)
{
	sites_table(E, o, "static ");
	str_printf(o, report_c, "");
}
