/* test.c - the command `uir test`: the test runner (src/runner/, docs/testing.md), given
 * the path of this executable, which it runs as a child process for every check.
 */
#include "../uir_internal.h"
#include "cli.h"
#include "../runner/runner.h"
#include <unistd.h>

int cmd_test(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return usage_error("test", "cannot find the uir executable");
	self[n] = 0;
	return uir_test_main(argc - 1, argv + 1, self);
}
