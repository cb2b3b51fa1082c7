/* render_cuda.c - `uir render-cuda` (docs/language.md 8.3): a program in kernel form as CUDA C++.
 *
 * Kernel form (docs/language.md 8.2): the top level holds only declarations and `global` loops
 * with integer-literal bounds; a kernel uses only buffers, literals, its own loops and
 * lets, and allocs whose home is that global loop; its shared memory is at most 48 KiB.
 * Anything else: exit 2 with `invalid: line N: ...` naming the construct.
 *
 * The output, in this order: `#include <stdint.h>` (with --main also the C headers its
 * host code needs); a fallback UIR_LAUNCH for real CUDA; the runtime helpers the kernels
 * call as `static __device__ inline` functions (UIR_FN), from the same single definitions
 * as every back end; support (bounds checks recording the first fault, byte atomics, float
 * min/max atomics); one
 * `__global__ void __launch_bounds__(B) uir_kN(buffers it uses)` per global loop, B its
 * block size (so that nvcc keeps to the registers a block has); the host `void kernel(T *b0,
 * ...)` launching them in program order with UIR_LAUNCH(name, grid, block, args...); and
 * with --main a host main() that sets up the buffers as `run` does, copies them to the
 * device, runs kernel(), reports a recorded fault as `run` would, copies back and prints.
 *
 * Inside a kernel: `int32_t g = blockIdx.x`; the block's shared memory as __shared__
 * arrays zeroed by the threads, then __syncthreads(); each local loop (phase) as a block
 * `{ int32_t t = threadIdx.x; ... }` followed by __syncthreads(), with one more barrier
 * before a phase that does not directly follow another phase or the zeroing barrier (the
 * rule of docs/language.md 8.3.4, phase_follows_barrier in src/check/kernel_form.c, shared with
 * `uir ptx`); block code (lets, plain loops) runs on every thread. A shared alloc accessed only
 * as acc[t] (t the thread index of the phase, the alloc at least a block long) is one
 * register per thread instead (docs/language.md 5.4.1). Aligned vector accesses to buffers are
 * float4-style (stmt.c, cuda_vector_type). With --main and -DUIR_TIME, main times kernel() against
 * the reference kernel of `# cuda speed` (write_timing_main).
 *
 * Grids and blocks of 2 or 3 dimensions (nested global or local loops, docs/language.md
 * 6.5): each loop of a nest binds its index where it stands, `int32_t NAME = blockIdx.y` or
 * `threadIdx.y`, its body following inline; the launch is UIR_LAUNCH(name, dim3(GX, GY,
 * GZ), dim3(BX, BY, BZ), args...), __launch_bounds__ the block's whole size, and shared
 * memory is zeroed over the flat thread number.
 */
#include "render_int.h"
#include <stdlib.h>
#include <string.h>

typedef struct CudaState {
	const Stmt *kernel;  /* the global loop being rendered */
	int64_t block;       /* its block size */
} CudaState;

static const char *const xyz[] = { "x", "y", "z" };

/* An inner loop of a grid's or a phase's nest: `int32_t NAME = blockIdx.y;` (threadIdx)
 * when its index is used, then its body inline. */
static void nest_loop(Emitter *E, const Stmt *s)
{
	SymInfo *si = sym_info(E, s->sym);
	Str body = { 0 }, *out = E->out;
	int before = si->refs;
	E->out = &body;
	emit_block(E, s->body);
	E->out = out;
	if (si->refs != before)
		line(E, "int32_t %s = %s.%s; /* loop %s %lld %s */", si->cname, s->axis == AX_GLOBAL ? "blockIdx" : "threadIdx",
		     xyz[s->dim], s->sym->name, (long long)s->bound_lit, axis_name[s->axis]);
	str_put(E->out, str_cstr(&body));
	str_free(&body);
}

/* ---- phases ---- */

static bool cuda_loop_hook(Emitter *E, const Stmt *s)
{
	CudaState *cs = E->ctx;
	if ((s->axis == AX_GLOBAL || s->axis == AX_LOCAL) && s->nest && s->nest != s) {
		nest_loop(E, s);
		return true;
	}
	if (s->axis != AX_LOCAL)
		return false;
	SymInfo *si = sym_info(E, s->sym);
	/* the body first: the index is declared only if the rendering refers to it */
	Str body = { 0 }, *out = E->out;
	int before = si->refs, decls = E->decls;
	E->out = &body;
	E->decls = 0;
	E->indent++;
	emit_block(E, s->body);
	E->indent--;
	E->decls = decls;
	E->out = out;
	if (!phase_follows_barrier(s, cs->kernel))
		line(E, "__syncthreads();");
	line(E, "{");
	if (si->refs != before)
		line(E, "\tint32_t %s = threadIdx.%s; /* loop %s %lld local: phase %d */", si->cname,
		     xyz[s->ndims > 1 ? s->dim : 0], s->sym->name, (long long)s->bound_lit, s->phase);
	else
		line(E, "\t/* loop %s %lld local: phase %d */", s->sym->name, (long long)s->bound_lit, s->phase);
	str_put(E->out, str_cstr(&body));
	str_free(&body);
	line(E, "}");
	line(E, "__syncthreads();");
	return true;
}

/* ---- one kernel ---- */

static void write_kernel_fn(Emitter *E, Str *o, const Stmt *s, int k)
{
	CudaState *cs = E->ctx;
	UirProgram *p = E->p;
	cs->kernel = s;
	cs->block = kernel_block_size(s);
	int64_t block = cs->block;

	/* register promotion and byte atomics of the shared allocs */
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		mem_info(E, m)->reg = mem_info(E, m)->used && kernel_slot_alloc(s, m);
	}

	/* the statements first: g is declared only if the rendering refers to it */
	SymInfo *gi = sym_info(E, s->sym);
	Str stmts = { 0 };
	E->out = &stmts;
	E->indent = 1;
	E->decls = 0;
	int before = gi->refs;
	emit_block(E, s->body);

	Str body = { 0 };
	E->out = &body;
	bool zero = false;
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		MemInfo *mi = mem_info(E, m);
		if (!mi->used || mi->reg)
			continue;
		int64_t n = m->size;
		if (m->size % 4 && uir_type_size(m->ty) == 1 && (loop_uses(p, s, m) & CAP_ATOMIC)) {
			/* byte atomics change whole aligned words: pad to words */
			n = (m->size + 3) / 4 * 4;
			line(E, "__shared__ __align__(4) %s %s[%lld]; /* %lld used, padded for byte atomics */", ctype(m->ty),
			     mi->cname, (long long)n, (long long)m->size);
		} else {
			line(E, "__shared__ %s %s[%lld];", ctype(m->ty), mi->cname, (long long)n);
		}
		if (!(loop_uses(p, s, m) & (CAP_LOAD | CAP_ATOMIC)))
			line(E, "(void)&%s; /* stored, never loaded: not 'set but never used' */", mi->cname);
		zero = true;
	}
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		MemInfo *mi = mem_info(E, m);
		if (mi->reg) {
			Scalar z;
			memset(&z, 0, sizeof z);
			line(E, "%s %s = %s; /* %s[t]: one per thread */", ctype(m->ty), mi->cname,
			     literal_text(E, m->ty, z), m->name);
			if (!(loop_uses(p, s, m) & (CAP_LOAD | CAP_ATOMIC)))
				line(E, "(void)&%s; /* stored, never loaded: not 'set but never used' */", mi->cname);
		}
	}
	if (gi->refs != before)
		line(E, "int32_t %s = blockIdx.%s;", gi->cname, xyz[s->ndims > 1 ? s->dim : 0]);
	int64_t bd[3];
	int nbd;
	kernel_block(s, bd, &nbd);
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		MemInfo *mi = mem_info(E, m);
		if (!mi->used || mi->reg)
			continue;
		if (nbd > 1) /* the flat thread number, x fastest */
			line(E, "for (int32_t uir_i = (int32_t)((threadIdx.z * %lld + threadIdx.y) * %lld + threadIdx.x); "
			     "uir_i < %lld; uir_i += %lld)", (long long)bd[1], (long long)bd[0], (long long)m->size,
			     (long long)block);
		else
			line(E, "for (int32_t uir_i = threadIdx.x; uir_i < %lld; uir_i += blockDim.x)", (long long)m->size);
		line(E, "\t%s[uir_i] = 0;", mi->cname);
	}
	if (zero)
		line(E, "__syncthreads();");
	str_put(&body, str_cstr(&stmts));
	str_free(&stmts);

	/* the signature: the buffers it uses, in declaration order */
	if (kernel_multi_dim(s)) {
		int64_t gd[3];
		int ngd;
		kernel_grid(s, gd, &ngd);
		str_printf(o, "\n/* loop %s %lld global (line %d): a grid of", s->sym->name, (long long)s->bound_lit,
			   s->loc.line);
		for (int d = ngd - 1; d >= 0; d--)
			str_printf(o, "%s%lld", d == ngd - 1 ? " " : "x", (long long)gd[d]);
		str_printf(o, " block%s of", gd[0] * gd[1] * gd[2] == 1 ? "" : "s");
		for (int d = nbd - 1; d >= 0; d--)
			str_printf(o, "%s%lld", d == nbd - 1 ? " " : "x", (long long)bd[d]);
		str_printf(o, " thread%s (outer loop first) */\n", block == 1 ? "" : "s");
	} else {
		str_printf(o, "\n/* loop %s %lld global (line %d): %lld block%s of %lld thread%s */\n", s->sym->name,
			   (long long)s->bound_lit, s->loc.line, (long long)s->bound_lit, s->bound_lit == 1 ? "" : "s",
			   (long long)block, block == 1 ? "" : "s");
	}
	/* __launch_bounds__: nvcc then keeps to the registers that a block of this size can
	 * have (65536 a block: 64 a thread at 1024 threads); without it a 1024-thread kernel
	 * compiled to 168 registers a thread, and its launch would fail */
	str_printf(o, "__global__ void __launch_bounds__(%lld) uir_k%d(", (long long)block, k);
	int n = 0;
	for (int i = 0; i < p->nbufs; i++)
		if (loop_uses(p, s, p->bufs[i]))
			str_printf(o, "%s%s *%s", n++ ? ", " : "", ctype(p->bufs[i]->ty), E->bufs[i].cname);
	if (!n)
		str_put(o, "void");
	str_put(o, ")\n{\n");
	str_put(o, str_cstr(&body));
	str_put(o, "}\n");
	str_free(&body);
}

/* ---- host code ---- */

static void write_host_kernel(Emitter *E, Str *o)
{
	UirProgram *p = E->p;
	str_put(o, "\n/* The program: buffers b0, b1, ... (device pointers), kernels in program order. */\n");
	str_put(o, "void kernel(");
	if (!p->nbufs)
		str_put(o, "void");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%s%s *%s /* b%d%s%s */", i ? ", " : "", ctype(p->bufs[i]->ty), E->bufs[i].cname, i,
			   strcmp(E->bufs[i].cname, p->bufs[i]->name) ? ": " : "",
			   strcmp(E->bufs[i].cname, p->bufs[i]->name) ? p->bufs[i]->name : "");
	str_put(o, ")\n{\n");
	for (int i = 0; i < p->nbufs; i++) {
		bool used = false;
		for (const Stmt *s = p->top; s; s = s->next)
			if (s->kind == ST_LOOP && s->bound_lit > 0 && loop_uses(p, s, p->bufs[i]))
				used = true;
		if (!used)
			str_printf(o, "\t(void)%s;\n", E->bufs[i].cname);
	}
	int k = 0;
	for (const Stmt *s = p->top; s; s = s->next) {
		if (s->kind != ST_LOOP)
			continue;
		int64_t block = kernel_block_size(s);
		if (s->bound_lit == 0) {
			str_printf(o, "\t/* uir_k%d: loop %s 0 global, a grid of 0 blocks launches nothing */\n", k++,
				   s->sym->name);
			continue;
		}
		if (kernel_multi_dim(s)) {
			int64_t gd[3], bd[3];
			kernel_grid(s, gd, NULL);
			kernel_block(s, bd, NULL);
			str_printf(o, "\tUIR_LAUNCH(uir_k%d, dim3(%lld, %lld, %lld), dim3(%lld, %lld, %lld)", k++, (long long)gd[0],
				   (long long)gd[1], (long long)gd[2], (long long)bd[0], (long long)bd[1], (long long)bd[2]);
		} else {
			str_printf(o, "\tUIR_LAUNCH(uir_k%d, %lld, %lld", k++, (long long)s->bound_lit, (long long)block);
		}
		for (int i = 0; i < p->nbufs; i++)
			if (loop_uses(p, s, p->bufs[i]))
				str_printf(o, ", %s", E->bufs[i].cname);
		str_put(o, ");\n");
	}
	str_put(o, "}\n");
}

/* With -DUIR_TIME, the main of `# cuda speed` (docs/testing.md, "`# cuda speed: X`") in
 * place of the one that prints: `PROG SEED DIR` times kernel() against the reference kernel
 * of NAME.ref.cu, whose kernel() `uir test` renames uir_ref_kernel. The buffers start as
 * `uir run --seed SEED` sets them up (the `random` ones drawn from SEED); before every
 * launch they are copied to the device again and the L2 cache is flushed (a kernel writes
 * twice its size, outside the timed region); after every launch, of the kernel and of the
 * reference, every buffer is copied back and compared bit for bit with DIR/NAME.npy (`uir
 * run --seed SEED --dump DIR`). Round 0 is a warm-up launch of each, then 3 rounds, the two
 * interleaved, each launch timed with CUDA events. Standard error gets the device's memory
 * clock, bus width and L2 size (`uir-device: ...`, for the bandwidth bound `uir test`
 * computes), then the best time of each (`uir-time: ...`); a launch that differs prints
 * `uir-check: ...` and exits 1. Nothing is printed on standard output. */
/* The device copy of buffer I in a main: its pointer, cudaMalloc'ed. */
static void device_buffer(Emitter *E, Str *o, int i)
{
	const Mem *m = E->p->bufs[i];
	const char *n = E->bufs[i].cname;
	str_printf(o, "\t%s *uir_d_%s;\n", ctype(m->ty), n);
	str_printf(o, "\tuir_cuda_check(cudaMalloc((void **)&uir_d_%s, sizeof *%s * %lld), \"cudaMalloc\");\n", n, n,
		   (long long)m->size);
}

static void write_timing_main(Emitter *E, Str *o)
{
	UirProgram *p = E->p;
	bool file = false;
	for (int i = 0; i < p->nbufs; i++)
		file |= p->bufs[i]->init == INIT_FILE;
	/* its host helpers are its own (write_helpers): time_helpers in host_helpers' place */
	NameSet print = E->host_helpers;
	E->host_helpers = E->time_helpers;
	bool host = E->host;
	E->host = true;
	if (p->nbufs)
		use_helper(E, "uir_npy_read");
	E->host = host;
	str_put(o, "\n/* The reference kernel (NAME.ref.cu, its kernel() renamed by `uir test`). */\n");
	str_put(o, "void uir_ref_kernel(");
	if (!p->nbufs)
		str_put(o, "void");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%s%s *", i ? ", " : "", ctype(p->bufs[i]->ty));
	str_put(o, ");\n");
	str_put(o, "\n/* Before each timed launch: writes V into the N words at P, twice the L2's size, so\n"
		   " * that no buffer is left in the L2 cache. */\n"
		   "__global__ void uir_flush_l2(unsigned int *p, size_t n, unsigned int v)\n{\n"
		   "\tfor (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)\n"
		   "\t\tp[i] = v;\n}\n");
	if (p->nbufs) /* nothing to compare in a program without buffers */
		str_put(o, "\n/* A launch (ROUND 0: the warm-up) of the kernel or of the reference (REF) left buffer\n"
		   " * NAME other than `uir run --seed` does: the line `uir test` reads, then exit 1. */\n"
		   "static inline void uir_time_differs(int ref, int round, const char *name, int64_t e, const char *want,\n"
		   "\t\t\t\t    const char *got, int64_t n)\n{\n"
		   "\tfprintf(stderr, \"uir-check: the %s's launch %d of 4 (%s) differs from run: buffer %s, element %lld: \"\n"
		   "\t\t\"run gives %s, the %s gave %s\", ref ? \"reference kernel\" : \"kernel\", round + 1,\n"
		   "\t\tround ? \"timed\" : \"the warm-up\", name, (long long)e, want, ref ? \"reference\" : \"kernel\", got);\n"
		   "\tif (n > 1)\n\t\tfprintf(stderr, \" (%lld elements differ)\", (long long)n);\n"
		   "\tfputc('\\n', stderr);\n\texit(1);\n}\n");
	str_put(o, "\n/* SEED as a 64-bit number: decimal, or hex after 0x. Returns 0, or -1. */\n"
		   "static inline int uir_time_seed(const char *s, uint64_t *v)\n{\n"
		   "\tint hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');\n"
		   "\tconst char *d = hex ? s + 2 : s;\n"
		   "\tuint64_t x = 0;\n"
		   "\tif (!*d || strlen(d) > (hex ? 16u : 20u))\n\t\treturn -1;\n"
		   "\tfor (; *d; d++) {\n"
		   "\t\tint k = *d >= '0' && *d <= '9' ? *d - '0' : hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10\n"
		   "\t\t\t: hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10 : -1;\n"
		   "\t\tif (k < 0 || (!hex && x > (UINT64_MAX - (uint64_t)k) / 10))\n\t\t\treturn -1;\n"
		   "\t\tx = hex ? x << 4 | (uint64_t)k : x * 10 + (uint64_t)k;\n\t}\n"
		   "\t*v = x;\n\treturn 0;\n}\n");
	if (p->nbufs)
		str_put(o, "\n/* Reads the expected contents of buffer NAME, DIR/NAME.npy, into DST; exit 1 when it\n"
		   " * does not read. */\n"
		   "static inline void uir_time_expected(const char *dir, const char *name, const char *descr, int64_t n, void *dst)\n{\n"
		   "\tchar path[4096], why[256];\n"
		   "\tsnprintf(path, sizeof path, \"%s/%s.npy\", dir, name);\n"
		   "\tif (uir_npy_read(path, descr, n, dst, why, sizeof why) != 0) {\n"
		   "\t\tfprintf(stderr, \"error: the expected contents of %s, %s: %s\\n\", name, path, why);\n"
		   "\t\texit(1);\n\t}\n}\n");
	str_put(o, "\n/* The device: prints its memory clock, bus width and L2 size (`uir-device: ...`); the\n"
		   " * flush writes twice the L2's size (256 MiB when the device gives none) in *WORDS words,\n"
		   " * *GRID blocks of 256 threads. */\n"
		   "static inline void uir_time_device(size_t *words, int *grid)\n{\n"
		   "\tint dev = 0, clock = 0, bus = 0, l2 = 0, sms = 0;\n"
		   "\tuir_cuda_check(cudaGetDevice(&dev), \"cudaGetDevice\");\n"
		   "\tuir_cuda_check(cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, dev), \"cudaDeviceGetAttribute\");\n"
		   "\tuir_cuda_check(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev), \"cudaDeviceGetAttribute\");\n"
		   "\tuir_cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), \"cudaDeviceGetAttribute\");\n"
		   "\tuir_cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), \"cudaDeviceGetAttribute\");\n"
		   "\tsize_t bytes = l2 > 0 ? 2 * (size_t)l2 : (size_t)256 << 20;\n"
		   "\t*words = bytes / 4;\n"
		   "\tsize_t g = sms > 0 ? 8 * (size_t)sms : 1024, most = (*words + 255) / 256;\n"
		   "\t*grid = (int)(g < most ? g : most);\n"
		   "\tfprintf(stderr, \"uir-device: memory clock %d kHz, bus %d bits, L2 %d bytes, flush %zu bytes\\n\", clock, bus, l2,\n"
		   "\t\tbytes);\n}\n");

	str_put(o, "\n/* `# cuda speed` (docs/testing.md): PROG SEED DIR times kernel() against the reference\n"
		   " * on the buffers of `uir run --seed SEED`, every launch compared with DIR/NAME.npy. */\n");
	str_put(o, "int main(int argc, char **argv)\n{\n");
	str_put(o, "\tuint64_t uir_seed = 0;\n");
	str_put(o, "\tif (argc != 3 || uir_time_seed(argv[1], &uir_seed) != 0) {\n"
		   "\t\tfprintf(stderr, \"usage: %s SEED DIR (the buffers of uir run --seed SEED, compared with its --dump DIR)\\n\",\n"
		   "\t\t\targv[0]);\n\t\treturn 64;\n\t}\n");
	str_put(o, p->nbufs ? "\tconst char *uir_dir = argv[2];\n" : "\t(void)argv[2]; /* no buffers to compare */\n");
	if (file)
		str_put(o, "\tchar uir_why[256];\n");
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		const char *n = E->bufs[i].cname, *t = ctype(m->ty);
		str_printf(o, "\t%s *%s = (%s *)uir_buffer(%lld, sizeof *%s, \"", t, n, t, (long long)m->size, n);
		str_put_cstring(o, m->name, strlen(m->name));
		str_put(o, "\");\n");
		str_printf(o, "\t%s *uir_w_%s = (%s *)uir_buffer(%lld, sizeof *%s, \"", t, n, t, (long long)m->size, n);
		str_put_cstring(o, m->name, strlen(m->name));
		str_put(o, "\");\n");
		str_printf(o, "\t%s *uir_g_%s = (%s *)uir_buffer(%lld, sizeof *%s, \"", t, n, t, (long long)m->size, n);
		str_put_cstring(o, m->name, strlen(m->name));
		str_put(o, "\");\n");
	}
	for (int i = 0; i < p->nbufs; i++) {
		main_init_buffer(E, o, p->bufs[i], E->bufs[i].cname);
		main_seed_buffer(E, o, p->bufs[i], E->bufs[i].cname);
	}
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		str_put(o, "\tuir_time_expected(uir_dir, \"");
		str_put_cstring(o, m->name, strlen(m->name));
		str_printf(o, "\", \"%s\", %lld, uir_w_%s);\n", uir_type_npy_descr(m->ty), (long long)m->size,
			   E->bufs[i].cname);
	}
	for (int i = 0; i < p->nbufs; i++)
		device_buffer(E, o, i);
	str_put(o, "\tsize_t uir_words;\n\tint uir_grid;\n\tuir_time_device(&uir_words, &uir_grid);\n");
	str_put(o, "\tunsigned int *uir_flush;\n"
		   "\tuir_cuda_check(cudaMalloc((void **)&uir_flush, uir_words * sizeof *uir_flush), \"cudaMalloc\");\n");
	str_put(o, "\tcudaEvent_t uir_e0, uir_e1;\n");
	str_put(o, "\tuir_cuda_check(cudaEventCreate(&uir_e0), \"cudaEventCreate\");\n");
	str_put(o, "\tuir_cuda_check(cudaEventCreate(&uir_e1), \"cudaEventCreate\");\n");
	str_put(o, "\tfloat uir_best[2] = { 0, 0 };\n");
	if (p->nbufs)
		str_put(o, "\tint64_t uir_nd, uir_e = 0;\n");
	str_put(o, "\tfor (int uir_round = 0; uir_round < 4; uir_round++) {\n");
	str_put(o, "\t\tfor (int uir_ref = 0; uir_ref < 2; uir_ref++) {\n");
	for (int i = 0; i < p->nbufs; i++) {
		const char *n = E->bufs[i].cname;
		str_printf(o, "\t\t\tuir_cuda_check(cudaMemcpy(uir_d_%s, %s, sizeof *%s * %lld, cudaMemcpyHostToDevice), "
			      "\"cudaMemcpy\");\n", n, n, n, (long long)p->bufs[i]->size);
	}
	str_put(o, "\t\t\tuir_cuda_check(cudaDeviceSynchronize(), \"copy\");\n");
	str_put(o, "\t\t\tUIR_LAUNCH(uir_flush_l2, uir_grid, 256, uir_flush, uir_words, (unsigned int)(2 * uir_round + uir_ref + 1));\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaGetLastError(), \"L2 flush\");\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaDeviceSynchronize(), \"L2 flush\");\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaEventRecord(uir_e0, 0), \"cudaEventRecord\");\n");
	str_put(o, "\t\t\tif (uir_ref)\n\t\t\t\tuir_ref_kernel(");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%suir_d_%s", i ? ", " : "", E->bufs[i].cname);
	str_put(o, ");\n\t\t\telse\n\t\t\t\tkernel(");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%suir_d_%s", i ? ", " : "", E->bufs[i].cname);
	str_put(o, ");\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaEventRecord(uir_e1, 0), \"cudaEventRecord\");\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaGetLastError(), \"launch\");\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaEventSynchronize(uir_e1), uir_ref ? \"reference kernel\" : \"kernel\");\n");
	str_put(o, "\t\t\tfloat uir_ms = 0;\n");
	str_put(o, "\t\t\tuir_cuda_check(cudaEventElapsedTime(&uir_ms, uir_e0, uir_e1), \"cudaEventElapsedTime\");\n");
	str_put(o, "\t\t\tif (uir_round == 1 || (uir_round > 1 && uir_ms < uir_best[uir_ref]))\n");
	str_put(o, "\t\t\t\tuir_best[uir_ref] = uir_ms;\n");
	if (E->need & NEED_FAULT) {
		str_put(o, "\t\t\tif (!uir_ref) {\n\t\t\t\tint uir_site;\n\t\t\t\tlong long uir_a, uir_b;\n");
		str_put(o, "\t\t\t\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_site, uir_fault_site, sizeof uir_site), \"fault\");\n");
		str_put(o, "\t\t\t\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_a, uir_fault_a, sizeof uir_a), \"fault\");\n");
		str_put(o, "\t\t\t\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_b, uir_fault_b, sizeof uir_b), \"fault\");\n");
		str_put(o, "\t\t\t\tif (uir_site >= 0)\n\t\t\t\t\tuir_report(uir_site, uir_a, uir_b);\n\t\t\t}\n");
	}
	for (int i = 0; i < p->nbufs; i++) {
		const char *n = E->bufs[i].cname;
		str_printf(o, "\t\t\tuir_cuda_check(cudaMemcpy(uir_g_%s, uir_d_%s, sizeof *%s * %lld, cudaMemcpyDeviceToHost), "
			      "\"cudaMemcpy\");\n", n, n, n, (long long)p->bufs[i]->size);
	}
	for (int i = 0; i < p->nbufs; i++) {
		const char *n = E->bufs[i].cname;
		char *got = fmt_str(E->a, "uir_g_%s", n), *want = fmt_str(E->a, "uir_w_%s", n);
		main_compare_buffer(E, o, p->bufs[i], got, want, "\t\t\t");
	}
	str_put(o, "\t\t}\n\t}\n");
	str_put(o, "\tfprintf(stderr, \"uir-time: kernel %.6f ms, reference %.6f ms\\n\", uir_best[0], uir_best[1]);\n");
	str_put(o, "\tcudaEventDestroy(uir_e0);\n\tcudaEventDestroy(uir_e1);\n");
	str_put(o, "\tuir_cuda_check(cudaFree(uir_flush), \"cudaFree\");\n");
	for (int i = 0; i < p->nbufs; i++) {
		const char *n = E->bufs[i].cname;
		str_printf(o, "\tuir_cuda_check(cudaFree(uir_d_%s), \"cudaFree\");\n", n);
		str_printf(o, "\tfree(%s);\n\tfree(uir_w_%s);\n\tfree(uir_g_%s);\n", n, n, n);
	}
	str_put(o, "\treturn 0;\n}\n");
	E->time_helpers = E->host_helpers;
	E->host_helpers = print;
}

static void write_main(Emitter *E, Str *o)
{
	UirProgram *p = E->p;
	bool file = false;
	for (int i = 0; i < p->nbufs; i++)
		file |= p->bufs[i]->init == INIT_FILE;
	if (E->need & NEED_FAULT)
		support_write_cuda_host(E, o);
	str_put(o, "\n/* A CUDA call that failed: its message, exit 1. */\n");
	str_put(o, "static void uir_cuda_check(cudaError_t e, const char *what)\n{\n");
	str_put(o, "\tif (e != cudaSuccess) {\n");
	str_put(o, "\t\tfprintf(stderr, \"error: %s: %s\\n\", what, cudaGetErrorString(e));\n");
	str_put(o, "\t\texit(1);\n\t}\n}\n");
	if (p->nbufs)
		main_buffer_alloc(E, o);
	str_put(o, "\n#ifdef UIR_TIME");
	write_timing_main(E, o);
	str_put(o, "#else\n");
	str_put(o, "\n/* Sets up the buffers as `uir run` does, runs the kernels on the device, prints every\n"
		   " * buffer. */\n");
	str_put(o, "int main(void)\n{\n");
	if (file)
		str_put(o, "\tchar uir_why[256];\n");
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		const char *n = E->bufs[i].cname;
		str_printf(o, "\t%s *%s = (%s *)uir_buffer(%lld, sizeof *%s, \"", ctype(m->ty), n, ctype(m->ty),
			   (long long)m->size, n);
		str_put_cstring(o, m->name, strlen(m->name));
		str_put(o, "\");\n");
	}
	for (int i = 0; i < p->nbufs; i++)
		main_init_buffer(E, o, p->bufs[i], E->bufs[i].cname);
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		const char *n = E->bufs[i].cname;
		device_buffer(E, o, i);
		str_printf(o, "\tuir_cuda_check(cudaMemcpy(uir_d_%s, %s, sizeof *%s * %lld, cudaMemcpyHostToDevice), "
			      "\"cudaMemcpy\");\n", n, n, n, (long long)m->size);
	}
	str_put(o, "\tkernel(");
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "%suir_d_%s", i ? ", " : "", E->bufs[i].cname);
	str_put(o, ");\n");
	str_put(o, "\tuir_cuda_check(cudaGetLastError(), \"launch\");\n");
	str_put(o, "\tuir_cuda_check(cudaDeviceSynchronize(), \"kernel\");\n");
	if (E->need & NEED_FAULT) {
		str_put(o, "\tint uir_site;\n\tlong long uir_a, uir_b;\n");
		str_put(o, "\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_site, uir_fault_site, sizeof uir_site), \"fault\");\n");
		str_put(o, "\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_a, uir_fault_a, sizeof uir_a), \"fault\");\n");
		str_put(o, "\tuir_cuda_check(cudaMemcpyFromSymbol(&uir_b, uir_fault_b, sizeof uir_b), \"fault\");\n");
		str_put(o, "\tif (uir_site >= 0)\n\t\tuir_report(uir_site, uir_a, uir_b);\n");
	}
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		const char *n = E->bufs[i].cname;
		str_printf(o, "\tuir_cuda_check(cudaMemcpy(%s, uir_d_%s, sizeof *%s * %lld, cudaMemcpyDeviceToHost), "
			      "\"cudaMemcpy\");\n", n, n, n, (long long)m->size);
		str_printf(o, "\tuir_cuda_check(cudaFree(uir_d_%s), \"cudaFree\");\n", n);
	}
	str_put(o, "\tsetvbuf(stdout, NULL, _IOFBF, (size_t)1 << 20);\n");
	for (int i = 0; i < p->nbufs; i++)
		main_print_buffer(E, o, p->bufs[i], E->bufs[i].cname);
	for (int i = 0; i < p->nbufs; i++)
		str_printf(o, "\tfree(%s);\n", E->bufs[i].cname);
	str_put(o, "\treturn fflush(stdout) != 0 || ferror(stdout);\n}\n#endif\n");
}

/* ---- helpers: device, host, or both ---- */

/* Host helpers of one main only, in #ifdef / #ifndef UIR_TIME (COND), so that neither build
 * has a helper it never calls (nvcc warns of those). */
static void write_host_helpers(Str *o, const NameSet *set, NameSet *done, const char *cond)
{
	NameSet left = { 0 };
	for (int i = 0; i < set->n; i++)
		if (!nameset_has(done, set->v[i]))
			nameset_add(&left, set->v[i]);
	if (left.n) {
		str_printf(o, "\n%s\n/* ---- runtime helpers for the host's main%s (runtime/uir_*.h) ---- */\n", cond,
			   strcmp(cond, "#ifdef UIR_TIME") ? "" : " of -DUIR_TIME");
		str_put(o, "#define UIR_FN static inline\n");
		helpers_write(o, &left, done, done);
		str_put(o, "#undef UIR_FN\n#endif\n");
	}
	free(left.v);
}

static void write_helpers(Emitter *E, Str *o)
{
	NameSet dev = { 0 }, print = { 0 }, timing = { 0 }, host = { 0 }, both = { 0 }, common = { 0 }, done = { 0 };
	helpers_closure(&E->helpers, &dev);
	helpers_closure(&E->host_helpers, &print);  /* the main that prints */
	helpers_closure(&E->time_helpers, &timing); /* the timing main of -DUIR_TIME */
	for (int i = 0; i < print.n; i++)
		nameset_add(&host, print.v[i]);
	for (int i = 0; i < timing.n; i++)
		nameset_add(&host, timing.v[i]);
	for (int i = 0; i < dev.n; i++)
		if (nameset_has(&host, dev.v[i]))
			nameset_add(&both, dev.v[i]);
	for (int i = 0; i < print.n; i++)
		if (nameset_has(&timing, print.v[i]) && !nameset_has(&both, print.v[i]))
			nameset_add(&common, print.v[i]);
	if (both.n) {
		str_put(o, "\n/* ---- runtime helpers for device and host code (runtime/uir_*.h) ---- */\n");
		str_put(o, "#define UIR_FN static __host__ __device__ inline\n");
		helpers_write(o, &both, NULL, &done);
		str_put(o, "#undef UIR_FN\n");
	}
	if (dev.n > both.n) {
		str_put(o, "\n/* ---- runtime helpers: the single definitions of runtime/uir_*.h, as device code ---- */\n");
		str_put(o, "#define UIR_FN static __device__ inline\n");
		helpers_write(o, &dev, &done, &done);
		str_put(o, "#undef UIR_FN\n");
	}
	if (common.n) {
		str_put(o, "\n/* ---- runtime helpers for the host's main (runtime/uir_*.h) ---- */\n");
		str_put(o, "#define UIR_FN static inline\n");
		helpers_write(o, &common, &done, &done);
		str_put(o, "#undef UIR_FN\n");
	}
	write_host_helpers(o, &print, &done, "#ifndef UIR_TIME");
	write_host_helpers(o, &timing, &done, "#ifdef UIR_TIME");
	free(dev.v);
	free(print.v);
	free(timing.v);
	free(host.v);
	free(both.v);
	free(common.v);
	free(done.v);
}

int render_cuda(UirProgram *p, const RenderOptions *opt, Str *out, char *why, size_t whylen)
{
	Emitter E;
	CudaState cs = { 0 };
	emit_init(&E, p, true);
	if (!kernel_form(p, why, whylen)) {
		emit_free(&E);
		return UIR_EXIT_NOT_KERNEL;
	}
	E.ctx = &cs;
	E.loop_hook = cuda_loop_hook;

	Str kernels = { 0 };
	int k = 0;
	for (const Stmt *s = p->top; s; s = s->next)
		if (s->kind == ST_LOOP)
			write_kernel_fn(&E, &kernels, s, k++);
	Str host = { 0 };
	write_host_kernel(&E, &host);
	Str mainfn = { 0 };
	if (opt->main)
		write_main(&E, &mainfn);

	str_put(out, "/* ");
	str_put_comment(out, p->path, strlen(p->path)); /* a path may hold * / and newlines */
	str_printf(out, ", rendered by `uir render-cuda%s`: CUDA C++.\n", opt->main ? " --main" : "");
	str_put(out, " * nvcc -fmad=false -prec-div=true -prec-sqrt=true, or the emulator:\n"
		     " * c++ -std=c++17 -O2 -pthread -ffp-contract=off -include runtime/uir_cuda_emu.h -x c++ */\n");
	str_put(out, "#include <stdint.h>\n");
	if (opt->main)
		str_put(out, "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
	str_put(out, "\n#ifndef UIR_LAUNCH\n#define UIR_LAUNCH(name, grid, block, ...) name<<<grid, block>>>(__VA_ARGS__)\n#endif\n");
	write_helpers(&E, out);
	Str sup = { 0 };
	support_write(&E, &sup);
	if (sup.n) {
		str_put(out, "\n/* ---- support: bounds checks, atomics ---- */\n");
		str_put(out, str_cstr(&sup));
	}
	str_free(&sup);
	str_put(out, str_cstr(&kernels));
	str_put(out, str_cstr(&host));
	str_put(out, str_cstr(&mainfn));
	str_free(&kernels);
	str_free(&host);
	str_free(&mainfn);
	emit_free(&E);
	return UIR_EXIT_OK;
}
