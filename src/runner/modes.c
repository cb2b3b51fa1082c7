/* modes.c - what each test mode runs, and how each step's result is judged.
 *
 * A test is a set of steps (UtStep), child commands that run one after another in the enum's
 * order: check, run (the interpreter), run_jit (the JIT, every buffer compared with run's
 * bit for bit), then the back ends. ut_step_argv() builds a step's command line and
 * ut_step_judge() decides from its exit status and outputs whether it passed. The mode table
 * maps each directive to its steps: BASE steps use commands that `uir` always has (check,
 * run), OWN steps need a tool that may be missing. A mode whose tool is missing (no C
 * compiler) runs its base steps, and the test is skipped unless they fail.
 *
 * To add a mode (GPU timing, `--cuda-docker`, `--ptx`): add its steps to UtStep, a case to
 * ut_step_argv() and ut_step_judge(), and one row to the mode table.
 */
#include "runner_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The `# cuda` emulator force-includes runtime/uir_cuda_emu.h, whose text is built into uir
 * (cuda_emu_gen.c) and written into each test's folder, so an installed uir needs no file
 * beside it. */
extern const char ut_cuda_emu_header[];
extern const unsigned long ut_cuda_emu_header_len;

#define S(x) (1u << UT_STEP_##x)

/* ---- tools ---- */

char **ut_tool_words(const char *var, const char *def)
{
	const char *s = getenv(var);
	if (!s || !s[strspn(s, " \t")])
		s = def;
	char **w = NULL;
	size_t n = 0;
	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			break;
		size_t len = strcspn(s, " \t");
		w = ut_xrealloc(w, (n + 2) * sizeof *w);
		w[n++] = ut_format("%.*s", (int)len, s);
		s += len;
	}
	w = ut_xrealloc(w, (n + 1) * sizeof *w);
	w[n] = NULL;
	return w;
}

char *ut_find_program(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? ut_strdup(prog) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full = ut_format("%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(full, X_OK) == 0)
			return full;
		free(full);
		path += len + (path[len] == ':');
	}
	return NULL;
}

/* Whether PROG can be run: a path that is executable, or a name found in PATH. */
static bool have_program(const char *prog)
{
	char *full = ut_find_program(prog);
	free(full);
	return full != NULL;
}

/* Whether the compiler in VAR (default DEF) exists; *NAME is its first word. Looked up once. */
static bool have_compiler(const char *var, const char *def, int *cache, char **name)
{
	char **w = ut_tool_words(var, def);
	*name = ut_strdup(w[0] ? w[0] : def);
	if (*cache < 0)
		*cache = w[0] && have_program(w[0]);
	ut_argv_free(w);
	return *cache;
}

/* ---- availability of the modes ---- */

typedef enum Avail { AVAIL_YES, AVAIL_NO_TOOL } Avail;

static Avail avail_render(UtConfig *cfg, unsigned *own, char **why)
{
	static int cc = -1;
	char *name;
	(void)cfg;
	(void)own;
	bool ok = have_compiler("CC", "cc", &cc, &name);
	*why = ok ? NULL : ut_format("render: no C compiler (%s not found)", name);
	free(name);
	return ok ? AVAIL_YES : AVAIL_NO_TOOL;
}

/* ---- CUDA: the emulator, a GPU, or Docker ---- */

/* nvcc: $NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc; NULL when there is none.
 * Looked up once. */
static const char *find_nvcc(void)
{
	static bool done;
	static char *path;
	if (!done) {
		done = true;
		const char *e = getenv("NVCC");
		if (e && *e)
			path = have_program(e) ? ut_strdup(e) : NULL;
		else if (have_program("nvcc"))
			path = ut_strdup("nvcc");
		else if (have_program("/usr/local/cuda/bin/nvcc"))
			path = ut_strdup("/usr/local/cuda/bin/nvcc");
	}
	return path;
}

/* Where `# cuda` tests run, decided once: in the Docker image of --cuda-docker; on the GPU
 * when nvcc and a GPU (/dev/nvidia0) are there; else in the emulator. UIR_TEST_CUDA=emu
 * forces the emulator, UIR_TEST_CUDA=gpu the GPU (nvcc still needed). */
static int cuda_engine(UtConfig *cfg)
{
	if (cfg->cuda_engine != UT_CUDA_UNDECIDED)
		return cfg->cuda_engine;
	const char *force = getenv("UIR_TEST_CUDA");
	if (cfg->cuda_docker)
		cfg->cuda_engine = UT_CUDA_DOCKER;
	else if (force && strcmp(force, "emu") == 0)
		cfg->cuda_engine = UT_CUDA_EMU;
	else if (find_nvcc() && ((force && strcmp(force, "gpu") == 0) || access("/dev/nvidia0", F_OK) == 0))
		cfg->cuda_engine = UT_CUDA_GPU;
	else
		cfg->cuda_engine = UT_CUDA_EMU;
	return cfg->cuda_engine;
}

static bool have_docker(const char *what, char **why)
{
	static int docker = -1;
	if (docker < 0)
		docker = have_program("docker");
	*why = docker ? NULL : ut_format("%s: --cuda-docker, but docker is not found", what);
	return docker;
}

static bool have_cxx(const char *what, char **why)
{
	static int cxx = -1;
	char *name;
	bool ok = have_compiler("CXX", "c++", &cxx, &name);
	*why = ok ? NULL : ut_format("%s: no C++ compiler for the CUDA emulator (%s not found)", what, name);
	free(name);
	return ok;
}

/* `# cuda`: render-cuda --main, then built and run in the emulator, on the GPU or in Docker;
 * every buffer compared with run's. */
static Avail avail_cuda(UtConfig *cfg, unsigned *own, char **why)
{
	switch (cuda_engine(cfg)) {
	case UT_CUDA_DOCKER:
		*own = S(RENDER_CUDA) | S(NVCC) | S(EXEC_CUDA);
		return have_docker("cuda", why) ? AVAIL_YES : AVAIL_NO_TOOL;
	case UT_CUDA_GPU:
		*own = S(RENDER_CUDA) | S(NVCC) | S(EXEC_CUDA);
		*why = NULL;
		return AVAIL_YES;
	default:
		*own = S(RENDER_CUDA) | S(CXX_EMU) | S(EXEC_CUDA);
		return have_cxx("cuda", why) ? AVAIL_YES : AVAIL_NO_TOOL;
	}
}

/* `# cuda speed: X`: on a GPU (or in Docker) the kernel timed against NAME.ref.cu on inputs
 * drawn from the run's seed, after `run --seed` has given the bits every launch must leave;
 * without one, only the build of both (nvcc when present, else the emulator's compiler). */
static Avail avail_cuda_speed(UtConfig *cfg, unsigned *own, char **why)
{
	switch (cuda_engine(cfg)) {
	case UT_CUDA_DOCKER:
		*own = S(RENDER_CUDA) | S(SPEED_BUILD) | S(SPEED_EXPECT) | S(SPEED_EXEC);
		return have_docker("cuda speed", why) ? AVAIL_YES : AVAIL_NO_TOOL;
	case UT_CUDA_GPU:
		*own = S(RENDER_CUDA) | S(SPEED_BUILD) | S(SPEED_EXPECT) | S(SPEED_EXEC);
		*why = NULL;
		return AVAIL_YES;
	default:
		*own = S(RENDER_CUDA) | S(SPEED_BUILD);
		if (find_nvcc()) {
			*why = NULL;
			return AVAIL_YES;
		}
		return have_cxx("cuda speed", why) ? AVAIL_YES : AVAIL_NO_TOOL;
	}
}

/* How TEST's CUDA is checked, for its result line: "cuda: emulator", "cuda: GPU", ... */
static char *cuda_how(const UtConfig *cfg, const UtTest *t)
{
	switch (cfg->cuda_engine) {
	case UT_CUDA_DOCKER:
		return ut_format("cuda: GPU in Docker image %s", cfg->cuda_docker);
	case UT_CUDA_GPU:
		return ut_strdup("cuda: GPU");
	default: {
		const char *build = find_nvcc() ? "nvcc" : "emulator compiler";
		if (!(t->spec.modes & UT_MODE_CUDA))
			return ut_format("cuda speed: no GPU, build only (%s)", build);
		if (t->spec.modes & UT_MODE_CUDA_SPEED)
			return ut_format("cuda: emulator; cuda speed: no GPU, build only (%s)", build);
		return ut_strdup("cuda: emulator");
	}
	}
}

/* ---- the mode table ---- */

typedef struct ModeInfo {
	unsigned mode;     /* UT_MODE_* */
	unsigned base;     /* steps always run */
	unsigned own;      /* steps run when avail() says AVAIL_YES */
	/* NULL: always; *WHY a malloc'd reason; may change *OWN (the steps depend on the tools) */
	Avail (*avail)(UtConfig *cfg, unsigned *own, char **why);
} ModeInfo;

static const ModeInfo mode_table[] = {
	{ UT_MODE_RUN, S(RUN), 0, NULL },
	{ UT_MODE_ERROR, S(CHECK), 0, NULL },
	{ UT_MODE_FAULT, S(CHECK) | S(RUN), 0, NULL },
	{ UT_MODE_STRICT, S(CHECK), 0, NULL },
	{ UT_MODE_RENDER, S(RUN), S(RENDER) | S(CC) | S(EXEC_C), avail_render },
	{ UT_MODE_CUDA, S(RUN), S(RENDER_CUDA) | S(CXX_EMU) | S(EXEC_CUDA), avail_cuda },
	{ UT_MODE_CUDA_SPEED, S(RUN), S(RENDER_CUDA) | S(SPEED_BUILD), avail_cuda_speed },
	{ UT_MODE_CUDA_INVALID, S(CHECK), S(CUDA_INVALID), NULL },
};

static void add_note(UtBuf *b, const char *s)
{
	if (b->len)
		ut_buf_puts(b, "; ");
	ut_buf_puts(b, s);
}

/* Why `uir run --engine jit` cannot run (no LLVM back end), once a run_jit step has said
 * so; later tests then note it instead of running the step. */
static char *jit_missing;

/* Every test that runs the program is run again on the JIT (run_jit), unless `--engine`
 * chose one engine. */
static void plan_run_jit(const UtConfig *cfg, UtTest *t)
{
	if (cfg->engine || !(t->plan & S(RUN)))
		return;
	if (jit_missing) {
		char *note = ut_format("jit: %s", jit_missing);
		add_note(&t->notes, note);
		free(note);
		return;
	}
	t->plan |= S(RUN_JIT);
}

void ut_plan(UtConfig *cfg, UtTest *t)
{
	char *why = NULL;
	if (ut_read_spec(t->path, &t->spec, &why) != 0) {
		t->fail = why;
		return;
	}
	if (t->spec.bad) {
		t->fail = ut_format("directives: %s", t->spec.bad);
		return;
	}
	for (size_t i = 0; i < sizeof mode_table / sizeof mode_table[0]; i++) {
		const ModeInfo *m = &mode_table[i];
		if (!(t->spec.modes & m->mode))
			continue;
		t->plan |= m->base;
		if (!m->own)
			continue;
		unsigned own = m->own;
		Avail a = m->avail ? m->avail(cfg, &own, &why) : AVAIL_YES;
		if (a == AVAIL_YES)
			t->plan |= own;
		else
			add_note(&t->skips, why);
		free(why);
		why = NULL;
	}
	if (t->plan & S(RENDER_CUDA)) {
		free(t->cuda_how);
		t->cuda_how = cuda_how(cfg, t);
	}
	plan_run_jit(cfg, t);
	ut_ptx_plan(cfg, t); /* --ptx (ptx_step.c) */
}

/* ---- temporary files ---- */

void ut_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *sub = ut_format("%s/%s", path, e->d_name);
			ut_remove_tree(sub);
			free(sub);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The runner's temporary folder, made on first need; NULL with *WHY a malloc'd message when
 * it cannot be made. */
static const char *run_tmpdir(UtConfig *cfg, char **why)
{
	if (!cfg->tmpdir) {
		const char *base = getenv("TMPDIR");
		char *tmpl = ut_format("%s/uir-test-XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(tmpl)) {
			*why = ut_format("cannot make a temporary folder %s: %s", tmpl, strerror(errno));
			free(tmpl);
			return NULL;
		}
		cfg->tmpdir = tmpl;
	}
	return cfg->tmpdir;
}

const char *ut_run_tmpdir(UtConfig *cfg)
{
	char *why = NULL;
	const char *d = run_tmpdir(cfg, &why);
	free(why);
	return d;
}

/* TEST's own folder under the runner's temporary folder, made on first need. */
static const char *test_dir(UtConfig *cfg, UtTest *t)
{
	if (t->dir)
		return t->dir;
	if (!run_tmpdir(cfg, &t->fail))
		return NULL;
	char *tmpl = ut_format("%s/t-XXXXXX", cfg->tmpdir);
	if (!mkdtemp(tmpl)) {
		t->fail = ut_format("cannot make a temporary folder %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return t->dir = tmpl;
}

void ut_test_cleanup(UtTest *t)
{
	if (t->dir)
		ut_remove_tree(t->dir);
	free(t->dir);
	t->dir = NULL;
}

void ut_remove_tmpdir(UtConfig *cfg)
{
	if (cfg->tmpdir)
		ut_remove_tree(cfg->tmpdir);
	free(cfg->tmpdir);
	cfg->tmpdir = NULL;
}

/* Writes N bytes of DATA to the file DIR/NAME; false with TEST->fail set on an error. */
static bool write_file(UtTest *t, const char *dir, const char *name, const char *data, size_t n)
{
	char *path = ut_format("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(data, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		t->fail = ut_format("cannot write %s: %s", path, strerror(errno));
	free(path);
	return ok;
}

/* ---- command lines ---- */

typedef struct Argv {
	char **v;
	size_t n;
} Argv;

static void push(Argv *a, char *owned)
{
	a->v = ut_xrealloc(a->v, (a->n + 2) * sizeof *a->v);
	a->v[a->n++] = owned;
	a->v[a->n] = NULL;
}

static void push_words(Argv *a, const char *var, const char *def)
{
	char **w = ut_tool_words(var, def);
	for (char **p = w; *p; p++)
		push(a, *p);
	free(w);
}

void ut_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* ---- command lines of the CUDA steps ---- */

/* Pushes `docker run ... IMAGE` for a step in DIR: the GPUs, no network, the caller's user,
 * DIR mounted at the same path and the working folder. No shell is involved anywhere:
 * this is an argv, and the image and folder are checked so that neither can be read as
 * an option or break the mount's syntax. False with TEST->fail set when they cannot. */
static bool push_docker(UtConfig *cfg, UtTest *t, Argv *a, const char *dir)
{
	const char *img = cfg->cuda_docker;
	if (strpbrk(dir, ":,\n")) {
		t->fail = ut_format("--cuda-docker: the temporary folder %s has ':' or ',' and cannot be "
		                    "mounted (set TMPDIR)", dir);
		return false;
	}
	push(a, ut_strdup("docker"));
	push(a, ut_strdup("run"));
	push(a, ut_strdup("--rm"));
	push(a, ut_strdup("--gpus"));
	push(a, ut_strdup("all"));
	push(a, ut_strdup("--network"));
	push(a, ut_strdup("none"));
	push(a, ut_strdup("--user"));
	push(a, ut_format("%u:%u", (unsigned)getuid(), (unsigned)getgid()));
	push(a, ut_strdup("-v"));
	push(a, ut_format("%s:%s", dir, dir));
	push(a, ut_strdup("-w"));
	push(a, ut_strdup(dir));
	push(a, ut_strdup(img));
	return true;
}

/* nvcc and its flags (docs/language.md 8.3.6): NVCC_ARCH, else the device's arch on a GPU, else
 * sm_90. In Docker, the image's nvcc. */
static void push_nvcc(Argv *a, bool gpu, bool docker)
{
	const char *nvcc = find_nvcc();
	push(a, ut_strdup(docker || !nvcc ? "nvcc" : nvcc));
	const char *arch = getenv("NVCC_ARCH");
	push(a, ut_format("-arch=%s", arch && *arch ? arch : gpu ? "native" : "sm_90"));
	push(a, ut_strdup("-fmad=false"));
	push(a, ut_strdup("-prec-div=true"));
	push(a, ut_strdup("-prec-sqrt=true"));
}

/* The emulator's compiler and flags (docs/language.md 8.3.6), force-including HEADER (the
 * copy in the test's folder, or the one beside its precompiled form, pch.c). */
static void push_cxx_emu(Argv *a, char *header)
{
	push_words(a, "CXX", "c++");
	for (const char *const *f = ut_cxx_emu_flags(); *f; f++)
		push(a, ut_strdup(*f));
	push(a, ut_strdup("-include"));
	push(a, header);
}

/* Copies TEST's NAME.ref.cu into DIR/ref.cu with its `kernel` renamed uir_ref_kernel, the
 * name the timing main of render-cuda --main -DUIR_TIME calls. False with TEST->fail set. */
static bool write_ref(UtTest *t, const char *dir)
{
	size_t n = strlen(t->path);
	size_t stem = n > 4 && strcmp(t->path + n - 4, ".uir") == 0 ? n - 4 : n;
	char *ref = ut_format("%.*s.ref.cu", (int)stem, t->path);
	FILE *f = fopen(ref, "rb");
	if (!f) {
		t->fail = ut_format("cuda speed: no reference kernel %s: %s", ref, strerror(errno));
		free(ref);
		return false;
	}
	UtBuf b = { 0 };
	const char *base = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
	ut_buf_puts(&b, "/* written by uir test: the reference kernel, its kernel() renamed */\n"
	                "#define kernel uir_ref_kernel\n#line 1 \"");
	for (const char *p = base; *p; p++)
		ut_buf_add(&b, *p == '"' || *p == '\\' || (unsigned char)*p < 32 ? "_" : p, 1);
	ut_buf_puts(&b, "\"\n");
	char chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		ut_buf_add(&b, chunk, got);
	bool bad = ferror(f);
	fclose(f);
	if (bad)
		t->fail = ut_format("cuda speed: cannot read %s: %s", ref, strerror(errno));
	bool ok = !bad && write_file(t, dir, "ref.cu", b.data, b.len);
	ut_buf_free(&b);
	free(ref);
	return ok;
}

/* The steps of `# cuda` and `# cuda speed` after render-cuda, in DIR. */
static char **cuda_step_argv(UtConfig *cfg, UtTest *t, UtStep step, const char *dir)
{
	Argv a = { NULL, 0 };
	int engine = cuda_engine(cfg);
	bool docker = engine == UT_CUDA_DOCKER, gpu = engine != UT_CUDA_EMU;
	const char *out = step == UT_STEP_SPEED_BUILD || step == UT_STEP_SPEED_EXEC ? "prog_speed" : "prog_cuda";
	if (docker && step != UT_STEP_CXX_EMU && !push_docker(cfg, t, &a, dir)) {
		ut_argv_free(a.v);
		return NULL;
	}
	switch (step) {
	case UT_STEP_CXX_EMU: /* docs/language.md 8.3.6, the emulator */
		/* the precompiled header (pch.c), unless a compile with it failed */
		t->pch_used = cfg->pch_header && !t->pch_off;
		push_cxx_emu(&a, t->pch_used ? ut_strdup(cfg->pch_header) : ut_format("%s/uir_cuda_emu.h", dir));
		push(&a, ut_strdup("-o"));
		push(&a, ut_format("%s/%s", dir, out));
		push(&a, ut_strdup("-x"));
		push(&a, ut_strdup("c++"));
		push(&a, ut_format("%s/prog.cu", dir));
		break;
	case UT_STEP_NVCC:
		push_nvcc(&a, true, docker);
		push(&a, ut_strdup("-o"));
		push(&a, ut_format("%s/%s", dir, out));
		push(&a, ut_format("%s/prog.cu", dir));
		break;
	case UT_STEP_SPEED_BUILD:
		if (!write_ref(t, dir)) {
			ut_argv_free(a.v);
			return NULL;
		}
		if (gpu || find_nvcc()) {
			push_nvcc(&a, gpu, docker);
			push(&a, ut_strdup("-DUIR_TIME"));
			push(&a, ut_strdup("-o"));
			push(&a, ut_format("%s/%s", dir, out));
			push(&a, ut_format("%s/prog.cu", dir));
			push(&a, ut_format("%s/ref.cu", dir));
		} else {
			push_cxx_emu(&a, ut_format("%s/uir_cuda_emu.h", dir));
			push(&a, ut_strdup("-DUIR_TIME"));
			push(&a, ut_strdup("-o"));
			push(&a, ut_format("%s/%s", dir, out));
			push(&a, ut_strdup("-x"));
			push(&a, ut_strdup("c++"));
			push(&a, ut_format("%s/prog.cu", dir));
			push(&a, ut_format("%s/ref.cu", dir));
		}
		break;
	default: /* EXEC_CUDA, SPEED_EXEC */
		if (step == UT_STEP_EXEC_CUDA && t->batch && t->batch->built) { /* batch.c */
			push(&a, ut_batch_prog(t->batch));
			push(&a, ut_format("%d", t->batch_index));
			break;
		}
		push(&a, ut_format("%s/%s", dir, out));
		if (step == UT_STEP_SPEED_EXEC) { /* the timing main: SEED DIR */
			push(&a, ut_format("0x%016llx", (unsigned long long)cfg->seed));
			push(&a, ut_format("%s/expect", dir));
		}
		break;
	}
	return a.v;
}

char **ut_step_argv(UtConfig *cfg, UtTest *t, UtStep step)
{
	Argv a = { NULL, 0 };
	const char *dir = NULL;
	if (step == UT_STEP_CC || step == UT_STEP_EXEC_C || step == UT_STEP_CXX_EMU ||
	    step == UT_STEP_NVCC || step == UT_STEP_EXEC_CUDA || step == UT_STEP_SPEED_BUILD ||
	    step == UT_STEP_SPEED_EXPECT || step == UT_STEP_SPEED_EXEC) {
		dir = test_dir(cfg, t);
		if (!dir)
			return NULL;
	}
	switch (step) {
	case UT_STEP_CHECK:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("check"));
		if (t->spec.modes & UT_MODE_STRICT)
			push(&a, ut_strdup("--strict"));
		break;
	case UT_STEP_RUN:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("run"));
		push(&a, ut_strdup("--engine"));
		push(&a, ut_strdup(cfg->engine ? cfg->engine : "interp"));
		break;
	case UT_STEP_RUN_JIT:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("run"));
		push(&a, ut_strdup("--engine"));
		push(&a, ut_strdup("jit"));
		break;
	case UT_STEP_RENDER:
	case UT_STEP_RENDER_CUDA:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup(step == UT_STEP_RENDER ? "render" : "render-cuda"));
		push(&a, ut_strdup("--main"));
		break;
	case UT_STEP_SPEED_EXPECT: /* the interpreter on the seeded inputs: the bits, the bytes */
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("run"));
		push(&a, ut_strdup("--engine"));
		push(&a, ut_strdup("interp"));
		push(&a, ut_strdup("--seed"));
		push(&a, ut_format("0x%016llx", (unsigned long long)cfg->seed));
		push(&a, ut_strdup("--traffic"));
		push(&a, ut_strdup("--hash"));
		push(&a, ut_strdup("--dump"));
		push(&a, ut_format("%s/expect", dir));
		break;
	case UT_STEP_CC: /* docs/language.md 8.1.1 */
		push_words(&a, "CC", "cc");
		push(&a, ut_strdup("-std=c11"));
		push(&a, ut_strdup("-O2"));
		push(&a, ut_strdup("-pthread"));
		push(&a, ut_strdup("-o"));
		push(&a, ut_format("%s/prog", dir));
		push(&a, ut_format("%s/prog.c", dir));
		push(&a, ut_strdup("-lm"));
		return a.v;
	case UT_STEP_CXX_EMU:
	case UT_STEP_NVCC:
	case UT_STEP_EXEC_CUDA:
	case UT_STEP_SPEED_BUILD:
	case UT_STEP_SPEED_EXEC:
		return cuda_step_argv(cfg, t, step, dir);
	case UT_STEP_EXEC_C:
		push(&a, ut_format("%s/prog", dir));
		return a.v;
	case UT_STEP_CUDA_INVALID:
		push(&a, ut_strdup(cfg->uir));
		push(&a, ut_strdup("render-cuda"));
		break;
	case UT_STEP_PTX: /* --ptx (ptx_step.c) */
		return ut_ptx_argv(cfg, t);
	case UT_NSTEPS:
		break;
	}
	push(&a, ut_strdup("--")); /* a test named -rf.uir is a file, not options */
	push(&a, ut_strdup(t->path));
	return a.v;
}

/* ---- where outputs go ---- */

char *ut_step_spill(UtConfig *cfg, UtTest *t, UtStep step)
{
	const char *name;
	switch (step) {
	case UT_STEP_RUN: name = "run.out"; break; /* kept for the steps after it */
	case UT_STEP_RUN_JIT:
	case UT_STEP_EXEC_C:
	case UT_STEP_EXEC_CUDA:
	case UT_STEP_PTX: name = "step.out"; break; /* compared with run.out, then replaced */
	case UT_STEP_RENDER: name = "prog.c"; break;
	case UT_STEP_RENDER_CUDA: name = "prog.cu"; break;
	default: return NULL;
	}
	const char *dir = test_dir(cfg, t);
	return dir ? ut_format("%s/%s", dir, name) : NULL;
}

/* ---- judging ---- */

void ut_step_record(UtTest *t, char **argv, const UtChild *c)
{
	enum { MAX_LINES = 200 };
	UtBuf *d = &t->detail;
	ut_buf_puts(d, "$");
	for (char **p = argv; *p; p++)
		ut_buf_printf(d, " %s", *p);
	char *st = ut_status_text(c->status);
	ut_buf_printf(d, "\n%s\n", st);
	free(st);
	const UtBuf *outs[2] = { &c->out, &c->err };
	for (int k = 0; k < 2; k++) {
		const UtBuf *b = outs[k];
		if (!b->len)
			continue;
		ut_buf_printf(d, "--- %s\n", k ? "stderr" : "stdout");
		size_t end = 0;
		int lines = 0;
		while (end < b->len && lines < MAX_LINES)
			if (b->data[end++] == '\n')
				lines++;
		ut_buf_add(d, b->data, end);
		if (end && b->data[end - 1] != '\n')
			ut_buf_puts(d, "\n");
		uint64_t total = k ? b->len : c->out_total; /* stdout: all it printed */
		if (end < total || b->truncated)
			ut_buf_printf(d, "... (%llu more bytes)\n", (unsigned long long)(total - end));
	}
}

/* Fails TEST with a malloc'd MSG and the step's details. */
static bool fail(UtTest *t, char **argv, const UtChild *c, char *msg)
{
	if (!t->fail)
		t->fail = msg;
	else
		free(msg);
	ut_step_record(t, argv, c);
	return false;
}

/* "run exited 70: internal error: ...", "cc was killed by signal 9 (Killed)". */
static bool fail_status(UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	char *st = ut_status_text(c->status);
	char *line = ut_first_line(c->err.data ? c->err.data : "", c->err.len, 300);
	char *msg = *line ? ut_format("%s %s: %s", ut_step_name(step), st, line)
	                  : ut_format("%s %s", ut_step_name(step), st);
	free(st);
	free(line);
	return fail(t, argv, c, msg);
}

/* The first `...: error[EXXXX]: ...` line of a child's standard error: copies the code to
 * CODE and returns the line's start, or NULL when there is none. */
static const char *first_diagnostic(const UtBuf *err, char code[6])
{
	const char *s = err->data ? err->data : "", *stop = s + err->len;
	while (s < stop) {
		const char *e = memchr(s, '\n', (size_t)(stop - s));
		if (!e)
			e = stop;
		for (const char *p = s; p + 14 <= e; p++) {
			if (memcmp(p, ": error[E", 9) != 0)
				continue;
			bool ok = memcmp(p + 13, "]", 1) == 0;
			for (int i = 9; i < 13; i++)
				ok = ok && p[i] >= '0' && p[i] <= '9';
			if (ok) {
				memcpy(code, p + 8, 5);
				code[5] = '\0';
				return s;
			}
		}
		s = e + 1;
	}
	return NULL;
}

static char *diagnostic_line(const UtBuf *err, const char *line)
{
	return ut_first_line(line, err->len - (size_t)(line - err->data), 300);
}

static bool judge_check(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	bool strict = t->spec.modes & UT_MODE_STRICT;
	if (!(t->spec.modes & UT_MODE_ERROR)) {
		if (code == 0)
			return true;
		return fail_status(t, UT_STEP_CHECK, argv, c);
	}
	char got[6];
	const char *line = first_diagnostic(&c->err, got);
	if (code == 0)
		return fail(t, argv, c, ut_format("expected error %s, but check%s accepted the "
		                                  "program", t->spec.error, strict ? " --strict" : ""));
	if (code != 1)
		return fail_status(t, UT_STEP_CHECK, argv, c);
	if (!line)
		return fail(t, argv, c, ut_format("expected error %s, but check exited 1 without an "
		                                  "error[EXXXX] diagnostic", t->spec.error));
	if (strcmp(got, t->spec.error) == 0)
		return true;
	char *text = diagnostic_line(&c->err, line);
	char *msg = ut_format("expected error %s, check reported %s: %s", t->spec.error, got, text);
	free(text);
	return fail(t, argv, c, msg);
}

/* The run step of an `# error E0601` test: a fault, with nothing on standard output. */
static bool judge_fault(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	char got[6];
	const char *line = first_diagnostic(&c->err, got);
	if (code == 0)
		return fail(t, argv, c, ut_strdup("expected a fault (E0601), but run succeeded"));
	if (code != 1)
		return fail_status(t, UT_STEP_RUN, argv, c);
	if (!line)
		return fail(t, argv, c, ut_strdup("expected error E0601, but run exited 1 without an "
		                                  "error[EXXXX] diagnostic"));
	if (strcmp(got, "E0601") != 0) {
		char *text = diagnostic_line(&c->err, line);
		char *msg = ut_format("expected error E0601, run reported %s: %s", got, text);
		free(text);
		return fail(t, argv, c, msg);
	}
	if (c->out_total)
		return fail(t, argv, c, ut_strdup("run faulted (E0601) but printed on standard "
		                                  "output"));
	return true;
}

bool ut_spilled(UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	if (!c->spill_path)
		return true;
	if (c->spill_full)
		return fail(t, argv, c, ut_format("%s printed more than %llu GiB", ut_step_name(step),
		                                  (unsigned long long)(UT_SPILL_LIMIT >> 30)));
	if (c->spill_err)
		return fail(t, argv, c, ut_format("cannot write %s: %s", c->spill_path, strerror(c->spill_err)));
	return true;
}

/* The output file PATH opened to read, or NULL with TEST failed. */
static FILE *open_output(UtTest *t, char **argv, const UtChild *c, const char *path)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		fail(t, argv, c, ut_format("cannot read %s: %s", path, strerror(errno)));
	return f;
}

bool ut_compare_outputs(UtTest *t, char **argv, const UtChild *c, const char *who_ref, const char *who,
                        const char *prefix)
{
	FILE *ref = NULL, *got = NULL;
	if (t->run_path && !(ref = open_output(t, argv, c, t->run_path)))
		return false;
	if (c->spill_path && !(got = open_output(t, argv, c, c->spill_path))) {
		if (ref)
			fclose(ref);
		return false;
	}
	char *diff = ut_diff_files(ref, who_ref, got, who);
	if (ref)
		fclose(ref);
	if (got)
		fclose(got);
	if (!diff)
		return true;
	char *msg = ut_format("%s%s", prefix, diff);
	free(diff);
	return fail(t, argv, c, msg);
}

static bool judge_run(UtTest *t, char **argv, const UtChild *c)
{
	t->run_err_len = c->err.len;
	t->run_err = ut_xmalloc(c->err.len + 1);
	memcpy(t->run_err, c->err.data ? c->err.data : "", c->err.len);
	t->run_err[c->err.len] = '\0';
	if (t->spec.modes & UT_MODE_FAULT)
		return judge_fault(t, argv, c);
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, UT_STEP_RUN, argv, c);
	if (!ut_spilled(t, UT_STEP_RUN, argv, c))
		return false;
	t->run_path = ut_strdup(c->spill_path);
	int n = 0;
	UtBuf fails = { 0 };
	if (t->spec.nexpects) {
		FILE *out = open_output(t, argv, c, t->run_path);
		if (!out)
			return false;
		n = ut_check_expects(t->path, &t->spec, out, &fails);
		fclose(out);
	}
	if (n == 0)
		return true;
	char *first = ut_first_line(fails.data, fails.len, 400);
	char *msg = n > 1 ? ut_format("%s (and %d more)", first, n - 1) : ut_strdup(first);
	free(first);
	ut_buf_add(&t->detail, fails.data, fails.len);
	ut_buf_free(&fails);
	return fail(t, argv, c, msg);
}

/* The first line where the interpreter's standard error A and the JIT's B differ, as a
 * malloc'd message, or NULL when they are equal. */
static char *diff_stderr(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return NULL;
	size_t i = 0, line = 0;
	while (i < alen && i < blen && a[i] == b[i])
		i++;
	while (i > 0 && a[i - 1] != '\n')
		i--;
	for (size_t k = 0; k < i; k++)
		line += a[k] == '\n';
	char *la = ut_first_line(a + i, alen - i, 200), *lb = ut_first_line(b + i, blen - i, 200);
	char *msg = ut_format("standard error, line %zu: interp printed '%s', jit printed '%s'",
	                      line + 1, la, lb);
	free(la);
	free(lb);
	return msg;
}

/* run --engine jit: the same exit status and every bit of every buffer as the interpreter
 * (its printed values read back to the same bits, any NaN as `nan`); for a fault, the same
 * diagnostic. Without the LLVM back end (`--engine jit` exits 64 saying why) the step is
 * noted as not run, here and in every later test. */
static bool judge_run_jit(UtTest *t, char **argv, const UtChild *c)
{
	static const char missing[] = "--engine jit: ";
	int code = ut_exit_code(c->status);
	const char *err = c->err.data ? c->err.data : "";
	const char *why = code == 64 ? strstr(err, missing) : NULL;
	if (why) {
		if (!jit_missing)
			jit_missing = ut_first_line(why + strlen(missing), strlen(why + strlen(missing)), 200);
		char *note = ut_format("jit: %s", jit_missing);
		add_note(&t->notes, note);
		free(note);
		return true;
	}
	bool fault = t->spec.modes & UT_MODE_FAULT;
	if (code < 0 || (code != 0 && code != 1))
		return fail_status(t, UT_STEP_RUN_JIT, argv, c);
	if (fault && code == 0)
		return fail(t, argv, c, ut_strdup("jit differs from interp: interp faulted (E0601), "
		                                  "jit ran to the end"));
	if (!fault && code != 0)
		return fail_status(t, UT_STEP_RUN_JIT, argv, c);
	if (!ut_spilled(t, UT_STEP_RUN_JIT, argv, c) ||
	    !ut_compare_outputs(t, argv, c, "interp", "jit", "jit differs from interp: "))
		return false;
	char *diff = fault ? diff_stderr(t->run_err ? t->run_err : "", t->run_err_len, err, c->err.len) : NULL;
	if (!diff)
		return true;
	char *msg = ut_format("jit differs from interp: %s", diff);
	free(diff);
	return fail(t, argv, c, msg);
}

/* render / render-cuda --main: keep the source for the compiler. */
static bool judge_render(UtConfig *cfg, UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, step, argv, c);
	if (!ut_spilled(t, step, argv, c))
		return false;
	const char *dir = test_dir(cfg, t);
	if (!dir || (step == UT_STEP_RENDER_CUDA &&
	             !write_file(t, dir, "uir_cuda_emu.h", ut_cuda_emu_header, ut_cuda_emu_header_len))) {
		ut_step_record(t, argv, c);
		return false;
	}
	return true;
}

/* The rendered program: it must print exactly what run printed. */
static bool judge_exec(UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, step, argv, c);
	const char *who = step == UT_STEP_EXEC_C ? "rendered C" : "rendered CUDA";
	char *prefix = ut_format("%s differs from run: ", who);
	bool ok = ut_spilled(t, step, argv, c) && ut_compare_outputs(t, argv, c, "run", who, prefix);
	free(prefix);
	return ok;
}

/* `# cuda speed: X`, before the timing run: `run --seed S --traffic --dump T/expect` on the
 * interpreter gives the bits every launch must leave (T/expect/NAME.npy) and, on standard
 * error, "traffic: all buffers: read R bytes, wrote W bytes", the bytes of the bandwidth
 * bound. A run that fails on the seeded inputs fails the test, with the seed. */
static bool judge_speed_expect(const UtConfig *cfg, UtTest *t, char **argv, const UtChild *c)
{
	if (ut_exit_code(c->status) != 0) {
		char *st = ut_status_text(c->status);
		char *line = ut_first_line(c->err.data ? c->err.data : "", c->err.len, 300);
		char *msg = ut_format("cuda speed: run on the inputs of seed 0x%016llx (run --seed) %s%s%s",
		                      (unsigned long long)cfg->seed, st, *line ? ": " : "", line);
		free(st);
		free(line);
		return fail(t, argv, c, msg);
	}
	const char *line = c->err.data ? strstr(c->err.data, "traffic: all buffers: ") : NULL;
	unsigned long long r, w;
	if (!line || sscanf(line, "traffic: all buffers: read %llu bytes, wrote %llu bytes", &r, &w) != 2)
		return fail(t, argv, c, ut_strdup("cuda speed: no 'traffic: all buffers: read R bytes, wrote W "
		                                  "bytes' line from run --traffic"));
	t->speed_read = r;
	t->speed_written = w;
	return true;
}

/* `# cuda speed: X` on a GPU: the timing main (render-cuda --main -DUIR_TIME, run as `PROG
 * SEED T/expect`) compares every launch of the kernel and of the reference with run --seed's
 * bits, printing "uir-check: ..." and exiting 1 at the first that differs; otherwise it
 * prints "uir-device: memory clock K kHz, bus B bits, L2 L bytes, ..." and "uir-time: kernel
 * MS ms, reference MS ms", each the best of 3. The kernel's time must not beat the bandwidth
 * bound (docs/testing.md): moving the bytes it read before writing, and those it wrote beyond
 * what the L2 cache holds, at the peak of 2 x K x 1000 x B / 8 bytes a second. It passes at X
 * times the reference's speed or better. */
static bool judge_speed(const UtConfig *cfg, UtTest *t, char **argv, const UtChild *c)
{
	unsigned long long seed = (unsigned long long)cfg->seed;
	const char *err = c->err.data ? c->err.data : "";
	const char *check = strstr(err, "uir-check: ");
	if (check) {
		char *text = ut_first_line(check + 11, c->err.len - (size_t)(check + 11 - err), 400);
		char *msg = ut_format("cuda speed: on the inputs of seed 0x%016llx, %s", seed, text);
		free(text);
		return fail(t, argv, c, msg);
	}
	if (ut_exit_code(c->status) != 0)
		return fail_status(t, UT_STEP_SPEED_EXEC, argv, c);
	const char *dev = strstr(err, "uir-device: ");
	long long clock, bus, l2;
	if (!dev || sscanf(dev, "uir-device: memory clock %lld kHz, bus %lld bits, L2 %lld bytes", &clock, &bus, &l2) != 3 ||
	    clock <= 0 || bus <= 0 || l2 < 0)
		return fail(t, argv, c, ut_strdup("cuda speed: no 'uir-device: memory clock K kHz, bus B bits, L2 L "
		                                  "bytes' line with a clock and a bus from the timing run"));
	const char *line = strstr(err, "uir-time: kernel ");
	double k, r;
	if (!line || sscanf(line, "uir-time: kernel %lf ms, reference %lf ms", &k, &r) != 2 || !(k > 0) ||
	    !(r > 0))
		return fail(t, argv, c, ut_strdup("cuda speed: no 'uir-time: kernel MS ms, reference MS "
		                                  "ms' line from the timing run"));
	/* the bandwidth bound */
	double peak = 2.0 * (double)clock * 1000.0 * (double)bus / 8.0; /* bytes a second */
	uint64_t beyond = t->speed_written > (uint64_t)l2 ? t->speed_written - (uint64_t)l2 : 0;
	uint64_t bytes = t->speed_read + beyond;
	double least = (double)bytes / peak * 1000.0; /* ms */
	if (k < least)
		return fail(t, argv, c, ut_format("cuda speed: the timing is invalid: the kernel took %.4f ms, less "
		                                  "than the %.4f ms that its %llu bytes (%llu read, %llu written "
		                                  "beyond the %lld-byte L2) take at the device's peak of %.2f GB/s "
		                                  "(seed 0x%016llx)", k, least, (unsigned long long)bytes,
		                                  (unsigned long long)t->speed_read, (unsigned long long)beyond, l2,
		                                  peak / 1e9, seed));
	double x = r / k;
	char *how = ut_format("%s; speed %.2fx the reference (%.4f ms vs %.4f ms, wanted %gx); seed 0x%016llx",
	                      t->cuda_how ? t->cuda_how : "cuda", x, k, r, t->spec.speed, seed);
	free(t->cuda_how);
	t->cuda_how = how;
	if (x >= t->spec.speed)
		return true;
	return fail(t, argv, c, ut_format("cuda speed: the kernel is %.2fx the reference's speed "
	                                  "(%.4f ms vs %.4f ms), wanted %gx or better (seed 0x%016llx)", x, k, r,
	                                  t->spec.speed, seed));
}

static bool judge_cuda_invalid(UtTest *t, char **argv, const UtChild *c)
{
	int code = ut_exit_code(c->status);
	if (code == 0)
		return fail(t, argv, c, ut_strdup("expected render-cuda to reject the program "
		                                  "(exit 2, not kernel form), but it rendered it"));
	if (code != 2)
		return fail_status(t, UT_STEP_CUDA_INVALID, argv, c);
	if (c->out_total)
		return fail(t, argv, c, ut_strdup("render-cuda exited 2 but printed on standard "
		                                  "output"));
	if (c->err.len < 9 || memcmp(c->err.data, "invalid: ", 9) != 0)
		return fail(t, argv, c, ut_strdup("render-cuda exited 2 without an 'invalid: REASON' "
		                                  "line"));
	return true;
}

/* The emulator's compile. One that failed with the precompiled header (pch.c) is run again
 * without it, so that the verdict and the message are the plain compile's; when that one
 * passes, the precompiled header does not fit this compiler, and no later test uses it. */
static bool judge_cxx_emu(UtConfig *cfg, UtTest *t, char **argv, const UtChild *c)
{
	bool ok = ut_exit_code(c->status) == 0;
	if (ok && t->pch_off && cfg->pch_header)
		ut_pch_drop(cfg);
	if (ok)
		return true;
	if (t->pch_used) {
		t->pch_off = true;
		t->rerun = true;
		return true;
	}
	return fail_status(t, UT_STEP_CXX_EMU, argv, c);
}

int ut_count_emu_tests(UtConfig *cfg, UtTest *tests, int n)
{
	int count = 0;
	for (int i = 0; i < n; i++) {
		UtSpec spec;
		char *why = NULL;
		if (ut_read_spec(tests[i].path, &spec, &why) != 0) {
			free(why);
			continue;
		}
		count += (spec.modes & UT_MODE_CUDA) && !spec.bad;
		ut_spec_free(&spec);
	}
	char *why = NULL;
	if (!count || cuda_engine(cfg) != UT_CUDA_EMU || !have_cxx("cuda", &why))
		count = 0;
	free(why);
	return count;
}

/* ---- the step table ---- */

static const char *const step_names[UT_NSTEPS] = {
	[UT_STEP_CHECK] = "check",
	[UT_STEP_RUN] = "run",
	[UT_STEP_RUN_JIT] = "run --engine jit",
	[UT_STEP_RENDER] = "render",
	[UT_STEP_CC] = "cc",
	[UT_STEP_EXEC_C] = "rendered C",
	[UT_STEP_RENDER_CUDA] = "render-cuda",
	[UT_STEP_CXX_EMU] = "c++ (CUDA emulator)",
	[UT_STEP_NVCC] = "nvcc",
	[UT_STEP_EXEC_CUDA] = "rendered CUDA",
	[UT_STEP_SPEED_BUILD] = "cuda speed build",
	[UT_STEP_SPEED_EXPECT] = "run --seed",
	[UT_STEP_SPEED_EXEC] = "cuda speed run",
	[UT_STEP_CUDA_INVALID] = "render-cuda",
	[UT_STEP_PTX] = "ptx --run",
};

const char *ut_step_name(UtStep step)
{
	return step < UT_NSTEPS ? step_names[step] : "?";
}

bool ut_step_judge(UtConfig *cfg, UtTest *t, UtStep step, char **argv, const UtChild *c)
{
	switch (step) {
	case UT_STEP_CHECK:
		return judge_check(t, argv, c);
	case UT_STEP_RUN:
		return judge_run(t, argv, c);
	case UT_STEP_RUN_JIT:
		return judge_run_jit(t, argv, c);
	case UT_STEP_RENDER:
	case UT_STEP_RENDER_CUDA:
		return judge_render(cfg, t, step, argv, c);
	case UT_STEP_CXX_EMU:
		return judge_cxx_emu(cfg, t, argv, c);
	case UT_STEP_CC:
	case UT_STEP_NVCC:
	case UT_STEP_SPEED_BUILD:
		return ut_exit_code(c->status) == 0 || fail_status(t, step, argv, c);
	case UT_STEP_SPEED_EXPECT:
		return judge_speed_expect(cfg, t, argv, c);
	case UT_STEP_SPEED_EXEC:
		return judge_speed(cfg, t, argv, c);
	case UT_STEP_EXEC_C:
	case UT_STEP_EXEC_CUDA:
		return judge_exec(t, step, argv, c);
	case UT_STEP_CUDA_INVALID:
		return judge_cuda_invalid(t, argv, c);
	case UT_STEP_PTX: /* --ptx (ptx_step.c) */
		return ut_ptx_judge(t, argv, c);
	case UT_NSTEPS:
		break;
	}
	return false;
}
