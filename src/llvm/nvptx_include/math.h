/* math.h for compiling runtime/uir_math.h to nvptx64 bitcode (src/llvm/ptx_math.c, with
 * -nostdlibinc: the host's libc headers are not for this target). uir_math.h needs only
 * fma's declaration from libm, and ptx_math.c is built so that it does not call it. */
#ifndef UIR_NVPTX_MATH_H
#define UIR_NVPTX_MATH_H
double fma(double, double, double);
float fmaf(float, float, float);
#endif
