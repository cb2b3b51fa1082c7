/* interp.c - the reference interpreter's entry point and its control-flow instructions
 * (loops, if). The program is compiled to instruction blocks (compile.c) and run over one
 * register file; a fault leaves the run by longjmp to interp_run(). */
#include "interp.h"
#include "interp_int.h"
#include "../util/escape.h"
#include "../util/messages.h"
#include "racecheck.h"
#include "traffic.h"
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

/* On entry to a loop whose bound is not a literal: the largest offset of each access whose
 * top digit is this loop's index must fit in i32 (docs/language.md 4.8.3), else E0601. */
static void check_overflow(const LoopInfo *L, int32_t n, Ctx *c)
{
	for (int i = 0; i < L->novf; i++) {
		const OverflowCheck *o = &L->ovf[i];
		if (overflow_top(o, n) > INT32_MAX) {
			FaultSite s = { o->mem, o->at, NULL, 1, o };
			char msg[MSG_MAX];
			msg_fault_at(msg, &s, n);
			diag(c->p, o->at, "E0601", "%s", msg);
			longjmp(c->fault, 1);
		}
	}
}

void insn_loop(const Insn *in, Scalar *R, Ctx *c)
{
	const LoopInfo *L = in->aux;
	int32_t n = (int32_t)R[L->bound].i; /* evaluated once, on entry */
	if (L->novf && n >= 1)
		check_overflow(L, n, c);
	Scalar *idx = &R[L->idx];
	for (int32_t i = 0; i < n; i++) {
		idx->i = i;
		run_block(&L->body, R, c);
	}
}

void insn_loop_zero(const Insn *in, Scalar *R, Ctx *c)
{
	const LoopInfo *L = in->aux;
	int32_t n = (int32_t)R[L->bound].i;
	if (L->novf && n >= 1)
		check_overflow(L, n, c);
	Scalar *idx = &R[L->idx];
	for (int32_t i = 0; i < n; i++) {
		for (int k = 0; k < L->nzero; k++)
			memset(L->zbase[k], 0, L->zbytes[k]);
		idx->i = i;
		run_block(&L->body, R, c);
	}
}

void insn_if(const Insn *in, Scalar *R, Ctx *c)
{
	const IfInfo *I = in->aux;
	if (R[in->a].u)
		run_block(&I->then_, R, c);
	else
		run_block(&I->else_, R, c);
}

/* Allocates every alloc, zero-filled. NULL (after a message) when memory runs out. */
static void **make_allocs(UirProgram *p)
{
	void **a = xcalloc((size_t)p->nallocs + 1, sizeof *a);
	for (int i = 0; i < p->nallocs; i++) {
		const Mem *m = p->allocs[i];
		a[i] = calloc((size_t)m->size, (size_t)uir_type_size(m->ty));
		if (!a[i]) {
			char msg[MSG_MAX];
			msg_out_of_memory_for(msg, p->path, "alloc", m);
			uir_eprintf(p->err, "%s", msg);
			for (int j = 0; j < i; j++)
				free(a[j]);
			free(a);
			return NULL;
		}
	}
	return a;
}

/* Runs P over BUFS; RACE (or NULL) is run --racecheck's record, TRAFFIC (or NULL) run
 * --traffic's. */
static int run(UirProgram *p, void **bufs, RaceState *race, TrafficState *traffic)
{
	void **allocs = make_allocs(p);
	if (!allocs)
		return 1;
	Arena arena = { 0 };
	Compiled code;
	interp_compile(p, bufs, allocs, &arena, &code, race, traffic);
	Scalar *R = xmalloc((size_t)code.nregs * sizeof *R);
	memcpy(R, code.init, (size_t)code.nregs * sizeof *R);
	Ctx c;
	c.p = p;
	c.race = race;
	int rc = 0;
	if (setjmp(c.fault) == 0)
		run_block(&code.top, R, &c);
	else
		rc = 1;
	free(R);
	free(code.init);
	arena_free(&arena);
	for (int i = 0; i < p->nallocs; i++)
		free(allocs[i]);
	free(allocs);
	return rc;
}

int interp_run(UirProgram *p, void **bufs, const RunOptions *opt)
{
	(void)opt;
	return run(p, bufs, NULL, NULL);
}

int interp_run_racecheck(UirProgram *p, void **bufs)
{
	RaceState *race = race_new(p);
	int rc = run(p, bufs, race, NULL);
	race_free(race);
	return rc;
}

int interp_run_traffic(UirProgram *p, void **bufs, UirTraffic *out)
{
	TrafficState *traffic = traffic_new(p);
	int rc = run(p, bufs, NULL, traffic);
	traffic_counts(traffic, out);
	traffic_free(traffic);
	return rc;
}
