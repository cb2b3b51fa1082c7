/* jit.c - the JIT driver, the LLVM back end's entry points (llvm_api.h): build the module
 * of a checked program, optimise it for the host CPU, and either JIT-compile and run it
 * (ORC LLJIT, the entry point called through libffi), print it, or write an object file;
 * and the fault messages of the compiled code (their texts: util/messages.c).
 *
 * Exactness: the module is optimised by the new pass manager's default<O3> pipeline, which
 * never reassociates or contracts float ops that carry no fast-math flags (the lowering
 * sets none). exp2, log2, sin and cos come from runtime/uir_math.h compiled to bitcode at
 * build time (math_bc.c, by clang-19) and linked into each module that uses them; without
 * that bitcode the JIT calls the same functions compiled into this module.
 *
 * Symbols JIT'd code needs: uir_parallel_for and uir_parallel_workers (defined as absolute
 * symbols: this module is loaded RTLD_LOCAL) and libc's calloc/malloc/free/memset (found in
 * the process).
 */
#include "lower.h"
#include "code_cache.h"
#include "../opt/opt.h"
#include "math_bc.h"
#include "uir_parallel.h"
#include "../util/escape.h"
#include "../util/messages.h"
#include <ffi.h>
#include <errno.h>
#include <sys/stat.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(getenv("UIR_TIME_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int internal(const char *what, const char *detail)
{
	fprintf(stderr, "internal error: LLVM back end: %s%s%s (a bug in uir; please report it)\n", what,
		detail ? ": " : "", detail ? detail : "");
	return UIR_EXIT_INTERNAL;
}

static int internal_error(const char *what, LLVMErrorRef err)
{
	char *msg = LLVMGetErrorMessage(err);
	int rc = internal(what, msg);
	LLVMDisposeErrorMessage(msg);
	return rc;
}

static void init_llvm(void)
{
	static bool done;
	if (done)
		return;
	LLVMInitializeNativeTarget();
	LLVMInitializeNativeAsmPrinter();
	done = true;
}

/* ---- fault messages ---- */

void fault_report(UirProgram *p, const Lowered *lw, uint64_t code)
{
	uint32_t hi = (uint32_t)(code >> 32), lo = (uint32_t)code;
	char msg[MSG_MAX];
	if (hi == UIR_CODE_OOM && lo < (uint32_t)(p->nallocs + p->nbufs)) {
		msg_out_of_memory_for(msg, p->path, lo < (uint32_t)p->nallocs ? "alloc" : "the workers' copies of buffer",
				      lo < (uint32_t)p->nallocs ? p->allocs[lo] : p->bufs[lo - p->nallocs]);
		uir_eprintf(p->err, "%s", msg);
		p->nerrors++;
		return;
	}
	if (hi == 0 || hi > (uint32_t)lw->nsites) {
		internal("a bad fault code", NULL);
		p->nerrors++;
		return;
	}
	const FaultSite *s = &lw->sites[hi - 1];
	msg_fault_at(msg, s, (int32_t)lo);
	diag(p, s->loc, "E0601", "%s", msg);
}

/* The message of SITE (or of memory M's out-of-memory when SITE is NULL: an alloc, or the
 * workers' copies of a buffer, lower.c own_copies()) as a printf format taking the first
 * and last offsets as two long longs. Caller frees. */
static char *fault_format(UirProgram *p, const FaultSite *site, const Mem *m)
{
	char msg[MSG_MAX];
	if (!site) {
		msg_out_of_memory_for(msg, diag_shown(&p->arena, p->path), m->is_alloc ? "alloc" : "the workers' copies of buffer", m);
		return msg_printf_format(msg, "%lld", "%lld");
	}
	msg_fault(msg, site, MSG_A, MSG_B);
	char *text = diag_text(p, site->loc, "E0601", msg);
	char *fmt = msg_printf_format(text, "%lld", "%lld");
	free(text);
	return fmt;
}

/* ---- target ---- */

/* A target machine for the host (CPU NULL) or for CPU. NULL after a message. */
static LLVMTargetMachineRef make_tm(const char *cpu, bool jit)
{
	char *triple = LLVMGetDefaultTargetTriple();
	char *err = NULL;
	LLVMTargetRef target;
	if (LLVMGetTargetFromTriple(triple, &target, &err)) {
		internal("no target for this host", err);
		LLVMDisposeMessage(err);
		LLVMDisposeMessage(triple);
		return NULL;
	}
	char *host_cpu = NULL, *host_features = NULL;
	if (!cpu) {
		host_cpu = LLVMGetHostCPUName();
		host_features = LLVMGetHostCPUFeatures();
	}
	/* no gather instructions: a gather of 8 lanes ran a jammed mat-vec 3 times slower than
	 * 8 scalar loads on an AMD Zen 5 (docs/llvm.md, "Optimisation and code generation") */
	const char *base = host_features ? host_features : "";
	char *features = xmalloc(strlen(base) + 32);
	snprintf(features, strlen(base) + 32, "%s%s+prefer-no-gather", base, *base ? "," : "");
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu ? cpu : host_cpu, features,
							  LLVMCodeGenLevelAggressive, jit ? LLVMRelocDefault : LLVMRelocPIC,
							  jit ? LLVMCodeModelJITDefault : LLVMCodeModelDefault);
	LLVMDisposeMessage(triple);
	if (host_cpu)
		LLVMDisposeMessage(host_cpu);
	if (host_features)
		LLVMDisposeMessage(host_features);
	free(features);
	if (!tm)
		internal("cannot create a target machine", NULL);
	return tm;
}

/* Gives every function of M the CPU and features of TM (the math bitcode was compiled
 * for generic x86-64, or generic nvptx64), so that passes and code generation see the
 * real target. */
void set_target_attrs(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	LLVMContextRef cx = LLVMGetModuleContext(m);
	char *cpu = LLVMGetTargetMachineCPU(tm), *features = LLVMGetTargetMachineFeatureString(tm);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		unsigned at = LLVMAttributeFunctionIndex;
		LLVMRemoveStringAttributeAtIndex(f, at, "target-cpu", 10);
		LLVMRemoveStringAttributeAtIndex(f, at, "target-features", 15);
		LLVMRemoveStringAttributeAtIndex(f, at, "tune-cpu", 8);
		LLVMAddAttributeAtIndex(f, at, LLVMCreateStringAttribute(cx, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
		if (*features)
			LLVMAddAttributeAtIndex(f, at, LLVMCreateStringAttribute(cx, "target-features", 15, features,
										 (unsigned)strlen(features)));
	}
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(features);
}

bool link_bitcode(LLVMModuleRef m, const unsigned char *bc, size_t len, const char *what)
{
	LLVMContextRef cx = LLVMGetModuleContext(m);
	LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)bc, len, what, 0);
	LLVMModuleRef math;
	char msg[160];
	if (LLVMParseBitcodeInContext2(cx, buf, &math)) {
		LLVMDisposeMemoryBuffer(buf);
		snprintf(msg, sizeof msg, "cannot read %s", what);
		internal(msg, NULL);
		return false;
	}
	LLVMDisposeMemoryBuffer(buf);
	LLVMSetTarget(math, LLVMGetTarget(m));
	LLVMSetDataLayout(math, LLVMGetDataLayoutStr(m));
	if (LLVMLinkModules2(m, math)) {
		snprintf(msg, sizeof msg, "cannot link %s", what);
		internal(msg, NULL);
		return false;
	}
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (!LLVMIsDeclaration(f) && n > 8 && (!strncmp(name, "uir_jit_", 8) || !strncmp(name, "uir_ptx_", 8)))
			LLVMSetLinkage(f, LLVMInternalLinkage);
	}
	return true;
}

/* Links the math bitcode into M (see link_bitcode). False after a message. */
static bool link_math(LLVMModuleRef m)
{
	if (!uir_math_bc_len)
		return true; /* the JIT resolves the math symbols from this module instead */
	return link_bitcode(m, uir_math_bc, uir_math_bc_len, "the math bitcode");
}

/* ---- building ---- */

typedef struct Build {
	Lowered lw;
	LLVMTargetMachineRef tm;
} Build;

/* A global constant string in M; returns its address. */
static LLVMValueRef global_string(LLVMModuleRef m, const char *s, const char *name)
{
	LLVMContextRef cx = LLVMGetModuleContext(m);
	LLVMValueRef init = LLVMConstStringInContext2(cx, s, strlen(s), 0);
	LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), name);
	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	return g;
}

/* A private constant array of pointers (or i64 when I64 is set) in M. */
static LLVMValueRef global_table(LLVMModuleRef m, LLVMTypeRef t, LLVMValueRef *v, int n, const char *name)
{
	LLVMValueRef init = LLVMConstArray2(t, v, (uint64_t)n);
	LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), name);
	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	return g;
}

/* For objects: renames the kernel uir_kernel_impl (internal) and adds
 *     int kernel(T *b0, ...)
 * which calls it and, on a fault, prints the E0601 diagnostic (or the out-of-memory
 * error) on file descriptor 2 with dprintf and returns 1; else returns 0. */
static void add_aot_wrapper(UirProgram *p, Lowered *lw)
{
	LLVMModuleRef m = lw->mod;
	LLVMContextRef cx = LLVMGetModuleContext(m);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(cx), i64 = LLVMInt64TypeInContext(cx);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(cx, 0);
	LLVMValueRef impl = lw->kernel;
	LLVMSetValueName2(impl, "uir_kernel_impl", 15);
	LLVMSetLinkage(impl, LLVMInternalLinkage);
	int nb = p->nbufs;
	LLVMTypeRef *pt = xmalloc((size_t)nb * sizeof *pt + 1);
	for (int k = 0; k < nb; k++)
		pt[k] = ptr;
	LLVMValueRef fn = LLVMAddFunction(m, "kernel", LLVMFunctionType(i32, pt, (unsigned)nb, 0));
	free(pt);
	LLVMValueRef *args = xmalloc((size_t)nb * sizeof *args + 1);
	for (int k = 0; k < nb; k++) {
		args[k] = LLVMGetParam(fn, (unsigned)k);
		LLVMSetValueName2(args[k], p->bufs[k]->name, strlen(p->bufs[k]->name));
		LLVMAddAttributeAtIndex(fn, (unsigned)k + 1, LLVMCreateEnumAttribute(cx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
	}
	LLVMBuilderRef b = LLVMCreateBuilderInContext(cx);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cx, fn, "entry");
	LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cx, fn, "ok");
	LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(cx, fn, "fault");
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef code = LLVMBuildCall2(b, LLVMGlobalGetValueType(impl), impl, args, (unsigned)nb, "code");
	free(args);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, code, LLVMConstInt(i64, 0, 0), ""), bad, ok);
	LLVMPositionBuilderAtEnd(b, ok);
	LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));

	/* the fault: a format per site and per alloc, indexed by the code */
	LLVMPositionBuilderAtEnd(b, bad);
	LLVMTypeRef dpt[2] = { i32, ptr };
	LLVMTypeRef dty = LLVMFunctionType(i32, dpt, 2, 1);
	LLVMValueRef dprintf_fn = LLVMAddFunction(m, "dprintf", dty);
	LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, code, LLVMConstInt(i64, 32, 0), ""), i32, "site");
	LLVMValueRef lo = LLVMBuildTrunc(b, code, i32, "");
	LLVMValueRef off = LLVMBuildSExt(b, lo, i64, "off");
	int nt = lw->nsites + p->nallocs + p->nbufs;
	/* the second number printed is BASE + COEF * ((off - Q) / D): the last element of an
	 * access (width - 1 + off), or a loop's largest offset (base + coef * ((n - 1) / d)) */
	LLVMValueRef *fmts = xmalloc((size_t)nt * sizeof *fmts + 1);
	LLVMValueRef *sec[4];
	for (int t = 0; t < 4; t++)
		sec[t] = xmalloc((size_t)nt * sizeof *sec[t] + 1);
	for (int k = 0; k < nt; k++) {
		const FaultSite *fs = k < lw->nsites ? &lw->sites[k] : NULL;
		int mk = k - lw->nsites; /* out of memory: allocs, then buffers */
		char *f = fs ? fault_format(p, fs, NULL)
			     : fault_format(p, NULL, mk < p->nallocs ? p->allocs[mk] : p->bufs[mk - p->nallocs]);
		fmts[k] = global_string(m, f ? f : "uir: a fault\n", "uir.msg");
		free(f);
		int64_t v[4] = { fs ? fs->width - 1 : 0, 1, 0, 1 }; /* base, coef, q, d */
		if (fs && fs->ovf) {
			v[0] = fs->ovf->base;
			v[1] = fs->ovf->coef;
			v[2] = 1;
			v[3] = fs->ovf->d;
		}
		for (int t = 0; t < 4; t++)
			sec[t][k] = LLVMConstInt(i64, (unsigned long long)v[t], 1);
	}
	/* index: site - 1 for faults, nsites + alloc (or + nallocs + buffer) for out of memory */
	LLVMValueRef isoom = LLVMBuildICmp(b, LLVMIntEQ, hi, LLVMConstInt(i32, UIR_CODE_OOM, 0), "");
	LLVMValueRef idx = LLVMBuildSelect(b, isoom, LLVMBuildAdd(b, lo, LLVMConstInt(i32, (unsigned long long)lw->nsites, 0), ""),
					   LLVMBuildSub(b, hi, LLVMConstInt(i32, 1, 0), ""), "");
	LLVMValueRef i64idx = LLVMBuildZExt(b, idx, i64, "");
	if (nt > 0) {
		LLVMValueRef ft = global_table(m, ptr, fmts, nt, "uir.msgs");
		LLVMValueRef gi[2] = { LLVMConstInt(i64, 0, 0), i64idx };
		LLVMValueRef fmt = LLVMBuildLoad2(b, ptr, LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(ft), ft, gi, 2, ""), "fmt");
		LLVMValueRef v[4];
		for (int t = 0; t < 4; t++) {
			LLVMValueRef tab = global_table(m, i64, sec[t], nt, "uir.second");
			v[t] = LLVMBuildLoad2(b, i64, LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(tab), tab, gi, 2, ""), "");
		}
		LLVMValueRef q = LLVMBuildSDiv(b, LLVMBuildSub(b, off, v[2], ""), v[3], "");
		LLVMValueRef second = LLVMBuildAdd(b, v[0], LLVMBuildMul(b, v[1], q, ""), "");
		LLVMValueRef dargs[4] = { LLVMConstInt(i32, 2, 0), fmt, off, second };
		LLVMBuildCall2(b, dty, dprintf_fn, dargs, 4, "");
	}
	LLVMBuildRet(b, LLVMConstInt(i32, 1, 0));
	free(fmts);
	for (int t = 0; t < 4; t++)
		free(sec[t]);
	LLVMDisposeBuilder(b);
	lw->kernel = fn;
}

/* Lowers P into CX and prepares the module for TM: target, data layout, math, CPU
 * attributes, the object wrapper (AOT), verification, then the pass pipeline when
 * o->opt_level > 0. Returns 0 or an exit status after a message. */
static int build(UirProgram *p, LLVMContextRef cx, const RunOptions *o, LLVMTargetMachineRef tm, bool aot,
		 Lowered *lw, UirJitTimes *t, char **cache_path, LLVMMemoryBufferRef *cached)
{
	double t0 = now_ms();
	if (!lower_program(p, cx, tm, o, lw))
		return internal("lowering failed", NULL);
	LLVMModuleRef m = lw->mod;
	if (aot)
		add_aot_wrapper(p, lw);
	else
		LLVMSetValueName2(lw->kernel, "kernel", 6);
	char *msg = NULL;
	if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
		int rc = internal("the lowered module is invalid", msg);
		LLVMDisposeMessage(msg);
		return rc;
	}
	LLVMDisposeMessage(msg);
	if (cache_path && (*cache_path = code_cache_path(m, tm)) != NULL &&
	    (*cached = code_cache_load(*cache_path)) != NULL) {
		if (t)
			t->lower_ms += now_ms() - t0;
		return 0; /* compiled before: no passes, no code generation */
	}
	if (lw->uses_math && (o->opt_level > 0 || aot) && !link_math(m))
		return UIR_EXIT_INTERNAL;
	if (aot && lw->uses_math && !uir_math_bc_len) {
		fprintf(stderr, "uir compile: this build has no math bitcode (clang-19 was missing), so a program "
				"using exp2, log2, sin or cos cannot be compiled to an object\n");
		return UIR_EXIT_USAGE;
	}
	set_target_attrs(m, tm);
	double t1 = now_ms();
	if (t)
		t->lower_ms += t1 - t0;
	if (o->opt_level > 0) {
		LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
		LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
		LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
		LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
		LLVMPassBuilderOptionsSetLoopInterleaving(po, 1);
		LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, po);
		LLVMDisposePassBuilderOptions(po);
		if (err)
			return internal_error("the pass pipeline failed", err);
	}
	if (t)
		t->opt_ms += now_ms() - t1;
	return 0;
}

static void lowered_free(Lowered *lw)
{
	free(lw->sites);
	lw->sites = NULL;
}

/* ---- JIT ---- */

/* The program the JIT runs for P: the loop optimiser's rewrite of it (opt_rewrite()), or
 * NULL for P itself (also with --no-opt or at -O0). */
static UirProgram *rewritten(UirProgram *p, const RunOptions *o, UirJitTimes *t)
{
	if (o->opt_level <= 0 || o->no_opt)
		return NULL;
	double t0 = now_ms();
	p->opt_no_cache = !code_cache_on(o); /* the answer cache is off with the code cache */
	p->opt_threads = o->threads;
	UirProgram *q = opt_rewrite(p, false);
	if (t)
		t->loopopt_ms += now_ms() - t0;
	return q;
}

/* Ends the use of Q, P's rewrite (or NULL): its errors count as P's. */
static void rewritten_done(UirProgram *p, UirProgram *q)
{
	if (!q)
		return;
	p->nerrors += q->nerrors;
	if (!p->first_code[0]) {
		memcpy(p->first_code, q->first_code, sizeof p->first_code);
		p->first_loc = q->first_loc;
		memcpy(p->first_msg, q->first_msg, sizeof p->first_msg);
	}
	uir_free(q);
}

/* Defines the runtime symbols JIT'd code calls in JD, and lets the rest (libc) resolve in
 * the process. */
static LLVMErrorRef add_symbols(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd)
{
	LLVMOrcDefinitionGeneratorRef gen;
	LLVMErrorRef err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
	if (err)
		return err;
	LLVMOrcJITDylibAddGenerator(jd, gen);
	typedef void (*AnyFn)(void);
	static const struct { const char *name; AnyFn fn; } syms[] = {
		{ "uir_parallel_for", (AnyFn)uir_parallel_for },
		{ "uir_parallel_for_chunks", (AnyFn)uir_parallel_for_chunks },
		{ "uir_parallel_workers", (AnyFn)uir_parallel_workers },
		{ "uir_jit_exp2_f32", (AnyFn)uir_jit_exp2_f32 },
		{ "uir_jit_exp2_f64", (AnyFn)uir_jit_exp2_f64 },
		{ "uir_jit_log2_f32", (AnyFn)uir_jit_log2_f32 },
		{ "uir_jit_log2_f64", (AnyFn)uir_jit_log2_f64 },
		{ "uir_jit_sin_f32", (AnyFn)uir_jit_sin_f32 },
		{ "uir_jit_sin_f64", (AnyFn)uir_jit_sin_f64 },
		{ "uir_jit_cos_f32", (AnyFn)uir_jit_cos_f32 },
		{ "uir_jit_cos_f64", (AnyFn)uir_jit_cos_f64 },
	};
	enum { N = sizeof syms / sizeof syms[0] };
	LLVMOrcCSymbolMapPair pairs[N];
	for (int i = 0; i < N; i++) {
		pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, syms[i].name);
		uintptr_t addr;
		memcpy(&addr, &syms[i].fn, sizeof addr);
		pairs[i].Sym.Address = (LLVMOrcExecutorAddress)addr;
		pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
		pairs[i].Sym.Flags.TargetFlags = 0;
	}
	return LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, N));
}

/* Calls the kernel at ADDR with the buffers through libffi; returns its fault code. */
static uint64_t call_kernel(uint64_t addr, int nbufs, void **bufs)
{
	ffi_type **types = xmalloc((size_t)nbufs * sizeof *types + 1);
	void **args = xmalloc((size_t)nbufs * sizeof *args + 1);
	for (int i = 0; i < nbufs; i++) {
		types[i] = &ffi_type_pointer;
		args[i] = &bufs[i];
	}
	ffi_cif cif;
	uint64_t rc = 0;
	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)nbufs, &ffi_type_uint64, types) != FFI_OK)
		uir_internal_error(__FILE__, __LINE__, "ffi_prep_cif failed");
	void (*fn)(void);
	memcpy(&fn, &(uintptr_t){ (uintptr_t)addr }, sizeof fn);
	ffi_call(&cif, fn, &rc, args);
	free(types);
	free(args);
	return rc;
}

static int jit_run(UirProgram *p, void **bufs, const RunOptions *o, UirJitTimes *t)
{
	init_llvm();
	/* one target machine for the passes and for code generation: its subtarget (costly to
	 * set up) is made once; the object is then linked in by the JIT */
	LLVMTargetMachineRef tm = make_tm(NULL, false);
	if (!tm)
		return UIR_EXIT_INTERNAL;
	LLVMContextRef cx = LLVMContextCreate();
	Lowered lw;
	UirProgram *q = rewritten(p, o, t);
	UirProgram *orig = p;
	if (q)
		p = q;
	char *cache_path = NULL;
	LLVMMemoryBufferRef obj = NULL;
	bool cache = code_cache_on(o);
	int rc = build(p, cx, o, tm, false, &lw, t, cache ? &cache_path : NULL, &obj);
	if (t)
		t->cache = !cache ? UIR_CACHE_OFF : obj ? UIR_CACHE_HIT : UIR_CACHE_MISS;
	double t0 = now_ms();
	char *msg = NULL;
	if (!rc && !obj) {
		if (LLVMTargetMachineEmitToMemoryBuffer(tm, lw.mod, LLVMObjectFile, &msg, &obj)) {
			rc = internal("cannot generate code", msg);
			LLVMDisposeMessage(msg);
		} else if (cache_path) {
			code_cache_store(cache_path, obj);
		}
	}
	free(cache_path);
	LLVMDisposeTargetMachine(tm);
	LLVMContextDispose(cx);
	if (rc) {
		lowered_free(&lw);
		rewritten_done(orig, q);
		return rc;
	}
	LLVMOrcLLJITRef jit;
	LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, NULL);
	if (err)
		return internal_error("cannot create the JIT", err);
	LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
	if ((err = add_symbols(jit, jd)))
		return internal_error("cannot define the runtime symbols", err);
	if ((err = LLVMOrcLLJITAddObjectFile(jit, jd, obj)))
		return internal_error("cannot add the object", err);
	LLVMOrcExecutorAddress addr = 0;
	if ((err = LLVMOrcLLJITLookup(jit, &addr, "kernel")))
		return internal_error("cannot link the kernel", err);
	double t1 = now_ms();
	if (t)
		t->jit_ms += t1 - t0;
	uir_parallel_set_threads(o->threads);
	uint64_t code = 0;
	rc = 0;
	int repeat = o->repeat > 1 ? o->repeat : 1;
	for (int r = 0; r < repeat && !code && !rc; r++) {
		if (r > 0 && o->reset && o->reset(o->reset_ctx) != 0) {
			rc = UIR_EXIT_ERROR;
			break;
		}
		double t2 = now_ms();
		code = call_kernel(addr, p->nbufs, bufs);
		double t3 = now_ms();
		if (t) {
			t->exec_ms += t3 - t2;
			if (t->exec_runs)
				t->exec_runs[r] = t3 - t2;
		}
	}
	if (code) {
		fault_report(p, &lw, code);
		rc = UIR_EXIT_ERROR;
	}
	lowered_free(&lw);
	uir_parallel_shutdown();
	rewritten_done(orig, q);
	if ((err = LLVMOrcDisposeLLJIT(jit)))
		return internal_error("cannot dispose of the JIT", err);
	return rc;
}

/* ---- printing and objects ---- */

static int print_ir(UirProgram *p, const RunOptions *o, FILE *out)
{
	init_llvm();
	LLVMTargetMachineRef tm = make_tm(o->cpu, false);
	if (!tm)
		return UIR_EXIT_INTERNAL;
	LLVMContextRef cx = LLVMContextCreate();
	Lowered lw;
	UirProgram *q = rewritten(p, o, NULL);
	int rc = build(q ? q : p, cx, o, tm, false, &lw, NULL, NULL, NULL);
	if (!rc) {
		char *s = LLVMPrintModuleToString(lw.mod);
		fputs(s, out);
		LLVMDisposeMessage(s);
	}
	if (lw.mod)
		LLVMDisposeModule(lw.mod);
	lowered_free(&lw);
	LLVMContextDispose(cx);
	LLVMDisposeTargetMachine(tm);
	rewritten_done(p, q);
	return rc;
}

static int emit(UirProgram *p, const RunOptions *o, UirEmitKind kind, const char *path)
{
	init_llvm();
	LLVMTargetMachineRef tm = make_tm(o->cpu, false);
	if (!tm)
		return UIR_EXIT_INTERNAL;
	LLVMContextRef cx = LLVMContextCreate();
	Lowered lw;
	int rc = build(p, cx, o, tm, true, &lw, NULL, NULL, NULL);
	if (!rc) {
		/* made in memory and written here: LLVM's own file streams end the process with
		 * "LLVM ERROR: IO failure" when a write fails (-o /dev/full) */
		char *llvm_err = NULL, *ir = NULL;
		const char *why = NULL;
		LLVMMemoryBufferRef obj = NULL;
		if (kind == UIR_EMIT_IR)
			ir = LLVMPrintModuleToString(lw.mod);
		else if (LLVMTargetMachineEmitToMemoryBuffer(tm, lw.mod, kind == UIR_EMIT_ASM ? LLVMAssemblyFile
											 : LLVMObjectFile, &llvm_err, &obj))
			why = llvm_err ? llvm_err : "unknown error";
		if (!why) {
			const char *data = ir ? ir : LLVMGetBufferStart(obj);
			size_t n = ir ? strlen(ir) : LLVMGetBufferSize(obj);
			FILE *f = fopen(path, "wb");
			bool ok = f && fwrite(data, 1, n, f) == n;
			ok = f && fclose(f) == 0 && ok;
			struct stat st;
			if (!ok) {
				why = strerror(errno);
				if (f && stat(path, &st) == 0 && S_ISREG(st.st_mode))
					remove(path); /* no partial output (never a device such as /dev/full) */
			}
		}
		if (why) {
			uir_eprintf(stderr, "uir compile: cannot write %s: %s\n", path, why);
			rc = UIR_EXIT_ERROR;
		}
		if (obj)
			LLVMDisposeMemoryBuffer(obj);
		if (ir)
			LLVMDisposeMessage(ir);
		if (llvm_err)
			LLVMDisposeMessage(llvm_err);
	}
	if (lw.mod)
		LLVMDisposeModule(lw.mod);
	lowered_free(&lw);
	LLVMContextDispose(cx);
	LLVMDisposeTargetMachine(tm);
	return rc;
}

int ptx_generate(UirProgram *p, const UirPtxOptions *o, char **text); /* ptx.c */
int ptx_fault(UirProgram *p, const UirPtxOptions *o, uint64_t code);   /* ptx.c */

static const UirLlvmApi api = {
	UIR_LLVM_API_VERSION,
	jit_run,
	print_ir,
	emit,
	ptx_generate,
	ptx_fault,
};

__attribute__((visibility("default"))) const UirLlvmApi *uir_llvm_api(void);

const UirLlvmApi *uir_llvm_api(void)
{
	return &api;
}
