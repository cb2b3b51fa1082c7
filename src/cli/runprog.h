/* runprog.h - what `uir run` does between loading a program and printing its buffers: the
 * check, the inputs (.npy files of --input, or arrays in memory), the buffers, the race check
 * again when an input changes what the exact analysis read, and the run on an engine. One
 * path for the command (run.c) and the library (src/api/job.c), so that both check, refuse
 * and run a program alike and say so in the same words.
 */
#ifndef UIR_RUNPROG_H
#define UIR_RUNPROG_H

#include "buffers.h"
#include "engine.h"
#include "../interp/interp.h"

/* An input: new contents for the buffer NAME, from the .npy file PATH (`--input
 * NAME=PATH`), or, when PATH is NULL, from the array ARRAY (the library). Messages name it
 * as `--input NAME=PATH` and `input NAME` (buffers.c). */
typedef struct RunInput {
	const char *name, *path;
	BufferArray array;
} RunInput;

/* What to run and how. OPT's reset and reset_ctx are runprog's (the --repeat runs). */
typedef struct RunPlan {
	const RunInput *inputs;
	int ninputs;
	UirEngine engine;
	RunOptions opt;
	bool racecheck; /* --racecheck: the interpreter's dynamic race check (E0504) */
	bool seeded;    /* --seed: every `random` buffer drawn from SEED (buffers_seed()) */
	uint64_t seed;
	bool traffic;   /* --traffic: the interpreter, counting each buffer's bytes (traffic.c) */
	UirTraffic *traffic_out; /* with TRAFFIC: the counts, one per buffer (xmalloc'ed) */
} RunPlan;

/* Whether every input of PLAN names a buffer of P. Returns -1 when they do, else
 * UIR_EXIT_USAGE after `uir run: --input NAME: FILE has no buffer called 'NAME'` (`input
 * NAME: ...` for an array) on standard error. */
int runprog_names(const UirProgram *p, const RunPlan *plan);

/* Checks P as `run` does (uir_check with no flags; with PLAN->racecheck, race_check_program(),
 * which lets a program through that only the race rules reject). Returns -1 when it may
 * run, else UIR_EXIT_ERROR after its diagnostics on p->err. */
int runprog_check(UirProgram *p, const RunPlan *plan);

/* Runs the checked program P: checks every input (before any buffer is allocated), creates
 * the buffers (*DATA, freed by the caller with buffers_free(); NULL when not made), draws the
 * `random` ones from PLAN->seed when PLAN->seeded, loads the inputs, checks the races again when an input gives other values to a buffer the exact
 * analysis read (docs/language.md 7.6.2), and runs P on PLAN's engine (or in the race
 * check's interpreter). T (may be NULL) gets the engine's times. Returns -1 when P ran, else
 * the exit status after the messages: 1 for an E code or out of memory, 64 when the JIT is
 * asked for and missing, 70 for an internal error. */
int runprog_execute(UirProgram *p, RunPlan *plan, void ***data, UirRunTimes *t);

#endif
