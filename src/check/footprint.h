/* footprint.h - the footprint picture of `uir check --footprint OUT.svg` (docs/commands.md):
 * for each checked code (a phase, a kernel, a thread loop; docs/language.md 7.1) and each
 * memory it accesses, which iteration of the parallel index wrote and read each element,
 * and the collisions the race check found. Nothing here analyses the program: races.c
 * records into these tables from its own exact analysis (the enumeration of
 * docs/language.md 7.6.4, the witness pairs of its messages), and footprint.c only keeps
 * the records and draws them as SVG. The tables exist only when a caller asked for them
 * (UirProgram.footprint, set by uir_check_footprint()); `uir check` without the option
 * never touches them.
 */
#ifndef UIR_CHECK_FOOTPRINT_H
#define UIR_CHECK_FOOTPRINT_H

#include "../uir_internal.h"

enum {
	FP_MAX_CELLS = 4096,      /* elements drawn per memory, at most: larger memories show a
	                           * window of whole rows (a sample, with a note) */
	FP_RECORD_MAX = 1 << 20,  /* distinct elements recorded per memory (like the exact
	                           * analysis's 2^20 written elements) */
	FP_PALETTE = 12,          /* iteration colours: the flat iteration number mod 12 */
};

typedef struct Footprint Footprint;
typedef struct FpCode FpCode;
typedef struct FpMem FpMem;

Footprint *fp_new(void);
void fp_free(Footprint *fp);
/* The race stage ran (the picture has something to say). */
void fp_ran(Footprint *fp);

/* A new checked code: KIND "phase", "kernel" or "thread loop", at AT (its parallel loop),
 * TITLE a line that names it, PNAME its parallel index as messages write it ("t", "(ty,
 * tx)"), ITERATIONS the iterations of that index (-1 when its bound is not a literal).
 * The strings must outlive the Footprint (the program's arena). */
FpCode *fp_code(Footprint *fp, const char *kind, Loc at, const char *title, const char *pname, int64_t iterations);

/* A memory of code C, in order of first access: STORED when the code stores into it (or
 * updates it atomically); SKIPPED, when not NULL, why it is not compared across iterations
 * (private to each one, docs/language.md 7.1.2): then nothing is recorded for it. */
FpMem *fp_mem(FpCode *c, const Mem *m, bool stored, const char *skipped);
/* Iteration P (its flat number) reads (WRITE false) or writes or updates (WRITE true)
 * element E of the memory. */
void fp_touch(FpMem *fm, int64_t e, int64_t p, bool write);
/* The recording of FM stopped early: WHY (a budget: OVER_BUDGET, or a value not known when
 * checking); what was recorded before is drawn, with a note. */
void fp_stopped(FpMem *fm, const char *why, bool over_budget);

/* A collision the race check reported in code C on memory M: iterations PA and PB (flat
 * numbers) at element E, both writing (BOTH_WRITE) or PA writing what PB reads; LABEL
 * ("t=1 / t=0") and MESSAGE (the checker's own witness text) drawn beside the cell. */
void fp_collision(FpCode *c, const Mem *m, int64_t e, int64_t pa, int64_t pb, bool both_write, const char *label,
		  const char *message);

/* The picture as SVG text of checked program P (its path in the title), malloc'ed and
 * NUL-terminated, its length in *LEN; NULL when the race stage did not run. */
char *fp_svg(const Footprint *fp, const UirProgram *p, size_t *len);

/* Writes the N bytes of TEXT to PATH with no partial file left behind: a temporary file
 * beside it, renamed over it (keeping an existing file's mode); a path that names a device
 * or a FIFO is written directly. 0, or -1 with *WHY from strerror(). */
int fp_write_file(const char *path, const char *text, size_t n, const char **why);

#endif
