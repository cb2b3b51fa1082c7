/* ptx_math_bc.h - the bitcode of src/llvm/ptx_math.c for nvptx64-nvidia-cuda (exp2, log2,
 * sin, cos from runtime/uir_math.h and an exact fmod), compiled by clang-19 at build time
 * and embedded by embed_bc.py; uir_ptx_math_bc_len is 0 when clang-19 was not found. */
#ifndef UIR_LLVM_PTX_MATH_BC_H
#define UIR_LLVM_PTX_MATH_BC_H

#include <stddef.h>

extern const unsigned char uir_ptx_math_bc[];
extern const size_t uir_ptx_math_bc_len;

#endif
