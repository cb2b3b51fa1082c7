#!/usr/bin/env bash
# bench_racecheck.sh - the cost of `uir run --racecheck`, and of having it at all.
#
#   tests/racecheck/bench_racecheck.sh [UIR [BASE_UIR [N [RUNS]]]]
#
# Runs three N x N f32 matrix products (scalar, as bench/interp_speed.sh) in the
# interpreter: plain loops, a `thread` loop over rows, and a kernel (`global` rows, `local`
# columns). Each takes 3 N^3 + N^2 accesses. Prints the best of RUNS wall times for:
#
#   base       BASE_UIR run --engine interp (a uir built without the race check; optional)
#   off        UIR run --engine interp      (the race check built in, not asked for)
#   racecheck  UIR run --racecheck
#
# "off" against "base" measures the claim that the option costs nothing when unused;
# "racecheck" against "off" is the slowdown of the check. Times include start-up and
# hashing the output (--hash). Defaults: UIR build/src/uir, no BASE_UIR, N 128, RUNS 3.
set -eu

uir=${1:-build/src/uir}
base=${2:-}
n=${3:-128}
runs=${4:-3}
[ -x "$uir" ] || { echo "bench_racecheck.sh: no uir binary at '$uir'" >&2; exit 64; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
body="store C (add (mul i $n) j) (add (load C (add (mul i $n) j)) (mul (load A (add (mul i $n) k)) (load B (add (mul k $n) j))))"
head="buffer A f32 $((n * n)) = random 1
buffer B f32 $((n * n)) = random 2
buffer C f32 $((n * n))"
printf '%s\nloop i %d {\n loop j %d {\n  loop k %d {\n   %s\n  }\n }\n}\n' "$head" "$n" "$n" "$n" "$body" >"$dir/plain.uir"
printf '%s\nloop i %d thread {\n loop j %d {\n  loop k %d {\n   %s\n  }\n }\n}\n' "$head" "$n" "$n" "$n" "$body" >"$dir/thread.uir"
printf '%s\nloop i %d global {\n loop j %d local {\n  loop k %d {\n   %s\n  }\n }\n}\n' "$head" "$n" "$n" "$n" "$body" >"$dir/kernel.uir"

# best wall time in ms of RUNS runs of: "$@"
best() {
	local b= t s e
	for _ in $(seq "$runs"); do
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		t=$(((e - s) / 1000000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

printf '%-8s %10s %10s %12s %10s %9s\n' program base_ms off_ms racecheck_ms off/base rc/off
for p in plain thread kernel; do
	f=$dir/$p.uir
	"$uir" check "$f" || exit 1
	# the same result with and without the check
	[ "$("$uir" run --engine interp --hash "$f")" = "$("$uir" run --racecheck --hash "$f")" ] || {
		echo "bench_racecheck.sh: $p: --racecheck changes the result" >&2
		exit 1
	}
	b=-
	[ -n "$base" ] && b=$(best "$base" run --engine interp --hash "$f")
	o=$(best "$uir" run --engine interp --hash "$f")
	r=$(best "$uir" run --racecheck --hash "$f")
	awk -v p="$p" -v b="$b" -v o="$o" -v r="$r" 'BEGIN {
		printf "%-8s %10s %10d %12d %10s %8.2fx\n", p, b, o, r, b == "-" ? "-" : sprintf("%.3f", o / b), r / o
	}'
done
echo "N = $n: $((3 * n * n * n + n * n)) accesses per program; best of $runs runs"

# Wall times on a loaded machine are noisy; instructions executed are not. With valgrind,
# count them (cachegrind, no cache simulation) at a smaller size, IR_N (default 48).
command -v valgrind >/dev/null || exit 0
irn=${IR_N:-48}
for p in plain thread kernel; do
	sed -e "s/ $n / $irn /g" -e "s/ $n {/ $irn {/g" -e "s/ $((n * n))/ $((irn * irn))/g" \
		-e "s/(mul \([ik]\) $n)/(mul \1 $irn)/g" "$dir/$p.uir" >"$dir/ir_$p.uir"
done
irefs() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}
printf '%-8s %14s %14s %14s %12s %9s\n' program base_insns off_insns racecheck_insns off-base rc/off
for p in plain thread kernel; do
	f=$dir/ir_$p.uir
	"$uir" check "$f" || exit 1
	b=-
	[ -n "$base" ] && b=$(irefs "$base" run --engine interp --hash "$f")
	o=$(irefs "$uir" run --engine interp --hash "$f")
	r=$(irefs "$uir" run --racecheck --hash "$f")
	awk -v p="$p" -v b="$b" -v o="$o" -v r="$r" 'BEGIN {
		printf "%-8s %14s %14d %14d %12s %8.2fx\n", p, b, o, r, b == "-" ? "-" : sprintf("%+d", o - b), r / o
	}'
done
echo "N = $irn: $((3 * irn * irn * irn + irn * irn)) accesses per program; instructions executed (valgrind)"
