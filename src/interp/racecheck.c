/* racecheck.c - the dynamic race check of `uir run --racecheck` (see racecheck.h).
 *
 * The interpreter runs every loop in order; the check records, for every element of every
 * buffer and alloc, which iteration of each parallel loop last wrote and read it, and stops
 * at the first access that two different iterations could not both make if they ran at the
 * same time (docs/language.md sections 6 and 7):
 *
 *   outer level: iterations of a `thread` loop, or blocks of a `global` loop (the whole
 *                kernel, across its phases);
 *   inner level: threads of one `local` loop (one phase of one block); the barrier between
 *                phases, and between blocks, starts a new instance.
 *
 * In a grid or block of 2 or 3 dimensions (a nest of global or local loops, docs/language.md
 * 6.5) the iteration is the tuple of the nest's indices, numbered flat (x fastest); an access
 * in the lets between the nest's loops counts as made by the tuple whose inner indices are 0
 * (the first block or thread that evaluates them), so a race found is real, though one on
 * those lets alone may be missed.
 *
 * Each run of a parallel loop is an instance with its own number, so records left by
 * earlier instances never compare with later ones. Two accesses conflict when they belong
 * to the same instance, come from different iterations, and at least one writes, unless
 * both are the same atomic.OP (whose updates commute). Memory private to an iteration is
 * skipped at the outer level: an alloc whose home is the `thread` loop, or a block's shared
 * memory (home: the `global` loop).
 *
 * A cell keeps, per level and element, up to two write-like accesses and two reads from
 * different iterations. That is exact, not a sample: until the first race, the write-like
 * accesses of one instance come from one iteration, or are all one atomic op; and a write
 * conflicts with earlier reads exactly when one of them came from another iteration, which
 * two reads of different iterations (or one) decide.
 */
#include "racecheck.h"
#include "interp.h"
#include "../util/escape.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OUTER, INNER };

/* The record of a memory is kept in chunks of this many cells (a power of two). */
#define RECORD_CHUNK_BITS 14
#define RECORD_CHUNK ((int64_t)1 << RECORD_CHUNK_BITS)

/* One recorded access: the iteration of the level's loop and the access site (-1: none). */
typedef struct Acc {
	int32_t iter, site;
} Acc;

typedef struct Cell {
	uint32_t winst, rinst; /* instance of the write and read records; 0: none */
	Acc w0, w1;            /* w0 the latest write-like access; w1 (site -1: none): with wmulti,
				* one of another iteration (all did one atomic op), else one of
				* w0's iteration of another kind than w0's (for the message) */
	Acc r0, r1;            /* r0 the latest read; r1 a read of another iteration, or site -1 */
	uint8_t wkinds;        /* the kinds (1 << RACE_*) of the write-like accesses */
	uint8_t wmulti;        /* the write-like accesses come from several iterations */
} Cell;

/* What the hook after an access knows. */
typedef struct RaceSite {
	const FaultSite *site;
	int kind;
	int id;            /* index in RaceState.sites */
	bool outer, inner; /* the levels it is recorded at (known when compiling) */
	Cell ***cells[2];  /* the memory's record per level: chunks, allocated on first use */
} RaceSite;

/* The parallel loops around the running code. */
typedef struct RaceCur {
	uint32_t oinst, iinst; /* instances (0: not inside such a loop) */
	int32_t oreg, ireg;    /* their index registers (one dimension) */
	const Stmt *oloop, *iloop; /* the loops (the outermost of a nest) */
	/* per level, a nest of nd > 1 loops: the index registers and bounds by dimension
	 * (x first), and which of its loops are running (bit per dimension) */
	int nd[2];
	int32_t regs[2][3];
	int64_t bounds[2][3];
	unsigned on[2];
} RaceCur;

struct RaceState {
	UirProgram *p;
	RaceCur cur;
	const Scalar *R;  /* the register file, for the report */
	uint32_t next_inst;
	Cell ***shadow; /* per slot: [OUTER] and [INNER] tables of RECORD_CHUNK-cell chunks,
			 * each allocated on first use */
	int nslots;
	size_t bytes, budget; /* the record's size now, and the most it may take */
	const RaceSite **sites;
	int nsites, capsites;
	Arena arena;
};

RaceState *race_new(UirProgram *p)
{
	RaceState *rs = xcalloc(1, sizeof *rs);
	rs->p = p;
	rs->nslots = p->nbufs + p->nallocs;
	rs->shadow = xcalloc(2 * (size_t)rs->nslots + 1, sizeof *rs->shadow);
	rs->next_inst = 1;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	rs->budget = pages > 0 && psize > 0 ? (size_t)pages / 2 * (size_t)psize : (size_t)1 << 32;
	return rs;
}

/* The memory of record slot SLOT (buffers first, then allocs). */
static const Mem *slot_mem(const RaceState *rs, int slot)
{
	return slot < rs->p->nbufs ? rs->p->bufs[slot] : rs->p->allocs[slot - rs->p->nbufs];
}

/* Frees the record I (2 * slot + level) and its chunks. */
static void drop_record(RaceState *rs, int i)
{
	Cell **tab = rs->shadow[i];
	if (!tab)
		return;
	int64_t n = slot_mem(rs, i / 2)->size;
	for (int64_t k = 0; k < (n + RECORD_CHUNK - 1) / RECORD_CHUNK; k++)
		free(tab[k]);
	free(tab);
	rs->shadow[i] = NULL;
}

void race_free(RaceState *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < 2 * rs->nslots; i++)
		drop_record(rs, i);
	free(rs->shadow);
	free(rs->sites);
	arena_free(&rs->arena);
	free(rs);
}

static void race_access(const Insn *in, Scalar *R, Ctx *c);
static void race_access_o(const Insn *in, Scalar *R, Ctx *c);
static void race_access_i(const Insn *in, Scalar *R, Ctx *c);
static void race_access_oi(const Insn *in, Scalar *R, Ctx *c);

const void *race_site(RaceState *rs, const FaultSite *site, int kind, int n, bool outer, bool inner, InsnFn *fn)
{
	const Mem *m = site->mem;
	/* an alloc with a home is private to an iteration of the thread or global loop */
	outer = outer && !(m->is_alloc && m->home);
	*fn = n > 1 ? race_access : outer && inner ? race_access_oi : outer ? race_access_o : race_access_i;
	if (!outer && !inner) {
		*fn = NULL;
		return NULL;
	}
	RaceSite *s = arena_alloc(&rs->arena, sizeof *s);
	int slot = m->is_alloc ? rs->p->nbufs + m->index : m->index;
	s->site = site;
	s->kind = kind;
	s->outer = outer;
	s->inner = inner;
	s->cells[OUTER] = &rs->shadow[2 * slot + OUTER];
	s->cells[INNER] = &rs->shadow[2 * slot + INNER];
	if (rs->nsites == rs->capsites) {
		rs->capsites = rs->capsites ? 2 * rs->capsites : 64;
		rs->sites = xrealloc(rs->sites, (size_t)rs->capsites * sizeof *rs->sites);
	}
	s->id = rs->nsites;
	rs->sites[rs->nsites++] = s;
	return s;
}

/* A new instance number. When the numbers run out, every record is dropped (a race across
 * that moment can be missed; none is ever invented). */
static uint32_t new_inst(RaceState *rs)
{
	if (rs->next_inst == UINT32_MAX) {
		for (int i = 0; i < 2 * rs->nslots; i++)
			drop_record(rs, i);
		rs->bytes = 0;
		rs->next_inst = 1;
	}
	return rs->next_inst++;
}

/* Enters loop S (index register REG) at level LV: a new instance, or in a nest the next
 * dimension of the running one. */
static void enter(RaceState *rs, const Stmt *s, int32_t reg, int lv)
{
	if ((s->axis == AX_GLOBAL || s->axis == AX_LOCAL) && s->nest && s->nest != s) {
		rs->cur.regs[lv][s->dim] = reg;
		rs->cur.on[lv] |= 1u << s->dim;
		return;
	}
	uint32_t inst = new_inst(rs);
	if (lv == INNER) {
		rs->cur.iinst = inst;
		rs->cur.ireg = reg;
		rs->cur.iloop = s;
	} else {
		rs->cur.oinst = inst;
		rs->cur.oreg = reg;
		rs->cur.oloop = s;
		rs->cur.iinst = 0;
	}
	rs->cur.nd[lv] = s->ndims > 1 ? s->ndims : 1;
	for (int d = 0; d < rs->cur.nd[lv]; d++)
		rs->cur.bounds[lv][d] = s->ndims > 1 ? s->dims[d]->bound_lit : 1;
	rs->cur.regs[lv][s->ndims > 1 ? s->dim : 0] = reg;
	rs->cur.on[lv] = 1u << (s->ndims > 1 ? s->dim : 0);
}

/* The iteration running at level LV: the index, or a nest's flat tuple number. */
static inline int32_t iter_at(const RaceState *rs, const Scalar *R, int lv)
{
	const RaceCur *k = &rs->cur;
	if (k->nd[lv] <= 1)
		return (int32_t)R[lv == INNER ? k->ireg : k->oreg].i;
	int64_t f = 0;
	for (int d = k->nd[lv] - 1; d >= 0; d--)
		f = f * k->bounds[lv][d] + (k->on[lv] >> d & 1 ? R[k->regs[lv][d]].i : 0);
	return (int32_t)f;
}

void race_insn_loop(const Insn *in, Scalar *R, Ctx *c)
{
	RaceState *rs = c->race;
	const LoopInfo *L = in->aux;
	const Stmt *s = in->base;
	RaceCur saved = rs->cur;
	enter(rs, s, L->idx, s->axis == AX_LOCAL ? INNER : OUTER);
	if (L->nzero)
		insn_loop_zero(in, R, c);
	else
		insn_loop(in, R, c);
	rs->cur = saved;
}

/* ---- the report ---- */

static const char *kind_verb(int kind)
{
	switch (kind) {
	case RACE_READ: return "reads";
	case RACE_WRITE: return "writes";
	case RACE_ADD: return "does atomic.add on";
	case RACE_MIN: return "does atomic.min on";
	default: return "does atomic.max on";
	}
}

/* "threads" / "thread" for a local loop, "blocks" for a global one, "iterations" for a
 * thread loop. */
static const char *iter_word(const Stmt *loop, bool plural)
{
	switch (loop->axis) {
	case AX_LOCAL: return plural ? "threads" : "thread";
	case AX_GLOBAL: return plural ? "blocks" : "block";
	default: return plural ? "iterations" : "iteration";
	}
}

/* Iteration I of LOOP (the outermost of a nest) as messages write it: "t=3", or
 * "(ty=0, tx=3)" for a nest's flat tuple number. */
static void iter_text(char *buf, size_t n, const Stmt *loop, int64_t i)
{
	if (loop->ndims <= 1) {
		snprintf(buf, n, "%s=%lld", loop->sym->name, (long long)i);
		return;
	}
	int64_t v[3];
	for (int d = 0; d < loop->ndims; d++) {
		v[d] = i % loop->dims[d]->bound_lit;
		i /= loop->dims[d]->bound_lit;
	}
	size_t len = (size_t)snprintf(buf, n, "(");
	for (int d = loop->ndims - 1; d >= 0 && len < n; d--)
		len += (size_t)snprintf(buf + len, n - len, "%s=%lld%s", loop->dims[d]->sym->name, (long long)v[d],
					d ? ", " : ")");
}

/* Reports the race between the earlier access OTHER and the access NOW of iteration J at
 * element ELEM, on level LV, and leaves the run. */
static _Noreturn __attribute__((noinline, cold)) void report(Ctx *c, int lv, const RaceSite *now, int32_t j, Acc other, int64_t elem)
{
	RaceState *rs = c->race;
	UirProgram *p = rs->p;
	const RaceSite *o = rs->sites[other.site];
	const Stmt *loop = lv == INNER ? rs->cur.iloop : rs->cur.oloop;
	const char *mem = now->site->mem->name;
	char pair[640], where[256], a[128], b[128];
	iter_text(a, sizeof a, loop, other.iter);
	iter_text(b, sizeof b, loop, j);
	if (o->kind == now->kind && o->kind == RACE_WRITE)
		snprintf(pair, sizeof pair, "%s %s and %s both write %s[%lld]", iter_word(loop, true), a, b, mem,
			 (long long)elem);
	else
		snprintf(pair, sizeof pair, "%s %s %s %s[%lld] and %s %s %s it", iter_word(loop, false), a,
			 kind_verb(o->kind), mem, (long long)elem, iter_word(loop, false), b, kind_verb(now->kind));
	if (lv == INNER) {
		const Stmt *g = rs->cur.oloop;
		char blk[128];
		iter_text(blk, sizeof blk, g, iter_at(rs, rs->R, OUTER));
		snprintf(where, sizeof where, "in one phase (the local loop at line %d) of block %s", loop->loc.line, blk);
	} else if (loop->axis == AX_GLOBAL)
		snprintf(where, sizeof where, "in one kernel (the global loop at line %d)", loop->loc.line);
	else
		snprintf(where, sizeof where, "in one run of the thread loop at line %d", loop->loc.line);
	diag(p, now->site->loc, "E0504", "race: %s, %s", pair, where);
	char msg[512];
	snprintf(msg, sizeof msg, "the other access: the %s %s[%lld] by %s %s", o->site->what, mem,
		 (long long)elem, iter_word(loop, false), a);
	diag_note_at(p, o->site->loc, msg);
	longjmp(c->fault, 1);
}

/* ---- the record ---- */

/* The cell of element E in the record of S's memory at level LV, allocating its chunk (and
 * the table of chunks) on first use: a huge buffer touched at a few places costs a few
 * chunks. Past the budget (half the physical memory) it reports out of memory. */
static __attribute__((noinline)) Cell *new_cells(Ctx *c, const RaceSite *s, int lv, int64_t e)
{
	RaceState *rs = c->race;
	const Mem *m = s->site->mem;
	int64_t nchunks = (m->size + RECORD_CHUNK - 1) / RECORD_CHUNK;
	Cell **tab = *s->cells[lv];
	if (!tab)
		tab = *s->cells[lv] = xcalloc((size_t)nchunks, sizeof *tab);
	int64_t k = e / RECORD_CHUNK;
	int64_t n = k == nchunks - 1 ? m->size - k * RECORD_CHUNK : RECORD_CHUNK;
	size_t bytes = (size_t)n * sizeof(Cell);
	Cell *x = rs->bytes + bytes <= rs->budget ? calloc((size_t)n, sizeof *x) : NULL;
	if (!x) {
		fprintf(rs->p->err, "%s: error: out of memory for the race check's record of %s (%zu bytes in use)\n",
			rs->p->path, m->name, rs->bytes);
		rs->p->nerrors++;
		longjmp(c->fault, 1);
	}
	rs->bytes += bytes;
	tab[k] = x;
	return x + (e - k * RECORD_CHUNK);
}

#define IS_ATOMIC(k) ((k) >= RACE_ADD)

/* Records the access S of iteration J of instance INST at element E of level LV, or
 * reports the race it makes. */
static inline __attribute__((always_inline)) void record(Ctx *c, const RaceSite *s, int lv, uint32_t inst,
								int32_t j, int64_t e)
{
	Cell **tab = *s->cells[lv], *x;
	uint64_t chunk = (uint64_t)e >> RECORD_CHUNK_BITS; /* e >= 0: checked in bounds before */
	if (__builtin_expect(tab && (x = tab[chunk]), 1))
		x += (uint64_t)e & (RECORD_CHUNK - 1);
	else
		x = new_cells(c, s, lv, e);
	int k = s->kind;
	Acc me = { j, s->id };
	if (k == RACE_READ) {
		if (x->winst == inst) {
			if (x->w0.iter != j)
				report(c, lv, s, j, x->w0, e);
			if (x->wmulti && x->w1.iter != j)
				report(c, lv, s, j, x->w1, e);
		}
		if (x->rinst != inst) {
			x->rinst = inst;
			x->r0 = me;
			x->r1.site = -1;
		} else if (x->r0.iter == j) {
			x->r0.site = s->id;
		} else {
			x->r1 = x->r0;
			x->r0 = me;
		}
		return;
	}
	/* write-like: a store or an atomic */
	if (x->rinst == inst) {
		if (x->r0.iter != j)
			report(c, lv, s, j, x->r0, e);
		if (x->r1.site >= 0 && x->r1.iter != j)
			report(c, lv, s, j, x->r1, e);
	}
	if (x->winst != inst) {
		x->winst = inst;
		x->w0 = me;
		x->w1.site = -1;
		x->wkinds = (uint8_t)(1u << k);
		x->wmulti = 0;
		return;
	}
	const RaceSite *const *sites = c->race->sites;
	if (x->wmulti) {
		/* several iterations, all one atomic op */
		if (k != sites[x->w0.site]->kind)
			report(c, lv, s, j, x->w0.iter != j ? x->w0 : x->w1, e);
		if (x->w0.iter != j)
			x->w1 = x->w0;
		x->w0 = me;
		return;
	}
	if (x->w0.iter == j) {
		/* one iteration so far: keep the latest access of another kind in w1 */
		if (k != sites[x->w0.site]->kind)
			x->w1 = x->w0;
		x->w0 = me;
		x->wkinds |= (uint8_t)(1u << k);
		return;
	}
	if (!IS_ATOMIC(k) || x->wkinds != (1u << k))
		report(c, lv, s, j, sites[x->w0.site]->kind != k || x->w1.site < 0 ? x->w0 : x->w1, e);
	x->w1 = x->w0;
	x->w0 = me;
	x->wmulti = 1;
}

/* The hooks: scalar accesses at the outer level, the inner level, or both; any width. */
static void race_access_o(const Insn *in, Scalar *R, Ctx *c)
{
	RaceState *rs = c->race;
	rs->R = R;
	record(c, in->aux, OUTER, rs->cur.oinst, iter_at(rs, R, OUTER), R[in->a].i);
}

static void race_access_i(const Insn *in, Scalar *R, Ctx *c)
{
	RaceState *rs = c->race;
	rs->R = R;
	record(c, in->aux, INNER, rs->cur.iinst, iter_at(rs, R, INNER), R[in->a].i);
}

static void race_access_oi(const Insn *in, Scalar *R, Ctx *c)
{
	RaceState *rs = c->race;
	rs->R = R;
	record(c, in->aux, INNER, rs->cur.iinst, iter_at(rs, R, INNER), R[in->a].i);
	record(c, in->aux, OUTER, rs->cur.oinst, iter_at(rs, R, OUTER), R[in->a].i);
}

/* A vector access (n elements). The offsets are in bounds: the access before this hook
 * checked them. */
static void race_access(const Insn *in, Scalar *R, Ctx *c)
{
	RaceState *rs = c->race;
	const RaceSite *s = in->aux;
	bool outer = s->outer, inner = s->inner;
	rs->R = R;
	int64_t off = R[in->a].i;
	int32_t oi = outer ? iter_at(rs, R, OUTER) : 0, ii = inner ? iter_at(rs, R, INNER) : 0;
	for (int l = 0; l < in->n; l++) {
		if (inner)
			record(c, s, INNER, rs->cur.iinst, ii, off + l);
		if (outer)
			record(c, s, OUTER, rs->cur.oinst, oi, off + l);
	}
}

/* ---- the static check before a run with --racecheck ---- */

int race_check_program(UirProgram *p, FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int n = uir_check(p, 0, mem ? mem : err);
	if (mem)
		fclose(mem);
	p->err = err;
	if (n && !strncmp(p->first_code, "E05", 3)) {
		/* only the race rules reject it: run it and report the races that happen */
		uir_eprintf(err, "%s: note: `uir check` rejects this program (%s at line %d); --racecheck runs it anyway and "
			"reports only races that happen\n", p->path, p->first_code, p->first_loc.line);
		p->first_code[0] = 0;
		p->nerrors = 0;
		n = 0;
	} else if (n && text) {
		fputs(text, err);
	}
	free(text);
	return n;
}
