/* alloc.c - memory that must not fail: xmalloc(), xcalloc() and xrealloc() exit 70 with an
 * internal error when the system has no more; uir_internal_error() itself, the one exit
 * for a bug in uir (unreachable()); and uir_cpus(), the CPUs there are to use. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "../uir_internal.h"
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

_Noreturn void uir_internal_error(const char *file, int line, const char *what)
{
	fprintf(stderr, "internal error: %s at %s:%d (a bug in uir; please report it)\n",
		what, file, line);
	exit(UIR_EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	return p;
}

int uir_cpus(void)
{
	int n = 0;
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
#endif
	if (n < 1)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : n;
}
