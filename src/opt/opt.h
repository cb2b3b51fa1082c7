/* opt.h - the loop optimiser (src/opt/): decisions on the checked program that keep every
 * result bit, recorded on the tree for the LLVM lowering and `uir opt` (docs/llvm.md, "Loop
 * optimisation"). */
#ifndef UIR_OPT_H
#define UIR_OPT_H

#include "../uir_internal.h"

/* Work (src/cost.c units) from which a plain loop is worth the thread pool: waking the
 * workers and handing out chunks costs some tens of microseconds. UIR_AUTO_PARALLEL_WORK in
 * the environment overrides it (the tests set 0: every independent loop). */
#define OPT_PARALLEL_WORK 100000.0
/* Work of one iteration from which a loop whose body holds no loop is worth a call of the
 * pool per iteration (opt.c, loop_work()). */
#define OPT_ITERATION_WORK 1000.0

/* Sets Stmt.opt_parallel and Stmt.opt_inner over checked program P, once (UirProgram.
 * optimised). Its cost is the exact analysis's for the candidate loops. */
void opt_program(UirProgram *p);

/* interchange.c: the k loop of plain loop J when `loop j { LETS loop k { S } }` may run as
 * `loop k { loop j { LETS S } }` with every result bit kept and it pays, else NULL. */
const Stmt *interchange_inner(UirProgram *p, const Stmt *j);

#endif
