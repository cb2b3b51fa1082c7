/* runner.c - `uir test`: options, scheduling and reporting (docs/testing.md).
 *
 * The runner collects the tests, keeps its shard of them, and runs up to -j children at once
 * (the slots). Each test is a sequence of steps (modes.c), each one child process (proc.c);
 * a test whose next step is the emulator's compile leaves its slot to wait in a batch, and
 * a slot compiles a whole batch at once (batch.c), after which its tests go on in the next
 * free slots. The children are watched by one poll() loop that drains their pipes, notices
 * their exits through a SIGCHLD self-pipe, and kills a test's current child with its whole
 * process group when the test passes its time limit. Results are printed as tests finish, one line
 * each, with a progress line on a terminal; the last line is `N passed, N failed, N skipped`.
 * An interrupt (SIGINT, SIGTERM, SIGHUP, or SIGPIPE when the reader of the output goes away)
 * kills every running child's process group before the runner dies of the same signal.
 */
#include "runner_int.h"
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One child at a time: a step of a test, or the compile of a batch (batch.c). */
typedef struct Slot {
	UtTest *test;    /* the test whose step runs here, or NULL */
	UtBatch *batch;  /* the batch whose compile runs here, or NULL */
	UtStep step;     /* the step running now */
	char **argv;     /* its command line */
	UtChild child;
	double deadline; /* ut_now() seconds; 0 = none */
} Slot;

/* A first-in first-out queue of pointers. */
typedef struct Queue {
	void **v;
	int head, n, cap;
} Queue;

/* The whole run. */
typedef struct Runner {
	UtConfig cfg;
	UtTest *tests;
	int ntests, next, finished, passed, failed, skipped;
	Slot *slots;
	int inflight;        /* tests started and not finished */
	int batch_max;       /* the most tests in a batch; below 2, no batches */
	UtBatch *open;       /* the batch that tests waiting for their compile join, or NULL */
	Queue full;          /* batches waiting for a slot to compile */
	Queue ready;         /* tests waiting for a slot to go on after their batch */
	FILE *junit;
	const char *junit_path;
	bool tty;            /* standard output is a terminal: draw a progress line */
	size_t progress_len; /* length of the progress line on screen */
	int drawn[3];        /* finished, failed and running when it was drawn */
} Runner;

/* The self-pipe that wakes poll() on SIGCHLD and on an interrupt. */
static int wake_fd[2] = { -1, -1 };
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	int saved = errno;
	if (sig != SIGCHLD)
		stop_signal = sig;
	if (wake_fd[1] >= 0) {
		ssize_t r = write(wake_fd[1], "", 1);
		(void)r; /* a full pipe already wakes poll() */
	}
	errno = saved;
}

static const int caught[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static struct sigaction saved_actions[sizeof caught / sizeof caught[0]];

static int install_signals(void)
{
	if (pipe(wake_fd) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(wake_fd[i], F_SETFD, FD_CLOEXEC);
		fcntl(wake_fd[i], F_SETFL, fcntl(wake_fd[i], F_GETFL) | O_NONBLOCK);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
		sigaction(caught[i], &sa, &saved_actions[i]);
	return 0;
}

static void restore_signals(void)
{
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
		sigaction(caught[i], &saved_actions[i], NULL);
	for (int i = 0; i < 2; i++) {
		if (wake_fd[i] >= 0)
			close(wake_fd[i]);
		wake_fd[i] = -1;
	}
}

/* ---- options ---- */

static void usage(FILE *f)
{
	fputs("usage: uir test [OPTIONS] PATH...\n"
	      "Runs the .uir tests in the given files and folders (docs/testing.md).\n"
	      "\n"
	      "  -j, --jobs N        run at most N commands at once, 1 to " UT_MAX_JOBS_TEXT " (default:\n"
	      "                      the number of cores); a command is a step of a test or\n"
	      "                      a batch's compile, and each test runs its steps in order\n"
	      "      --timeout S     fail a test that runs longer than S seconds\n"
	      "                      (default 60; 0: no limit)\n"
	      "      --junit FILE    write a JUnit XML report to FILE\n"
	      "      --shard K/N     run only part K of N of the sorted tests\n"
	      "      --engine E      run `uir run --engine E` only (interp, jit, auto); default:\n"
	      "                      interp, then jit, which must print the same bits\n"
	      "  -v, --verbose       print the command and outputs of each failing step\n"
	      "      --uir PATH      run the checks with this uir binary (to test uir itself)\n"
	      "      --cuda-docker IMAGE  build and run `# cuda` tests with nvcc in this Docker\n"
	      "                      image (docker run --gpus all); default: the GPU when\n"
	      "                      nvcc and one are here, else the CUDA emulator\n"
	      "      --ptx           also run `# cuda` tests through `uir ptx --run` (LLVM's\n"
	      "                      NVPTX back end, the CUDA driver API) against run; skipped\n"
	      "                      without a CUDA driver and device\n"
	      "      --seed S        draw the inputs of `# cuda speed` tests from the 64-bit seed S\n"
	      "                      (decimal or 0x hex; default: UIR_TEST_SEED, else a new one\n"
	      "                      each run, printed in each speed test's line)\n"
	      "  -h, --help          print this help\n"
	      "\n"
	      "Exit status: 0 no test failed, 1 a test failed, 64 bad usage.\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("uir test: ", stderr);
	uir_eprintf(stderr, fmt, arg);
	fputs("\nTry 'uir test --help'.\n", stderr);
	return UT_EXIT_USAGE;
}

/* A whole number from LO to HI, or -1. */
static long parse_count(const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi || s[0] == ' ' || s[0] == '+')
		return -1;
	return v;
}

enum { OPT_TIMEOUT = 256, OPT_JUNIT, OPT_SHARD, OPT_ENGINE, OPT_UIR, OPT_CUDA_DOCKER, OPT_PTX, OPT_SEED };

static const struct option long_options[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "uir", required_argument, NULL, OPT_UIR },
	{ "cuda-docker", required_argument, NULL, OPT_CUDA_DOCKER },
	{ "ptx", no_argument, NULL, OPT_PTX },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

typedef struct Options {
	int shard_k, shard_n; /* 0, 0 when not sharded */
	bool help;
	bool seeded;          /* --seed given */
} Options;

/* The option at ARGV[OPTIND - 1] as written, for messages. */
static const char *option_text(char **argv, int c)
{
	static char s[3];
	if (c > 0 && c < 128) {
		s[0] = '-';
		s[1] = (char)c;
		s[2] = '\0';
		return s;
	}
	return argv[optind - 1];
}

/* Parses the options into R->cfg and O. Returns 0, or an exit status after a message. */
static int parse_options(Runner *r, Options *o, int argc, char **argv)
{
	long n;
	optind = 1;
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, ":j:vh", long_options, NULL);
		if (c == -1)
			return 0;
		switch (c) {
		case 'j':
			if ((n = parse_count(optarg, 1, UT_MAX_JOBS)) < 0)
				return bad_usage("bad -j value '%s': a whole number of commands from 1 to "
				                 UT_MAX_JOBS_TEXT, optarg);
			r->cfg.jobs = (int)n;
			break;
		case OPT_TIMEOUT: {
			char *end;
			errno = 0;
			double s = strtod(optarg, &end);
			if (end == optarg || *end || errno || !isfinite(s) || s < 0 || s > 1e9)
				return bad_usage("bad --timeout value '%s': seconds, 0 for no limit",
				                 optarg);
			r->cfg.timeout = s;
			break;
		}
		case OPT_JUNIT:
			r->junit_path = optarg;
			break;
		case OPT_SHARD: {
			const char *slash = strchr(optarg, '/');
			char *k = slash ? ut_format("%.*s", (int)(slash - optarg), optarg) : NULL;
			long kk = k ? parse_count(k, 1, INT_MAX) : -1;
			long nn = slash ? parse_count(slash + 1, 1, INT_MAX) : -1;
			free(k);
			if (kk < 0 || nn < 0 || kk > nn)
				return bad_usage("bad --shard value '%s': K/N with 1 <= K <= N", optarg);
			o->shard_k = (int)kk;
			o->shard_n = (int)nn;
			break;
		}
		case OPT_ENGINE:
			if (strcmp(optarg, "interp") && strcmp(optarg, "jit") && strcmp(optarg, "auto"))
				return bad_usage("bad --engine value '%s': interp, jit or auto", optarg);
			r->cfg.engine = optarg;
			break;
		case OPT_CUDA_DOCKER:
			/* an argv word, never a shell's: only keep it from reading as an option */
			if (!optarg[0] || optarg[0] == '-' || strpbrk(optarg, " \t\n\r"))
				return bad_usage("bad --cuda-docker value '%s': a Docker image name", optarg);
			r->cfg.cuda_docker = optarg;
			break;
		case OPT_PTX:
			r->cfg.ptx = true;
			break;
		case OPT_SEED:
			if (ut_parse_seed(optarg, &r->cfg.seed) != 0)
				return bad_usage("bad --seed value '%s': a whole number from 0 to 2^64-1 "
				                 "(decimal, or hex after 0x)", optarg);
			o->seeded = true;
			break;
		case OPT_UIR:
			if (access(optarg, X_OK) != 0)
				return bad_usage("--uir %s: not an executable file", optarg);
			r->cfg.uir = optarg;
			break;
		case 'v':
			r->cfg.verbose = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			return bad_usage("option '%s' needs a value", option_text(argv, optopt));
		default:
			return bad_usage("unknown option '%s'", option_text(argv, optopt));
		}
	}
}

/* The seed of `# cuda speed`'s inputs when --seed gives none: UIR_TEST_SEED, else 8 bytes of
 * /dev/urandom (else the clock and the process id, mixed). Returns 0, or an exit status after
 * a message. */
static int choose_seed(UtConfig *cfg)
{
	const char *env = getenv("UIR_TEST_SEED");
	if (env && *env) {
		if (ut_parse_seed(env, &cfg->seed) != 0)
			return bad_usage("bad UIR_TEST_SEED value '%s': a whole number from 0 to 2^64-1 "
			                 "(decimal, or hex after 0x)", env);
		return 0;
	}
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bool got = fd >= 0 && read(fd, &v, sizeof v) == (ssize_t)sizeof v;
	if (fd >= 0)
		close(fd);
	if (!got) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
		v = (v ^ (v >> 31)) * 0xBF58476D1CE4E5B9u;
		v ^= v >> 29;
	}
	cfg->seed = v;
	return 0;
}

/* ---- output ---- */

static void clear_progress(Runner *r)
{
	if (!r->tty || !r->progress_len)
		return;
	printf("\r%*s\r", (int)r->progress_len, "");
	r->progress_len = 0;
}

static void draw_progress(Runner *r)
{
	if (!r->tty)
		return;
	int running = r->inflight;
	if (r->progress_len && r->drawn[0] == r->finished && r->drawn[1] == r->failed &&
	    r->drawn[2] == running)
		return; /* unchanged */
	r->drawn[0] = r->finished;
	r->drawn[1] = r->failed;
	r->drawn[2] = running;
	char line[128];
	int len = snprintf(line, sizeof line, "[%d/%d] %d failed, %d running", r->finished,
	                   r->ntests, r->failed, running);
	if (len < 0)
		return;
	int pad = (int)r->progress_len > len ? (int)r->progress_len - len : 0;
	printf("\r%s%*s", line, pad, "");
	if (pad)
		printf("\r%s", line);
	r->progress_len = (size_t)len;
	fflush(stdout);
}

/* Prints TEXT with every line indented, for -v. */
static void print_indented(const char *text, size_t len)
{
	const char *p = text, *stop = text + len;
	while (p < stop) {
		const char *e = memchr(p, '\n', (size_t)(stop - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(stop - p);
		uir_eprintf(stdout, "    %.*s\n", (int)n, p);
		p += n + 1;
	}
}

/* Decides a finished test's result and prints its line. */
static void report(Runner *r, UtTest *t)
{
	clear_progress(r);
	if (t->fail) {
		t->result = UT_FAIL;
		r->failed++;
		uir_eprintf(stdout, "FAIL %s: %s\n", t->path, t->fail);
		if (r->cfg.verbose && t->detail.len)
			print_indented(t->detail.data, t->detail.len);
	} else if (t->skips.len || !t->plan) {
		t->result = UT_SKIP;
		r->skipped++;
		uir_eprintf(stdout, "SKIP %s: %s", t->path, t->skips.len ? t->skips.data
		                               : t->notes.len ? t->notes.data : "nothing to run");
		if (t->skips.len && t->notes.len)
			uir_eprintf(stdout, " (not run: %s)", t->notes.data);
		putchar('\n');
	} else {
		t->result = UT_PASS;
		r->passed++;
		if (t->notes.len && t->cuda_how)
			uir_eprintf(stdout, "PASS %s (%s; not run: %s)\n", t->path, t->cuda_how, t->notes.data);
		else if (t->notes.len)
			uir_eprintf(stdout, "PASS %s (not run: %s)\n", t->path, t->notes.data);
		else if (t->cuda_how)
			uir_eprintf(stdout, "PASS %s (%s)\n", t->path, t->cuda_how);
		else
			uir_eprintf(stdout, "PASS %s\n", t->path);
	}
	r->finished++;
	fflush(stdout);
}

/* ---- running the tests ---- */

static void queue_push(Queue *q, void *p)
{
	if (q->head + q->n == q->cap) {
		if (q->head) {
			memmove(q->v, q->v + q->head, (size_t)q->n * sizeof *q->v);
			q->head = 0;
		} else {
			q->cap = q->cap ? 2 * q->cap : 16;
			q->v = ut_xrealloc(q->v, (size_t)q->cap * sizeof *q->v);
		}
	}
	q->v[q->head + q->n++] = p;
}

static void *queue_pop(Queue *q)
{
	if (!q->n)
		return NULL;
	q->n--;
	return q->v[q->head++];
}

static bool busy(const Slot *s)
{
	return s->test || s->batch;
}

/* Reports TEST, which holds no slot. */
static void finish_test(Runner *r, UtTest *t)
{
	t->elapsed = ut_now() - t->start;
	if (t->batch)
		ut_batch_release(t->batch, t);
	ut_test_cleanup(t);
	free(t->run_path);
	t->run_path = NULL;
	free(t->run_err);
	t->run_err = NULL;
	ut_spec_free(&t->spec);
	t->finished = true;
	r->inflight--;
	report(r, t);
}

static void finish(Runner *r, Slot *s)
{
	UtTest *t = s->test;
	s->test = NULL;
	finish_test(r, t);
}

/* The first step of TEST's plan after AFTER, or UT_NSTEPS. */
static int next_step(const UtTest *t, int after)
{
	int step = after + 1;
	while (step < UT_NSTEPS && !(t->plan & (1u << step)))
		step++;
	return step;
}

/* TEST waits for its emulator compile in the open batch; a full batch waits for a slot. */
static void join_batch(Runner *r, UtTest *t)
{
	if (!r->open)
		r->open = ut_batch_new();
	ut_batch_add(r->open, t);
	if (r->open->n >= r->batch_max) {
		queue_push(&r->full, r->open);
		r->open = NULL;
	}
}

/* Starts the first step of S's test after AFTER (-1: the first); finishes the test when
 * there is none or it cannot start. A test whose next step is the emulator's compile leaves
 * the slot to wait in a batch, when there are batches. */
static void start_step(Runner *r, Slot *s, int after)
{
	UtTest *t = s->test;
	int step = next_step(t, after);
	if (step >= UT_NSTEPS) {
		finish(r, s);
		return;
	}
	if (step == UT_STEP_CXX_EMU && r->batch_max > 1 && !t->batch_tried) {
		s->test = NULL;
		t->wait_start = ut_now();
		join_batch(r, t);
		return;
	}
	s->step = (UtStep)step;
	s->argv = ut_step_argv(&r->cfg, t, s->step);
	if (!s->argv) {
		finish(r, s);
		return;
	}
	char *why = NULL;
	char *spill = ut_step_spill(&r->cfg, t, s->step);
	if (!spill && t->fail) {
		ut_argv_free(s->argv);
		s->argv = NULL;
		finish(r, s);
		return;
	}
	int rc = ut_spawn(&s->child, s->argv, spill, &why);
	free(spill);
	if (rc != 0) {
		t->fail = ut_format("%s: %s", ut_step_name(s->step), why);
		free(why);
		ut_argv_free(s->argv);
		s->argv = NULL;
		finish(r, s);
	}
}

/* When TEST's time is up: its time limit counts while its own steps run, not while it waits
 * for a batch or for a slot after one. */
static double deadline_of(const Runner *r, const UtTest *t)
{
	return r->cfg.timeout > 0 ? t->start + t->waited + r->cfg.timeout : 0;
}

static void start_test(Runner *r, Slot *s, UtTest *t)
{
	s->test = t;
	t->start = ut_now();
	r->inflight++;
	s->deadline = deadline_of(r, t);
	ut_plan(&r->cfg, t);
	if (t->fail)
		finish(r, s);
	else
		start_step(r, s, -1);
}

/* Goes on with TEST, back from its batch, in the free slot S. */
static void resume_test(Runner *r, Slot *s, UtTest *t)
{
	s->test = t;
	t->waited += ut_now() - t->wait_start;
	s->deadline = deadline_of(r, t);
	start_step(r, s, t->resume_after);
}

/* B's compile is over (BUILT: it passed): its members wait for a slot to go on, with their
 * CUDA run from the batch's program, or with a compile of their own. */
static void batch_over(Runner *r, UtBatch *b, bool built)
{
	b->held = false;
	b->built = built;
	UtTest **members = ut_xmalloc(((size_t)b->n + 1) * sizeof *members);
	int n = 0;
	for (int i = 0; i < b->n; i++)
		if (b->tests[i])
			members[n++] = b->tests[i];
	for (int i = 0; i < n; i++) {
		UtTest *t = members[i];
		t->batch_tried = true;
		t->resume_after = built ? UT_STEP_CXX_EMU : UT_STEP_CXX_EMU - 1;
		if (!built)
			ut_batch_release(b, t);
		queue_push(&r->ready, t);
	}
	if (!n)
		ut_batch_release(b, NULL);
	free(members);
}

/* Starts B's compile in the free slot S. */
static void start_batch(Runner *r, Slot *s, UtBatch *b)
{
	if (!b->refs) { /* every member timed out while it waited */
		b->held = false;
		ut_batch_release(b, NULL);
		return;
	}
	char **argv = ut_batch_argv(&r->cfg, b);
	char *why = NULL;
	if (!argv || ut_spawn(&s->child, argv, NULL, &why) != 0) {
		free(why);
		ut_argv_free(argv);
		batch_over(r, b, false);
		return;
	}
	s->batch = b;
	s->argv = argv;
	s->deadline = r->cfg.timeout > 0 ? ut_now() + r->cfg.timeout : 0; /* the limit of one test */
}

/* The current step's child is done: judge it and go on. */
static void step_done(Runner *r, Slot *s)
{
	if (s->batch) {
		UtBatch *b = s->batch;
		s->batch = NULL;
		bool built = ut_exit_code(s->child.status) == 0;
		ut_argv_free(s->argv);
		s->argv = NULL;
		ut_child_free(&s->child);
		batch_over(r, b, built);
		return;
	}
	bool ok = ut_step_judge(&r->cfg, s->test, s->step, s->argv, &s->child);
	ut_argv_free(s->argv);
	s->argv = NULL;
	ut_child_free(&s->child);
	if (ok && s->test->rerun) {
		s->test->rerun = false;
		start_step(r, s, (int)s->step - 1);
	} else if (ok)
		start_step(r, s, (int)s->step);
	else
		finish(r, s);
}

static void time_out(Runner *r, Slot *s)
{
	ut_child_kill(&s->child);
	if (s->batch) { /* its members compile alone, each with its own limit */
		UtBatch *b = s->batch;
		s->batch = NULL;
		ut_argv_free(s->argv);
		s->argv = NULL;
		ut_child_free(&s->child);
		batch_over(r, b, false);
		return;
	}
	UtTest *t = s->test;
	t->fail = ut_format("timed out after %g s (in %s)", r->cfg.timeout,
	                    ut_step_name(s->step));
	ut_step_record(t, s->argv, &s->child);
	ut_argv_free(s->argv);
	s->argv = NULL;
	ut_child_free(&s->child);
	finish(r, s);
}

/* Kills every running child (after an interrupt). */
static void kill_all(Runner *r)
{
	for (int i = 0; i < r->cfg.jobs; i++) {
		Slot *s = &r->slots[i];
		if (busy(s) && s->argv) {
			ut_child_kill(&s->child);
			ut_child_free(&s->child);
			ut_argv_free(s->argv);
			s->argv = NULL;
		}
	}
}

/* Fills the free slots: first the tests back from a batch, then the batches that are full,
 * then new tests (while no more than the slots and batches can hold are in flight); a slot
 * that is still free compiles the open batch rather than wait. */
static void fill_slots(Runner *r)
{
	int limit = r->cfg.jobs * (r->batch_max > 1 ? r->batch_max + 1 : 1);
	for (int i = 0; i < r->cfg.jobs; i++) {
		Slot *s = &r->slots[i];
		while (!busy(s)) {
			UtTest *t;
			UtBatch *b;
			if ((t = queue_pop(&r->ready)) != NULL)
				resume_test(r, s, t);
			else if ((b = queue_pop(&r->full)) != NULL)
				start_batch(r, s, b);
			else if (r->next < r->ntests && r->inflight < limit)
				start_test(r, s, &r->tests[r->next++]);
			else if (r->open && r->open->refs) {
				b = r->open;
				r->open = NULL;
				start_batch(r, s, b);
			} else
				break;
		}
	}
}

/* Waits for something to happen to the running children and deals with it. */
static void wait_events(Runner *r, struct pollfd *fds, int *owner)
{
	int nfds = 0;
	double now = ut_now(), next = 0;
	fds[nfds].fd = wake_fd[0];
	fds[nfds++].events = POLLIN;
	for (int i = 0; i < r->cfg.jobs; i++) {
		Slot *s = &r->slots[i];
		if (!busy(s))
			continue;
		int pfd[2] = { s->child.out_fd, s->child.err_fd };
		for (int k = 0; k < 2; k++)
			if (pfd[k] >= 0) {
				owner[nfds] = i;
				fds[nfds].fd = pfd[k];
				fds[nfds++].events = POLLIN;
			}
		if (s->deadline > 0 && (next == 0 || s->deadline < next))
			next = s->deadline;
	}
	int ms = -1;
	if (next > 0) {
		double wait = ceil((next - now) * 1000);
		ms = wait <= 0 ? 0 : wait > 1e6 ? 1000000 : (int)wait;
	}
	int n = poll(fds, (nfds_t)nfds, ms);
	if (n < 0)
		return; /* EINTR: the handler has written to the self-pipe */
	char drain[64];
	if (fds[0].revents)
		while (read(wake_fd[0], drain, sizeof drain) > 0)
			;
	for (int k = 1; k < nfds; k++)
		if (fds[k].revents)
			ut_child_read(&r->slots[owner[k]].child, fds[k].fd);
	now = ut_now();
	for (int i = 0; i < r->cfg.jobs; i++) {
		Slot *s = &r->slots[i];
		if (!busy(s))
			continue;
		ut_child_try_reap(&s->child);
		if (ut_child_done(&s->child))
			step_done(r, s);
		else if (s->deadline > 0 && now >= s->deadline)
			time_out(r, s);
	}
}

/* Runs every test; returns normally unless interrupted. */
static void run_all(Runner *r)
{
	struct pollfd *fds = ut_xmalloc(((size_t)r->cfg.jobs * 2 + 1) * sizeof *fds);
	int *owner = ut_xmalloc(((size_t)r->cfg.jobs * 2 + 1) * sizeof *owner);
	draw_progress(r);
	while (r->finished < r->ntests && !stop_signal) {
		fill_slots(r);
		if (r->finished < r->ntests)
			wait_events(r, fds, owner);
		draw_progress(r);
	}
	free(fds);
	free(owner);
}

/* ---- setting up ---- */

/* Finds the tests in PATHS and keeps shard K of N. Returns 0, or 64 after a message. */
static int gather(Runner *r, char **paths, int npaths, const Options *o)
{
	char **list = NULL;
	int n = 0;
	for (int i = 0; i < npaths; i++)
		if (ut_collect(paths[i], &list, &n) != 0) {
			for (int k = 0; k < n; k++)
				free(list[k]);
			free(list);
			return UT_EXIT_USAGE;
		}
	n = ut_sort_unique(list, n);
	r->tests = ut_xmalloc(((size_t)n + 1) * sizeof *r->tests);
	memset(r->tests, 0, ((size_t)n + 1) * sizeof *r->tests);
	for (int i = 0; i < n; i++) {
		if (o->shard_n && i % o->shard_n + 1 != o->shard_k) {
			free(list[i]);
			continue;
		}
		r->tests[r->ntests++].path = list[i];
	}
	free(list);
	return 0;
}

/* The uir binary for the checks: SELF_EXE, or /proc/self/exe when it is a bare name. */
static const char *find_self(const char *self_exe, char *buf, size_t size)
{
	if (self_exe && strchr(self_exe, '/'))
		return self_exe;
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return self_exe ? self_exe : "uir";
	buf[n] = '\0';
	return buf;
}

static void free_tests(Runner *r)
{
	for (int i = 0; i < r->ntests; i++) {
		UtTest *t = &r->tests[i];
		free(t->path);
		free(t->fail);
		free(t->cuda_how);
		ut_buf_free(&t->notes);
		ut_buf_free(&t->skips);
		ut_buf_free(&t->detail);
		ut_spec_free(&t->spec);
	}
	free(r->tests);
}

/* Prints the failed tests again, then the summary line. */
static void summary(Runner *r)
{
	clear_progress(r);
	if (r->failed && r->ntests > 1) {
		printf("\nfailed:\n");
		for (int i = 0; i < r->ntests; i++)
			if (r->tests[i].result == UT_FAIL)
				uir_eprintf(stdout, "  %s\n", r->tests[i].path);
	}
	printf("%d passed, %d failed, %d skipped\n", r->passed, r->failed, r->skipped);
	fflush(stdout);
}

int uir_test_main(int argc, char **argv, const char *self_exe)
{
	/* getopt wants a program name first */
	char **args = ut_xmalloc(((size_t)argc + 2) * sizeof *args);
	args[0] = "uir test";
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	args[argc + 1] = NULL;

	static char self_buf[4096];
	Runner r;
	memset(&r, 0, sizeof r);
	Options o = { 0, 0, false, false };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	r.cfg.jobs = cores > 0 ? (int)(cores < UT_MAX_JOBS ? cores : UT_MAX_JOBS) : 1;
	r.cfg.timeout = 60;
	r.cfg.uir = find_self(self_exe, self_buf, sizeof self_buf);

	int rc = parse_options(&r, &o, argc + 1, args);
	if (rc == 0 && o.help) {
		usage(stdout);
		free(args);
		return UT_EXIT_OK;
	}
	if (rc == 0 && optind >= argc + 1)
		rc = bad_usage("%s", "no test paths given");
	if (rc == 0 && !o.seeded)
		rc = choose_seed(&r.cfg);
	if (rc == 0)
		rc = gather(&r, args + optind, argc + 1 - optind, &o);
	free(args);
	if (rc == 0 && r.junit_path) {
		r.junit = fopen(r.junit_path, "w");
		if (!r.junit) {
			uir_eprintf(stderr, "uir test: cannot write %s: %s\n", r.junit_path, strerror(errno));
			rc = UT_EXIT_USAGE;
		} else {
			fcntl(fileno(r.junit), F_SETFD, FD_CLOEXEC);
		}
	}
	if (rc == 0 && install_signals() != 0) {
		fprintf(stderr, "uir test: internal error: cannot make a pipe: %s\n", strerror(errno));
		rc = UT_EXIT_INTERNAL;
	}
	if (rc != 0) {
		if (r.junit)
			fclose(r.junit);
		free_tests(&r);
		return rc;
	}

	if (r.ntests == 0)
		fprintf(stderr, "uir test: no tests found\n");
	if (r.cfg.jobs > r.ntests)
		r.cfg.jobs = r.ntests > 0 ? r.ntests : 1;
	r.slots = ut_xmalloc((size_t)r.cfg.jobs * sizeof *r.slots);
	memset(r.slots, 0, (size_t)r.cfg.jobs * sizeof *r.slots);
	r.tty = isatty(STDOUT_FILENO);

	double start = ut_now();
	ut_pch_prepare(&r.cfg, ut_count_emu_tests(&r.cfg, r.tests, r.ntests), &stop_signal);
	r.batch_max = r.cfg.cxx_kind ? ut_batch_size() : 1;
	run_all(&r);
	if (stop_signal) {
		int sig = stop_signal;
		kill_all(&r);
		ut_remove_tmpdir(&r.cfg);
		clear_progress(&r);
		if (sig != SIGPIPE)
			fprintf(stderr, "uir test: interrupted\n");
		if (r.junit)
			fclose(r.junit);
		restore_signals();
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	ut_remove_tmpdir(&r.cfg);
	restore_signals();
	summary(&r);
	rc = r.failed ? UT_EXIT_FAILED : UT_EXIT_OK;
	if (r.junit) {
		if (ut_write_junit(r.junit, r.tests, r.ntests, ut_now() - start) != 0 ||
		    fclose(r.junit) != 0) {
			uir_eprintf(stderr, "uir test: cannot write %s: %s\n", r.junit_path, strerror(errno));
			rc = UT_EXIT_FAILED;
		}
	}
	free(r.slots);
	free(r.full.v);
	free(r.ready.v);
	free_tests(&r);
	ut_pch_drop(&r.cfg);
	return rc;
}
