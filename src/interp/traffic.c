/* traffic.c - `uir run --traffic` (see traffic.h): which elements of each buffer the run read
 * before writing them, and which it wrote.
 *
 * Each element has two bits: R, set when its first access in the run reads it (a load, or an
 * atomic, which reads the old value), and W, set by any store or atomic. An element that is
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
	TrafficMem *mems; /* one per buffer */
};

TrafficState *traffic_new(UirProgram *p)
{
	TrafficState *ts = xcalloc(1, sizeof *ts);
	ts->p = p;
	ts->mems = xcalloc((size_t)p->nbufs + 1, sizeof *ts->mems);
	return ts;
}

void traffic_free(TrafficState *ts)
{
	if (!ts)
		return;
	for (int i = 0; i < ts->p->nbufs; i++)
		free(ts->mems[i].bits);
	free(ts->mems);
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

const void *traffic_site(TrafficState *ts, const Mem *b, int kind, InsnFn *fn)
{
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
