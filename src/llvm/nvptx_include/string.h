/* string.h for the nvptx64 bitcode of runtime/uir_math.h (see math.h here): memcpy, which
 * clang turns into llvm.memcpy for the bit casts. */
#ifndef UIR_NVPTX_STRING_H
#define UIR_NVPTX_STRING_H
#include <stddef.h>
void *memcpy(void *, const void *, size_t);
#endif
