/* uir_init.h - the input generator of `buffer NAME T SIZE = random SEED [LO HI]`.
 *
 * docs/language.md 3.3 (3.3.3 and 3.3.5 for the edge cases). Element i of a buffer with
 * seed SEED draws z = splitmix64(SEED * 2^32 + i), then:
 *   f32: u = (z >> 40) * 2^-24,  f64: u = (z >> 11) * 2^-53,  value LO + u * (HI - LO);
 *   integers with a range: LO + z mod (HI - LO), wrapped to the type;
 *   integers without a range: the low bits of z, i.e. (T)uir_random_bits(seed, i);
 *   bool: uir_random_bits(seed, i) & 1.
 * The conversions of z are uir_bits_f32, uir_bits_f64 and uir_bits_int, shared by the bits
 * that `uir run --seed S` draws in place of SEED's (uir_seeded_bits).
 * Check value: seed 3, element 0: z = 0x4fad8879896d31fb, f32 value -0.3775167465209961.
 *
 * The float helpers compute LO + u * (HI - LO) as separate f64 operations, one per
 * statement: compile with -ffp-contract=off (or ISO C mode), never -ffast-math.
 *
 * Plain C11 that also compiles as C++ and CUDA; each helper starts with a marker line
 * (runtime/README.md) and is pasted verbatim by the renderers.
 */
#ifndef UIR_INIT_H
#define UIR_INIT_H

#include <stdint.h>
#include <string.h>

#ifndef UIR_FN
#define UIR_FN static inline
#endif

/* uir-helper: uir_splitmix64 */
/* The splitmix64 output function of x (all arithmetic modulo 2^64). */
UIR_FN uint64_t uir_splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15u;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
	return x ^ (x >> 31);
}

/* uir-helper: uir_random_bits needs: uir_splitmix64 */
/* The 64 random bits z of element i for SEED: splitmix64(seed * 2^32 + i). */
UIR_FN uint64_t uir_random_bits(uint32_t seed, uint64_t i)
{
	return uir_splitmix64(((uint64_t)seed << 32) + i);
}

/* uir-helper: uir_below_f32 */
/* The largest f32 whose value is below hi (compared in f64); -inf if there is none. */
UIR_FN float uir_below_f32(double hi)
{
	float h = (float)hi; /* the nearest f32 (inf beyond the range); one step down suffices */
	uint32_t bits;
	if ((double)h < hi)
		return h;
	memcpy(&bits, &h, sizeof bits);
	if (bits == 0x00000000u)      /* +0: the largest value below it is -min_subnormal */
		bits = 0x80000001u;
	else if (bits >> 31)          /* negative: a larger magnitude */
		bits += 1;
	else                          /* positive (or +inf): a smaller magnitude */
		bits -= 1;
	memcpy(&h, &bits, sizeof h);
	return h;
}

/* uir-helper: uir_below_f64 */
/* The largest f64 below hi (hi neither NaN nor -inf). */
UIR_FN double uir_below_f64(double hi)
{
	uint64_t bits;
	memcpy(&bits, &hi, sizeof bits);
	if ((bits << 1) == 0)         /* +0 or -0: the largest value below is -min_subnormal */
		bits = 0x8000000000000001u;
	else if (bits >> 63)          /* negative: a larger magnitude */
		bits += 1;
	else                          /* positive (or +inf): a smaller magnitude */
		bits -= 1;
	memcpy(&hi, &bits, sizeof hi);
	return hi;
}

/* uir-helper: uir_bits_f32_below */
/* The f32 value in [lo, hi) of the 64 random bits z (docs/language.md 3.3.2, 3.3.3): u =
 * (z >> 40) * 2^-24, then lo + u * (hi - lo) in f64; lo and hi are the f64 values nearest
 * the literals (the default range is lo = -1, hi = 1). A result that rounds to hi or above
 * becomes BELOW, the largest f32 below hi (uir_below_f32(hi)), which a loop over a buffer
 * computes once: without a call or a branch the loop vectorises. z >> 40 has 24 bits, so
 * its conversion through int32_t is exact (and a vector instruction of AVX2). */
UIR_FN float uir_bits_f32_below(uint64_t z, double lo, double hi, float below)
{
	double u = (double)(int32_t)(z >> 40) / 16777216.0; /* 2^24 */
	double width = hi - lo;
	double scaled = u * width;
	double value = lo + scaled;
	float result = (float)value;
	return (double)result >= hi ? below : result;
}

/* uir-helper: uir_bits_f32 needs: uir_below_f32 uir_bits_f32_below */
/* The f32 value in [lo, hi) of the 64 random bits z: uir_bits_f32_below() with the largest
 * f32 below hi. */
UIR_FN float uir_bits_f32(uint64_t z, double lo, double hi)
{
	return uir_bits_f32_below(z, lo, hi, uir_below_f32(hi));
}

/* uir-helper: uir_bits_f64_below */
/* The f64 value in [lo, hi) of the 64 random bits z: u = (z >> 11) * 2^-53, then lo + u *
 * (hi - lo). A result that rounds to hi or above becomes BELOW, the largest f64 below hi
 * (uir_below_f64(hi)), computed once by a loop over a buffer, as for uir_bits_f32_below().
 * z >> 11 has 53 bits: its conversion through int64_t is exact. */
UIR_FN double uir_bits_f64_below(uint64_t z, double lo, double hi, double below)
{
	double u = (double)(int64_t)(z >> 11) / 9007199254740992.0; /* 2^53 */
	double width = hi - lo;
	double scaled = u * width;
	double value = lo + scaled;
	return value >= hi ? below : value;
}

/* uir-helper: uir_bits_f64 needs: uir_below_f64 uir_bits_f64_below */
/* The f64 value in [lo, hi) of the 64 random bits z: uir_bits_f64_below() with the largest
 * f64 below hi. */
UIR_FN double uir_bits_f64(uint64_t z, double lo, double hi)
{
	return uir_bits_f64_below(z, lo, hi, uir_below_f64(hi));
}

/* uir-helper: uir_bits_int */
/* The integer in a range of the 64 random bits z: (lo + z mod width) mod 2^64, with lo the
 * bits of LO as u64 and width = HI - LO as u64, where width 0 stands for 2^64 (a whole 64-bit
 * range: z mod 2^64 is z itself, docs/language.md 3.3.5). The caller wraps the result to the
 * element type: (int8_t), (uint32_t), ... */
UIR_FN uint64_t uir_bits_int(uint64_t z, uint64_t lo, uint64_t width)
{
	if (width == 0)
		return lo + z;
	return lo + z % width;
}

/* uir-helper: uir_random_f32 needs: uir_random_bits uir_bits_f32 */
/* Element i of an f32 buffer `random SEED LO HI`: uniform in [lo, hi). */
UIR_FN float uir_random_f32(uint32_t seed, uint64_t i, double lo, double hi)
{
	return uir_bits_f32(uir_random_bits(seed, i), lo, hi);
}

/* uir-helper: uir_random_f64 needs: uir_random_bits uir_bits_f64 */
/* Element i of an f64 buffer `random SEED LO HI`: uniform in [lo, hi). */
UIR_FN double uir_random_f64(uint32_t seed, uint64_t i, double lo, double hi)
{
	return uir_bits_f64(uir_random_bits(seed, i), lo, hi);
}

/* uir-helper: uir_random_int needs: uir_random_bits uir_bits_int */
/* Element i of an integer buffer `random SEED LO HI`, before the caller's wrap to its type. */
UIR_FN uint64_t uir_random_int(uint32_t seed, uint64_t i, uint64_t lo, uint64_t width)
{
	return uir_bits_int(uir_random_bits(seed, i), lo, width);
}

/* uir-helper: uir_seeded_key needs: uir_splitmix64 */
/* `uir run --seed S` and the timing main of `# cuda speed` (docs/commands.md, docs/testing.md):
 * the key K of buffer number b (declaration order, from 0) for the 64-bit seed S, half 0 or
 * 1: K = splitmix64(S xor splitmix64(2b + half)). */
UIR_FN uint64_t uir_seeded_key(uint64_t s, uint64_t b, int half)
{
	return uir_splitmix64(s ^ uir_splitmix64(2 * b + (uint64_t)half));
}

/* uir-helper: uir_seeded_bits needs: uir_splitmix64 */
/* The 64 random bits of element i of a `random` buffer drawn from a seed, with the two keys
 * K0, K1 of uir_seeded_key(): z = splitmix64(splitmix64(K0 + i) xor K1). They take the
 * place of uir_random_bits(SEED, i) and are converted to the buffer's type and range as
 * those are (uir_bits_f32, uir_bits_f64, uir_bits_int, the low bits, bool z & 1). The
 * bits of `random SEED` give their seed away (splitmix64 can be inverted, and SEED has 32
 * bits), so a kernel could compute its inputs instead of reading them; these need both
 * keys, and no way is known to find them from the values short of trying 2^64 of them.
 * (Not a cryptographic generator.) */
UIR_FN uint64_t uir_seeded_bits(uint64_t k0, uint64_t k1, uint64_t i)
{
	return uir_splitmix64(uir_splitmix64(k0 + i) ^ k1);
}

/* uir-helper-end */

#endif /* UIR_INIT_H */
