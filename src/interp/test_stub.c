/* test_stub.c - a stand-in for `uir test` until the test runner (src/test/) is in the
 * build. It is a weak definition, so the real uir_test_main() replaces it as soon as the
 * runner's object files are linked into the executable (as part of uir_src); delete this
 * file then. (If the runner goes into a static library instead, delete it first: a weak
 * definition already present stops the linker from pulling the library's one in.) */
#include "../uir_internal.h"
#include "../test/runner.h"

__attribute__((weak)) int uir_test_main(int argc, char **argv, const char *self_exe)
{
	(void)argc;
	(void)argv;
	(void)self_exe;
	fprintf(stderr, "uir test: the test runner is not built yet\n");
	return UIR_EXIT_USAGE;
}
