/* cpus.c - uir_cpus(): the CPUs this process may run on (uir_internal.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "../uir_internal.h"
#include <sched.h>
#include <unistd.h>

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
