/* alloc.c - memory that must not fail: xmalloc(), xcalloc() and xrealloc() exit 70 with an
 * internal error when the system has no more; and uir_internal_error() itself, the one exit
 * for a bug in uir (unreachable()). */
#include "../uir_internal.h"
#include <stdlib.h>

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
