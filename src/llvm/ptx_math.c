/* ptx_math.c - the math the NVPTX path links in as bitcode (compiled by clang-19 for
 * nvptx64-nvidia-cuda at build time, embedded as uir_ptx_math_bc): exp2, log2, sin and cos
 * from their single definition (math_bc.c, runtime/uir_math.h), and an exact fmod.
 *
 * fmod: NVPTX lowers LLVM's frem as x - trunc(x / y) * y, which rounds twice and is wrong
 * whenever the quotient has more bits than the format; CUDA's fmodf is exact but lives in
 * libdevice. So the remainder here is computed on the integer significands, one quotient
 * bit per step, and is exact (IEEE remainder of truncating division, like C fmod), with
 * the sign of x; NaN when x is infinite or y is 0 or either is NaN.
 *
 * Built with -U__CUDA_ARCH__ -U__FP_FAST_FMA: uir_math.h then takes Dekker's exact product
 * instead of fma (the same bits, see uir_math_two_prod), so PTX of a program without the
 * `fma` op holds no fma instruction at all.
 */
#include "math_bc.c"
#include <stdint.h>

float uir_ptx_fmod_f32(float x, float y);
double uir_ptx_fmod_f64(double x, double y);

float uir_ptx_fmod_f32(float x, float y)
{
	uint32_t ux, uy;
	memcpy(&ux, &x, sizeof ux);
	memcpy(&uy, &y, sizeof uy);
	uint32_t sign = ux & 0x80000000u;
	ux &= 0x7fffffffu;
	uy &= 0x7fffffffu;
	if (ux > 0x7f800000u || uy > 0x7f800000u)
		return x + y; /* a NaN operand */
	if (ux == 0x7f800000u || uy == 0)
		return (x - x) / (x - x) + (y - y); /* NaN */
	if (ux < uy)
		return x; /* |x| < |y| (and x = +-0) */
	/* |x| = mx * 2^(ex - 150), mx in [2^23, 2^24); the same for y */
	int ex = (int)(ux >> 23), ey = (int)(uy >> 23);
	uint32_t mx = ux & 0x7fffffu, my = uy & 0x7fffffu;
	if (ex)
		mx |= 0x800000u;
	else
		for (ex = 1; !(mx & 0x800000u); ex--)
			mx <<= 1;
	if (ey)
		my |= 0x800000u;
	else
		for (ey = 1; !(my & 0x800000u); ey--)
			my <<= 1;
	/* mx < 2 my throughout: subtract when it fits, then double */
	for (; ex > ey; ex--) {
		if (mx >= my)
			mx -= my;
		mx <<= 1;
	}
	if (mx >= my)
		mx -= my;
	uint32_t r;
	if (mx == 0) {
		r = sign;
	} else {
		while (!(mx & 0x800000u)) {
			mx <<= 1;
			ey--;
		}
		if (ey > 0)
			r = sign | ((uint32_t)ey << 23) | (mx & 0x7fffffu);
		else
			r = sign | (mx >> (1 - ey)); /* subnormal: the dropped bits are 0 */
	}
	float f;
	memcpy(&f, &r, sizeof f);
	return f;
}

double uir_ptx_fmod_f64(double x, double y)
{
	uint64_t ux, uy;
	memcpy(&ux, &x, sizeof ux);
	memcpy(&uy, &y, sizeof uy);
	const uint64_t top = (uint64_t)1 << 52, inf = (uint64_t)0x7ff << 52;
	uint64_t sign = ux & ((uint64_t)1 << 63);
	ux &= ~((uint64_t)1 << 63);
	uy &= ~((uint64_t)1 << 63);
	if (ux > inf || uy > inf)
		return x + y;
	if (ux == inf || uy == 0)
		return (x - x) / (x - x) + (y - y);
	if (ux < uy)
		return x;
	int ex = (int)(ux >> 52), ey = (int)(uy >> 52);
	uint64_t mx = ux & (top - 1), my = uy & (top - 1);
	if (ex)
		mx |= top;
	else
		for (ex = 1; !(mx & top); ex--)
			mx <<= 1;
	if (ey)
		my |= top;
	else
		for (ey = 1; !(my & top); ey--)
			my <<= 1;
	for (; ex > ey; ex--) {
		if (mx >= my)
			mx -= my;
		mx <<= 1;
	}
	if (mx >= my)
		mx -= my;
	uint64_t r;
	if (mx == 0) {
		r = sign;
	} else {
		while (!(mx & top)) {
			mx <<= 1;
			ey--;
		}
		if (ey > 0)
			r = sign | ((uint64_t)ey << 52) | (mx & (top - 1));
		else
			r = sign | (mx >> (1 - ey));
	}
	double d;
	memcpy(&d, &r, sizeof d);
	return d;
}
