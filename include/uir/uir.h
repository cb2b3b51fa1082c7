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

/* ---- libuir.so (src/api/): the library the Python module `uir` calls (docs/python.md) ----
 *
 * Every function below may be called from several threads at once (they take one lock
 * where they touch a program; a UirJob is used by one thread at a time), reports what went
 * wrong in a UirError instead of printing it, and never changes the program it is given: each check, rendering or run works on a
 * fresh copy of the program's text, as one `uir` command would. A run happens in a child
 * process (fork), so that it can be stopped at any time (uir_job_free), and so that a
 * crash or an internal error in it (exit 70) ends the child, not the caller. */

/* What went wrong in one call: the exit status `uir` would have had, the first error it
 * printed and everything it printed on standard error. Zero it before its first use;
 * uir_error_clear() frees what a call left in it (each call clears it first). */
typedef struct UirError {
	int status;          /* UIR_EXIT_OK, _ERROR, _NOT_KERNEL, _USAGE or _INTERNAL */
	char code[8];        /* the first error's code ("E0503"); "" for one without a code
	                      * (usage, out of memory, internal, not in kernel form) */
	int line, col;       /* the place of the first error with a code, 1-based; 0 when it
	                      * has none (its diagnostic then says 1:1) */
	char message[1024];  /* its message (after `error[CODE]: `), control bytes as '?';
	                      * without a code: the first line printed, or the reason a program
	                      * is not in kernel form (after `invalid: `) */
	int signal;          /* a run only: the signal that ended its process (SIGINT when it was
	                      * interrupted, SIGKILL when uir_job_free stopped it), else 0 */
	char *text;          /* every diagnostic as `uir` prints it on standard error, the source
	                      * lines and carets included, NUL-terminated; NULL when empty */
} UirError;

/* Frees E->text and zeroes E. */
void uir_error_clear(UirError *e);

/* Frees a text the library returned (uir_render_text, uir_footprint_text). NULL is allowed. */
void uir_text_free(char *text);

/* uir_load(PATH) and uir_load_text(NAME, TEXT, LEN) with the diagnostics in E (cleared
 * first) instead of on a stream: NULL with E->status 1 when the program does not load.
 * The program is freed with uir_close(). */
UirProgram *uir_open(const char *path, UirError *e);
UirProgram *uir_open_text(const char *name, const char *text, size_t len, UirError *e);

/* uir_free() under the library's lock (so that it may run while another thread checks a
 * program). NULL is allowed. */
void uir_close(UirProgram *p);

/* `uir check` (FLAGS: UIR_CHECK_STRICT, UIR_CHECK_NO_EXACT) of a copy of P. Returns 0 when
 * it is valid, else E->status (1) with the diagnostics in E. */
int uir_verify(const UirProgram *p, unsigned flags, UirError *e);

/* `uir check --footprint` (FLAGS as for uir_verify()) of a copy of P: the footprint picture
 * (docs/footprint.md), drawn whether the program passes the race check or not. Returns 0
 * when there is a picture: *OUT gets it as SVG text (malloc'ed, NUL-terminated; free it with
 * uir_text_free), written also to PATH when PATH is not NULL (as uir_footprint_write()
 * writes it: no partial file), and E holds the check's verdict: empty for a valid program,
 * else E->status 1 with the diagnostics (a race, which the picture shows in red). Returns 1
 * when there is none, with *OUT NULL: the program does not load or the check stops before
 * the race rules (E: its errors, as uir_verify() gives them), or PATH cannot be written
 * (E->message `uir check: cannot write PATH: REASON`, no code). E->text is what `uir check
 * [--footprint PATH] FILE` prints on standard error. */
int uir_footprint_text(const UirProgram *p, unsigned flags, const char *path, char **out, UirError *e);

/* `uir render` (CUDA false) or `uir render-cuda` (CUDA true), with `--main` when MAIN, of
 * a copy of P: *OUT gets the text (malloc'ed, NUL-terminated; free it with uir_text_free)
 * and 0 is returned; else *OUT is NULL and the status is returned: 1 for a wrong program,
 * UIR_EXIT_NOT_KERNEL (render-cuda) with the reason in E->message. */
int uir_render_text(const UirProgram *p, bool cuda, bool main, char **out, UirError *e);

/* An input of a run: new contents for buffer NAME, COUNT elements of numpy's dtype string
 * DTYPE ("<f4", "|b1": numpy.dtype.str) at DATA, in C order unless FORTRAN_ORDER (then
 * refused, as a Fortran-order .npy file is). It is checked as `run --input` checks a file's
 * header: a dtype other than the buffer's, Fortran order or another element count is
 * E0203 at the buffer's declaration (`input NAME: REASON`); an unknown NAME is a usage
 * error (64). DATA is read only by the run's process, as it was when uir_run_start()
 * returned: the caller may change or free it from then on. */
typedef struct UirInput {
	const char *name;
	const void *data;
	const char *dtype;
	int64_t count;
	int fortran_order;
} UirInput;

/* How to run: the options of `uir run`. */
enum {
	UIR_RUN_NO_BOUNDS_CHECK = 1, /* --no-bounds-check */
	UIR_RUN_NO_OPT = 2,          /* --no-opt */
	UIR_RUN_NO_CACHE = 4,        /* --no-cache */
	UIR_RUN_RACECHECK = 8        /* --racecheck */
};
typedef struct UirRunSpec {
	const char *engine;     /* "auto" (also NULL), "jit" or "interp" (--engine) */
	int threads;            /* --threads, 1 to 1024; 0: UIR_THREADS, else the core count */
	unsigned flags;         /* UIR_RUN_* */
	const UirInput *inputs; /* NINPUTS inputs (--input), each buffer at most once */
	int ninputs;
} UirRunSpec;

/* A run in progress: `uir run` of a copy of a program, in a child process. */
typedef struct UirJob UirJob;

/* Starts `uir run` of a copy of P as SPEC says. Returns the job, or NULL with E->status
 * (out of memory for the buffers' shared memory, or no process could be made). The
 * job's errors come from uir_job_finish(). */
UirJob *uir_run_start(const UirProgram *p, const UirRunSpec *spec, UirError *e);

/* Waits at most TIMEOUT_MS milliseconds (0: not at all; negative: until the end) for J's
 * run to end. Returns 1 when it has ended, 0 when it still runs. */
int uir_job_wait(UirJob *j, int timeout_ms);

/* Waits for J's run to end and returns its exit status, `uir run`'s (0 when it ran; 1 for
 * an E code, 64, 70), with E filled in when it is not 0. A run whose process a signal
 * ended is status 70 with E->signal set (the text says which). */
int uir_job_finish(UirJob *j, UirError *e);

/* After uir_job_finish() returned 0: the contents of buffer I (uir_buffer_size() elements
 * of uir_buffer_type(), bool as bytes 0 and 1) after the run, owned by J. */
const void *uir_job_buffer(const UirJob *j, int i);

/* Frees J, ending its process first (SIGKILL) when it still runs. NULL is allowed. */
void uir_job_free(UirJob *j);

/* A whole run: uir_run_start(), uir_job_finish(), then each buffer I copied to OUT[I]
 * (uir_buffer_size(P, I) * uir_type_size() bytes; OUT[I] NULL to leave buffer I out) when
 * it ran. Returns the status of uir_job_finish(). */
int uir_run(const UirProgram *p, const UirRunSpec *spec, void *const *out, UirError *e);

#endif
