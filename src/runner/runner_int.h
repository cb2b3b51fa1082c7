/* runner_int.h - the private declarations of the test runner (src/runner/), grouped by the file
 * that owns them.
 *
 * The pipeline: collect.c finds the test files; directives.c reads each file's directives
 * into a UtSpec; modes.c turns the spec into a plan (a set of steps, each one child command
 * of `uir` or of a compiler) and judges each step's result; proc.c runs the children;
 * expect.c compares `run`'s output with the `# expect` lines; runner.c schedules the tests
 * and reports; junit.c writes the JUnit XML.
 */
#ifndef UIR_RUNNER_INT_H
#define UIR_RUNNER_INT_H

#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "uir/uir.h"
#include "../util/escape.h" /* uir_eprintf(): user text in messages, control bytes as ? */

/* The most tests `-j` runs at once (each holds two pipes and a process group). */
#define UT_MAX_JOBS 4096
#define UT_MAX_JOBS_TEXT "4096"

/* Exit statuses of `uir test` (docs/testing.md, "Exit status"). */
enum { UT_EXIT_OK = 0, UT_EXIT_FAILED = 1, UT_EXIT_USAGE = 64, UT_EXIT_INTERNAL = 70 };

/* ---- util.c: memory, growable byte buffers, strings ---- */

/* A growable byte buffer, always NUL-terminated when data is not NULL. LIMIT (bytes, 0 = no
 * limit) caps what is kept: further bytes are dropped and TRUNCATED is set. */
typedef struct UtBuf {
	char *data;
	size_t len, cap, limit;
	bool truncated;
} UtBuf;

void *ut_xmalloc(size_t n);            /* malloc, or exit 70 on exhaustion */
void *ut_xrealloc(void *p, size_t n);  /* realloc, or exit 70 */
char *ut_strdup(const char *s);        /* a malloc'd copy */
/* A malloc'd string formatted as by printf. */
char *ut_format(const char *fmt, ...) __attribute__((format(printf, 1, 2), nonnull(1)));
void ut_buf_add(UtBuf *b, const char *s, size_t n);  /* appends N bytes (up to the limit) */
void ut_buf_puts(UtBuf *b, const char *s);
void ut_buf_printf(UtBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), nonnull(2)));
void ut_buf_free(UtBuf *b);
/* The current time in seconds (CLOCK_MONOTONIC). */
double ut_now(void);
/* The length of the valid UTF-8 sequence at S (N bytes left, S[0] >= 0x80) of a character
 * that XML 1.0 allows, or 0. */
size_t ut_utf8_len(const unsigned char *s, size_t n);
/* A malloc'd copy of the first line of S (N bytes) with control characters as spaces and
 * bytes that are not UTF-8 as '?', cut to at most MAX bytes (with "..." when cut); "" when S
 * is empty. */
char *ut_first_line(const char *s, size_t n, size_t max);

/* S as a 64-bit seed, decimal or hex after 0x: 0, or -1 when it is not one. */
int ut_parse_seed(const char *s, uint64_t *v);

/* ---- collect.c: finding the tests ---- */

/* Adds the tests named by PATH to *LIST (a malloc'd vector of *N malloc'd paths): a file is
 * taken when its name ends in `.uir`; a folder is searched recursively for `.uir` files,
 * skipping names that start with a dot. Returns 0, or -1 after printing why on stderr when
 * PATH does not exist or cannot be read. */
int ut_collect(const char *path, char ***list, int *n);
/* Sorts the list bytewise and removes duplicates; returns the new count. */
int ut_sort_unique(char **list, int n);

/* ---- directives.c: a test file's directives ---- */

/* Mode and modifier bits of a test (docs/testing.md, "Directives"). */
enum {
	UT_MODE_RUN = 1 << 0,          /* `# run`, an `# expect`, or no mode at all */
	UT_MODE_ERROR = 1 << 1,        /* `# error EXXXX`, a compile-time code */
	UT_MODE_FAULT = 1 << 2,        /* `# error E0601`: check passes, run faults */
	UT_MODE_RENDER = 1 << 3,       /* `# render` */
	UT_MODE_CUDA = 1 << 4,         /* `# cuda` */
	UT_MODE_CUDA_SPEED = 1 << 5,   /* `# cuda speed: X` */
	UT_MODE_CUDA_INVALID = 1 << 6, /* `# cuda: invalid` */
	UT_MODE_STRICT = 1 << 7        /* `# strict`: every check uses check --strict */
};

/* One `# expect NAME: v0 v1 ...` line: the value texts as written. */
typedef struct UtExpect {
	char *name;
	char **vals;
	int nvals;
	int line;   /* 1-based line in the test file */
} UtExpect;

/* What a test file asks for. */
typedef struct UtSpec {
	unsigned modes;      /* UT_MODE_* bits; UT_MODE_RUN is added when no mode is given */
	char error[6];       /* "E0503" for `# error E0503`, else "" */
	double speed;        /* X of `# cuda speed: X`, else 0 */
	UtExpect *expects;
	int nexpects;
	size_t capexpects;   /* allocated room of EXPECTS */
	void *names;         /* while parsing: a tsearch tree of the expectations' names */
	char *bad;           /* malloc'd: why the directives contradict each other, or NULL */
} UtSpec;

/* Parses the directives at the top of TEXT (LEN bytes) into *SPEC (zeroed first). Never
 * fails: contradictions are reported in SPEC->bad. */
void ut_parse_spec(const char *text, size_t len, UtSpec *spec);
/* Reads the file PATH and parses its directives. Returns 0, or -1 with *WHY a malloc'd
 * message when the file cannot be read. */
int ut_read_spec(const char *path, UtSpec *spec, char **why);
void ut_spec_free(UtSpec *spec);

/* ---- expect.c: typed values and the `# expect` comparison ---- */

/* One value of a buffer's element type: its bits, zero-extended to 64 bits. */
typedef struct UtValue {
	uint64_t bits;
	bool nan;      /* a float NaN: equal to every NaN */
} UtValue;

/* Parses TEXT as one value of type T: integers in decimal (within the type's range) or hex
 * (`0x...`, a bit pattern of at most the type's width; `-0x...` a negative value); floats
 * with strtof (f32) or strtod (f64) semantics, so `inf -inf nan -0` too; bool `0 1 true
 * false`. Returns 0, or -1 when TEXT is not such a value. */
int ut_parse_value(const char *text, UirType t, UtValue *v);
/* Whether two values are equal bit for bit, any NaN matching any NaN. */
bool ut_value_eq(UtValue a, UtValue b);
/* Checks every `# expect` line of SPEC against OUT (`run`'s standard output, a file read as
 * a stream from its start; NULL: empty) with the buffer types of the program in PATH (loaded
 * in process with uir_load). Appends one line per failed expectation to FAILS, in the
 * expectations' order. Returns the number of failures. */
int ut_check_expects(const char *path, const UtSpec *spec, FILE *out, UtBuf *fails);
/* Describes the first difference between two outputs in `run`'s format (files read as
 * streams from their starts, NULL for an empty one; A from WHO_A, B from WHO_B), for example
 * "buffer y, element 3: run printed 2.5, rendered C printed 2.25". Returns a malloc'd
 * message, or NULL when the outputs are equal. Memory does not grow with the outputs. */
char *ut_diff_files(FILE *a, const char *who_a, FILE *b, const char *who_b);

/* ---- proc.c: child processes ---- */

/* A running or finished child: its own process group, standard output and error captured
 * through pipes, standard input /dev/null. */
typedef struct UtChild {
	pid_t pid;          /* also its process group; 0 once reaped */
	int out_fd, err_fd; /* read ends of the pipes, -1 once closed */
	UtBuf out, err;     /* the heads of what it printed (capped: see proc.c) */
	uint64_t out_total; /* bytes it printed on standard output */
	FILE *spill;        /* standard output is also written here (until closed), or NULL */
	char *spill_path;   /* malloc'd: the spill file's path, or NULL */
	int spill_err;      /* errno of a failed write to the spill file, or 0 */
	bool spill_full;    /* it printed more than UT_SPILL_LIMIT bytes: the rest was dropped */
	int status;         /* waitpid() status, valid once reaped */
	bool reaped;
} UtChild;

/* The most of one step's standard output that is spilled to its file (16 GiB). */
#define UT_SPILL_LIMIT ((uint64_t)16 << 30)

/* Starts ARGV (ARGV[0] is searched in PATH when it holds no '/'). With SPILL, its standard
 * output is written whole to that file as it comes (created or truncated). Returns 0, or -1
 * with *WHY a malloc'd message. */
int ut_spawn(UtChild *c, char *const argv[], const char *spill, char **why);
/* Reads what is available on FD (one of C's pipes); closes it at end of file. */
void ut_child_read(UtChild *c, int fd);
/* If the child has exited, kills what is left of its process group, reaps it and returns
 * true; otherwise returns false. Never blocks. */
bool ut_child_try_reap(UtChild *c);
/* Kills the child's whole process group, closes the pipes and reaps it. */
void ut_child_kill(UtChild *c);
/* Whether the child is reaped and both pipes are at end of file. */
bool ut_child_done(const UtChild *c);
/* Frees the captured output. */
void ut_child_free(UtChild *c);
/* "exited 1", "was killed by signal 11 (Segmentation fault)": a malloc'd text. */
char *ut_status_text(int status);
/* The exit code, or -1 when the child was killed by a signal. */
int ut_exit_code(int status);

/* ---- modes.c: modes, steps and their judgement ---- */

/* The steps a test may run, in the order they run. */
typedef enum UtStep {
	UT_STEP_CHECK,         /* uir check [--strict] FILE */
	UT_STEP_RUN,           /* uir run --engine interp FILE (--engine E when given) */
	UT_STEP_RUN_JIT,       /* uir run --engine jit FILE, compared with run bit for bit */
	UT_STEP_RENDER,        /* uir render --main FILE > T/prog.c */
	UT_STEP_CC,            /* $CC -std=c11 -O2 -pthread -o T/prog T/prog.c -lm */
	UT_STEP_EXEC_C,        /* T/prog, its output compared with run's */
	UT_STEP_RENDER_CUDA,   /* uir render-cuda --main FILE > T/prog.cu */
	UT_STEP_CXX_EMU,       /* $CXX ... the CUDA emulator ... -o T/prog_cuda */
	UT_STEP_NVCC,          /* nvcc -arch=native ... -o T/prog_cuda T/prog.cu (GPU or Docker) */
	UT_STEP_EXEC_CUDA,     /* T/prog_cuda, its output compared with run's */
	UT_STEP_SPEED_BUILD,   /* `# cuda speed`: T/prog.cu -DUIR_TIME with T/ref.cu */
	UT_STEP_SPEED_EXPECT,  /* uir run --seed S --traffic --dump T/expect FILE: the expected bits */
	UT_STEP_SPEED_EXEC,    /* T/prog_speed S T/expect: every launch compared, both timed */
	UT_STEP_CUDA_INVALID,  /* uir render-cuda FILE, which must exit 2 */
	UT_STEP_PTX,           /* uir ptx --run FILE (`--ptx`, ptx_step.c), compared with run */
	UT_NSTEPS
} UtStep;

enum { UT_PASS, UT_FAIL, UT_SKIP };

/* The runner's settings, from the command line. */
typedef struct UtConfig {
	const char *uir;       /* the `uir` binary every check runs */
	const char *engine;    /* `--engine` for run, or NULL: interp, and jit compared */
	double timeout;        /* seconds per test; 0: no limit */
	int jobs;
	bool verbose;
	char *tmpdir;          /* malloc'd, created on first need, removed at the end */
	const char *cuda_docker; /* `--cuda-docker IMAGE`: `# cuda` runs in it, or NULL */
	int cuda_engine;       /* how `# cuda` runs (UT_CUDA_*), decided on first need */
	bool ptx;              /* `--ptx`: `# cuda` tests also run their PTX (ptx_step.c) */
	char *pch_header;      /* malloc'd: the emulator's header beside its precompiled form
	                          (pch.c), which `# cuda` compiles include, or NULL */
	int cxx_kind;          /* the emulator's compiler (UT_CXX_*), found by pch.c */
	uint64_t seed;         /* the seed of `# cuda speed`'s inputs: --seed, UIR_TEST_SEED, else
	                          drawn at random when the run starts */
} UtConfig;

/* The emulator's compiler, as `$CXX --version` tells. */
enum { UT_CXX_UNKNOWN, UT_CXX_GCC, UT_CXX_CLANG };

/* Where `# cuda` tests run (modes.c decides once per run). */
enum { UT_CUDA_UNDECIDED, UT_CUDA_EMU, UT_CUDA_GPU, UT_CUDA_DOCKER };

struct UtBatch;

/* One test and its progress. */
typedef struct UtTest {
	char *path;
	UtSpec spec;
	unsigned plan;         /* bit (1 << UtStep) for each step to run */
	UtBuf notes;           /* parts not run because uir lacks them: the JIT ("; "-separated) */
	UtBuf skips;           /* parts not run because a tool is missing ("; "-separated) */
	char *fail;            /* malloc'd: why it failed, or NULL */
	UtBuf detail;          /* the failing step's command and outputs, for -v and JUnit */
	char *run_path;        /* malloc'd: the file of run's standard output, once run has
	                          passed (NULL: nothing to compare with, as for a fault) */
	char *run_err;         /* run's standard error (a fault's diagnostic), for run_jit */
	size_t run_err_len;
	char *dir;             /* the test's own temporary folder, or NULL */
	char *cuda_how;        /* malloc'd: how its CUDA ran ("cuda: emulator"), or NULL */
	bool pch_used;         /* its emulator compile includes the precompiled header */
	bool pch_off;          /* that compile failed: the next one goes without it */
	bool rerun;            /* set by a judge: run the same step again */
	struct UtBatch *batch; /* the batch its emulator compile is in (batch.c), or NULL */
	int batch_index;       /* its number in the batch's program */
	bool batch_tried;      /* its compile was in a batch: it is not put in another */
	int resume_after;      /* after its batch: the step its next step follows */
	double wait_start;     /* when it began to wait for its batch (ut_now() seconds) */
	double waited;         /* seconds it waited for batches and slots: not in its limit */
	uint64_t speed_read;   /* `# cuda speed`: the bytes run --seed --traffic read before */
	uint64_t speed_written;/* writing them, and wrote (the bandwidth bound) */
	bool finished;         /* its result is reported */
	double start, elapsed; /* seconds */
	int result;            /* UT_PASS, UT_FAIL or UT_SKIP, once finished */
} UtTest;

/* The words of the environment variable VAR, or of DEF when it is unset or blank (a malloc'd
 * NULL-ended vector). Words are split at blanks; there is no quoting. */
char **ut_tool_words(const char *var, const char *def);
/* PROG's path (malloc'd) when it can be run: a path that is executable, or a name found in
 * PATH; else NULL. */
char *ut_find_program(const char *prog);
/* The runner's temporary folder, made on first need, or NULL when it cannot be made. */
const char *ut_run_tmpdir(UtConfig *cfg);
/* How many of the N tests are `# cuda` tests whose CUDA is built by the emulator's compiler
 * in this run (their directives read once more; 0 when the CUDA runs elsewhere or there is
 * no C++ compiler). */
int ut_count_emu_tests(UtConfig *cfg, UtTest *tests, int n);
/* Reads TEST's directives and plans its steps (the modes whose commands exist and whose
 * tools are present), noting the parts left out. On a directive problem sets TEST->fail. */
void ut_plan(UtConfig *cfg, UtTest *test);
/* The command line of STEP for TEST (a malloc'd vector of malloc'd strings, NULL-ended), or
 * NULL with TEST->fail set when it cannot be prepared. */
char **ut_step_argv(UtConfig *cfg, UtTest *test, UtStep step);
/* The file STEP's standard output is spilled to, in TEST's folder (a malloc'd path), or
 * NULL when the step's output is not needed; NULL with TEST->fail set when the folder
 * cannot be made. */
char *ut_step_spill(UtConfig *cfg, UtTest *test, UtStep step);
/* Judges STEP from its finished child: returns true when it passed; otherwise sets
 * TEST->fail and TEST->detail. */
bool ut_step_judge(UtConfig *cfg, UtTest *test, UtStep step, char **argv, const UtChild *c);
/* Whether the spill file of STEP's finished child C holds all it printed; else fails TEST
 * ("run printed more than 16 GiB", "cannot write PATH: REASON") and returns false. */
bool ut_spilled(UtTest *test, UtStep step, char **argv, const UtChild *c);
/* Compares the standard output of a finished comparing step (C, whose command is ARGV) with
 * run's, from the files they were spilled to: true when equal; else fails TEST with
 * PREFIX and the first difference ("buffer y, element 3: WHO_REF printed 2.5, WHO printed
 * 2.25") and returns false. */
bool ut_compare_outputs(UtTest *test, char **argv, const UtChild *c, const char *who_ref,
                        const char *who, const char *prefix);
/* Adds a step's command, exit status and outputs (cut to their first lines) to
 * TEST->detail, for -v and the JUnit report. */
void ut_step_record(UtTest *test, char **argv, const UtChild *c);
/* The name of a step in messages ("check", "run", "render", "cc", ...). */
const char *ut_step_name(UtStep step);
/* Frees a vector from ut_step_argv(). */
void ut_argv_free(char **argv);
/* Removes TEST's temporary folder, if it made one. */
void ut_test_cleanup(UtTest *test);
/* Removes PATH and, for a folder, everything in it. */
void ut_remove_tree(const char *path);
/* Removes the runner's temporary folder and everything in it. */
void ut_remove_tmpdir(UtConfig *cfg);

/* ---- pch.c: the emulator's header precompiled ---- */

/* The flags of the emulator's compile after the words of $CXX (NULL-ended). */
const char *const *ut_cxx_emu_flags(void);
/* Before a run with NTESTS `# cuda` tests in the emulator: tells what $CXX is
 * (CFG->cxx_kind), finds or builds the precompiled header for it and sets CFG->pch_header;
 * leaves it NULL where there is none (UIR_TEST_PCH=0, a compiler that is not g++ or
 * clang++, a build that fails). Gives up when *STOP is set. */
void ut_pch_prepare(UtConfig *cfg, int ntests, volatile sig_atomic_t *stop);
/* No later compile of the run uses the precompiled header. */
void ut_pch_drop(UtConfig *cfg);

/* ---- batch.c: several tests' emulator compiles in one ---- */

/* Tests whose emulator compile (UT_STEP_CXX_EMU) waits for one compiler run. */
typedef struct UtBatch {
	UtTest **tests;        /* its members in the order they came; NULL: one that finished */
	int n, cap;
	int refs;              /* members not finished */
	char *dir;             /* its folder under the run's temporary folder, once written */
	bool held;             /* the runner holds it (open, waiting or compiling): not freed
	                          when its last member leaves */
	bool built;            /* the compile passed: member I's CUDA runs `DIR/prog I` */
} UtBatch;

/* The most tests in one batch: UIR_TEST_BATCH, else 16; 1 means no batches. */
int ut_batch_size(void);
UtBatch *ut_batch_new(void);
/* Adds TEST to B (and B to TEST). */
void ut_batch_add(UtBatch *b, UtTest *test);
/* Writes B's translation unit into a new folder under the run's temporary folder and returns
 * its compile's command line, or NULL when it cannot be written. */
char **ut_batch_argv(UtConfig *cfg, UtBatch *b);
/* The batch's program (malloc'd path). */
char *ut_batch_prog(const UtBatch *b);
/* TEST (unless NULL) leaves B; when no member is left and the runner does not hold it, B is
 * removed with its folder and freed (returns true). */
bool ut_batch_release(UtBatch *b, UtTest *test);

/* ---- ptx_step.c: `--ptx`, the PTX of `# cuda` tests on the GPU (uir ptx --run) ---- */

/* Adds UT_STEP_PTX to a `# cuda` test's plan when --ptx is on (a skip note without a
 * CUDA driver or device); its command line; its judgement (run's output, bit for bit). */
void ut_ptx_plan(UtConfig *cfg, UtTest *test);
char **ut_ptx_argv(UtConfig *cfg, UtTest *test);
bool ut_ptx_judge(UtTest *test, char **argv, const UtChild *c);

/* ---- junit.c: JUnit XML ---- */

/* Writes the JUnit XML report of the N finished tests to F; TOTAL is the wall time in
 * seconds. Returns 0, or -1 on a write error. */
int ut_write_junit(FILE *f, const UtTest *tests, int n, double total);
/* Writes S (N bytes) to F escaped for XML text or attribute values: `& < > " '`, newlines
 * as `&#10;` when ATTR, other control characters and bytes that are not UTF-8 as U+FFFD. */
void ut_xml_escape(FILE *f, const char *s, size_t n, bool attr);

#endif
