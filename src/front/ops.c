/* ops.c - the op table: one row per op, read by the parser, the type checker and every
 * back end (the rows themselves are the UIR_OPS X-macro in uir_internal.h). */
#include "../uir_internal.h"
#include <string.h>

const OpInfo op_info[OP_COUNT] = {
#define X(id, text, arity, acc, shape, meaning) { text, arity, acc, shape, meaning },
	UIR_OPS(X)
#undef X
};

int op_lookup(const char *name, size_t len)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (strlen(op_info[i].name) == len && !memcmp(op_info[i].name, name, len))
			return i;
	return -1;
}

const char *const axis_name[] = { "", "unroll", "thread", "global", "local" };
