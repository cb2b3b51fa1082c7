/* uir_cuda_emu.h - runs the output of `uir render-cuda` on the CPU, for testing without a
 * GPU (docs/language.md 8.3.6; docs/testing.md, "Where `# cuda` runs"). Force-include it:
 *
 *   c++ -std=c++17 -O2 -pthread -ffp-contract=off -include runtime/uir_cuda_emu.h -x c++ prog.cu
 *
 * The model is CUDA's, with real concurrency inside a block:
 *   - UIR_LAUNCH(name, grid, block, args...) runs the grid's blocks one after another
 *     (grid and block are integers or dim3 of up to 3 dimensions; blocks in order of
 *     their flat number, x fastest); each block's threads are real OS threads (a pool of
 *     one thread per thread of the block, with 2 MiB stacks, UIR_EMU_STACK_KIB to change,
 *     kept across blocks and launches), all running the kernel at the same time;
 *   - __shared__ is `static`, so a block's threads share its arrays (zeroed by the kernel
 *     itself at the start of each block, as render-cuda writes it);
 *   - __syncthreads() is a real barrier of the block's threads;
 *   - threadIdx, blockIdx, blockDim and gridDim are per thread (thread_local);
 *   - atomicAdd/Min/Max/CAS are real atomic operations;
 *   - cudaMalloc, cudaMemcpy, cudaMemset, cudaFree, cudaMemcpyFromSymbol work on host
 *     memory; launches are synchronous; events read the host's clock; cudaGetDevice and
 *     cudaDeviceGetAttribute describe one small fixed device (below).
 * A missing barrier is therefore a real race. UIR_EMU_ORDER=forward|reverse|random:SEED
 * changes the order in which a block's threads are started (forward by default), to make
 * races show. The pool runs on the CPU the launch started on (Linux), which halves the
 * cost of a barrier; UIR_EMU_PIN=0 lets the threads run in parallel on every CPU.
 *
 * `uir test` carries this file's text inside the uir binary (runtime/embed_text.py) and
 * writes it into each `# cuda` test's temporary folder.
 *
 * Linux: waits are futexes. Elsewhere: a mutex and condition variables. The header
 * includes little (no <functional>, <vector>, <sys/syscall.h>), so that few macros can
 * clash with the program's names (`uir render-cuda` renames those it knows).
 */
#ifndef UIR_CUDA_EMU_H
#define UIR_CUDA_EMU_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <asm/unistd.h> /* __NR_futex (not <sys/syscall.h>: its SYS_* macros could hit names) */
#include <unistd.h>
#else
#include <condition_variable>
#include <mutex>
#endif

#define UIR_CUDA_EMU 1
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __launch_bounds__(...) /* nvcc's register budget for a block size: no meaning here */
#define __restrict__ __restrict
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif

/* ---- the built-in variables, per thread ---- */

struct uir_emu_dim3 {
	unsigned int x, y, z;
};

/* CUDA's dim3: unset dimensions are 1, and an integer converts to (n, 1, 1). */
struct dim3 {
	unsigned int x, y, z;
	dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};
inline thread_local uir_emu_dim3 threadIdx = { 0, 0, 0 };
inline thread_local uir_emu_dim3 blockIdx = { 0, 0, 0 };
inline thread_local uir_emu_dim3 blockDim = { 1, 1, 1 };
inline thread_local uir_emu_dim3 gridDim = { 1, 1, 1 };

/* ---- waiting on a 32-bit word ---- */

#ifdef __linux__
enum { UIR_EMU_FUTEX_WAIT_PRIVATE = 128, UIR_EMU_FUTEX_WAKE_PRIVATE = 129 };

/* Sleeps while *w == v (or until woken). */
static inline void uir_emu_wait(uint32_t *w, uint32_t v)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		syscall(__NR_futex, w, UIR_EMU_FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

/* Wakes every thread waiting on w. */
static inline void uir_emu_wake(uint32_t *w)
{
	syscall(__NR_futex, w, UIR_EMU_FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}
#else
inline std::mutex uir_emu_mutex;
inline std::condition_variable uir_emu_cond;

static inline void uir_emu_wait(uint32_t *w, uint32_t v)
{
	std::unique_lock<std::mutex> lock(uir_emu_mutex);
	uir_emu_cond.wait(lock, [&] { return __atomic_load_n(w, __ATOMIC_ACQUIRE) != v; });
}

static inline void uir_emu_wake(uint32_t *)
{
	std::lock_guard<std::mutex> lock(uir_emu_mutex);
	uir_emu_cond.notify_all();
}
#endif

/* ---- the thread pool and the block being run ---- */

struct uir_emu_pool {
	unsigned int nthreads;           /* threads started */
	uint32_t go[1024];               /* per thread: incremented to start it on a block */
	void (*run)(const void *);       /* the launch being run: run(kernel) */
	const void *kernel;
	unsigned int grid, block, index; /* blocks and threads in all, flat block number */
	dim3 gdim, bdim;                 /* the grid and the block by dimension */
	uint32_t done;                   /* threads finished with the current block */
	uint32_t bar_count, bar_gen;     /* the barrier */
	uint32_t order_seq;              /* blocks started so far (random orders differ) */
	int cpu;                         /* the CPU the pool runs on, or -1 (not pinned) */
};
inline uir_emu_pool uir_emu;

/* __syncthreads(): every thread of the block arrives before any leaves. */
static inline void __syncthreads(void)
{
	uir_emu_pool &p = uir_emu;
	uint32_t gen = __atomic_load_n(&p.bar_gen, __ATOMIC_ACQUIRE);
	if (__atomic_add_fetch(&p.bar_count, 1, __ATOMIC_ACQ_REL) == p.block) {
		__atomic_store_n(&p.bar_count, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&p.bar_gen, 1, __ATOMIC_RELEASE);
		uir_emu_wake(&p.bar_gen);
	} else {
		uir_emu_wait(&p.bar_gen, gen);
	}
}

/* Pins the calling thread to CPU (Linux; raw system calls, so that no <sched.h> macro can
 * clash with the program's names). */
static inline void uir_emu_pin(int cpu)
{
#if defined(__linux__) && defined(__NR_sched_setaffinity)
	unsigned long mask[1024 / (8 * sizeof(unsigned long))];
	if (cpu < 0 || cpu >= 1024)
		return;
	memset(mask, 0, sizeof mask);
	mask[cpu / (8 * sizeof(unsigned long))] = 1ul << (cpu % (8 * sizeof(unsigned long)));
	syscall(__NR_sched_setaffinity, 0, sizeof mask, mask);
#else
	(void)cpu;
#endif
}

/* The CPU to run the pool on: the launcher's current one, unless UIR_EMU_PIN=0. One CPU
 * makes a barrier about half as costly (no wake-ups across CPUs); the block's threads
 * still interleave at every barrier and wherever the OS preempts them, so a missing
 * barrier still races. UIR_EMU_PIN=0 lets them run in parallel on every CPU. */
static inline int uir_emu_pick_cpu(void)
{
#if defined(__linux__) && defined(__NR_getcpu) && defined(__NR_sched_setaffinity)
	const char *e = getenv("UIR_EMU_PIN");
	unsigned int cpu = 0;
	if (e && !strcmp(e, "0"))
		return -1;
	if (syscall(__NR_getcpu, &cpu, NULL, NULL) != 0)
		return -1;
	return (int)cpu;
#else
	return -1;
#endif
}

/* A pool thread: runs the kernel for each block it is started on. */
static void *uir_emu_worker(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;
	uir_emu_pool &p = uir_emu;
	uint32_t seen = 0;
	uir_emu_pin(p.cpu);
	for (;;) {
		uir_emu_wait(&p.go[i], seen);
		seen = __atomic_load_n(&p.go[i], __ATOMIC_ACQUIRE);
		unsigned int block = p.block; /* the launcher changes it only once all are done */
		dim3 b = p.bdim, g = p.gdim;
		threadIdx = { i % b.x, i / b.x % b.y, i / (b.x * b.y) };
		blockIdx = { p.index % g.x, p.index / g.x % g.y, p.index / (g.x * g.y) };
		blockDim = { b.x, b.y, b.z };
		gridDim = { g.x, g.y, g.z };
		p.run(p.kernel);
		if (__atomic_add_fetch(&p.done, 1, __ATOMIC_ACQ_REL) == block)
			uir_emu_wake(&p.done);
	}
	return NULL;
}

/* The stack of each thread of the pool, in bytes: 2 MiB, or UIR_EMU_STACK_KIB KiB (64 or
 * more). A kernel's frame grows with its size when built at -O0: the 120,000-line kernel
 * of a generated program (bulkrender seed 142186) needed 264,544 bytes, more than the
 * 256 KiB the pool had, and crashed. Stacks are reserved, not committed, memory. */
static inline size_t uir_emu_stack_bytes(void)
{
	const char *e = getenv("UIR_EMU_STACK_KIB");
	char *end;
	unsigned long long kib = e && *e ? strtoull(e, &end, 10) : 0;
	if (e && *e && (*end || kib < 64 || kib > ((unsigned long long)1 << 30))) {
		fprintf(stderr, "uir_cuda_emu: UIR_EMU_STACK_KIB is a number of KiB from 64 to 2^30; using 2048\n");
		kib = 0;
	}
	return (size_t)(kib ? kib : 2048) << 10;
}

/* Grows the pool to n threads, each with a stack of uir_emu_stack_bytes(). */
static inline void uir_emu_grow(unsigned int n)
{
	uir_emu_pool &p = uir_emu;
	pthread_attr_t attr;
	if (p.nthreads == 0) {
		p.cpu = uir_emu_pick_cpu();
		uir_emu_pin(p.cpu);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, uir_emu_stack_bytes());
	while (p.nthreads < n) {
		unsigned int i = p.nthreads;
		pthread_t t;
		if (pthread_create(&t, &attr, uir_emu_worker, (void *)(uintptr_t)i) != 0) {
			fprintf(stderr, "uir_cuda_emu: cannot start thread %u of a block\n", i);
			exit(70);
		}
		pthread_detach(t);
		p.nthreads++;
	}
	pthread_attr_destroy(&attr);
}

/* The start order of a block's threads (UIR_EMU_ORDER): 0 forward, 1 reverse, 2 random. */
static inline int uir_emu_order(uint64_t *seed)
{
	static int mode = -1;
	static uint64_t s0;
	if (mode < 0) {
		const char *e = getenv("UIR_EMU_ORDER");
		mode = 0;
		if (e && !strcmp(e, "reverse")) {
			mode = 1;
		} else if (e && !strncmp(e, "random:", 7)) {
			mode = 2;
			s0 = strtoull(e + 7, NULL, 10);
		} else if (e && *e && strcmp(e, "forward")) {
			fprintf(stderr, "uir_cuda_emu: UIR_EMU_ORDER is forward, reverse or random:SEED; using forward\n");
		}
	}
	*seed = s0;
	return mode;
}

static inline uint64_t uir_emu_mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15u;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
	return x ^ (x >> 31);
}

/* Calls the launch's closure. */
template <class F> static void uir_emu_call(const void *f)
{
	(*(const F *)f)();
}

/* Runs kernel() on the blocks of GDIM, each of BDIM threads, one block after another. */
template <class F> static inline void uir_emu_launch(dim3 gdim, dim3 bdim, const F &kernel)
{
	uir_emu_pool &p = uir_emu;
	static unsigned int order[1024];
	unsigned long long grid_all = (unsigned long long)gdim.x * gdim.y * gdim.z;
	unsigned long long block_all = (unsigned long long)bdim.x * bdim.y * bdim.z;
	if (grid_all == 0)
		return;
	if (block_all == 0 || block_all > 1024 || bdim.z > 64) {
		fprintf(stderr, "uir_cuda_emu: a block of %ux%ux%u threads (1 to 1024 in all, z at most 64)\n", bdim.x,
			bdim.y, bdim.z);
		exit(70);
	}
	if (gdim.x > 2147483647u || gdim.y > 65535 || gdim.z > 65535 || grid_all > 0xFFFFFFFFull) {
		fprintf(stderr, "uir_cuda_emu: a grid of %ux%ux%u blocks (x at most 2^31-1, y and z at most 65535)\n",
			gdim.x, gdim.y, gdim.z);
		exit(70);
	}
	unsigned int grid = (unsigned int)grid_all, block = (unsigned int)block_all;
	uir_emu_grow(block);
	uint64_t seed;
	int mode = uir_emu_order(&seed);
	p.run = uir_emu_call<F>;
	p.kernel = &kernel;
	p.grid = grid;
	p.block = block;
	p.gdim = gdim;
	p.bdim = bdim;
	for (unsigned int b = 0; b < grid; b++) {
		for (unsigned int i = 0; i < block; i++)
			order[i] = mode == 1 ? block - 1 - i : i;
		if (mode == 2) { /* Fisher-Yates with splitmix64 */
			uint64_t x = uir_emu_mix(seed ^ uir_emu_mix(p.order_seq++));
			for (unsigned int i = block; i > 1; i--) {
				x = uir_emu_mix(x);
				unsigned int j = (unsigned int)(x % i);
				unsigned int t = order[i - 1];
				order[i - 1] = order[j];
				order[j] = t;
			}
		}
		p.index = b;
		__atomic_store_n(&p.done, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p.bar_count, 0, __ATOMIC_RELAXED);
		for (unsigned int i = 0; i < block; i++) {
			uint32_t *w = &p.go[order[i]];
			__atomic_add_fetch(w, 1, __ATOMIC_RELEASE);
			uir_emu_wake(w);
		}
		for (;;) {
			uint32_t d = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);
			if (d == block)
				break;
			uir_emu_wait(&p.done, d);
		}
	}
}

#define UIR_LAUNCH(name, grid, block, ...) uir_emu_launch(dim3(grid), dim3(block), [=]() { name(__VA_ARGS__); })

/* ---- CUDA's vector types, for the aligned vector accesses of render-cuda ---- */

/* may_alias: the rendering stores a float4 where floats are read (as CUDA does). */
#define UIR_EMU_VEC2(T, name)                                                                      \
	struct __attribute__((may_alias, aligned(2 * sizeof(T)))) name {                            \
		T x, y;                                                                            \
	};                                                                                         \
	static inline name make_##name(T x, T y) { return name{ x, y }; }
#define UIR_EMU_VEC4(T, name)                                                                      \
	struct __attribute__((may_alias, aligned(4 * sizeof(T)))) name {                            \
		T x, y, z, w;                                                                      \
	};                                                                                         \
	static inline name make_##name(T x, T y, T z, T w) { return name{ x, y, z, w }; }
UIR_EMU_VEC2(float, float2)
UIR_EMU_VEC4(float, float4)
UIR_EMU_VEC2(int, int2)
UIR_EMU_VEC4(int, int4)
UIR_EMU_VEC2(unsigned int, uint2)
UIR_EMU_VEC4(unsigned int, uint4)
UIR_EMU_VEC2(double, double2)
UIR_EMU_VEC2(long long, longlong2)
UIR_EMU_VEC2(unsigned long long, ulonglong2)
#undef UIR_EMU_VEC2
#undef UIR_EMU_VEC4

/* ---- rounding intrinsics a hand-written kernel may use (round to nearest even) ---- */

static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

/* ---- atomics (return the old value, as CUDA's do) ---- */

static inline int atomicAdd(int *p, int v)
{
	return (int)__atomic_fetch_add((unsigned int *)p, (unsigned int)v, __ATOMIC_SEQ_CST);
}
static inline unsigned int atomicAdd(unsigned int *p, unsigned int v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

template <class T> static inline T uir_emu_atomic_minmax(T *p, T v, bool min)
{
	T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	while ((min ? v < old : v > old) &&
	       !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
	}
	return old;
}
static inline int atomicMin(int *p, int v) { return uir_emu_atomic_minmax(p, v, true); }
static inline unsigned int atomicMin(unsigned int *p, unsigned int v) { return uir_emu_atomic_minmax(p, v, true); }
static inline long long atomicMin(long long *p, long long v) { return uir_emu_atomic_minmax(p, v, true); }
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
	return uir_emu_atomic_minmax(p, v, true);
}
static inline int atomicMax(int *p, int v) { return uir_emu_atomic_minmax(p, v, false); }
static inline unsigned int atomicMax(unsigned int *p, unsigned int v) { return uir_emu_atomic_minmax(p, v, false); }
static inline long long atomicMax(long long *p, long long v) { return uir_emu_atomic_minmax(p, v, false); }
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
	return uir_emu_atomic_minmax(p, v, false);
}

template <class T> static inline T uir_emu_cas(T *p, T compare, T val)
{
	__atomic_compare_exchange_n(p, &compare, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return compare;
}
static inline int atomicCAS(int *p, int compare, int val) { return uir_emu_cas(p, compare, val); }
static inline unsigned int atomicCAS(unsigned int *p, unsigned int compare, unsigned int val)
{
	return uir_emu_cas(p, compare, val);
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long compare, unsigned long long val)
{
	return uir_emu_cas(p, compare, val);
}

/* ---- the CUDA runtime calls of render-cuda --main, on host memory ---- */

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
	cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
	cudaMemcpyDefault
};

/* Device memory: host memory, aligned and padded to 256 bytes like cudaMalloc's. */
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
	size_t size = (n + 255) / 256 * 256;
	*p = aligned_alloc(256, size ? size : 256);
	if (!*p)
		return cudaErrorMemoryAllocation;
	memset(*p, 0, size ? size : 256);
	return cudaSuccess;
}
static inline cudaError_t cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind)
{
	memmove(dst, src, n);
	return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n, size_t offset = 0,
					       cudaMemcpyKind = cudaMemcpyDeviceToHost)
{
	memcpy(dst, (const char *)&symbol + offset, n);
	return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

/* Events (the timing main of render-cuda --main -DUIR_TIME): host wall-clock times. Launches
 * are synchronous here, so recording an event is reading the clock. */
typedef void *cudaStream_t;
struct uir_emu_event {
	double ms;
};
typedef uir_emu_event *cudaEvent_t;
static inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = (cudaEvent_t)calloc(1, sizeof(uir_emu_event));
	return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = 0)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
	return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	*ms = (float)(b->ms - a->ms);
	return cudaSuccess;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}
/* The device (the timing main's bandwidth bound and L2 flush, docs/testing.md): one device,
 * number 0, with fixed, small numbers: 1 multiprocessor, a 1 MiB L2 cache, a 1 GHz memory
 * clock (1000000 kHz) on a 64-bit bus, so a peak of 2 x 10^9 x 64 / 8 = 16 GB/s. */
enum cudaDeviceAttr {
	cudaDevAttrMultiProcessorCount = 16,
	cudaDevAttrMemoryClockRate = 36,
	cudaDevAttrGlobalMemoryBusWidth = 37,
	cudaDevAttrL2CacheSize = 38
};
enum { cudaErrorInvalidValue = 1 };
static inline cudaError_t cudaGetDevice(int *dev)
{
	*dev = 0;
	return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int dev)
{
	if (dev != 0)
		return cudaErrorInvalidValue;
	switch (attr) {
	case cudaDevAttrMultiProcessorCount: *v = 1; return cudaSuccess;
	case cudaDevAttrMemoryClockRate: *v = 1000000; return cudaSuccess;
	case cudaDevAttrGlobalMemoryBusWidth: *v = 64; return cudaSuccess;
	case cudaDevAttrL2CacheSize: *v = 1 << 20; return cudaSuccess;
	}
	return cudaErrorInvalidValue;
}

static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaErrorMemoryAllocation ? "out of memory" : e ? "invalid argument" : "no error";
}

#endif /* UIR_CUDA_EMU_H */
