/* job.c - libuir.so: runs (include/uir/uir.h, uir_run_start). A run is `uir run` of a copy of
 * the program in a child process, through the command's own steps (cli/runprog.c):
 *
 *   - the buffers' final contents come back in memory shared with the child (one mapping
 *     per buffer, made before the fork), its first error in a small shared record, and
 *     everything it prints on standard error (its fd 2) through a pipe;
 *   - the caller waits in slices (uir_job_wait), so that it can do other things, such as
 *     Python's handling of Ctrl-C, between them; uir_job_free() ends a child that still
 *     runs with SIGKILL, which stops the run at once, whatever engine runs it;
 *   - the child gets the default action for every signal its parent catches (SIGINT
 *     included: Ctrl-C in a terminal reaches the whole process group and ends it), dies
 *     with its parent thread (PR_SET_PDEATHSIG), and leaves by _exit(), also when it
 *     exits 70 (on_exit), so that no handler of the parent's runs twice.
 *
 * The child reads the inputs and the program as the parent had them when it forked, so
 * the caller may change or free them as soon as uir_run_start() returns.
 */
#include "api.h"
#include "../cli/cli.h"
#include "../cli/runprog.h"
#include "../util/messages.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the child leaves for the parent beside the buffers. */
typedef struct Record {
	int written; /* 1 once the child filled it in */
	int status;
	char code[8];
	Loc at;
	char msg[1024];
} Record;

struct UirJob {
	pid_t pid;
	int fd;           /* the read end of the child's standard error; -1 once closed */
	char *text;       /* what came through it */
	size_t len, cap;
	bool done;        /* the child has been reaped (or cannot be) */
	int wstatus;      /* its wait status, when reaped */
	bool reaped;
	Record *rec;      /* shared */
	int nbufs;
	void **bufs;      /* shared, one mapping per buffer */
	size_t *bytes;
};

/* ---- shared memory ---- */

static void *shared_alloc(size_t bytes)
{
	void *m = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static void shared_free(void *m, size_t bytes)
{
	if (m)
		munmap(m, bytes ? bytes : 1);
}

static void job_release(UirJob *j)
{
	if (j->fd >= 0)
		close(j->fd);
	for (int i = 0; i < j->nbufs; i++)
		shared_free(j->bufs[i], j->bytes[i]);
	shared_free(j->rec, sizeof *j->rec);
	free(j->bufs);
	free(j->bytes);
	free(j->text);
	free(j);
}

/* ---- the child ---- */

/* exit() in the child (exit 70 of an internal error, in the library or in the LLVM module)
 * leaves at once with its status, before any handler the parent registered. */
static void child_on_exit(int status, void *arg)
{
	(void)arg;
	_exit(status);
}

/* The signals the parent catches get their default action back, then the mask OLD. */
static void child_signals(const sigset_t *old)
{
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (sigaction(s, NULL, &sa) != 0)
			continue;
		bool caught = (sa.sa_flags & SA_SIGINFO) ? true : (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
		if (caught || s == SIGPIPE) {
			struct sigaction dfl = { .sa_handler = SIG_DFL };
			sigemptyset(&dfl.sa_mask);
			sigaction(s, &dfl, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Parses SPEC into PLAN as run's options would; -1 when good, else the usage error's 64. */
static int child_plan(const UirProgram *q, const UirRunSpec *spec, RunPlan *plan, RunInput *inputs)
{
	int threads = spec->threads; /* in the order `uir run` checks its options */
	if (threads) {
		char s[32];
		snprintf(s, sizeof s, "%d", threads);
		if (engine_parse_threads(s) < 0)
			return usage_error("run", "--threads needs an integer from 1 to 1024, found '%s'", s);
	}
	const char *engine = spec->engine ? spec->engine : "auto";
	if (!engine_parse(engine, &plan->engine))
		return usage_error("run", "--engine is auto, jit or interp, found '%s'", engine);
	bool racecheck = spec->flags & UIR_RUN_RACECHECK;
	if (racecheck && plan->engine == UIR_ENGINE_JIT)
		return usage_error("run", "--racecheck runs in the interpreter: use it without --engine jit");
	if (!threads && (threads = engine_env_threads("run")) < 0)
		return UIR_EXIT_USAGE;
	for (int i = 0; i < spec->ninputs; i++) {
		const UirInput *in = &spec->inputs[i];
		inputs[i] = (RunInput){ .name = in->name ? in->name : "",
					 .array = { in->data, in->dtype ? in->dtype : "", in->fortran_order != 0, in->count } };
		for (int k = 0; k < i; k++)
			if (!strcmp(inputs[k].name, inputs[i].name))
				return usage_error("run", "input %s: given twice", inputs[i].name);
	}
	plan->inputs = inputs;
	plan->ninputs = spec->ninputs;
	plan->racecheck = racecheck;
	plan->opt = (RunOptions){ .threads = threads, .bounds_check = !(spec->flags & UIR_RUN_NO_BOUNDS_CHECK),
				  .no_opt = (spec->flags & UIR_RUN_NO_OPT) != 0,
				  .no_cache = (spec->flags & UIR_RUN_NO_CACHE) != 0 };
	return runprog_names(q, plan);
}

/* `uir run` of a copy of P in the child; leaves the buffers in J's shared memory. */
static _Noreturn void child_run(const UirProgram *p, const UirRunSpec *spec, UirJob *j)
{
	int status;
	UirProgram *q = api_copy(p, stderr);
	if (!q) {
		status = UIR_EXIT_ERROR;
	} else {
		RunPlan plan = { 0 };
		RunInput *inputs = xcalloc((size_t)spec->ninputs + 1, sizeof *inputs);
		status = child_plan(q, spec, &plan, inputs);
		if (status < 0)
			status = runprog_check(q, &plan);
		void **data = NULL;
		if (status < 0)
			status = runprog_execute(q, &plan, &data, NULL);
		if (status < 0) {
			status = UIR_EXIT_OK;
			for (int i = 0; i < j->nbufs; i++)
				memcpy(j->bufs[i], data[i], j->bytes[i]);
		}
		memcpy(j->rec->code, q->first_code, sizeof j->rec->code);
		j->rec->at = q->first_loc;
		memcpy(j->rec->msg, q->first_msg, sizeof j->rec->msg);
	}
	j->rec->status = status;
	j->rec->written = 1;
	fflush(stderr);
	_exit(status);
}

/* The child's start: its signals, standard streams and exits; then the run. */
static _Noreturn void child_main(const UirProgram *p, const UirRunSpec *spec, UirJob *j, const int fds[2],
				 pid_t parent, const sigset_t *old)
{
	int wfd = fds[1];
	child_signals(old);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(UIR_EXIT_INTERNAL);
	on_exit(child_on_exit, NULL);
	__fpurge(stdout); /* what the parent had not written yet is the parent's */
	__fpurge(stderr);
	close(fds[0]);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2 && null != wfd)
			close(null);
	}
	if (wfd != 2) {
		dup2(wfd, 2);
		close(wfd);
	}
	child_run(p, spec, j);
}

/* ---- the parent ---- */

/* E for a run that could not start: STATUS with the line TEXT. */
static UirJob *start_failed(UirJob *j, UirError *e, int status, const char *text)
{
	if (j)
		job_release(j);
	e->status = status;
	e->text = xmalloc(strlen(text) + 1);
	strcpy(e->text, text);
	api_set_first(e, "", (Loc){ 0, 0 }, "");
	return NULL;
}

UirJob *uir_run_start(const UirProgram *p, const UirRunSpec *spec, UirError *e)
{
	uir_error_clear(e);
	UirRunSpec none = { 0 };
	if (!spec)
		spec = &none;
	UirJob *j = xcalloc(1, sizeof *j);
	j->fd = -1;
	j->nbufs = p->nbufs;
	j->bufs = xcalloc((size_t)p->nbufs + 1, sizeof *j->bufs);
	j->bytes = xcalloc((size_t)p->nbufs + 1, sizeof *j->bytes);
	j->rec = shared_alloc(sizeof *j->rec);
	if (!j->rec)
		return start_failed(j, e, UIR_EXIT_ERROR, "uir run: out of memory for the run's record\n");
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		size_t esize = (size_t)uir_type_size(m->ty);
		j->bytes[i] = (size_t)m->size * esize;
		if ((size_t)m->size > SIZE_MAX / esize || !(j->bufs[i] = shared_alloc(j->bytes[i]))) {
			char msg[MSG_MAX];
			msg_out_of_memory_for(msg, p->path, "buffer", m);
			return start_failed(j, e, UIR_EXIT_ERROR, msg);
		}
	}
	/* the pipe is made and its write end closed under the lock, so that no other job's
	 * child (forked under it too) holds that end */
	api_lock();
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		api_unlock();
		char msg[256];
		snprintf(msg, sizeof msg, "uir run: cannot start the run: %s\n", strerror(errno));
		return start_failed(j, e, UIR_EXIT_INTERNAL, msg);
	}
	/* the parent reads without blocking: uir_job_wait() keeps to its time */
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	/* the JIT's module is loaded once, here, rather than in every child */
	UirEngine engine;
	if (!spec->engine || (engine_parse(spec->engine, &engine) && engine != UIR_ENGINE_INTERP))
		(void)uir_llvm_load(NULL);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		child_main(p, spec, j, fds, parent, &old);
	int fork_errno = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fds[1]);
	api_unlock();
	j->fd = fds[0];
	if (pid < 0) {
		char msg[256];
		snprintf(msg, sizeof msg, "uir run: cannot start the run: %s\n", strerror(fork_errno));
		return start_failed(j, e, UIR_EXIT_INTERNAL, msg);
	}
	j->pid = pid;
	return j;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Reads what the pipe has; false at its end (or on an error). */
static bool drain(UirJob *j)
{
	for (;;) {
		if (j->cap - j->len < 4096) {
			j->cap = j->cap ? 2 * j->cap : 8192;
			j->text = xrealloc(j->text, j->cap);
		}
		ssize_t n = read(j->fd, j->text + j->len, j->cap - j->len - 1);
		if (n > 0) {
			j->len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		return false;
	}
}

/* Reaps the child when it has ended (WAIT: waits for it). True when it is done. */
static bool reap(UirJob *j, bool wait)
{
	if (j->done)
		return true;
	int ws;
	pid_t r;
	do
		r = waitpid(j->pid, &ws, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	j->done = true;
	j->reaped = r == j->pid;
	j->wstatus = ws;
	if (j->fd >= 0) { /* the rest of its text (the read does not wait for a writer the child left) */
		drain(j);
		close(j->fd);
		j->fd = -1;
	}
	return true;
}

int uir_job_wait(UirJob *j, int timeout_ms)
{
	double end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		if (reap(j, false))
			return 1;
		double left = end - now_ms();
		if (timeout_ms >= 0 && left <= 0)
			return 0;
		/* slices of 20 ms at most: the end of the pipe comes when the child has ended,
		 * unless another process that a fork of the caller made holds its write end */
		int slice = timeout_ms < 0 || left > 20 ? 20 : (int)left + 1;
		if (j->fd >= 0) {
			struct pollfd pf = { .fd = j->fd, .events = POLLIN };
			int r = poll(&pf, 1, slice);
			if (r > 0 && !drain(j)) {
				close(j->fd);
				j->fd = -1;
				reap(j, true); /* the pipe ended: the child is ending */
			}
		} else {
			struct timespec ts = { 0, 1000000L * slice };
			nanosleep(&ts, NULL);
		}
	}
}

int uir_job_finish(UirJob *j, UirError *e)
{
	uir_error_clear(e);
	uir_job_wait(j, -1);
	int status;
	int sig = j->reaped && WIFSIGNALED(j->wstatus) ? WTERMSIG(j->wstatus) : 0;
	if (sig) {
		status = UIR_EXIT_INTERNAL;
		char line[160];
		snprintf(line, sizeof line, "uir run: the run's process ended on signal %d (%s)\n", sig, strsignal(sig));
		size_t n = strlen(line);
		j->text = xrealloc(j->text, j->len + n + 1);
		memcpy(j->text + j->len, line, n);
		j->len += n;
	} else if (j->rec->written) {
		status = j->rec->status;
	} else if (j->reaped && WIFEXITED(j->wstatus)) {
		status = WEXITSTATUS(j->wstatus); /* exit 70 of an internal error */
	} else {
		status = UIR_EXIT_INTERNAL; /* reaped by someone else, with no record */
	}
	e->status = status;
	e->signal = sig;
	if (j->len) {
		e->text = xmalloc(j->len + 1);
		memcpy(e->text, j->text, j->len);
		e->text[j->len] = 0;
	}
	if (status == UIR_EXIT_OK)
		return status; /* E->text: what it printed all the same (the note of --racecheck) */
	if (j->rec->written && !sig)
		api_set_first(e, j->rec->code, j->rec->at, j->rec->msg);
	else
		api_set_first(e, "", (Loc){ 0, 0 }, "");
	return status;
}

const void *uir_job_buffer(const UirJob *j, int i)
{
	return i >= 0 && i < j->nbufs ? j->bufs[i] : NULL;
}

void uir_job_free(UirJob *j)
{
	if (!j)
		return;
	if (!j->done) {
		kill(j->pid, SIGKILL);
		reap(j, true);
	}
	job_release(j);
}

int uir_run(const UirProgram *p, const UirRunSpec *spec, void *const *out, UirError *e)
{
	UirJob *j = uir_run_start(p, spec, e);
	if (!j)
		return e->status;
	int status = uir_job_finish(j, e);
	if (status == UIR_EXIT_OK && out)
		for (int i = 0; i < j->nbufs; i++)
			if (out[i])
				memcpy(out[i], j->bufs[i], j->bytes[i]);
	uir_job_free(j);
	return status;
}
