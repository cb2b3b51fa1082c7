/* test_stub.c - a stand-in for `uir test` until the test runner (src/test/) is wired into
 * the build; delete this file then. */
#include "../uir_internal.h"
#include "../test/runner.h"

int uir_test_main(int argc, char **argv, const char *self_exe)
{
	(void)argc;
	(void)argv;
	(void)self_exe;
	fprintf(stderr, "uir test: the test runner is not built yet\n");
	return UIR_EXIT_USAGE;
}
