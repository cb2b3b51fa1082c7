/* racecheck.h - the dynamic race check of `uir run --racecheck` (racecheck.c), inside the
 * reference interpreter.
 *
 * With the check on, compile.c emits two extra kinds of instructions and nothing else
 * changes: each parallel loop (`thread`, `global`, `local`) runs through race_insn_loop(),
 * which opens a new instance of that loop and then runs the ordinary loop instruction, and
 * each load, store and atomic is followed by a hook (race_site()), which records the access
 * in a shadow of the memory and compares it with the earlier ones. Without the check the
 * interpreter's code is exactly what it was: no flag is tested while running.
 */
#ifndef UIR_INTERP_RACECHECK_H
#define UIR_INTERP_RACECHECK_H

#include "interp_int.h"

typedef struct RaceState RaceState;

/* A new, empty race record for program P (checked, homes computed). */
RaceState *race_new(UirProgram *p);
void race_free(RaceState *rs);

/* compile.c: the hook for an access (FaultSite SITE, of kind RACE_*, N elements) that stands
 * inside a `thread` or `global` loop (OUTER) and/or a `local` loop (INNER): its instruction
 * function in *FN (NULL: no hook needed, the access cannot race) and the data for its aux.
 * The hook follows the access; its a is the access's offset register, n its width. */
enum { RACE_READ, RACE_WRITE, RACE_ADD, RACE_MIN, RACE_MAX };
const void *race_site(RaceState *rs, const FaultSite *site, int kind, int n, bool outer, bool inner, InsnFn *fn);
/* A parallel loop: aux its LoopInfo (as insn_loop), base its Stmt. */
void race_insn_loop(const Insn *in, Scalar *R, Ctx *c);

#endif
