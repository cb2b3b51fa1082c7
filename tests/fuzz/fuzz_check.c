/* fuzz_check.c - libFuzzer target: parse, type and check arbitrary bytes as a .uir file.
 * Any crash, hang or sanitizer report is a bug: every input must end in a clean diagnostic
 * or a valid program (and, for one input in four, a footprint picture). Built and run by
 * tests/fuzz/run_fuzz.sh. */
#include "uir/uir.h"
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	UirProgram *p = uir_load_text("fuzz.uir", (const char *)data, size, devnull);
	if (p) {
		uir_check(p, 0, devnull);
		uir_free(p);
		p = uir_load_text("fuzz.uir", (const char *)data, size, devnull);
		if (p)
			uir_check(p, UIR_CHECK_STRICT, devnull);
		uir_free(p);
		/* one input in four also through the footprint picture (check --footprint) */
		p = size % 4 == 0 ? uir_load_text("fuzz.uir", (const char *)data, size, devnull) : NULL;
		if (p) {
			uir_check_footprint(p, 0, devnull);
			free(uir_footprint_svg(p, NULL));
		}
		uir_free(p);
	}
	return 0;
}
