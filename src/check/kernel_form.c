/* kernel_form.c - kernel form (docs/language.md 8.2) and the facts about a kernel that every GPU
 * back end decides the same way: `uir render-cuda` (src/render/render_cuda.c) and `uir ptx`
 * (src/llvm). One definition, so the two paths launch the same grids and blocks, keep the
 * same allocs in registers and put barriers in the same places.
 *
 * Kernel form (docs/language.md 8.2): the top level holds only declarations and `global` loops
 * with integer-literal bounds; a kernel uses only buffers, literals, its own loops and
 * lets, and allocs whose home is that global loop; its shared memory is at most 48 KiB. */
#include "uir_internal.h"
#include <stdio.h>

static const char *axis_words(Axis a)
{
	switch (a) {
	case AX_NONE: return "a plain loop";
	case AX_UNROLL: return "an unroll loop";
	case AX_THREAD: return "a thread loop";
	case AX_LOCAL: return "a local loop";
	default: return "a global loop";
	}
}

static bool loads_mem(const Expr *e, const Mem *m)
{
	if (!e || e->kind != EX_OP)
		return false;
	if (e->op == OP_LOAD && e->mem == m)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (loads_mem(e->args[i], m))
			return true;
	return false;
}

/* The first access of an alloc not homed at KERNEL, inside it (NULL if none). */
static const Mem *foreign_alloc_expr(const Expr *e, const Stmt *kernel)
{
	if (!e || e->kind != EX_OP)
		return NULL;
	if (e->op == OP_LOAD && e->mem && e->mem->is_alloc && e->mem->home != kernel)
		return e->mem;
	for (int i = 0; i < e->nargs; i++) {
		const Mem *m = foreign_alloc_expr(e->args[i], kernel);
		if (m)
			return m;
	}
	return NULL;
}

static const Mem *foreign_alloc(const Stmt *s, const Stmt *kernel, Loc *at)
{
	for (; s; s = s->next) {
		const Expr *ex[4] = { s->value, s->off, s->val, s->cond };
		for (int i = 0; i < 4; i++) {
			const Mem *m = foreign_alloc_expr(ex[i], kernel);
			if (m) {
				*at = s->loc;
				return m;
			}
		}
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && s->mem->is_alloc && s->mem->home != kernel) {
			*at = s->loc;
			return s->mem;
		}
		const Stmt *kids[3] = { s->body, s->then_, s->else_ };
		for (int i = 0; i < 3; i++) {
			const Mem *m = foreign_alloc(kids[i], kernel, at);
			if (m)
				return m;
		}
	}
	return NULL;
}

bool kernel_form(const UirProgram *p, char *why, size_t whylen)
{
	for (const Stmt *s = p->top; s; s = s->next) {
		int line = s->loc.line;
		switch (s->kind) {
		case ST_BUFFER:
		case ST_ALLOC:
			continue;
		case ST_LET:
			snprintf(why, whylen, "line %d: let '%s' at the top level (kernel form has only declarations and "
				 "global loops there; a kernel uses only buffers, literals and its own names)", line, s->sym->name);
			return false;
		case ST_STORE:
		case ST_ATOMIC:
			snprintf(why, whylen, "line %d: %s to '%s' at the top level (kernel form has only declarations and "
				 "global loops there)", line, s->kind == ST_STORE ? "a store" : "an atomic", s->mem->name);
			return false;
		case ST_IF:
			snprintf(why, whylen, "line %d: an if at the top level (kernel form has only declarations and "
				 "global loops there)", line);
			return false;
		case ST_LOOP:
			break;
		}
		if (s->axis != AX_GLOBAL) {
			snprintf(why, whylen, "line %d: %s '%s' at the top level (kernel form has only declarations and "
				 "global loops there)", line, axis_words(s->axis), s->sym->name);
			return false;
		}
		if (s->value->kind != EX_LIT || s->bound_lit < 0) {
			snprintf(why, whylen, "line %d: global loop '%s' has a bound that is not an integer literal (the "
				 "grid size of a kernel must be a literal)", line, s->sym->name);
			return false;
		}
		Loc at;
		const Mem *m = foreign_alloc(s->body, s, &at);
		if (m) {
			snprintf(why, whylen, "line %d: alloc '%s' (line %d) is used by global loop '%s' and outside it, so it "
				 "is not the kernel's shared memory (its home is %s)", at.line, m->name, m->loc.line,
				 s->sym->name, m->home ? "another loop" : "none");
			return false;
		}
		/* laid out as render-cuda and ptx declare them: in order, each array aligned to its
		 * element (byte arrays with atomics padded to whole words), as nvcc and ptxas count;
		 * register (acc[t]) allocs are added whole, without padding */
		int64_t bytes = 0, slots = 0;
		for (int i = 0; i < s->nhomed; i++) {
			const Mem *m = s->homed[i];
			int64_t esz = uir_type_size(m->ty), n = m->size, align = esz;
			if (kernel_slot_alloc(s, m)) {
				slots += n * esz;
				continue;
			}
			if (esz == 1 && stmts_atomic_on(s->body, m)) {
				n = (n + 3) / 4 * 4;
				align = 4;
			}
			bytes = (bytes + align - 1) / align * align + n * esz;
		}
		bytes += slots;
		if (bytes > KERNEL_SHARED_MAX) {
			snprintf(why, whylen, "line %d: global loop '%s' has %lld bytes of shared memory; a kernel has at "
				 "most %d (48 KiB)", line, s->sym->name, (long long)bytes, KERNEL_SHARED_MAX);
			return false;
		}
	}
	return true;
}

/* The first phase (the outermost loop of a nest of local loops) in S, or NULL. */
static const Stmt *first_phase(const Stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == ST_LOOP && s->axis == AX_LOCAL)
			return s;
		if (s->kind == ST_LOOP) {
			const Stmt *f = first_phase(s->body);
			if (f)
				return f;
		}
	}
	return NULL;
}

void kernel_block(const Stmt *kernel, int64_t block[3], int *block_dims)
{
	const Stmt *f = first_phase(kernel->body);
	block[0] = block[1] = block[2] = 1;
	int n = f ? (f->ndims > 0 ? f->ndims : 1) : 1;
	for (int i = 0; f && i < n; i++)
		block[i] = f->ndims > 0 ? f->dims[i]->bound_lit : f->bound_lit;
	if (block_dims)
		*block_dims = n;
}

void kernel_grid(const Stmt *kernel, int64_t grid[3], int *grid_dims)
{
	int n = kernel->ndims > 0 ? kernel->ndims : 1;
	grid[0] = grid[1] = grid[2] = 1;
	for (int i = 0; i < n; i++)
		grid[i] = kernel->ndims > 0 ? kernel->dims[i]->bound_lit : kernel->bound_lit;
	if (grid_dims)
		*grid_dims = n;
}

bool kernel_multi_dim(const Stmt *kernel)
{
	int64_t v[3];
	int g, b;
	kernel_grid(kernel, v, &g);
	kernel_block(kernel, v, &b);
	return g > 1 || b > 1;
}

int64_t nest_stride(const Stmt *top, int dim)
{
	int64_t s = 1;
	for (int i = 0; i < dim && i < top->ndims; i++)
		s *= top->dims[i]->bound_lit;
	return s;
}

int64_t kernel_block_size(const Stmt *kernel)
{
	int64_t b[3];
	kernel_block(kernel, b, NULL);
	return b[0] * b[1] * b[2];
}

/* The name an offset stands for, following lets ("let i = t" is t). */
static const Sym *offset_name(const Expr *e)
{
	while (e->kind == EX_NAME && e->sym && e->sym->kind == SYM_LET && e->sym->def && e->lanes == 1)
		e = e->sym->def->value;
	return e->kind == EX_NAME ? e->sym : NULL;
}

typedef struct SlotCheck {
	const Mem *m;
	bool ok;
} SlotCheck;

static void slot_expr(const Expr *e, const Stmt *phase, SlotCheck *sc)
{
	if (!e || e->kind != EX_OP)
		return;
	if (e->op == OP_LOAD && e->mem == sc->m)
		if (e->width != 1 || !phase || offset_name(e->args[0]) != phase->sym)
			sc->ok = false;
	for (int i = 0; i < e->nargs; i++)
		slot_expr(e->args[i], phase, sc);
}

static void slot_stmts(const Stmt *s, const Stmt *phase, SlotCheck *sc)
{
	for (; s; s = s->next) {
		slot_expr(s->value, phase, sc);
		slot_expr(s->off, phase, sc);
		slot_expr(s->val, phase, sc);
		slot_expr(s->cond, phase, sc);
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && s->mem == sc->m)
			if (s->kind == ST_ATOMIC || s->width != 1 || !phase || offset_name(s->off) != phase->sym)
				sc->ok = false;
		const Stmt *in = s->kind == ST_LOOP && s->axis == AX_LOCAL ? s : phase;
		slot_stmts(s->body, in, sc);
		slot_stmts(s->then_, phase, sc);
		slot_stmts(s->else_, phase, sc);
	}
}

bool kernel_slot_alloc(const Stmt *kernel, const Mem *m)
{
	int64_t block = kernel_block_size(kernel), b[3];
	int dims;
	kernel_block(kernel, b, &dims);
	if (m->size < block || dims > 1)
		return false; /* acc[tx] in a block of 2 or 3 dimensions is shared by its rows */
	SlotCheck sc = { m, true };
	slot_stmts(kernel->body, NULL, &sc);
	return sc.ok;
}

bool stmts_atomic_on(const Stmt *s, const Mem *m)
{
	for (; s; s = s->next) {
		if (s->kind == ST_ATOMIC && s->mem == m)
			return true;
		if (stmts_atomic_on(s->body, m) || stmts_atomic_on(s->then_, m) || stmts_atomic_on(s->else_, m))
			return true;
	}
	return false;
}

bool stmts_use_mem(const Stmt *s, const Mem *m)
{
	for (; s; s = s->next) {
		if (loads_mem(s->value, m) || loads_mem(s->off, m) || loads_mem(s->val, m) || loads_mem(s->cond, m))
			return true;
		if ((s->kind == ST_STORE || s->kind == ST_ATOMIC) && s->mem == m)
			return true;
		if (stmts_use_mem(s->body, m) || stmts_use_mem(s->then_, m) || stmts_use_mem(s->else_, m))
			return true;
	}
	return false;
}

bool stmts_load_mem(const Stmt *s, const Mem *m)
{
	for (; s; s = s->next) {
		if (loads_mem(s->value, m) || loads_mem(s->off, m) || loads_mem(s->val, m) || loads_mem(s->cond, m))
			return true;
		if (stmts_load_mem(s->body, m) || stmts_load_mem(s->then_, m) || stmts_load_mem(s->else_, m))
			return true;
	}
	return false;
}

bool phase_follows_barrier(const Stmt *phase, const Stmt *kernel)
{
	const Stmt *parent = phase->parent;
	if (!parent || parent->kind != ST_LOOP)
		return false;
	const Stmt *prev = NULL;
	for (const Stmt *x = parent->body; x && x != phase; x = x->next)
		prev = x;
	if (prev)
		return prev->kind == ST_LOOP && prev->axis == AX_LOCAL;
	/* first in a body: the kernel's start, when every loop of the grid's nest above it
	 * starts its body with the next (no lets of the nest come first) */
	for (const Stmt *up = parent; up != kernel; up = up->parent) {
		if (up->kind != ST_LOOP || up->axis != AX_GLOBAL || up->nest != kernel || !up->parent ||
		    up->parent->body != up)
			return false;
	}
	return true;
}
