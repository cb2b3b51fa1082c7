/* names.c - the names a rendered program may not use for its own variables (docs/language.md
 * 8.5.1: a .uir name that is a C, C++ or CUDA keyword or a predefined name gets a trailing _
 * in every rendering): keywords of C11/C23 and C++17/20, CUDA's built-in variables and qualifiers,
 * the standard library names and macros the rendered code or its headers use, and the
 * names the renderers define themselves (kernel, main), the macros of the system headers
 * involved (names_macros.c; and the prefixes SYS_, M_, CU_, CUDA, cudaX, pthread_,
 * PTHREAD_). Names starting with two
 * underscores or with _ and a capital are reserved too (__LINE__ is a macro, _Pragma an
 * operator). */
#include "render_int.h"
#include <stdlib.h>
#include <string.h>

static const char *const reserved[] = {
	/* C11 and C23 keywords */
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
	"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
	"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
	"union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
	"_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
	"_BitInt", "_Decimal32", "_Decimal64", "_Decimal128", "alignas", "alignof", "bool",
	"constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
	"typeof_unqual",
	/* C++ keywords and alternative tokens */
	"and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t",
	"class", "compl", "concept", "consteval", "constinit", "const_cast", "co_await",
	"co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export",
	"friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or",
	"or_eq", "private", "protected", "public", "reflexpr", "reinterpret_cast", "requires",
	"static_cast", "template", "this", "throw", "try", "typeid", "typename", "using",
	"virtual", "wchar_t", "xor", "xor_eq", "final", "override", "import", "module",
	/* CUDA */
	"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "__global__",
	"__device__", "__host__", "__shared__", "__constant__", "__managed__", "__syncthreads",
	"atomicAdd", "atomicMin", "atomicMax", "atomicCAS", "atomicExch", "cudaMalloc",
	"cudaMemcpy", "cudaFree", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
	"cudaDeviceSynchronize", "cudaMemcpyFromSymbol", "cudaGetLastError", "cudaError_t",
	"cudaSuccess", "cudaGetErrorString", "float2", "float4", "int2", "int4", "uint2", "uint4",
	"double2", "longlong2", "ulonglong2", "make_float2", "make_float4", "make_int2",
	"make_int4", "make_uint2", "make_uint4", "make_double2", "make_longlong2",
	"make_ulonglong2",
	/* what the rendered code defines or calls */
	"kernel", "main", "std",
	/* <stdint.h>, <stddef.h> */
	"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
	"intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "size_t", "ptrdiff_t", "NULL",
	"offsetof", "INT8_MIN", "INT8_MAX", "UINT8_MAX", "INT16_MIN", "INT16_MAX", "UINT16_MAX",
	"INT32_MIN", "INT32_MAX", "UINT32_MAX", "INT64_MIN", "INT64_MAX", "UINT64_MAX",
	"INT8_C", "UINT8_C", "INT16_C", "UINT16_C", "INT32_C", "UINT32_C", "INT64_C", "UINT64_C",
	"INTMAX_C", "UINTMAX_C", "SIZE_MAX", "PTRDIFF_MIN", "PTRDIFF_MAX", "INTPTR_MIN",
	"INTPTR_MAX", "UINTPTR_MAX", "INTMAX_MIN", "INTMAX_MAX", "UINTMAX_MAX", "WCHAR_MIN",
	"WCHAR_MAX", "WINT_MIN", "WINT_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX",
	/* <math.h> */
	"INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "FP_NAN", "FP_INFINITE",
	"FP_ZERO", "FP_SUBNORMAL", "FP_NORMAL", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_ILOGB0",
	"FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "isnan", "isinf",
	"isfinite", "isnormal", "signbit", "fpclassify", "isgreater", "isless", "isgreaterequal",
	"islessequal", "islessgreater", "isunordered", "float_t", "double_t", "sqrt", "sqrtf",
	"fma", "fmaf", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf", "fmod", "fmodf",
	"fabs", "fabsf", "sin", "cos", "exp2", "log2", "sinf", "cosf", "exp2f", "log2f",
	/* <stdio.h>, <stdlib.h>, <string.h>, <setjmp.h>, <errno.h>, <assert.h>, <stdarg.h> */
	"FILE", "EOF", "BUFSIZ", "stdin", "stdout", "stderr", "printf", "fprintf", "snprintf",
	"sprintf", "fputs", "fputc", "fwrite", "fread", "fopen", "fclose", "fflush", "setvbuf",
	"_IOFBF", "_IOLBF", "_IONBF", "SEEK_SET", "SEEK_CUR", "SEEK_END", "malloc", "calloc",
	"realloc", "free", "exit", "abort", "getenv", "strtol", "strtof", "strtod", "EXIT_SUCCESS",
	"EXIT_FAILURE", "RAND_MAX", "MB_CUR_MAX", "memcpy", "memset", "memcmp", "strcmp",
	"strlen", "jmp_buf", "setjmp", "longjmp", "errno", "EDOM", "ERANGE", "EILSEQ", "assert",
	"va_list", "va_start", "va_arg", "va_end", "va_copy",
	/* <pthread.h>, <unistd.h>, and what --main and the emulator call */
	"sysconf", "ferror", "aligned_alloc", "memmove", "strncmp", "strtoull", "syscall",
	"UIR_LAUNCH", "UIR_FN", "UIR_CUDA_EMU",
	/* predefined in GNU modes */
	"linux", "unix", "i386",
};

extern const char *const render_macro_names[];
extern const int render_macro_count;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Both tables as one sorted array, made on first use. */
static const char **all_names(int *n)
{
	static const char **v;
	static int count;
	if (!v) {
		int k = (int)(sizeof reserved / sizeof reserved[0]);
		v = xmalloc((size_t)(k + render_macro_count) * sizeof *v);
		for (int i = 0; i < k; i++)
			v[i] = reserved[i];
		for (int i = 0; i < render_macro_count; i++)
			v[k + i] = render_macro_names[i];
		count = k + render_macro_count;
		qsort(v, (size_t)count, sizeof *v, cmp_name);
	}
	*n = count;
	return v;
}

bool name_listed(const char *name)
{
	int n;
	const char **v = all_names(&n);
	return bsearch(&name, v, (size_t)n, sizeof *v, cmp_name) != NULL;
}

bool name_reserved(const char *name)
{
	static const char *const prefixes[] = { "SYS_", "M_", "CU_", "CUDA", "pthread_", "PTHREAD_" };
	if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
		return true; /* reserved identifiers: __LINE__, _Pragma, _Bool, ... */
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	if (!strncmp(name, "cuda", 4) && name[4] >= 'A' && name[4] <= 'Z')
		return true; /* cudaMalloc, cudaStreamDefault, ... */
	return name_listed(name);
}
