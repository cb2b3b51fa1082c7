#!/usr/bin/env bash
# jit_startup.sh - whole-process times of small commands (the start-up targets of the
# JIT issue): `uir check`, `uir run` (auto: interpreted) and `uir run --engine jit` on a
# small example: wall-clock ms (median of RUNS runs) and, with perf installed, the CPU ms
# (task-clock, mean of RUNS runs; on a busy machine the wall clock mostly measures waiting).
#
#   bench/jit_startup.sh [UIR [RUNS [FILE]]]   (FILE default: tests/programs/spec/vector_add.uir)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
uir=${1:-build/src/uir}
runs=${2:-21}
file=${3:-$here/../tests/programs/spec/vector_add.uir}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {
	label=$1
	shift
	wall=$(for _ in $(seq "$runs"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | median)
	cpu=n/a
	if command -v perf >/dev/null 2>&1; then
		cpu=$(perf stat -x, -e task-clock -r "$runs" "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { printf "%.1f", $1 }')
	fi
	printf '%-24s wall %8s ms   cpu %6s ms\n' "$label" "$(awk -v u="$wall" 'BEGIN { printf "%.1f", u / 1000 }')" "$cpu"
}
measure "uir check" "$uir" check "$file"
measure "uir run (auto)" "$uir" run --hash "$file"
measure "uir run --engine jit" "$uir" run --engine jit --hash "$file"
