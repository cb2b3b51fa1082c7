/* compile.c - turns the checked syntax tree into the interpreter's instruction blocks
 * (see interp_int.h for the register model).
 *
 * Every expression node gets its own registers, so a `let` simply names the registers of
 * its value and a loop index is one register that the loop writes. Operands are compiled
 * left to right before their op, so all operands of an op are evaluated, in source order
 * (which decides which fault is reported first). A loop's bound and an if's condition are
 * compiled into the enclosing block, before the loop or if instruction.
 */
#include "interp_int.h"
#include "../util/messages.h"
#include "racecheck.h"
#include "traffic.h"
#include <stdlib.h>
#include <string.h>

/* A block under construction. */
typedef struct Builder {
	Insn *code;
	int n, cap;
} Builder;

typedef struct Comp {
	UirProgram *p;
	Arena *arena;
	void **bufs, **allocs;
	int32_t *slot_reg; /* the register of each let and loop index, by Sym.slot */
	Scalar *init;      /* initial register values */
	int32_t nregs, capregs;
	Builder *b;        /* the block being built */
	RaceState *race;   /* run --racecheck: emit racecheck.c's hooks; else NULL */
	TrafficState *traffic; /* run --traffic: emit traffic.c's hooks; else NULL */
	int outer, inner;  /* thread or global loops, local loops around the code compiled */
} Comp;

/* Reserves N consecutive registers, initially zero. */
static int32_t new_regs(Comp *c, int n)
{
	if ((int64_t)c->nregs + n > INT32_MAX / 2)
		uir_internal_error(__FILE__, __LINE__, "too many registers");
	while (c->nregs + n > c->capregs) {
		c->capregs = c->capregs ? 2 * c->capregs : 256;
		c->init = xrealloc(c->init, (size_t)c->capregs * sizeof *c->init);
	}
	int32_t r = c->nregs;
	memset(&c->init[r], 0, (size_t)n * sizeof *c->init);
	c->nregs += n;
	return r;
}

static Insn *emit(Comp *c, InsnFn fn)
{
	if (!fn)
		unreachable(); /* no instruction for a typed op: a bug in types.c or here */
	Builder *b = c->b;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->code = xrealloc(b->code, (size_t)b->cap * sizeof *b->code);
	}
	Insn *in = &b->code[b->n++];
	memset(in, 0, sizeof *in);
	in->fn = fn;
	in->n = 1;
	return in;
}

static void *mem_data(Comp *c, const Mem *m)
{
	return m->is_alloc ? c->allocs[m->index] : c->bufs[m->index];
}

/* Fills the memory fields of an access instruction (its width in->n set already). */
static void set_access(Comp *c, Insn *in, const Mem *m, Loc at, const char *what)
{
	FaultSite *s = arena_alloc(c->arena, sizeof *s);
	s->mem = m;
	s->loc = at;
	s->what = what;
	s->width = in->n;
	s->ovf = NULL;
	in->base = mem_data(c, m);
	in->size = m->size;
	in->aux = s;
}

/* run --racecheck: the hook after an access (FaultSite SITE, offset register OFF, N
 * elements); none where the access cannot race (outside parallel loops, private memory). */
/* The instruction FN (none when NULL) on AUX after an access of N elements at offset
 * register OFF. */
static void emit_hook(Comp *c, InsnFn fn, const void *aux, int32_t off, int n)
{
	if (!fn)
		return;
	Insn *h = emit(c, fn);
	h->a = off;
	h->n = n;
	h->aux = aux;
}

static void race_hook(Comp *c, const void *site, int32_t off, int n, int kind)
{
	InsnFn fn;
	const void *aux = race_site(c->race, site, kind, n, c->outer > 0, c->inner > 0, &fn);
	emit_hook(c, fn, aux, off, n);
}

/* run --traffic: the hook after an access of N elements to memory M at offset register OFF
 * (buffers only: allocs are the kernel's own memory), LOAD the expression of a load. */
static void traffic_hook(Comp *c, const Mem *m, const Expr *load, int32_t off, int n, int kind)
{
	if (!c->traffic || m->is_alloc)
		return;
	InsnFn fn;
	const void *aux = traffic_site(c->traffic, m, load, kind, &fn);
	emit_hook(c, fn, aux, off, n);
}

static int32_t expr(Comp *c, const Expr *e);

static int32_t load(Comp *c, const Expr *e)
{
	int32_t off = expr(c, e->args[0]);
	int32_t d = new_regs(c, e->width);
	Insn *in = emit(c, mem_pick_load(e->mem->ty, e->width > 1));
	in->d = d;
	in->a = off;
	in->n = e->width;
	set_access(c, in, e->mem, e->loc, msg_load_what(&c->p->arena, e));
	if (c->race)
		race_hook(c, in->aux, off, e->width < 1 ? 1 : e->width, RACE_READ);
	traffic_hook(c, e->mem, e, off, e->width < 1 ? 1 : e->width, TRAFFIC_READ);
	return d;
}

static int32_t vec(Comp *c, const Expr *e)
{
	int32_t *from = arena_alloc(c->arena, (size_t)e->nargs * sizeof *from);
	for (int i = 0; i < e->nargs; i++)
		from[i] = expr(c, e->args[i]);
	int32_t d = new_regs(c, e->nargs);
	Insn *in = emit(c, insn_vec);
	in->d = d;
	in->n = e->nargs;
	in->aux = from;
	return d;
}

static int32_t op(Comp *c, const Expr *e)
{
	switch (e->op) {
	case OP_LOAD:
		return load(c, e);
	case OP_VEC:
		return vec(c, e);
	case OP_LANE:
		/* lane v I: the I-th register of v, no instruction */
		return expr(c, e->args[0]) + (int32_t)e->args[1]->val.i;
	case OP_SPLAT: {
		int32_t a = expr(c, e->args[0]);
		int32_t d = new_regs(c, e->width);
		Insn *in = emit(c, insn_splat);
		in->d = d;
		in->a = a;
		in->n = e->width;
		return d;
	}
	case OP_CAST:
	case OP_BITCAST: {
		const Expr *x = e->args[0];
		int32_t a = expr(c, x);
		int32_t d = new_regs(c, e->lanes);
		Insn *in = emit(c, ops_pick_conv(e->op, x->ty, e->to, e->lanes > 1));
		in->d = d;
		in->a = a;
		in->n = e->lanes;
		return d;
	}
	default:
		break;
	}
	int32_t r[3] = { 0, 0, 0 };
	if (e->nargs < 1 || e->nargs > 3)
		unreachable();
	for (int i = 0; i < e->nargs; i++)
		r[i] = expr(c, e->args[i]);
	/* the operand type: for select the values', else the first operand's */
	UirType t = e->op == OP_SELECT ? e->args[1]->ty : e->args[0]->ty;
	int32_t d = new_regs(c, e->lanes);
	Insn *in = emit(c, ops_pick(e->op, t, e->lanes > 1));
	in->d = d;
	in->a = r[0];
	in->b = r[1];
	in->c = r[2];
	in->n = e->lanes;
	return d;
}

/* Compiles E into the current block and returns the first register of its value. */
static int32_t expr(Comp *c, const Expr *e)
{
	switch (e->kind) {
	case EX_LIT: {
		int32_t r = new_regs(c, 1);
		c->init[r] = e->val;
		return r;
	}
	case EX_NAME:
		if (!e->sym || e->sym->kind == SYM_MEM || e->sym->slot < 0 || e->sym->slot >= c->p->nslots)
			unreachable();
		return c->slot_reg[e->sym->slot];
	case EX_OP:
		return op(c, e);
	}
	unreachable();
}

static Block block(Comp *c, const Stmt *s);

/* The allocs whose home is the loop S, as a zeroing list. A grid's shared memory is homed
 * in the outermost loop of its nest and zeroed at every iteration of each of its loops, so
 * that every block starts with zeros (docs/language.md 6.5.6). */
static void homed_allocs(Comp *c, const Stmt *s, LoopInfo *L)
{
	int n = 0;
	if (s->axis == AX_GLOBAL && s->nest)
		s = s->nest;
	for (int i = 0; i < c->p->nallocs; i++)
		n += c->p->allocs[i]->home == s;
	if (!n)
		return;
	L->zbase = arena_alloc(c->arena, (size_t)n * sizeof *L->zbase);
	L->zbytes = arena_alloc(c->arena, (size_t)n * sizeof *L->zbytes);
	for (int i = 0; i < c->p->nallocs; i++) {
		const Mem *m = c->p->allocs[i];
		if (m->home != s)
			continue;
		L->zbase[L->nzero] = c->allocs[m->index];
		L->zbytes[L->nzero] = (size_t)m->size * (size_t)uir_type_size(m->ty);
		L->nzero++;
	}
}

static void loop(Comp *c, const Stmt *s)
{
	LoopInfo *L = arena_alloc(c->arena, sizeof *L);
	L->bound = expr(c, s->value);
	L->ovf = s->ovf;
	L->novf = s->novf;
	L->idx = new_regs(c, 1);
	c->slot_reg[s->sym->slot] = L->idx;
	homed_allocs(c, s, L);
	bool outer = s->axis == AX_THREAD || s->axis == AX_GLOBAL, inner = s->axis == AX_LOCAL;
	bool par = outer || inner;
	c->outer += outer;
	c->inner += inner;
	L->body = block(c, s->body);
	c->outer -= outer;
	c->inner -= inner;
	Insn *in = emit(c, c->race && par ? race_insn_loop : L->nzero ? insn_loop_zero : insn_loop);
	in->aux = L;
	in->base = (void *)s; /* race_insn_loop: the loop statement */
}

static void store(Comp *c, const Stmt *s)
{
	int32_t off = expr(c, s->off);
	int32_t val = expr(c, s->val);
	Insn *in;
	if (s->kind == ST_ATOMIC) {
		in = emit(c, mem_pick_atomic(s->aop, s->mem->ty));
	} else {
		in = emit(c, mem_pick_store(s->mem->ty, s->width > 1));
		in->n = s->width;
	}
	in->a = off;
	in->b = val;
	set_access(c, in, s->mem, s->loc, msg_store_what(&c->p->arena, s));
	if (c->race)
		race_hook(c, in->aux, off, s->kind == ST_ATOMIC || s->width < 1 ? 1 : s->width,
			  s->kind != ST_ATOMIC ? RACE_WRITE : s->aop == AT_ADD ? RACE_ADD : s->aop == AT_MIN ? RACE_MIN : RACE_MAX);
	traffic_hook(c, s->mem, NULL, off, s->kind == ST_ATOMIC || s->width < 1 ? 1 : s->width,
		     s->kind == ST_ATOMIC ? TRAFFIC_UPDATE : TRAFFIC_WRITE);
}

static void stmt(Comp *c, const Stmt *s)
{
	switch (s->kind) {
	case ST_BUFFER:
	case ST_ALLOC:
		return;
	case ST_LET:
		c->slot_reg[s->sym->slot] = expr(c, s->value);
		return;
	case ST_STORE:
	case ST_ATOMIC:
		store(c, s);
		return;
	case ST_LOOP:
		loop(c, s);
		return;
	case ST_IF: {
		int32_t cond = expr(c, s->cond);
		IfInfo *I = arena_alloc(c->arena, sizeof *I);
		I->then_ = block(c, s->then_);
		I->else_ = block(c, s->else_);
		Insn *in = emit(c, insn_if);
		in->a = cond;
		in->aux = I;
		return;
	}
	}
	unreachable();
}

/* Compiles the statements from S on into a new block in the arena. */
static Block block(Comp *c, const Stmt *s)
{
	Builder b = { NULL, 0, 0 }, *outer = c->b;
	c->b = &b;
	for (; s; s = s->next)
		stmt(c, s);
	c->b = outer;
	Block blk = { NULL, b.n };
	if (b.n) {
		Insn *code = arena_alloc(c->arena, (size_t)b.n * sizeof *code);
		memcpy(code, b.code, (size_t)b.n * sizeof *code);
		blk.code = code;
	}
	free(b.code);
	return blk;
}

void interp_compile(UirProgram *p, void **bufs, void **allocs, Arena *arena, Compiled *code, RaceState *race,
		    TrafficState *traffic)
{
	Comp c = { 0 };
	c.race = race;
	c.traffic = traffic;
	c.p = p;
	c.arena = arena;
	c.bufs = bufs;
	c.allocs = allocs;
	c.slot_reg = xcalloc((size_t)p->nslots + 1, sizeof *c.slot_reg);
	new_regs(&c, 1); /* register 0: unused, so a zero operand index is harmless */
	code->top = block(&c, p->top);
	code->nregs = c.nregs;
	code->init = c.init;
	free(c.slot_reg);
}
