/* temporary */
#include "../uir_internal.h"
#include "../cli/cli.h"
int cmd_run(int argc, char **argv) { (void)argc; (void)argv; return 64; }
int uir_test_main(int argc, char **argv, const char *self_exe);
int uir_test_main(int argc, char **argv, const char *self_exe) { (void)argc; (void)argv; (void)self_exe; return 64; }
