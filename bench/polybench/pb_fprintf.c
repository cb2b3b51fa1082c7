/* Exact dumps from PolyBench/C: its sources are built with -Dfprintf=pb_fprintf, and this
 * hook prints every array element (PolyBench's "%0.2lf " / "%0.2f ") as a C99 hex float,
 * so bench/polybench.sh can compare it bit for bit with `uir run --dump`. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pb_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	if (strcmp(fmt, "%0.2lf ") == 0 || strcmp(fmt, "%0.2f ") == 0)
		n = fprintf(f, "%a ", va_arg(ap, double));
	else
		n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}
