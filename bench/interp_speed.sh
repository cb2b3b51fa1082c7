#!/usr/bin/env bash
# interp_speed.sh - the reference interpreter's speed: scalar .uir ops per second on a
# plain (untiled, scalar) N x N f32 matrix product.
#
#   bench/interp_speed.sh [UIR [N [RUNS]]]
#
# UIR is the uir binary (default: build/src/uir), N the matrix size (default 256), RUNS the
# number of timed runs (default 3; the best is reported). The inner loop body executes 14
# ops per iteration (4 mul and 4 add for offsets, 3 loads, 1 mul, 1 add, 1 store), so a
# run executes 14 N^3 ops; loop bookkeeping is not counted. The time includes start-up,
# buffer set-up and hashing the output (`run --hash`), which are small at N = 256.
set -eu

uir=${1:-build/src/uir}
n=${2:-256}
runs=${3:-3}

if [ ! -x "$uir" ]; then
	echo "interp_speed.sh: no uir binary at '$uir' (pass its path as the first argument)" >&2
	exit 64
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
prog=$dir/matmul.uir
cat >"$prog" <<UIR
# C = A B, $n x $n f32, scalar, in plain sequential loops.
buffer A f32 $((n * n)) = random 1
buffer B f32 $((n * n)) = random 2
buffer C f32 $((n * n))
loop i $n {
  loop j $n {
    loop k $n {
      store C (add (mul i $n) j) (add (load C (add (mul i $n) j)) (mul (load A (add (mul i $n) k)) (load B (add (mul k $n) j))))
    }
  }
}
UIR

best=
for _ in $(seq "$runs"); do
	start=$(date +%s%N)
	"$uir" run --engine interp --hash "$prog" >/dev/null
	end=$(date +%s%N)
	t=$((end - start))
	if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
		best=$t
	fi
done

awk -v n="$n" -v ns="$best" 'BEGIN {
	ops = 14 * n * n * n
	s = ns / 1e9
	printf "matmul %dx%d: %.0f ops in %.3f s (best of runs): %.1f M ops/s\n", n, n, ops, s, ops / s / 1e6
}'
