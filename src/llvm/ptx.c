/* ptx.c - `uir ptx`: a program in kernel form (docs/language.md 8.2) through LLVM's NVPTX back end.
 *
 * Each top-level `global` loop becomes a kernel `uir_kN` for nvptx64-nvidia-cuda (marked
 * by `nvvm.annotations`, with maxntidx its block size), taking the buffers it uses in
 * declaration order, exactly like render-cuda's `uir_kN`. The statements are lowered by
 * the CPU back end's own code (lower.c, lower_ops.c: every op's exact meaning) with the
 * GPU hooks below: the block index is `llvm.nvvm.read.ptx.sreg.ctaid.x`, a `local` loop
 * (phase) is one iteration per thread at `tid.x` followed by `llvm.nvvm.barrier0`, with one
 * more barrier before a phase that does not directly follow another or the kernel's start
 * (phase_follows_barrier, the rule of render-cuda). Shared allocs are addrspace(3) globals
 * zeroed by the threads and followed by a barrier; an alloc used only as acc[t]
 * (kernel_slot_alloc) is one register per thread instead. Atomics are atomicrmw (byte
 * atomics: word cmpxchg loops, the shared array padded to whole words; float min/max:
 * cmpxchg loops on the bits, lower.c). A failed bounds
 * check records its fault code in the global `uir_fault` (the first one wins) and goes on
 * at offset 0, as render-cuda's kernels do.
 *
 * Exactness (the same bits as `run`): no FMA contraction (-nvptx-fma-level=0, and `.rn` on
 * every float add, sub and mul, which ptxas never fuses: checked after code generation
 * and added where missing), IEEE division and square root (-nvptx-prec-divf32=2,
 * -nvptx-prec-sqrtf32=1: div.rn, sqrt.rn), float remainder by an exact helper (NVPTX's
 * frem is not exact), exp2/log2/sin/cos from runtime/uir_math.h compiled for nvptx64 at
 * build time (ptx_math.c, embedded as uir_ptx_math_bc).
 *
 * Grids and blocks of 2 or 3 dimensions (nested global or local loops, docs/language.md 6.5):
 * each loop of a nest reads its own `ctaid.y`, `tid.y` ...; such a kernel is annotated
 * with its block as reqntidx/y/z (`.reqntid x, y, z`) instead of maxntidx, and its shared
 * memory is zeroed over the flat thread number.
 */
#include "lower_int.h"
#include "ptx_math_bc.h"
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

#define PTX_TRIPLE "nvptx64-nvidia-cuda"

/* The processors LLVM 19's NVPTX back end knows. */
static const char *const ptx_archs[] = {
	"sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61",
	"sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a",
};

bool ptx_arch_known(const char *arch);
bool ptx_arch_known(const char *arch)
{
	for (size_t i = 0; i < sizeof ptx_archs / sizeof ptx_archs[0]; i++)
		if (!strcmp(arch, ptx_archs[i]))
			return true;
	return false;
}

/* Kernel parameter space: every buffer a kernel uses is one 8-byte pointer parameter.
 * ptxas takes at most 4352 bytes of them at PTX ISA versions before 8.1 (LLVM 19 writes
 * 7.8 for sm_90), and 32764 bytes at 8.1 and later on sm_70 and later: so a kernel of 545
 * to 4095 buffers gets `.version 8.1` (which needs a CUDA 12.1 driver to load), and one of
 * more (or of more than 544 below sm_70) is refused, as a program not in kernel form is. */
enum { PTX_PARAMS_OLD = 4352, PTX_PARAMS_81 = 32764, PTX_PARAM_BYTES = 8 };

/* The global loop of P whose kernel takes the most buffers, and how many. */
static const Stmt *widest_kernel(const UirProgram *p, int *nbufs)
{
	const Stmt *w = NULL;
	*nbufs = 0;
	for (const Stmt *s = p->top; s; s = s->next) {
		if (s->kind != ST_LOOP)
			continue;
		int n = 0;
		for (int i = 0; i < p->nbufs; i++)
			n += loop_uses(p, s, p->bufs[i]) != 0;
		if (!w || n > *nbufs) {
			w = s;
			*nbufs = n;
		}
	}
	return w;
}

/* The target features ARCH needs for P's kernel parameters ("" or "+ptx81"), or NULL
 * after printing `invalid: REASON` when no PTX version takes them. */
static const char *param_features(const UirProgram *p, const char *arch)
{
	int n;
	const Stmt *s = widest_kernel(p, &n);
	long bytes = (long)n * PTX_PARAM_BYTES;
	if (bytes <= PTX_PARAMS_OLD)
		return "";
	bool volta = atoi(arch + 3) >= 70;
	if (volta && bytes <= PTX_PARAMS_81)
		return "+ptx81";
	if (volta)
		fprintf(stderr, "invalid: line %d: global loop '%s' uses %d buffers, %ld bytes of kernel parameters; a PTX "
			"kernel takes at most %d (%d buffers)\n", s->loc.line, s->sym->name, n, bytes, PTX_PARAMS_81,
			PTX_PARAMS_81 / PTX_PARAM_BYTES);
	else
		fprintf(stderr, "invalid: line %d: global loop '%s' uses %d buffers, %ld bytes of kernel parameters; a PTX "
			"kernel for %s takes at most %d (%d buffers; %d from sm_70 on)\n", s->loc.line, s->sym->name, n,
			bytes, arch, PTX_PARAMS_OLD, PTX_PARAMS_OLD / PTX_PARAM_BYTES, PTX_PARAMS_81 / PTX_PARAM_BYTES);
	return NULL;
}

static int internal(const char *what, const char *detail)
{
	fprintf(stderr, "internal error: NVPTX back end: %s%s%s (a bug in uir; please report it)\n", what,
		detail ? ": " : "", detail ? detail : "");
	return UIR_EXIT_INTERNAL;
}

/* The lowering state of one kernel: the hooks first, so that l->gpu points at it. */
typedef struct PtxState {
	GpuHooks hooks;
	const Stmt *kernel;
	LLVMValueRef tid;   /* the flat thread number: tid.x in a block of one dimension */
	LLVMValueRef tids[3]; /* tid.x, tid.y, tid.z */
	LLVMValueRef fault; /* @uir_fault */
} PtxState;

static LLVMValueRef sreg(L *l, const char *name)
{
	return call_intrinsic(l, name, NULL, 0, NULL, 0);
}

/* ctaid.x, .y or .z: the index of a loop of the grid's nest. */
static LLVMValueRef ptx_block_index(L *l, int dim)
{
	static const char *const names[] = { "llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
					      "llvm.nvvm.read.ptx.sreg.ctaid.z" };
	return sreg(l, names[dim]);
}

static void barrier(L *l)
{
	call_intrinsic(l, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
}

/* A `local` loop: this thread's one iteration, with the barriers of render-cuda
 * (docs/language.md 8.3.4): one after it, and one before it unless it directly follows another
 * phase or the kernel's start. */
static void ptx_phase(L *l, const Stmt *s)
{
	PtxState *ps = (PtxState *)l->gpu;
	if (s->nest && s->nest != s) { /* an inner loop of the phase's nest */
		l->val[s->sym->slot] = ps->tids[s->dim];
		lower_block(l, s->body);
		return;
	}
	if (!phase_follows_barrier(s, ps->kernel))
		barrier(l);
	l->val[s->sym->slot] = ps->tids[s->ndims > 1 ? s->dim : 0];
	lower_block(l, s->body);
	barrier(l);
}

/* When FAIL: uir_fault = CODE unless a fault is recorded already. */
static void ptx_record_fault(L *l, LLVMValueRef fail, LLVMValueRef code)
{
	PtxState *ps = (PtxState *)l->gpu;
	LLVMBasicBlockRef rec = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "fault");
	LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, "go");
	LLVMBuildCondBr(l->b, fail, rec, go);
	LLVMPositionBuilderAtEnd(l->b, rec);
	LLVMBuildAtomicCmpXchg(l->b, ps->fault, LLVMConstInt(l->t_i64, 0, 0), code, LLVMAtomicOrderingMonotonic,
			       LLVMAtomicOrderingMonotonic, 0);
	LLVMBuildBr(l->b, go);
	LLVMPositionBuilderAtEnd(l->b, go);
}

static void annotate(L *l, LLVMValueRef fn, const char *what, int64_t v)
{
	LLVMMetadataRef md[3] = {
		LLVMValueAsMetadata(fn),
		LLVMMDStringInContext2(l->cx, what, strlen(what)),
		LLVMValueAsMetadata(LLVMConstInt(l->t_i32, (unsigned long long)v, 0)),
	};
	LLVMAddNamedMetadataOperand(l->mod, "nvvm.annotations", LLVMMetadataAsValue(l->cx, LLVMMDNodeInContext2(l->cx, md, 3)));
}

/* Zeroes the shared array at PTR of N elements of type T: thread tid does tid, tid +
 * BLOCK, ... */
static void zero_shared(L *l, PtxState *ps, LLVMValueRef ptr, LLVMTypeRef t, int64_t n, int64_t block, const char *name)
{
	LLVMValueRef nn = LLVMConstInt(l->t_i32, (unsigned long long)n, 0);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(l->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, fmt_str(&l->p->arena, "%s.zero", name));
	LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(l->cx, l->fn->fn, fmt_str(&l->p->arena, "%s.zeroed", name));
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, ps->tid, nn, ""), loop, after);
	LLVMPositionBuilderAtEnd(l->b, loop);
	LLVMValueRef i = LLVMBuildPhi(l->b, l->t_i32, "i");
	LLVMValueRef idx = LLVMBuildZExt(l->b, i, l->t_i64, "");
	LLVMValueRef at = LLVMBuildInBoundsGEP2(l->b, t, ptr, &idx, 1, "");
	LLVMBuildStore(l->b, LLVMConstNull(t), at);
	LLVMValueRef next = LLVMBuildAdd(l->b, i, LLVMConstInt(l->t_i32, (unsigned long long)block, 0), "");
	LLVMSetNUW(next, 1);
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, next, nn, ""), loop, after);
	LLVMValueRef in[2] = { ps->tid, next };
	LLVMBasicBlockRef from[2] = { pre, loop };
	LLVMAddIncoming(i, in, from, 2);
	LLVMPositionBuilderAtEnd(l->b, after);
}

/* The kernel uir_kK of the global loop S. */
static void build_kernel(L *l, PtxState *ps, const Stmt *s, int k)
{
	UirProgram *p = l->p;
	int nb = 0;
	int *bufs = xmalloc((size_t)p->nbufs * sizeof *bufs + 1);
	for (int i = 0; i < p->nbufs; i++)
		if (loop_uses(p, s, p->bufs[i]))
			bufs[nb++] = i;
	LLVMTypeRef *pt = xmalloc((size_t)nb * sizeof *pt + 1);
	for (int i = 0; i < nb; i++)
		pt[i] = l->t_ptr;
	const char *name = fmt_str(&p->arena, "uir_k%d", k);
	LLVMValueRef fn = LLVMAddFunction(l->mod, name, LLVMFunctionType(l->t_void, pt, (unsigned)nb, 0));
	free(pt);
	memset(l->memptr, 0, (size_t)(p->nbufs + p->nallocs) * sizeof *l->memptr);
	for (int i = 0; i < nb; i++) {
		const Mem *m = p->bufs[bufs[i]];
		LLVMValueRef prm = LLVMGetParam(fn, (unsigned)i);
		LLVMSetValueName2(prm, m->name, strlen(m->name));
		l->memptr[bufs[i]] = prm;
		if (!(loop_uses(p, s, m) & (CAP_STORE | CAP_ATOMIC))) {
			/* read-only for the whole launch: nothing can alias a write to it */
			const char *attrs[] = { "noalias", "readonly", "nocapture" };
			for (int a = 0; a < 3; a++)
				LLVMAddAttributeAtIndex(fn, (unsigned)i + 1,
							LLVMCreateEnumAttribute(l->cx, LLVMGetEnumAttributeKindForName(attrs[a], strlen(attrs[a])), 0));
		}
	}
	free(bufs);
	int64_t block = kernel_block_size(s), bd[3];
	int nbd;
	kernel_block(s, bd, &nbd);
	annotate(l, fn, "kernel", 1);
	if (kernel_multi_dim(s)) { /* .reqntid x, y, z */
		annotate(l, fn, "reqntidx", bd[0]);
		annotate(l, fn, "reqntidy", bd[1]);
		annotate(l, fn, "reqntidz", bd[2]);
	} else {
		annotate(l, fn, "maxntidx", block);
	}

	ps->kernel = s;
	Fn f;
	fn_begin(l, &f, fn, s);
	LLVMValueRef g = ptx_block_index(l, s->ndims > 1 ? s->dim : 0);
	name_value(g, s->sym->name);
	l->val[s->sym->slot] = g;
	ps->tids[0] = sreg(l, "llvm.nvvm.read.ptx.sreg.tid.x");
	name_value(ps->tids[0], "tid.x");
	ps->tid = ps->tids[0];
	ps->tids[1] = ps->tids[2] = NULL;
	if (nbd > 1) {
		ps->tids[1] = sreg(l, "llvm.nvvm.read.ptx.sreg.tid.y");
		name_value(ps->tids[1], "tid.y");
		ps->tids[2] = sreg(l, "llvm.nvvm.read.ptx.sreg.tid.z");
		name_value(ps->tids[2], "tid.z");
		/* the flat thread number, x fastest: (z * BY + y) * BX + x */
		LLVMValueRef zy = LLVMBuildAdd(l->b, LLVMBuildMul(l->b, ps->tids[2], LLVMConstInt(l->t_i32, (unsigned long long)bd[1], 0), ""),
					       ps->tids[1], "");
		ps->tid = LLVMBuildAdd(l->b, LLVMBuildMul(l->b, zy, LLVMConstInt(l->t_i32, (unsigned long long)bd[0], 0), ""),
				       ps->tids[0], "tid");
		LLVMSetNUW(ps->tid, 1);
	}

	/* the block's shared memory: registers for acc[t] allocs, else addrspace(3) arrays */
	bool zeroed = false;
	for (int i = 0; i < s->nhomed; i++) {
		const Mem *m = s->homed[i];
		int ms = mem_slot(l, m);
		if (!loop_uses(p, s, m))
			continue;
		LLVMTypeRef t = mem_type(l, m->ty);
		if (kernel_slot_alloc(s, m)) {
			LLVMValueRef a = entry_alloca(l, t, m->name, (unsigned)uir_type_size(m->ty));
			LLVMBuildStore(l->b, LLVMConstNull(t), a);
			l->memptr[ms] = a;
			l->slot[ms] = true;
			continue;
		}
		int64_t n = m->size;
		unsigned align = (unsigned)uir_type_size(m->ty);
		if (uir_type_size(m->ty) == 1 && (loop_uses(p, s, m) & CAP_ATOMIC)) {
			n = (n + 3) / 4 * 4; /* byte atomics change whole aligned words */
			align = 4;
		}
		LLVMTypeRef at = LLVMArrayType2(t, (uint64_t)n);
		LLVMValueRef gv = LLVMAddGlobalInAddressSpace(l->mod, at, fmt_str(&p->arena, "%s.%s", name, m->name), 3);
		LLVMSetLinkage(gv, LLVMInternalLinkage);
		LLVMSetInitializer(gv, LLVMGetUndef(at));
		LLVMSetAlignment(gv, align); /* the element's: shared bytes as render-cuda's */
		l->memptr[ms] = LLVMConstAddrSpaceCast(gv, l->t_ptr);
		zero_shared(l, ps, l->memptr[ms], t, m->size, block, m->name);
		zeroed = true;
	}
	if (zeroed)
		barrier(l);
	lower_block(l, s->body);
	fn_close(l);
	LLVMBuildRetVoid(l->b);
}

/* Links the nvptx64 math bitcode into M, its functions internal. */
static bool link_ptx_math(LLVMModuleRef m)
{
	if (!uir_ptx_math_bc_len) {
		internal("this build has no NVPTX math bitcode (clang-19 was missing)", NULL);
		return false;
	}
	return link_bitcode(m, uir_ptx_math_bc, uir_ptx_math_bc_len, "the NVPTX math bitcode");
}

/* Lowers every kernel of P into a new module for TM. */
static bool lower_kernels(UirProgram *p, LLVMContextRef cx, LLVMTargetMachineRef tm, const RunOptions *o, Lowered *out)
{
	L l;
	lower_begin(&l, p, cx, tm, o, out);
	PtxState ps;
	memset(&ps, 0, sizeof ps);
	ps.hooks.phase = ptx_phase;
	ps.hooks.fault = ptx_record_fault;
	ps.hooks.block_index = ptx_block_index;
	l.gpu = &ps.hooks;
	l.slot = xcalloc((size_t)(p->nbufs + p->nallocs) + 1, sizeof *l.slot);
	/* the first fault a kernel records (0: none), read by the host after the launches */
	ps.fault = LLVMAddGlobalInAddressSpace(l.mod, l.t_i64, "uir_fault", 1);
	LLVMSetInitializer(ps.fault, LLVMConstInt(l.t_i64, 0, 0));
	LLVMSetAlignment(ps.fault, 8);
	int k = 0;
	for (const Stmt *s = p->top; s; s = s->next)
		if (s->kind == ST_LOOP)
			build_kernel(&l, &ps, s, k++);
	out->mod = l.mod;
	lower_end(&l);
	return true;
}

/* NVPTX's options for exact floating point, set once per process. */
static void ptx_options(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	const char *argv[] = { "uir", "-nvptx-fma-level=0", "-nvptx-prec-divf32=2", "-nvptx-prec-sqrtf32=1" };
	LLVMParseCommandLineOptions(4, argv, "uir ptx");
}

static bool is_float_arith(const char *s, size_t n)
{
	/* "add" "sub" "mul" then, before the type, optional .ftz / .sat: never .rn/.rz/.rm/.rp */
	if (n < 3 || (strncmp(s, "add", 3) && strncmp(s, "sub", 3) && strncmp(s, "mul", 3)))
		return false;
	const char *t = s + 3, *end = s + n;
	while (t < end && *t == '.') {
		const char *q = t + 1;
		while (q < end && *q != '.')
			q++;
		size_t w = (size_t)(q - t - 1);
		if ((w == 3 && (!strncmp(t + 1, "f32", 3) || !strncmp(t + 1, "f64", 3))))
			return q == end;
		if (!(w == 3 && !strncmp(t + 1, "ftz", 3)) && !(w == 3 && !strncmp(t + 1, "sat", 3)))
			return false; /* .rn, .s32, .wide, .lo ... */
		t = q;
	}
	return false;
}

/* Adds `.rn` to every float add/sub/mul of the PTX text IN that has no rounding modifier
 * (ptxas may fuse those into fma). Returns a new malloc'ed text; *FIXED counts them. */
static char *force_rn(const char *in, int *fixed)
{
	size_t len = strlen(in);
	char *out = xmalloc(2 * len + 64), *o = out; /* at most 3 more bytes a line */
	*fixed = 0;
	const char *s = in;
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t ll = eol ? (size_t)(eol - s + 1) : strlen(s);
		/* the instruction word: after leading blanks and an optional predicate */
		const char *w = s;
		while (*w == ' ' || *w == '\t')
			w++;
		if (*w == '@') {
			while (*w && *w != ' ' && *w != '\t' && *w != '\n')
				w++;
			while (*w == ' ' || *w == '\t')
				w++;
		}
		const char *we = w;
		while (*we && *we != ' ' && *we != '\t' && *we != '\n' && *we != ';')
			we++;
		if (is_float_arith(w, (size_t)(we - w))) {
			size_t pre = (size_t)(w - s) + 3;
			memcpy(o, s, pre);
			o += pre;
			memcpy(o, ".rn", 3);
			o += 3;
			memcpy(o, s + pre, ll - pre);
			o += ll - pre;
			(*fixed)++;
		} else {
			memcpy(o, s, ll);
			o += ll;
		}
		s += ll;
	}
	*o = 0;
	return out;
}

/* The NVPTX target machine for ARCH (known) with FEATURES, or NULL after a message. */
static LLVMTargetMachineRef ptx_tm(const char *arch, const char *features)
{
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
	ptx_options();
	LLVMTargetRef target;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(PTX_TRIPLE, &target, &err)) {
		internal("no NVPTX target", err);
		LLVMDisposeMessage(err);
		return NULL;
	}
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, PTX_TRIPLE, arch, features, LLVMCodeGenLevelAggressive,
							  LLVMRelocDefault, LLVMCodeModelDefault);
	if (!tm)
		internal("cannot create the NVPTX target machine", NULL);
	return tm;
}

/* Prints the E0601 of fault CODE (from uir_fault after the kernels ran) as `run` words
 * it: the sites are those of the same lowering. Returns 0 or 70. */
int ptx_fault(UirProgram *p, const UirPtxOptions *po, uint64_t code);
int ptx_fault(UirProgram *p, const UirPtxOptions *po, uint64_t code)
{
	const char *arch = po->arch ? po->arch : "sm_90";
	LLVMTargetMachineRef tm = ptx_tm(ptx_arch_known(arch) ? arch : "sm_90", "");
	if (!tm)
		return UIR_EXIT_INTERNAL;
	LLVMContextRef cx = LLVMContextCreate();
	RunOptions o = { .bounds_check = po->bounds_check, .opt_level = 3, .cpu = arch };
	Lowered lw;
	lower_kernels(p, cx, tm, &o, &lw);
	fault_report(p, &lw, code);
	LLVMDisposeModule(lw.mod);
	free(lw.sites);
	LLVMContextDispose(cx);
	LLVMDisposeTargetMachine(tm);
	return 0;
}

/* `uir ptx`: the PTX (or with o->llvm_ir the NVPTX LLVM IR) of the checked kernel-form
 * program P into *TEXT (malloc'ed). Returns 0, 64 for an unknown arch, 2 (after an
 * `invalid:` line) for a kernel with more buffers than PTX takes, or 70. */
int ptx_generate(UirProgram *p, const UirPtxOptions *po, char **text);
int ptx_generate(UirProgram *p, const UirPtxOptions *po, char **text)
{
	*text = NULL;
	const char *arch = po->arch ? po->arch : "sm_90";
	if (!ptx_arch_known(arch)) {
		fprintf(stderr, "uir ptx: unknown --arch '%s' (LLVM's NVPTX back end knows sm_20 ... sm_90a)\n", arch);
		return UIR_EXIT_USAGE;
	}
	const char *features = param_features(p, arch);
	if (!features)
		return UIR_EXIT_NOT_KERNEL;
	LLVMTargetMachineRef tm = ptx_tm(arch, features);
	if (!tm)
		return UIR_EXIT_INTERNAL;
	char *err = NULL;
	LLVMContextRef cx = LLVMContextCreate();
	RunOptions o = { .bounds_check = po->bounds_check, .opt_level = 3, .cpu = arch };
	Lowered lw;
	int rc = 0;
	lower_kernels(p, cx, tm, &o, &lw);
	LLVMModuleRef m = lw.mod;
	char *msg = NULL;
	if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
		rc = internal("the lowered module is invalid", msg);
	LLVMDisposeMessage(msg);
	if (!rc && lw.uses_math && !link_ptx_math(m))
		rc = UIR_EXIT_INTERNAL;
	if (!rc) {
		set_target_attrs(m, tm);
		LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
		LLVMPassBuilderOptionsSetLoopUnrolling(pbo, 1);
		LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", tm, pbo);
		LLVMDisposePassBuilderOptions(pbo);
		if (e) {
			char *em = LLVMGetErrorMessage(e);
			rc = internal("the pass pipeline failed", em);
			LLVMDisposeErrorMessage(em);
		}
	}
	if (!rc && po->llvm_ir) {
		char *s = LLVMPrintModuleToString(m);
		*text = xmalloc(strlen(s) + 1);
		strcpy(*text, s);
		LLVMDisposeMessage(s);
	} else if (!rc) {
		LLVMMemoryBufferRef buf = NULL;
		if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, &buf)) {
			rc = internal("NVPTX code generation failed", err);
			LLVMDisposeMessage(err);
		} else {
			size_t n = LLVMGetBufferSize(buf);
			char *raw = xmalloc(n + 1);
			memcpy(raw, LLVMGetBufferStart(buf), n);
			raw[n] = 0;
			LLVMDisposeMemoryBuffer(buf);
			int fixed;
			*text = force_rn(raw, &fixed);
			free(raw);
		}
	}
	LLVMDisposeModule(m);
	free(lw.sites);
	LLVMContextDispose(cx);
	LLVMDisposeTargetMachine(tm);
	return rc;
}
