/* math_bc.h - exp2, log2, sin and cos as plain external functions for the LLVM back end,
 * and the bitcode of the same functions.
 *
 * math_bc.c wraps the single definitions of runtime/uir_math.h as uir_jit_OP_T. At build
 * time clang-19 compiles it to LLVM bitcode, which is embedded in the module as
 * uir_math_bc (uir_math_bc_len bytes; 0 when clang-19 was not found) and linked into every
 * lowered module that uses these ops. The same file is also compiled into the back end
 * itself, so the JIT can call the functions as symbols when there is no bitcode.
 */
#ifndef UIR_LLVM_MATH_BC_H
#define UIR_LLVM_MATH_BC_H

#include <stddef.h>

float uir_jit_exp2_f32(float x);
double uir_jit_exp2_f64(double x);
float uir_jit_log2_f32(float x);
double uir_jit_log2_f64(double x);
float uir_jit_sin_f32(float x);
double uir_jit_sin_f64(double x);
float uir_jit_cos_f32(float x);
double uir_jit_cos_f64(double x);

extern const unsigned char uir_math_bc[];
extern const size_t uir_math_bc_len;

#endif
