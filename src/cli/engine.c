/* engine.c - engine choice for `uir run`, the loader of the LLVM back end (dlopen of
 * uir-llvm.so next to the executable), and the `--time` breakdown. See engine.h.
 *
 * The module is looked up, in order: $UIR_LLVM_MODULE; in the library (libuir.so, src/api/),
 * LIB/uir-llvm.so and LIB/../llvm/uir-llvm.so, with LIB the directory of the library (the
 * second is where the build tree has it), then the module's install path
 * (UIR_LLVM_INSTALLED, set by src/api/meson.build); DIR/uir-llvm.so and DIR/llvm/uir-llvm.so,
 * with DIR the directory of /proc/self/exe (the first is where it is installed, the second
 * where the build tree has it); DIR/../lib/uir/uir-llvm.so.
 */
#include "engine.h"
#include "cli.h"
#include "../interp/interp.h"
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double uir_now_ms(void)
{
	struct timespec t;
	clock_gettime(getenv("UIR_TIME_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int engine_parse_threads(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1024)
		return -1;
	return (int)v;
}

int engine_env_threads(const char *cmd)
{
	const char *env = getenv("UIR_THREADS");
	if (!env || !*env)
		return 0;
	int n = engine_parse_threads(env);
	if (n < 0)
		usage_error(cmd, "UIR_THREADS needs an integer from 1 to 1024, found '%s'", env);
	return n;
}

bool engine_parse(const char *s, UirEngine *e)
{
	if (!strcmp(s, "auto"))
		*e = UIR_ENGINE_AUTO;
	else if (!strcmp(s, "jit"))
		*e = UIR_ENGINE_JIT;
	else if (!strcmp(s, "interp"))
		*e = UIR_ENGINE_INTERP;
	else
		return false;
	return true;
}

/* ---- loading the back end ---- */

static char load_error[PATH_MAX + 256];

const char *uir_llvm_error(void)
{
	return load_error;
}

/* Tries to load the module at PATH. Returns its table or NULL (reason in load_error). */
static const UirLlvmApi *try_load(const char *path)
{
	if (access(path, F_OK) != 0)
		return NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(load_error, sizeof load_error, "cannot load %s: %s", path, dlerror());
		return NULL;
	}
	UirLlvmApiFn fn;
	void *sym = dlsym(h, UIR_LLVM_API_SYMBOL);
	if (!sym) {
		snprintf(load_error, sizeof load_error, "%s has no %s", path, UIR_LLVM_API_SYMBOL);
		return NULL;
	}
	memcpy(&fn, &sym, sizeof fn);
	const UirLlvmApi *api = fn();
	if (!api || api->version != UIR_LLVM_API_VERSION) {
		snprintf(load_error, sizeof load_error, "%s is from another version of uir (rebuild it)", path);
		return NULL;
	}
	return api;
}

/* The first module of DIR + REL[0], ... that loads, or NULL. */
static const UirLlvmApi *load_first(const char *dir, const char *const *rel, size_t n)
{
	const UirLlvmApi *api = NULL;
	for (size_t i = 0; !api && i < n; i++) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s%s", dir, rel[i]);
		api = try_load(path);
	}
	return api;
}

/* The module as the library finds it: next to the library, where the build tree has it,
 * where it is installed. NULL in the executable (this code is not in a shared library) or
 * when none of them loads. */
static const UirLlvmApi *load_near_library(void)
{
	Dl_info info;
	struct link_map *map = NULL;
	char lib[PATH_MAX];
	/* the main program's link map has no name */
	if (!dladdr1(load_error, &info, (void **)&map, RTLD_DL_LINKMAP) || !map || !map->l_name || !*map->l_name ||
	    !realpath(map->l_name, lib))
		return NULL;
	char *slash = strrchr(lib, '/');
	if (slash)
		*slash = 0;
	static const char *const rel[] = { "/uir-llvm.so", "/../llvm/uir-llvm.so" };
	const UirLlvmApi *api = load_first(lib, rel, sizeof rel / sizeof rel[0]);
#ifdef UIR_LLVM_INSTALLED
	if (!api)
		api = try_load(UIR_LLVM_INSTALLED);
#endif
	return api;
}

const UirLlvmApi *uir_llvm_load(double *ms)
{
	static const UirLlvmApi *api;
	static bool tried;
	double t0 = uir_now_ms();
	if (!tried) {
		tried = true;
		snprintf(load_error, sizeof load_error, "the LLVM back end (uir-llvm.so) is not installed next to uir");
		const char *env = getenv("UIR_LLVM_MODULE");
		if (env && *env) {
			api = try_load(env);
			if (!api && access(env, F_OK) != 0)
				snprintf(load_error, sizeof load_error, "UIR_LLVM_MODULE=%s: no such file", env);
		} else {
			api = load_near_library();
			char dir[PATH_MAX];
			ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
			if (!api && n > 0) {
				dir[n] = 0;
				char *slash = strrchr(dir, '/');
				if (slash)
					*slash = 0;
				static const char *const rel[] = { "/uir-llvm.so", "/llvm/uir-llvm.so", "/../lib/uir/uir-llvm.so" };
				api = load_first(dir, rel, sizeof rel / sizeof rel[0]);
			}
		}
	}
	if (ms)
		*ms = uir_now_ms() - t0;
	return api;
}

/* ---- the estimate for --engine auto ---- */

bool engine_auto_jit(const UirProgram *p)
{
	return stmts_work(p->top) > UIR_AUTO_JIT_ABOVE + UIR_AUTO_JIT_PER_OP * stmts_code_size(p->top);
}

/* ---- running ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sets T's exec to the median of the N run times in RUNS (the lower middle one for even
 * N) and exec_min to the fastest. */
static void set_exec_median(UirRunTimes *t, double *runs, int n)
{
	t->exec_first = runs[0];
	qsort(runs, (size_t)n, sizeof *runs, cmp_double);
	t->runs = n;
	t->exec = runs[(n - 1) / 2];
	t->exec_min = runs[0];
}

int engine_run(UirProgram *p, void **bufs, UirEngine e, const RunOptions *ro, UirRunTimes *t)
{
	const UirLlvmApi *api = NULL;
	double load = 0;
	if (e == UIR_ENGINE_JIT || (e == UIR_ENGINE_AUTO && engine_auto_jit(p))) {
		api = uir_llvm_load(&load);
		if (!api && e == UIR_ENGINE_JIT) {
			fprintf(stderr, "uir run: --engine jit: %s\n", uir_llvm_error());
			return UIR_EXIT_USAGE;
		}
	}
	if (t)
		t->load += load;
	int repeat = ro && ro->repeat > 1 ? ro->repeat : 1;
	double *runs = xcalloc((size_t)repeat, sizeof *runs);
	int rc = 0, n = 0;
	if (!api) {
		for (; n < repeat && !rc; n++) {
			if (n > 0 && ro->reset && ro->reset(ro->reset_ctx) != 0) {
				rc = UIR_EXIT_ERROR;
				break;
			}
			double t0 = uir_now_ms();
			rc = interp_run(p, bufs, ro);
			runs[n] = uir_now_ms() - t0;
		}
		if (t)
			t->engine = "interp";
	} else {
		RunOptions o = ro ? *ro : (RunOptions){ .bounds_check = true };
		o.opt_level = 3; /* run: the O3 pipeline, for the host */
		o.cpu = NULL;
		o.repeat = repeat;
		UirJitTimes jt = { .exec_runs = runs };
		rc = api->run(p, bufs, &o, &jt);
		while (n < repeat && runs[n] > 0)
			n++;
		if (t) {
			t->engine = "jit";
			t->loopopt += jt.loopopt_ms;
			t->cache = jt.cache;
			t->lower += jt.lower_ms;
			t->opt += jt.opt_ms;
			t->jit += jt.jit_ms;
		}
	}
	if (t && n > 0)
		set_exec_median(t, runs, n);
	free(runs);
	return rc;
}

void engine_print_times(FILE *f, const UirRunTimes *t)
{
	fprintf(f,
		"time (%s): parse+check %.2f ms, load %.2f ms, loop optimiser %.2f ms, lowering %.2f ms, "
		"optimisation %.2f ms, JIT %.2f ms, execution %.2f ms, output %.2f ms\n",
		t->engine ? t->engine : "none", t->parse_check, t->load, t->loopopt, t->lower, t->opt, t->jit, t->exec,
		t->output);
	if (t->engine && !strcmp(t->engine, "jit"))
		fprintf(f, "time: code cache %s\n", t->cache == UIR_CACHE_HIT ? "hit (no LLVM passes, no code generation)"
						  : t->cache == UIR_CACHE_MISS ? "miss (compiled, kept)" : "off");
	if (t->runs > 1)
		fprintf(f, "time: execution is the median of %d runs (fastest %.2f ms, first %.2f ms)\n", t->runs,
			t->exec_min, t->exec_first);
}
