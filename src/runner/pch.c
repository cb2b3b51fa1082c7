/* pch.c - the CUDA emulator's header, precompiled once for the `# cuda` tests of a run.
 *
 * Every `# cuda` test in the emulator compiles `$CXX -std=c++17 -O2 -pthread
 * -ffp-contract=off -include uir_cuda_emu.h -x c++ prog.cu`, and parsing the header (with
 * the C++ library's <math.h>, <stdlib.h> and the rest) is a large part of each compile. So
 * before the tests start, the runner precompiles the header with exactly those words of
 * $CXX and those flags (`-x c++-header`), and each test's compile force-includes the
 * header from the folder that holds its precompiled form: g++ reads `uir_cuda_emu.h.gch`
 * beside it, clang++ `uir_cuda_emu.h.pch`, in place of the text. The command line is the
 * same but for the folder of `-include`.
 *
 * The precompiled header is kept in the cache that `uir run` keeps its code in
 * ($UIR_CACHE_DIR, else $XDG_CACHE_HOME/uir, else $HOME/.cache/uir), in a folder named by a
 * 128-bit hash of everything the file depends on: the header's text, the words of $CXX and
 * the flags, what `$CXX --version` prints, and the compiler's file (path, size,
 * modification time, inode). Files are written under temporary names and linked or renamed
 * into place, so runs at the same time never see half a file. Without a cache
 * (UIR_CACHE=0, no place for it) the header is precompiled into the run's temporary folder,
 * and only when the run has enough `# cuda` tests to pay for it.
 *
 * Nothing here can change a verdict: a compiler that is neither g++ nor clang++, a build that
 * fails or times out, a cache that cannot be written, all leave the plain compile. g++ itself
 * ignores a precompiled header that does not fit the compile; a compile that fails with one
 * is run again without it (modes.c), so the test's verdict and message are the plain
 * compile's. UIR_TEST_PCH=0 turns the precompiled header off.
 */
#include "runner_int.h"
#include "../util/cache.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern const char ut_cuda_emu_header[];
extern const unsigned long ut_cuda_emu_header_len;

/* Without a cache, the header is precompiled for a run of at least this many `# cuda`
 * tests: building it costs about what six compiles save. */
#define PCH_MIN_TESTS 8

/* The longest a `--version` or a build may take (seconds). */
#define VERSION_LIMIT 20.0
#define BUILD_LIMIT 300.0

/* The flags of the emulator's compile (modes.c pushes the same, in this order). */
static const char *const emu_flags[] = { "-std=c++17", "-O2", "-pthread", "-ffp-contract=off", NULL };

const char *const *ut_cxx_emu_flags(void)
{
	return emu_flags;
}

/* ---- a child run to its end ---- */

/* Runs ARGV to its end (at most LIMIT seconds, or until *STOP is set), its outputs kept in
 * C (the caller frees them with ut_child_free). Returns 0 when it exited 0. */
static int run_child(UtChild *c, char **argv, double limit, volatile sig_atomic_t *stop)
{
	char *why = NULL;
	if (ut_spawn(c, argv, NULL, &why) != 0) {
		free(why);
		return -1;
	}
	double deadline = ut_now() + limit;
	while (!ut_child_done(c)) {
		if ((stop && *stop) || ut_now() > deadline) {
			ut_child_kill(c);
			return -1;
		}
		struct pollfd fds[2];
		int n = 0;
		int want[2] = { c->out_fd, c->err_fd };
		for (int k = 0; k < 2; k++)
			if (want[k] >= 0) {
				fds[n].fd = want[k];
				fds[n++].events = POLLIN;
			}
		if (n && poll(fds, (nfds_t)n, 100) > 0) {
			for (int k = 0; k < n; k++)
				if (fds[k].revents)
					ut_child_read(c, fds[k].fd);
		} else if (!n) {
			struct timespec ts = { 0, 2 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		ut_child_try_reap(c);
	}
	return ut_exit_code(c->status) == 0 ? 0 : -1;
}

/* ---- the key ---- */

/* ---- building ---- */

/* Writes the header's text to DIR/uir_cuda_emu.h unless it is there: under a temporary name,
 * then linked into place, so that the file, once there, never changes (clang++ checks the
 * header of a precompiled one). */
static bool place_header(const char *dir, const char *header)
{
	struct stat st;
	if (stat(header, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long)st.st_size == ut_cuda_emu_header_len)
		return true;
	char *tmp = ut_format("%s/.tmp-h-XXXXXX", dir);
	int fd = mkstemp(tmp);
	bool ok = fd >= 0;
	if (ok) {
		FILE *f = fdopen(fd, "wb");
		ok = f && fwrite(ut_cuda_emu_header, 1, ut_cuda_emu_header_len, f) == ut_cuda_emu_header_len;
		if (f)
			ok = fclose(f) == 0 && ok;
		else
			close(fd);
		ok = ok && (link(tmp, header) == 0 || errno == EEXIST);
		unlink(tmp);
	}
	free(tmp);
	return ok && stat(header, &st) == 0 && (unsigned long)st.st_size == ut_cuda_emu_header_len;
}

/* Pushes a copy of S onto the NULL-ended vector *V of *N words. */
static void push(char ***v, size_t *n, const char *s)
{
	*v = ut_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = ut_strdup(s);
	(*v)[*n] = NULL;
}

/* The compiler's words, the emulator's flags, then MORE (NULL-ended). */
static char **cxx_argv(char **words, const char *const *more)
{
	char **v = NULL;
	size_t n = 0;
	for (char **w = words; *w; w++)
		push(&v, &n, *w);
	for (const char *const *f = emu_flags; *f; f++)
		push(&v, &n, *f);
	for (const char *const *f = more; *f; f++)
		push(&v, &n, *f);
	return v;
}

/* Precompiles the header in DIR (a folder of its own) into DIR/uir_cuda_emu.h.SUFFIX, unless
 * it is there. True when it is there at the end. */
static bool build(char **words, bool clang, const char *dir, volatile sig_atomic_t *stop)
{
	const char *suffix = clang ? "pch" : "gch";
	char *header = ut_format("%s/uir_cuda_emu.h", dir);
	char *pch = ut_format("%s.%s", header, suffix);
	struct stat st;
	bool ok = place_header(dir, header);
	if (!ok || (stat(pch, &st) == 0 && S_ISREG(st.st_mode))) {
		free(header);
		free(pch);
		return ok; /* no header, or already built */
	}
	char *tmp = ut_format("%s/.tmp-p-XXXXXX", dir);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		free(header);
		free(pch);
		return false;
	}
	close(fd);
	UtChild c;
	const char *make[] = { "-x", "c++-header", "-o", tmp, header, NULL };
	char **argv = cxx_argv(words, make);
	ok = run_child(&c, argv, BUILD_LIMIT, stop) == 0 && stat(tmp, &st) == 0 && st.st_size > 0;
	ut_child_free(&c);
	ut_argv_free(argv);
	if (ok && clang) {
		/* clang++ refuses a precompiled header it cannot use: try it on an empty file */
		const char *use[] = { "-include-pch", tmp, "-fsyntax-only", "-x", "c++", "/dev/null", NULL };
		argv = cxx_argv(words, use);
		ok = run_child(&c, argv, BUILD_LIMIT, stop) == 0;
		ut_child_free(&c);
		ut_argv_free(argv);
	}
	ok = ok && rename(tmp, pch) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	free(header);
	free(pch);
	return ok;
}

/* The compiler's file as found in PATH, resolved (malloc'd), or NULL. */
static char *compiler_file(const char *prog)
{
	char *found = ut_find_program(prog);
	if (!found)
		return NULL;
	char buf[PATH_MAX];
	char *real = realpath(found, buf) ? ut_strdup(buf) : NULL;
	free(found);
	return real;
}

void ut_pch_prepare(UtConfig *cfg, int ntests, volatile sig_atomic_t *stop)
{
	if (ntests <= 0)
		return;
	char **words = ut_tool_words("CXX", "c++");
	char *file = words[0] ? compiler_file(words[0]) : NULL;
	struct stat st;
	if (!file || stat(file, &st) != 0) {
		free(file);
		ut_argv_free(words);
		return;
	}
	/* what the compiler is: its --version, and its file */
	UtChild c;
	const char *version[] = { "--version", NULL };
	char **argv = NULL;
	size_t n = 0;
	for (char **w = words; *w; w++)
		push(&argv, &n, *w);
	push(&argv, &n, version[0]);
	int rc = run_child(&c, argv, VERSION_LIMIT, stop);
	ut_argv_free(argv);
	const char *out = c.out.data ? c.out.data : "";
	bool clang = strstr(out, "clang version") != NULL;
	bool gcc = !clang && (strstr(out, "Free Software Foundation") != NULL);
	Hash128 h = CACHE_HASH_INIT;
	cache_hash_str(&h, "uir test pch 1");
	cache_hash_add(&h, ut_cuda_emu_header, ut_cuda_emu_header_len);
	for (char **w = words; *w; w++)
		cache_hash_str(&h, *w);
	for (const char *const *f = emu_flags; *f; f++)
		cache_hash_str(&h, *f);
	cache_hash_add(&h, out, c.out.len);
	cache_hash_file(&h, file);
	ut_child_free(&c);
	free(file);
	const char *off = getenv("UIR_TEST_PCH");
	if (rc == 0 && (clang || gcc))
		cfg->cxx_kind = clang ? UT_CXX_CLANG : UT_CXX_GCC;
	if (!cfg->cxx_kind || (off && strcmp(off, "0") == 0)) {
		ut_argv_free(words);
		return;
	}
	char *dir = NULL;
	char *cache = cache_dir();
	if (cache) {
		dir = cache_path(cache, "pch-", &h, "");
		free(cache);
		if (!cache_make_dirs(dir) || !build(words, clang, dir, stop)) {
			free(dir);
			dir = NULL;
		}
	}
	const char *tmp;
	if (!dir && ntests >= PCH_MIN_TESTS && (tmp = ut_run_tmpdir(cfg)) != NULL) {
		dir = ut_format("%s/pch", tmp);
		if (!cache_make_dirs(dir) || !build(words, clang, dir, stop)) {
			free(dir);
			dir = NULL;
		}
	}
	ut_argv_free(words);
	if (dir) {
		cfg->pch_header = ut_format("%s/uir_cuda_emu.h", dir);
		free(dir);
	}
}

void ut_pch_drop(UtConfig *cfg)
{
	free(cfg->pch_header);
	cfg->pch_header = NULL;
}
