/* traffic.h - the count of `uir run --traffic` (traffic.c), inside the reference interpreter:
 * for every buffer, the elements whose first access in the run reads them (by a load whose
 * value the program necessarily uses, or an atomic) and the elements written.
 *
 * With the count on, compile.c emits one extra instruction after each load, store and
 * atomic of a buffer (traffic_hook()), which marks the elements the access touched; without
 * it the interpreter's code is exactly what it was.
 */
#ifndef UIR_INTERP_TRAFFIC_H
#define UIR_INTERP_TRAFFIC_H

#include "interp.h"
#include "interp_int.h"

typedef struct TrafficState TrafficState;

/* A new record for the buffers of program P, every element untouched. */
TrafficState *traffic_new(UirProgram *p);
/* The counts of buffer I, into OUT[I] for every buffer. */
void traffic_counts(const TrafficState *ts, UirTraffic *out);
void traffic_free(TrafficState *ts);

/* compile.c: the hook after an access to buffer B (LOAD: the load expression, for a read),
 * of kind TRAFFIC_*: its instruction function in *FN (NULL: none, a load whose value the
 * program does not necessarily use, traffic.c), its aux in the return value. The hook's a
 * is the access's offset register, n its width. */
enum { TRAFFIC_READ, TRAFFIC_WRITE, TRAFFIC_UPDATE };
const void *traffic_site(TrafficState *ts, const Mem *b, const Expr *load, int kind, InsnFn *fn);

#endif
