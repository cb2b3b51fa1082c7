/* interp.h - the reference interpreter (docs/language.md sections 4 and 5): runs a checked
 * program sequentially, exactly as docs/language.md 4.5 defines every op, over buffers set up
 * by src/cli/buffers.h. */
#ifndef UIR_INTERP_H
#define UIR_INTERP_H

#include "../uir_internal.h"

/* Runs the checked program P in place over BUFS (BUFS[i]: the data of p->bufs[i], as
 * buffers_create() makes it). Loops run in order whatever their axis; allocs are zeroed
 * at the start and at every iteration of their home loop. Every access is bounds-checked.
 * Returns 0, or 1 after printing an E0601 diagnostic (p->err) for the first access out
 * of bounds (the buffers then hold a partial result), or after printing an out-of-memory
 * error for the allocs. OPT may be NULL; its fields are not used yet (runs are
 * sequential and always checked). */
int interp_run(UirProgram *p, void **bufs, const RunOptions *opt);

/* `uir run --racecheck` (racecheck.c): as interp_run, and records every access of the
 * parallel loops; returns 1 after printing E0504 for the first two iterations that race. */
int interp_run_racecheck(UirProgram *p, void **bufs);
/* `uir run --traffic` (traffic.c): what a run did to one buffer, in elements. */
typedef struct UirTraffic {
	int64_t read;    /* elements whose first access in the run reads them (a load or an atomic) */
	int64_t written; /* elements that a store or an atomic wrote */
} UirTraffic;
/* As interp_run, and counts for every buffer I of P what the run read and wrote into OUT[I]
 * (p->nbufs of them; also when the run faults: up to the fault). */
int interp_run_traffic(UirProgram *p, void **bufs, UirTraffic *out);
/* The check before such a run: as uir_check(P, 0, ERR), but a program that only the race
 * rules (E05) reject passes, with a one-line note on ERR. Returns the number of errors. */
int race_check_program(UirProgram *p, FILE *err);

#endif
