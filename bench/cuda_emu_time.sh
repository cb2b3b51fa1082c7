#!/usr/bin/env bash
# cuda_emu_time.sh - time in the CUDA emulator for every `# cuda` test (not run in CI).
#
# Usage: bench/cuda_emu_time.sh [UIR [RUNS [OUT.md]]]
#   UIR   the uir binary (default build/src/uir)
#   RUNS  runs per program, the best kept (default 3)
#   OUT   also write the table there (default: standard output only)
#
# For every .uir under tests/programs with a
# `# cuda` directive: render-cuda --main, build with the emulator (c++ -std=c++17 -O2
# -pthread -ffp-contract=off -include runtime/uir_cuda_emu.h), run RUNS times and keep the
# best wall time of the whole process (thread start-up included) and its CPU time (user +
# system, from the same run); the output is checked against `uir run` each time. Prints a
# Markdown table: program, grid x block of each launch, barriers in the rendering, build
# seconds, best run seconds (wall), that run's CPU seconds, and whether it matched.
# The machine's load changes the wall times a lot (every barrier wakes blockDim threads):
# the CPU time is the steadier number. Needs GNU time (/usr/bin/time) and bc.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
UIR=${1:-$here/build/src/uir}
RUNS=${2:-3}
OUT=${3:-}
CXX=${CXX:-c++}
EMU="$here/runtime/uir_cuda_emu.h"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda_emu_time.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }
table="$WORK/table.md"
{
	echo "| program | launches (grid x block) | barriers in the kernels | build s | best run s (wall) | its CPU s | same as run |"
	echo "|---|---|---|---|---|---|---|"
} >"$table"
{ find "$here/tests/programs" -name '*.uir'; } |
	sort | while IFS= read -r f; do
		sed -n '/^[^#]/q;p' "$f" | grep -qx '# cuda' || continue
		name=${f#"$here/"}
		"$UIR" run "$f" >"$WORK/run.out" 2>/dev/null || { echo "| $name | - | - | - | - | - | run failed |" >>"$table"; continue; }
		"$UIR" render-cuda --main "$f" >"$WORK/p.cu" 2>/dev/null || { echo "| $name | - | - | - | - | - | render failed |" >>"$table"; continue; }
		launches=$(grep -o 'UIR_LAUNCH(uir_k[0-9]*, [0-9]*, [0-9]*' "$WORK/p.cu" | sed 's/UIR_LAUNCH(uir_k[0-9]*, //; s/, /x/' | tr '\n' ' ')
		bars=$(grep -c '__syncthreads();' "$WORK/p.cu")
		t0=$(now)
		$CXX -std=c++17 -O2 -pthread -ffp-contract=off -include "$EMU" -x c++ -o "$WORK/p" "$WORK/p.cu" 2>/dev/null ||
			{ echo "| $name | $launches | $bars | - | - | - | build failed |" >>"$table"; continue; }
		build=$(echo "$(now) - $t0" | bc)
		best=
		cpu=
		same=yes
		for ((r = 0; r < RUNS; r++)); do
			/usr/bin/time -f '%e %U %S' -o "$WORK/time" "$WORK/p" >"$WORK/emu.out" 2>/dev/null
			read -r t u sy <"$WORK/time"
			cmp -s "$WORK/run.out" "$WORK/emu.out" || same=NO
			if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
				best=$t
				cpu=$(echo "$u + $sy" | bc)
			fi
		done
		printf '| %s | %s | %s | %.2f | %.2f | %.2f | %s |\n' "$name" "${launches% }" "$bars" "$build" "$best" "$cpu" "$same" >>"$table"
	done
echo "uptime: $(uptime)" >>"$table"
cat "$table"
[ -n "$OUT" ] && cp "$table" "$OUT"
exit 0
