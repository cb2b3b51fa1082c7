/* uir_helpers.h - the runtime helpers as text, for the renderers.
 *
 * The table is generated at build time by runtime/embed.py from the marked runtime
 * headers (uir_ops.h, uir_init.h, uir_npy.h, uir_print.h, uir_math.h; see
 * runtime/README.md). A renderer that calls a helper NAME writes, each once and in this
 * order, the helpers NAME needs (recursively, dependencies first) and then NAME's text,
 * after its own preamble: the includes the helpers use (<stdint.h>, <string.h>,
 * <math.h>, <stdio.h>, <stdlib.h>) and a definition of UIR_FN ("static inline" in C,
 * "static __device__ inline" in CUDA).
 */
#ifndef UIR_HELPERS_H
#define UIR_HELPERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* One helper: a C function of the runtime. */
typedef struct UirHelper {
	const char *name;  /* the C function name, e.g. "uir_div_i32" */
	const char *needs; /* the helpers it calls, space-separated ("" if none) */
	const char *text;  /* its exact source text (comment and definition), ending in '\n' */
} UirHelper;

/* Every helper, in header order; a helper's needs may come before or after it. */
extern const UirHelper uir_helpers[];
extern const int uir_helper_count;

/* The helper called NAME, or NULL if there is none. */
const UirHelper *uir_helper_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* UIR_HELPERS_H */
