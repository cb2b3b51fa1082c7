/* math_bc.c - the math ops of runtime/uir_math.h as external functions uir_jit_OP_T, for
 * the LLVM back end (see math_bc.h). Compiled twice: to bitcode by clang-19 (linked into
 * lowered modules) and into the back end (called as symbols when there is no bitcode).
 * Both compile with contraction off and without fast-math, like every other user of the
 * header, so all give the interpreter's bits.
 */
#include "math_bc.h"
#include "uir_math.h"

float uir_jit_exp2_f32(float x) { return uir_exp2_f32(x); }
double uir_jit_exp2_f64(double x) { return uir_exp2_f64(x); }
float uir_jit_log2_f32(float x) { return uir_log2_f32(x); }
double uir_jit_log2_f64(double x) { return uir_log2_f64(x); }
float uir_jit_sin_f32(float x) { return uir_sin_f32(x); }
double uir_jit_sin_f64(double x) { return uir_sin_f64(x); }
float uir_jit_cos_f32(float x) { return uir_cos_f32(x); }
double uir_jit_cos_f64(double x) { return uir_cos_f64(x); }
