/* proc.c - the runner's child processes.
 *
 * Every check runs as a child started with posix_spawn (never a shell), in a process group
 * of its own so that a timeout can kill it with everything it started. Its standard output
 * and error come back through non-blocking pipes that the runner's poll loop drains while
 * the child runs, so a large output cannot deadlock. All the runner's own descriptors are
 * close-on-exec, so no child holds another child's pipe open.
 *
 * The runner's memory does not grow with a test's output: of each stream it keeps a head
 * (OUT_HEAD, ERR_LIMIT bytes, for messages and -v), and a step whose standard output is
 * compared or compiled spills it whole to a file in the test's folder (UT_SPILL_LIMIT bytes at
 * most), which the judges read back as a stream (expect.c).
 */
#include "runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What is kept in memory of a child's output (bytes); the rest is read and dropped (or, for
 * standard output, spilled). */
#define OUT_HEAD ((size_t)64 << 10)
#define ERR_LIMIT ((size_t)1 << 20)

static int set_flags(int fd, bool nonblock)
{
	int fl = fcntl(fd, F_GETFD);
	if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
		return -1;
	if (nonblock) {
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return -1;
	}
	return 0;
}

/* Makes the two pipes, read ends non-blocking, all four ends close-on-exec. */
static int make_pipes(int po[2], int pe[2])
{
	po[0] = po[1] = pe[0] = pe[1] = -1;
	if (pipe(po) != 0 || pipe(pe) != 0)
		return -1;
	if (set_flags(po[0], true) || set_flags(pe[0], true) || set_flags(po[1], false) ||
	    set_flags(pe[1], false))
		return -1;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The child's attributes: its own process group, no blocked signals, and the signals the
 * runner catches back at their defaults. */
static int make_attr(posix_spawnattr_t *attr)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD,
	                            SIGALRM, SIGUSR1, SIGUSR2, SIGXFSZ };
	sigset_t none, dfl;
	sigemptyset(&none);
	sigemptyset(&dfl);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&dfl, sigs[i]);
	if (posix_spawnattr_init(attr) != 0)
		return -1;
	if (posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	                                   POSIX_SPAWN_SETSIGDEF) != 0 ||
	    posix_spawnattr_setpgroup(attr, 0) != 0 ||
	    posix_spawnattr_setsigmask(attr, &none) != 0 ||
	    posix_spawnattr_setsigdefault(attr, &dfl) != 0) {
		posix_spawnattr_destroy(attr);
		return -1;
	}
	return 0;
}

static void close_spill(UtChild *c);

/* Undoes the spill file of a child that did not start. */
static void drop_spill(UtChild *c)
{
	close_spill(c);
	if (c->spill_path)
		unlink(c->spill_path);
	free(c->spill_path);
	c->spill_path = NULL;
}

int ut_spawn(UtChild *c, char *const argv[], const char *spill, char **why)
{
	memset(c, 0, sizeof *c);
	c->out_fd = c->err_fd = -1;
	c->out.limit = OUT_HEAD;
	c->err.limit = ERR_LIMIT;
	if (spill) {
		c->spill_path = ut_strdup(spill);
		c->spill = fopen(spill, "wbe");
		if (!c->spill) {
			*why = ut_format("cannot write %s: %s", spill, strerror(errno));
			free(c->spill_path);
			c->spill_path = NULL;
			return -1;
		}
	}
	int po[2], pe[2];
	if (make_pipes(po, pe) != 0) {
		*why = ut_format("cannot make a pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close_fd(&po[i]);
			close_fd(&pe[i]);
		}
		drop_spill(c);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0) {
		if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) != 0 ||
		    posix_spawn_file_actions_adddup2(&fa, po[1], 1) != 0 ||
		    posix_spawn_file_actions_adddup2(&fa, pe[1], 2) != 0 || make_attr(&attr) != 0) {
			rc = ENOMEM;
		} else {
			bool search = strchr(argv[0], '/') == NULL;
			rc = search ? posix_spawnp(&c->pid, argv[0], &fa, &attr, argv, environ)
			            : posix_spawn(&c->pid, argv[0], &fa, &attr, argv, environ);
			posix_spawnattr_destroy(&attr);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	close_fd(&po[1]);
	close_fd(&pe[1]);
	if (rc != 0) {
		close_fd(&po[0]);
		close_fd(&pe[0]);
		c->pid = 0;
		*why = ut_format("cannot start %s: %s", argv[0], strerror(rc));
		drop_spill(c);
		return -1;
	}
	c->out_fd = po[0];
	c->err_fd = pe[0];
	return 0;
}

/* Closes the spill file (once); a failed write or close is kept in spill_err. */
static void close_spill(UtChild *c)
{
	if (!c->spill)
		return;
	bool bad = ferror(c->spill) != 0;
	if ((fclose(c->spill) != 0 || bad) && !c->spill_err)
		c->spill_err = errno ? errno : EIO;
	c->spill = NULL;
}

/* Standard output's N bytes at S: the head kept, the whole spilled up to UT_SPILL_LIMIT. */
static void add_out(UtChild *c, const char *s, size_t n)
{
	ut_buf_add(&c->out, s, n);
	c->out_total += n;
	if (!c->spill || c->spill_err || c->spill_full)
		return;
	if (c->out_total > UT_SPILL_LIMIT) {
		c->spill_full = true;
		return;
	}
	if (fwrite(s, 1, n, c->spill) != n)
		c->spill_err = errno ? errno : EIO;
}

void ut_child_read(UtChild *c, int fd)
{
	char chunk[65536];
	bool out = fd == c->out_fd;
	int *which = out ? &c->out_fd : &c->err_fd;
	for (int i = 0; i < 16; i++) { /* a bounded burst, so one child cannot starve others */
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n > 0) {
			if (out)
				add_out(c, chunk, (size_t)n);
			else
				ut_buf_add(&c->err, chunk, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		close_fd(which); /* end of file, or an error that will not go away */
		if (out)
			close_spill(c);
		return;
	}
}

/* Reaps C (blocking: only called once it has exited or been killed). */
static void reap(UtChild *c)
{
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->reaped = true;
}

bool ut_child_try_reap(UtChild *c)
{
	if (c->reaped)
		return true;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	/* WNOWAIT leaves the zombie in place, so the group id cannot be reused before the kill */
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
		return false;
	kill(-c->pid, SIGKILL); /* whatever it left running in its group */
	reap(c);
	return true;
}

void ut_child_kill(UtChild *c)
{
	if (!c->reaped && c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		reap(c);
	}
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
	close_spill(c);
}

bool ut_child_done(const UtChild *c)
{
	return c->reaped && c->out_fd < 0 && c->err_fd < 0;
}

void ut_child_free(UtChild *c)
{
	close_spill(c);
	free(c->spill_path);
	c->spill_path = NULL;
	ut_buf_free(&c->out);
	ut_buf_free(&c->err);
}

char *ut_status_text(int status)
{
	if (WIFEXITED(status))
		return ut_format("exited %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return ut_format("was killed by signal %d (%s)", WTERMSIG(status),
		                 strsignal(WTERMSIG(status)));
	return ut_format("ended with status 0x%x", (unsigned)status);
}

int ut_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
