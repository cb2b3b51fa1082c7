/* uir.h - the public C API of the uir toolchain.
 *
 * A program goes through three steps: uir_load() reads and parses a .uir file and
 * resolves names and types; uir_check() applies the axis, bounds and race rules and
 * records what the back ends need (alloc homes, phases, kernels); a back end then runs
 * or renders the checked program. Diagnostics are printed on the UirCtx's error stream
 * as `FILE:LINE:COL: error[CODE]: message` with the source line and a caret.
 *
 * Ownership: every structure reachable from a UirProgram lives in the program's arena
 * and is freed by uir_free(). No function keeps a pointer to a caller's memory.
 */
#ifndef UIR_UIR_H
#define UIR_UIR_H

#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

/* Element types, in the order of docs/language.md 2.1. */
typedef enum UirType {
	UIR_BOOL, UIR_I8, UIR_U8, UIR_I32, UIR_U32, UIR_I64, UIR_U64, UIR_F32, UIR_F64,
	UIR_NTYPES
} UirType;

/* Exit codes of every command (docs/language.md 9.4). */
enum {
	UIR_EXIT_OK = 0,
	UIR_EXIT_ERROR = 1,       /* the program is wrong: any E code */
	UIR_EXIT_NOT_KERNEL = 2,  /* render-cuda: valid, but not in kernel form */
	UIR_EXIT_USAGE = 64,      /* bad command line */
	UIR_EXIT_INTERNAL = 70    /* a bug in uir */
};

/* The name of a type as written in .uir ("f32"), its size in bytes (bool: 1),
 * and numpy's dtype string for it ("<f4", "|b1"). */
const char *uir_type_name(UirType t);
int uir_type_size(UirType t);
const char *uir_type_npy_descr(UirType t);

typedef struct UirProgram UirProgram;

/* Options of uir_check(): STRICT, the course's race rules without the extensions (atomics,
 * one-thread branches, guarded sums, a single iteration, the exact analysis); NO_EXACT, the
 * rules with every extension but the exact analysis (docs/language.md 7.7.2). */
enum { UIR_CHECK_STRICT = 1, UIR_CHECK_NO_EXACT = 2 };

/* Reads, parses and types the program in PATH. Errors (E0001, E01xx, E02xx) go to ERR
 * (stderr when NULL). Returns the program, or NULL after printing the first error's
 * diagnostics. The caller frees the program with uir_free(). */
UirProgram *uir_load(const char *path, FILE *err);

/* As uir_load, from LEN bytes of TEXT (copied; need not be NUL-terminated). NAME is the
 * file name used in diagnostics and for resolving `file "x.npy"` paths. */
UirProgram *uir_load_text(const char *name, const char *text, size_t len, FILE *err);

/* Checks a loaded program (E03xx, E04xx, E05xx). Returns 0 when valid, else the number of
 * errors printed (first stage with errors only, in source order). */
int uir_check(UirProgram *p, unsigned flags, FILE *err);

/* The footprint picture (docs/commands.md, "uir check --footprint"). uir_check_footprint()
 * checks P as uir_check() does, with the same result, diagnostics and exit status, and
 * records for each checked code (a phase, a kernel, a thread loop) and each memory it
 * accesses which iterations of its parallel index read and wrote each element, with the
 * collisions the race check found; a program rejected for a race is recorded too (that is
 * what the picture is for). Nothing is recorded when an earlier stage fails (E01-E04).
 * uir_footprint_svg() returns that record drawn as SVG text (malloc'ed, NUL-terminated; its
 * length in *LEN when LEN is not NULL; free it with free()), or NULL when nothing was
 * recorded. uir_footprint_write() writes it to PATH without leaving a partial file (a
 * temporary file in PATH's folder, then renamed; a device or FIFO is written directly):
 * 0, or -1 with the reason in *WHY (a static string). */
int uir_check_footprint(UirProgram *p, unsigned flags, FILE *err);
char *uir_footprint_svg(const UirProgram *p, size_t *len);
int uir_footprint_write(const UirProgram *p, const char *path, const char **why);

/* Frees everything the program owns. NULL is allowed. */
void uir_free(UirProgram *p);

/* The program's buffers, in declaration order (b0, b1, ...). */
int uir_buffer_count(const UirProgram *p);
const char *uir_buffer_name(const UirProgram *p, int i);
UirType uir_buffer_type(const UirProgram *p, int i);
int64_t uir_buffer_size(const UirProgram *p, int i); /* elements */

/* The code of the first error printed by uir_load/uir_check ("E0503"), or "" if none. */
const char *uir_first_error(const UirProgram *p);

#endif
