/* runner.h - the entry point of `uir test`, the test runner (docs/testing.md).
 *
 * src/cli/test.c calls uir_test_main() for the command `uir test`. Everything else of the
 * runner is private to src/runner/ (see runner_int.h).
 */
#ifndef UIR_RUNNER_H
#define UIR_RUNNER_H

/* Runs `uir test`. ARGV holds the ARGC arguments that follow the word `test` (options and
 * paths; ARGV[0] is the first of them, not a program name). SELF_EXE is a path of the `uir`
 * binary that execv() accepts (for example from /proc/self/exe): every check runs as a child
 * process of it. Prints one line per test and a summary on standard output, usage errors on
 * standard error. Returns the exit status: 0 all passed or skipped, 1 a test failed, 64 bad
 * usage, 70 an internal error. */
int uir_test_main(int argc, char **argv, const char *self_exe);

#endif
