/* jam.c - unroll-and-jam of in-order reductions into memory, a decision of the loop
 * optimiser (opt.c) that opt/rewrite.c carries out on the program's text (docs/llvm.md,
 * "Unroll-and-jam"). It turns
 *
 *     loop j N {                      loop j_o N/U {
 *       LETS                            loop k K {
 *       loop k K {            into        loop j_u U unroll {
 *         S                                 let j = add (mul j_o U) j_u
 *       }                                   LETS  S
 *     }                                   } } }
 *
 * (then `loop j_r N%U { let j = add j_r N-N%U  LETS  loop k K { S } }` for the rest),
 * where S reduces into memory at an offset that depends on j and not on k -- a product
 * accumulated in B[r,s] over t, a matrix-vector product into y[i] -- and the interchange of
 * j and k is legal but does not make the inner loop stride 1 (then interchange.c runs it
 * instead). Each reduction is an in-order chain of float additions of a few cycles'
 * latency; U of them side by side keep the adders busy, each element's order unchanged.
 *
 * Legality: that of the interchange (interchange_legal(): the only dependences are between
 * iterations with the same j, whose k order is kept; the bounds are invariant; every access
 * in bounds): the jammed order is an interchange within each block of U iterations of j.
 */
#include "opt.h"

int jam_candidate(UirProgram *p, const Stmt *j)
{
	if (j->kind != ST_LOOP || j->axis != AX_NONE || j->bound_lit < 2 * OPT_JAM)
		return 0;
	bool red = false;
	const Stmt *k = interchange_legal(p, j, &red);
	if (!k || !red || !k->value->rng.known || k->value->rng.hi <= OPT_EXPAND_MIN_TRIPS)
		return 0;
	if (stmts_code_size(j->body) * OPT_JAM > UIR_UNROLL_MAX_SIZE / 8)
		return 0;
	if (!rewrite_layout_ok(p, j, NULL) || !rewrite_layout_ok(p, k, NULL))
		return 0;
	return OPT_JAM;
}
