/* traffic.c - `uir run --traffic` (see traffic.h): which elements of each buffer the run read
 * before writing them, and which it wrote.
 *
 * Each element has two bits: R, set when its first access in the run reads it (a load whose
 * value the program necessarily uses, below, or an atomic, which reads the old value), and
 * W, set by any store or atomic. An element that is
 * first stored and then loaded gets W alone: its value then comes from the run itself. The
 * record is two bits an element, four elements a byte, allocated zeroed for every buffer the
 * program accesses (calloc: pages never touched cost nothing). `# cuda speed` reads R and W as
 * the bytes a kernel must move (docs/testing.md, "The bandwidth bound").
 */
#include "traffic.h"
#include <stdlib.h>
#include <string.h>

enum { BIT_R = 1, BIT_W = 2 };

typedef struct TrafficMem {
	uint8_t *bits; /* 2 bits an element: BIT_R, BIT_W at (e % 4) * 2 of byte e / 4 */
} TrafficMem;

struct TrafficState {
	UirProgram *p;
	TrafficMem *mems;   /* one per buffer */
	const Expr **used;  /* the loads whose reads count: an open-addressing set */
	size_t nused, capused;
	bool *let_done;     /* by Sym.slot: the let's value is marked */
};

/* ---- the loads whose value the program necessarily uses ----
 *
 * A kernel compiled from the program need not make a load whose value nothing needs (nvcc
 * drops an unused `const float v = x[i];`), nor one whose value is needed only sometimes
 * (`select` renders as `c ? x[i] : y[i]`, which loads one of the two; a compiler may test
 * one operand of a bool `and`/`or` first; a vector load used only through `lane` may shrink
 * to that lane). So a load counts only when its value is necessarily used: it is, through
 * ops and through lets of the same block, an operand of a store, an atomic, an if's
 * condition or a loop's bound, and not only through a value operand of `select`, an operand
 * of a bool `and` or `or`, or the vector operand of `lane`. A let used only inside a nested
 * if or loop does not count either (the compiler may move its load there). */

static size_t ptr_hash(const void *q, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)q;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static bool used_has(const TrafficState *ts, const Expr *e)
{
	if (!ts->capused)
		return false;
	for (size_t i = ptr_hash(e, ts->capused);; i = (i + 1) & (ts->capused - 1)) {
		if (!ts->used[i])
			return false;
		if (ts->used[i] == e)
			return true;
	}
}

static void used_add(TrafficState *ts, const Expr *e)
{
	if (used_has(ts, e))
		return;
	if (2 * (ts->nused + 1) > ts->capused) {
		size_t cap = ts->capused ? 2 * ts->capused : 64;
		const Expr **old = ts->used;
		size_t oldcap = ts->capused;
		ts->used = xcalloc(cap, sizeof *ts->used);
		ts->capused = cap;
		ts->nused = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i])
				used_add(ts, old[i]);
		free(old);
	}
	size_t i = ptr_hash(e, ts->capused);
	while (ts->used[i])
		i = (i + 1) & (ts->capused - 1);
	ts->used[i] = e;
	ts->nused++;
}

/* E's value is necessarily used by a statement whose parent is BLOCK. */
static void mark_expr(TrafficState *ts, const Expr *e, const Stmt *block)
{
	if (!e)
		return;
	if (e->kind == EX_NAME) {
		const Sym *s = e->sym;
		if (s && s->kind == SYM_LET && s->def && s->def->parent == block && !ts->let_done[s->slot]) {
			ts->let_done[s->slot] = true;
			mark_expr(ts, s->def->value, block);
		}
		return;
	}
	if (e->kind != EX_OP)
		return;
	switch (e->op) {
	case OP_SELECT: /* c ? a : b: the condition only */
		mark_expr(ts, e->args[0], block);
		return;
	case OP_AND:
	case OP_OR:
		if (e->ty == UIR_BOOL)
			return;
		break;
	case OP_LANE:
		mark_expr(ts, e->args[1], block);
		return;
	case OP_LOAD:
		if (!e->mem->is_alloc)
			used_add(ts, e);
		break;
	default:
		break;
	}
	for (int i = 0; i < e->nargs; i++)
		mark_expr(ts, e->args[i], block);
}

static void mark_block(TrafficState *ts, const Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_STORE:
		case ST_ATOMIC:
			mark_expr(ts, s->off, s->parent);
			mark_expr(ts, s->val, s->parent);
			break;
		case ST_LOOP:
			mark_expr(ts, s->value, s->parent);
			mark_block(ts, s->body);
			break;
		case ST_IF:
			mark_expr(ts, s->cond, s->parent);
			mark_block(ts, s->then_);
			mark_block(ts, s->else_);
			break;
		default:
			break;
		}
	}
}

TrafficState *traffic_new(UirProgram *p)
{
	TrafficState *ts = xcalloc(1, sizeof *ts);
	ts->p = p;
	ts->mems = xcalloc((size_t)p->nbufs + 1, sizeof *ts->mems);
	ts->let_done = xcalloc((size_t)p->nslots + 1, sizeof *ts->let_done);
	mark_block(ts, p->top);
	return ts;
}

void traffic_free(TrafficState *ts)
{
	if (!ts)
		return;
	for (int i = 0; i < ts->p->nbufs; i++)
		free(ts->mems[i].bits);
	free(ts->mems);
	free(ts->used);
	free(ts->let_done);
	free(ts);
}

/* Elements e .. e+n-1 of M: a read marks R on those untouched; a write marks W; an update
 * (atomic) does both. */
static inline void mark(const TrafficMem *m, int64_t e, int n, int kind)
{
	for (int64_t k = e; k < e + n; k++) {
		uint8_t *byte = &m->bits[k >> 2];
		int shift = (int)(k & 3) * 2;
		unsigned v = (*byte >> shift) & 3u;
		if (kind != TRAFFIC_WRITE && v == 0)
			v = BIT_R;
		if (kind != TRAFFIC_READ)
			v |= BIT_W;
		*byte = (uint8_t)((*byte & ~(3u << shift)) | (v << shift));
	}
}

/* The access before the hook passed its bounds check, so off .. off+n-1 are in the buffer. */
static void hook_read(const Insn *in, Scalar *R, Ctx *c)
{
	(void)c;
	mark(in->aux, R[in->a].i, in->n, TRAFFIC_READ);
}

static void hook_write(const Insn *in, Scalar *R, Ctx *c)
{
	(void)c;
	mark(in->aux, R[in->a].i, in->n, TRAFFIC_WRITE);
}

static void hook_update(const Insn *in, Scalar *R, Ctx *c)
{
	(void)c;
	mark(in->aux, R[in->a].i, in->n, TRAFFIC_UPDATE);
}

const void *traffic_site(TrafficState *ts, const Mem *b, const Expr *load, int kind, InsnFn *fn)
{
	if (kind == TRAFFIC_READ && !used_has(ts, load)) {
		*fn = NULL; /* its value is not necessarily used: it need not be read */
		return NULL;
	}
	TrafficMem *m = &ts->mems[b->index];
	if (!m->bits)
		m->bits = xcalloc((size_t)(b->size + 3) / 4, 1);
	*fn = kind == TRAFFIC_READ ? hook_read : kind == TRAFFIC_WRITE ? hook_write : hook_update;
	return m;
}

void traffic_counts(const TrafficState *ts, UirTraffic *out)
{
	/* the number of R and of W bits in each byte value */
	uint8_t nr[256], nw[256];
	for (int v = 0; v < 256; v++) {
		nr[v] = nw[v] = 0;
		for (int k = 0; k < 4; k++) {
			nr[v] += (v >> (2 * k)) & BIT_R ? 1 : 0;
			nw[v] += (v >> (2 * k)) & BIT_W ? 1 : 0;
		}
	}
	for (int i = 0; i < ts->p->nbufs; i++) {
		const TrafficMem *m = &ts->mems[i];
		out[i].read = out[i].written = 0;
		if (!m->bits)
			continue;
		int64_t nbytes = (ts->p->bufs[i]->size + 3) / 4;
		for (int64_t k = 0; k < nbytes; k++) {
			out[i].read += nr[m->bits[k]];
			out[i].written += nw[m->bits[k]];
		}
	}
}
