#!/usr/bin/env bash
# jit_threads.sh - thread scaling of JIT'd parallel loops: wall-clock execution time of
# bench/jit_threads.uir (a compute-bound `thread` loop) with --threads 1 and with
# --threads N (default 2), median of RUNS runs each, and the speed-up. Needs N idle cores
# to mean anything: on a busy machine the threads wait for a core.
#
#   bench/jit_threads.sh [UIR [N [RUNS]]]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
uir=${1:-build/src/uir}
n=${2:-2}
runs=${3:-7}
prog=${PROG:-$here/jit_threads.uir}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
time_with() {
	for _ in $(seq "$runs"); do
		"$uir" run --engine jit --threads "$1" --time --hash "$prog" 2>&1 >/dev/null |
			sed -n 's/.*execution \([0-9.]*\) ms.*/\1/p'
	done | median
}
# interleave the two settings so that a change in load hits both
one=$(time_with 1)
many=$(time_with "$n")
one2=$(time_with 1)
many2=$(time_with "$n")
t1=$(printf '%s\n%s\n' "$one" "$one2" | sort -g | head -1)
tn=$(printf '%s\n%s\n' "$many" "$many2" | sort -g | head -1)
echo "threads 1: $t1 ms   threads $n: $tn ms   speed-up: $(awk -v a="$t1" -v b="$tn" 'BEGIN { printf "%.2f", a / b }')"
