/* proc.c - the runner's child processes.
 *
 * Every check runs as a child started with posix_spawn (never a shell), in a process group
 * of its own so that a timeout can kill it with everything it started. Its standard output
 * and error come back through non-blocking pipes that the runner's poll loop drains while
 * the child runs, so a large output cannot deadlock. All the runner's own descriptors are
 * close-on-exec, so no child holds another child's pipe open.
 */
#include "test_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What is kept of a child's output (bytes); the rest is read and dropped. Standard output is
 * compared, so it is kept whole up to a size no test should reach. */
#define OUT_LIMIT ((size_t)256 << 20)
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

int ut_spawn(UtChild *c, char *const argv[], char **why)
{
	memset(c, 0, sizeof *c);
	c->out_fd = c->err_fd = -1;
	c->out.limit = OUT_LIMIT;
	c->err.limit = ERR_LIMIT;
	int po[2], pe[2];
	if (make_pipes(po, pe) != 0) {
		*why = ut_format("cannot make a pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close_fd(&po[i]);
			close_fd(&pe[i]);
		}
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
		return -1;
	}
	c->out_fd = po[0];
	c->err_fd = pe[0];
	return 0;
}

void ut_child_read(UtChild *c, int fd)
{
	char chunk[65536];
	UtBuf *b = fd == c->out_fd ? &c->out : &c->err;
	int *which = fd == c->out_fd ? &c->out_fd : &c->err_fd;
	for (int i = 0; i < 16; i++) { /* a bounded burst, so one child cannot starve others */
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n > 0) {
			ut_buf_add(b, chunk, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		close_fd(which); /* end of file, or an error that will not go away */
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
}

bool ut_child_done(const UtChild *c)
{
	return c->reaped && c->out_fd < 0 && c->err_fd < 0;
}

void ut_child_free(UtChild *c)
{
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
