#!/bin/sh
# math_accuracy.sh - builds bench/math_accuracy.c and runs it (docs/math.md).
#
#   bench/math_accuracy.sh quick      about a minute: every 257th f32 input, 10^6 f64 samples
#   bench/math_accuracy.sh full       every f32 input and 10^8 f64 samples (hours on 2 cores)
#   bench/math_accuracy.sh speed      ns per call, ours and glibc's
#   bench/math_accuracy.sh ARGS...    any other arguments go to the program as they are
#
# The binary goes to $OUT (default /tmp/uir-math-accuracy). With gcc's libquadmath present
# the f64 mismatches are checked again in __float128; with MPFR (libmpfr-dev) the f32 inputs
# whose double reference is too close to a rounding boundary are decided by MPFR.
# Exit status: the program's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/uir-math-accuracy}
cc=${CC:-cc}
mkdir -p "$out"
flags="-std=c17 -O2 -ffp-contract=off -pthread"
if printf '#include <quadmath.h>\nint main(void){return (int)sinq(0);}\n' |
	$cc -x c - -o "$out/qtest" -lquadmath >/dev/null 2>&1; then
	flags="$flags -DUSE_QUADMATH"
	libs="-lquadmath -lm"
else
	libs="-lm"
fi
# MPFR (libmpfr-dev) decides the f32 inputs the double reference cannot (optional).
if printf '#include <mpfr.h>\nint main(void){mpfr_t m; mpfr_init2(m, 64); mpfr_clear(m); return 0;}\n' |
	$cc -x c - -o "$out/mtest" -lmpfr -lgmp >/dev/null 2>&1; then
	flags="$flags -DUSE_MPFR"
	libs="-lmpfr -lgmp $libs"
fi
$cc $flags "$here/math_accuracy.c" -o "$out/math_accuracy" $libs
case "${1:-quick}" in
quick) shift $(($# > 0 ? 1 : 0)); exec "$out/math_accuracy" -k 257 -n 1000000 "$@" ;;
full) shift; exec "$out/math_accuracy" -n 100000000 "$@" ;;
speed) shift; exec "$out/math_accuracy" --speed "$@" ;;
*) exec "$out/math_accuracy" "$@" ;;
esac
