/* run.c - the command `uir run` (docs/commands.md): load, check, set up the buffers, run the
 * program on an engine, then print every buffer (or write .npy files, or hashes).
 *
 *   uir run [--engine auto|jit|interp] [--input NAME=FILE.npy]... [--dump DIR]
 *           [--only NAME]... [--hash] [--threads N] [--no-bounds-check] [--time]
 *           [--seed S] [--traffic] FILE
 *
 * Nothing is written on standard output unless the run succeeded: a fault (E0601) prints
 * its diagnostic on standard error and exits 1 with standard output empty.
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../util/escape.h"
#include "runprog.h"
#include "uir_npy.h"
#include "uir_print.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char run_usage[] =
	"usage: uir run [OPTIONS] FILE\n"
	"\n"
	"Runs the program and prints every buffer, one line each: NAME: v0 v1 ...\n"
	"\n"
	"options:\n"
	"  --engine auto|jit|interp  the engine (default auto: interpret small programs, JIT\n"
	"                            compile the rest through LLVM)\n"
	"  --input NAME=FILE.npy     start buffer NAME with the contents of FILE.npy\n"
	"  --dump DIR                also write DIR/NAME.npy for every buffer\n"
	"  --only NAME               print only buffer NAME (repeatable)\n"
	"  --hash                    print NAME: HASH (FNV-1a 64, 16 hex digits) per buffer\n"
	"  --threads N               worker threads, 1 to 1024 (default: UIR_THREADS, else\n"
	"                            the number of cores); the result is the same for every N\n"
	"  --no-bounds-check         JIT: leave out the run-time bounds checks (E0601)\n"
	"  --no-opt                  JIT: run the loops as written (no automatic parallel\n"
	"                            loops, privatisation, scalar expansion or interchange);\n"
	"                            the result is the same\n"
	"  --no-cache                JIT: compile without the code cache (docs/llvm.md)\n"
	"  --time                    print where the time went on standard error\n"
	"  --repeat N                run the kernel N times (1 to 1000000), giving the buffers\n"
	"                            their starting values before each; --time shows the\n"
	"                            median run (for benchmarks); the output is the last run's\n"
	"  --racecheck               run in the interpreter, reporting the first two iterations\n"
	"                            of a parallel loop that race (E0504); runs programs that\n"
	"                            check rejects only for races (docs/commands.md)\n"
	"  --seed S                  draw every `random` buffer from the 64-bit seed S (decimal\n"
	"                            or 0x hex) instead of its own SEED, in its type and range\n"
	"  --traffic                 run in the interpreter and print on standard error, per\n"
	"                            buffer, the bytes read before any write and the bytes\n"
	"                            written (`# cuda speed`'s bandwidth bound)\n";

typedef struct Input {
	const char *name, *path;
} Input;

typedef struct RunArgs {
	const char *file, *dump;
	Input *inputs;
	int ninputs;
	const char **only;
	int nonly;
	bool hash;
	int threads;
	UirEngine engine;
	bool no_bounds, time, no_opt, no_cache;
	int repeat; /* --repeat N (0: once) */
	bool racecheck; /* --racecheck: src/interp/racecheck.c */
	bool seeded;    /* --seed S */
	uint64_t seed;
	bool traffic;   /* --traffic: src/interp/traffic.c */
} RunArgs;

/* S as a 64-bit seed: decimal, or hex after 0x; false when it is not one. */
static bool parse_seed(const char *s, uint64_t *out)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *d = hex ? s + 2 : s;
	if (!*d || strlen(d) > (hex ? 16 : 20))
		return false;
	uint64_t v = 0;
	for (; *d; d++) {
		int k = *d >= '0' && *d <= '9' ? *d - '0' : hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10
			: hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10 : -1;
		if (k < 0 || (!hex && v > (UINT64_MAX - (uint64_t)k) / 10))
			return false;
		v = hex ? v << 4 | (uint64_t)k : v * 10 + (uint64_t)k;
	}
	*out = v;
	return true;
}

/* Parses the options into A. Returns -1 when they are good, else the exit status. */
static int parse_args(int argc, char **argv, RunArgs *a)
{
	static const struct option longopts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "input", required_argument, NULL, 'i' },
		{ "dump", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 'o' },
		{ "hash", no_argument, NULL, 'H' },
		{ "threads", required_argument, NULL, 't' },
		{ "no-bounds-check", no_argument, NULL, 'B' },
		{ "no-opt", no_argument, NULL, 'O' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "time", no_argument, NULL, 'T' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "racecheck", no_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "traffic", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *engine = "auto";
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			engine = optarg;
			break;
		case 'i': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				return usage_error("run", "--input needs NAME=FILE.npy, found '%s'", optarg);
			*eq = 0;
			a->inputs = xrealloc(a->inputs, (size_t)(a->ninputs + 1) * sizeof *a->inputs);
			a->inputs[a->ninputs++] = (Input){ optarg, eq + 1 };
			break;
		}
		case 'd':
			a->dump = optarg;
			break;
		case 'o':
			a->only = xrealloc(a->only, (size_t)(a->nonly + 1) * sizeof *a->only);
			a->only[a->nonly++] = optarg;
			break;
		case 'H':
			a->hash = true;
			break;
		case 't':
			a->threads = engine_parse_threads(optarg);
			if (a->threads < 0)
				return usage_error("run", "--threads needs an integer from 1 to 1024, found '%s'", optarg);
			break;
		case 'B':
			a->no_bounds = true;
			break;
		case 'O':
			a->no_opt = true;
			break;
		case 'C':
			a->no_cache = true;
			break;
		case 'T':
			a->time = true;
			break;
		case 'r': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > 1000000)
				return usage_error("run", "--repeat needs an integer from 1 to 1000000, found '%s'", optarg);
			a->repeat = (int)v;
			break;
		}
		case 'R': /* --racecheck */
			a->racecheck = true;
			break;
		case 'S': /* --seed */
			if (!parse_seed(optarg, &a->seed))
				return usage_error("run", "--seed needs a whole number from 0 to 2^64-1 (decimal, or hex "
						   "after 0x), found '%s'", optarg);
			a->seeded = true;
			break;
		case 'F': /* --traffic */
			a->traffic = true;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return UIR_EXIT_OK;
		default:
			return cli_bad_option("run", c, argv);
		}
	}
	if (argc - optind != 1)
		return usage_error("run", "expected one FILE (see 'uir run --help')");
	a->file = argv[optind];
	if (!engine_parse(engine, &a->engine))
		return usage_error("run", "--engine is auto, jit or interp, found '%s'", engine);
	if (a->racecheck && a->repeat > 1)
		return usage_error("run", "--racecheck runs once: use it without --repeat");
	if (a->racecheck && a->engine == UIR_ENGINE_JIT) /* --racecheck */
		return usage_error("run", "--racecheck runs in the interpreter: use it without --engine jit");
	if (a->traffic && a->engine == UIR_ENGINE_JIT)
		return usage_error("run", "--traffic runs in the interpreter: use it without --engine jit");
	if (a->traffic && (a->racecheck || a->repeat > 1))
		return usage_error("run", "--traffic counts one plain run: use it without --racecheck and --repeat");
	if (!a->threads && (a->threads = engine_env_threads("run")) < 0)
		return UIR_EXIT_USAGE;
	return -1;
}

/* Checks the buffer names of --only, then of --input (runprog_names()). Returns -1 when
 * all exist. */
static int check_names(const UirProgram *p, const RunArgs *a, const RunPlan *plan)
{
	for (int i = 0; i < a->nonly; i++)
		if (buffers_find(p, a->only[i]) < 0)
			return usage_error("run", "--only %s: %s has no buffer called '%s'", a->only[i], a->file,
					   a->only[i]);
	return runprog_names(p, plan);
}

static bool selected(const RunArgs *a, const char *name)
{
	if (!a->nonly)
		return true;
	for (int i = 0; i < a->nonly; i++)
		if (!strcmp(a->only[i], name))
			return true;
	return false;
}

/* The FNV-1a 64 hash of a buffer's little-endian bytes, NaNs canonical. */
static uint64_t hash_buffer(const Mem *m, const void *d)
{
	switch (m->ty) {
	case UIR_F32: return uir_hash_f32(d, m->size);
	case UIR_F64: return uir_hash_f64(d, m->size);
	default: return uir_hash_bytes(d, m->size, uir_type_size(m->ty));
	}
}

void cli_print_buffer(FILE *f, const Mem *m, const void *d)
{
	switch (m->ty) {
	case UIR_BOOL: uir_print_bool(f, m->name, d, m->size); break;
	case UIR_I8: uir_print_i8(f, m->name, d, m->size); break;
	case UIR_U8: uir_print_u8(f, m->name, d, m->size); break;
	case UIR_I32: uir_print_i32(f, m->name, d, m->size); break;
	case UIR_U32: uir_print_u32(f, m->name, d, m->size); break;
	case UIR_I64: uir_print_i64(f, m->name, d, m->size); break;
	case UIR_U64: uir_print_u64(f, m->name, d, m->size); break;
	case UIR_F32: uir_print_f32(f, m->name, d, m->size); break;
	case UIR_F64: uir_print_f64(f, m->name, d, m->size); break;
	default: unreachable();
	}
}

/* mkdir -p DIR. Returns 0, or -1 with errno set. */
static int make_dirs(const char *dir)
{
	char *s = xmalloc(strlen(dir) + 1);
	strcpy(s, dir);
	for (char *q = s + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		if (mkdir(s, 0777) != 0 && errno != EEXIST) {
			free(s);
			return -1;
		}
		*q = '/';
	}
	int rc = mkdir(s, 0777);
	free(s);
	if (rc != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Writes DIR/NAME.npy for every buffer (--only selects what is printed, not what is
 * dumped). Returns 0, or 1 after a message. */
static int dump_buffers(const UirProgram *p, const RunArgs *a, void **data)
{
	if (make_dirs(a->dump) != 0) {
		uir_eprintf(stderr, "uir run: cannot create the directory %s: %s\n", a->dump, strerror(errno));
		return UIR_EXIT_ERROR;
	}
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		char *path = xmalloc(strlen(a->dump) + strlen(m->name) + 6);
		sprintf(path, "%s/%s.npy", a->dump, m->name);
		errno = 0;
		if (uir_npy_write(path, uir_type_npy_descr(m->ty), m->size, data[i]) != 0) {
			uir_eprintf(stderr, "uir run: cannot write %s: %s\n", path, errno ? strerror(errno) : "write error");
			free(path);
			return UIR_EXIT_ERROR;
		}
		free(path);
	}
	return UIR_EXIT_OK;
}

/* Prints the selected buffers (values or hashes) on standard output. */
static int print_buffers(const UirProgram *p, const RunArgs *a, void **data)
{
	for (int i = 0; i < p->nbufs; i++) {
		const Mem *m = p->bufs[i];
		if (!selected(a, m->name))
			continue;
		if (a->hash)
			printf("%s: %016llx\n", m->name, (unsigned long long)hash_buffer(m, data[i]));
		else
			cli_print_buffer(stdout, m, data[i]);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		uir_eprintf(stderr, "uir run: cannot write the output: %s\n", strerror(errno));
		return UIR_EXIT_ERROR;
	}
	return UIR_EXIT_OK;
}

/* --traffic: on standard error, the bytes of all buffers, then of each (elements and bytes):
 * read (the first access of the element in the run reads it) and written. */
static void print_traffic(const UirProgram *p, const UirTraffic *t)
{
	unsigned long long r = 0, w = 0;
	for (int i = 0; i < p->nbufs; i++) {
		r += (unsigned long long)t[i].read * (unsigned long long)uir_type_size(p->bufs[i]->ty);
		w += (unsigned long long)t[i].written * (unsigned long long)uir_type_size(p->bufs[i]->ty);
	}
	fprintf(stderr, "traffic: all buffers: read %llu bytes, wrote %llu bytes\n", r, w);
	for (int i = 0; i < p->nbufs; i++) {
		long long es = uir_type_size(p->bufs[i]->ty);
		fprintf(stderr, "traffic: %s: read %lld of %lld elements (%lld bytes), wrote %lld (%lld bytes)\n",
			p->bufs[i]->name, (long long)t[i].read, (long long)p->bufs[i]->size, (long long)t[i].read * es,
			(long long)t[i].written, (long long)t[i].written * es);
	}
}

/* Loads, checks, sets up and runs the program of A; prints or dumps the buffers. */
static int run_file(const RunArgs *a)
{
	UirRunTimes times = { 0 };
	double t0 = uir_now_ms();
	UirProgram *p = uir_load(a->file, stderr);
	if (!p)
		return UIR_EXIT_ERROR;
	RunInput *inputs = xcalloc((size_t)a->ninputs + 1, sizeof *inputs);
	for (int i = 0; i < a->ninputs; i++)
		inputs[i] = (RunInput){ .name = a->inputs[i].name, .path = a->inputs[i].path };
	RunPlan plan = { .inputs = inputs, .ninputs = a->ninputs, .engine = a->engine, .racecheck = a->racecheck,
			 .seeded = a->seeded, .seed = a->seed, .traffic = a->traffic,
			 .opt = { .threads = a->threads, .bounds_check = !a->no_bounds, .repeat = a->repeat,
				  .no_opt = a->no_opt, .no_cache = a->no_cache } };
	int rc = check_names(p, a, &plan);
	if (rc < 0)
		rc = runprog_check(p, &plan);
	times.parse_check = uir_now_ms() - t0;
	void **data = NULL;
	if (rc < 0)
		rc = runprog_execute(p, &plan, &data, &times);
	double t1 = uir_now_ms();
	if (rc < 0 && a->dump)
		rc = dump_buffers(p, a, data) ? UIR_EXIT_ERROR : -1;
	if (rc < 0)
		rc = print_buffers(p, a, data);
	if (rc == UIR_EXIT_OK && plan.traffic_out)
		print_traffic(p, plan.traffic_out);
	times.output = uir_now_ms() - t1;
	if (a->time && times.engine) /* an engine ran (a fault in the run included) */
		engine_print_times(stderr, &times);
	buffers_free(p, data);
	free(plan.traffic_out);
	free(inputs);
	uir_free(p);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	static char outbuf[1 << 20];
	RunArgs a = { 0 };
	int rc = parse_args(argc, argv, &a);
	if (rc < 0) {
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
		rc = run_file(&a);
	}
	free(a.inputs);
	free(a.only);
	return rc;
}
