#!/usr/bin/env bash
# race_barrier.sh - a missing barrier is a real race in the CUDA emulator (docs/language.md 8.3.6).
#
# Usage: race_barrier.sh UIR SRCROOT [PROGRAM]
#
# Renders PROGRAM (default SRCROOT/tests/programs/spec/stencil_1d.uir: a shared tile
# written in one phase and read at other threads' slots in the next) with
# `render-cuda --main`, and a copy with every `__syncthreads();` removed. Both are built
# with the emulator (c++ -std=c++17 -O2 -pthread -ffp-contract=off -include
# runtime/uir_cuda_emu.h) and run under UIR_EMU_ORDER=forward, reverse and random:1..6,
# each with the pool on one CPU (the default) and free (UIR_EMU_PIN=0), 16 runs:
#   - with the barriers, every run must print exactly what `uir run` prints;
#   - without them, at least one run must differ (the race shows).
# Prints one line per run and a verdict; exits 1 when either check fails, 77 (skipped)
# without a C++ compiler.
set -u

UIR=${1:?usage: race_barrier.sh UIR SRCROOT [PROGRAM]}
SRCROOT=${2:?usage: race_barrier.sh UIR SRCROOT [PROGRAM]}
PROG=${3:-$SRCROOT/tests/programs/spec/stencil_1d.uir}
EMU="$SRCROOT/runtime/uir_cuda_emu.h"
. "$(dirname "$0")/setup.sh" race_barrier

"$UIR" run "$PROG" >"$WORK/run.out" || { echo "FAIL: uir run $PROG"; exit 1; }
"$UIR" render-cuda --main "$PROG" >"$WORK/with.cu" || { echo "FAIL: render-cuda $PROG"; exit 1; }
nbar=$(grep -c '__syncthreads();' "$WORK/with.cu")
if [ "$nbar" -eq 0 ]; then
	echo "FAIL: the rendering of $PROG has no barrier to remove"
	exit 1
fi
sed '/__syncthreads();/d' "$WORK/with.cu" >"$WORK/without.cu"
for v in with without; do
	if ! $CXX -std=c++17 -O2 -pthread -ffp-contract=off -include "$EMU" -x c++ -o "$WORK/$v" "$WORK/$v.cu" 2>"$WORK/$v.err"; then
		echo "FAIL: the rendering $v barriers does not build: $(head -c 400 "$WORK/$v.err")"
		exit 1
	fi
done

bad=0
differ=0
runs=0
for run in {forward,reverse,random:1,random:2,random:3,random:4,random:5,random:6}/{1,0}; do
	order=${run%/*}
	pin=${run#*/}
	UIR_EMU_PIN=$pin UIR_EMU_ORDER=$order "$WORK/with" >"$WORK/with.out" 2>&1
	if cmp -s "$WORK/run.out" "$WORK/with.out"; then w=same; else w=DIFFERS; bad=1; fi
	UIR_EMU_PIN=$pin UIR_EMU_ORDER=$order "$WORK/without" >"$WORK/without.out" 2>&1
	runs=$((runs + 1))
	if cmp -s "$WORK/run.out" "$WORK/without.out"; then
		wo=same
	else
		wo=differs
		differ=$((differ + 1))
	fi
	echo "UIR_EMU_ORDER=$order UIR_EMU_PIN=$pin: with $nbar barriers $w as uir run; without them $wo"
done
if [ $bad -ne 0 ]; then
	echo "FAIL: with its barriers the rendering differs from uir run"
	exit 1
fi
if [ $differ -eq 0 ]; then
	echo "FAIL: without barriers all $runs emulator runs matched uir run: the race did not show"
	exit 1
fi
echo "PASS: without barriers $differ of $runs emulator runs differ from uir run; with them none does"
