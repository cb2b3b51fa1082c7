#!/usr/bin/env bash
# cuda_all.sh - `uir render-cuda` over the `# cuda` test programs (docs/language.md 8.3; docs/testing.md).
#
# Usage: cuda_all.sh UIR SRCROOT [EXAMPLES_DIR]
#
# For every .uir under SRCROOT/tests/programs and EXAMPLES_DIR (an extra folder,
# when given) with a `# cuda` directive:
#   - `# cuda: invalid`: render-cuda exits 2, prints nothing on standard output and one
#     line `invalid: ...` on standard error;
#   - otherwise: render-cuda --main; the CUDA compiles with nvcc (when present: $NVCC, else
#     nvcc on PATH, else /usr/local/cuda/bin/nvcc) with -fmad=false -prec-div=true
#     -prec-sqrt=true -Werror all-warnings, and runs on the GPU when nvidia-smi sees one;
#     it compiles in the emulator (c++ -std=c++17 -O2 -pthread -ffp-contract=off -include
#     runtime/uir_cuda_emu.h, with -Wall -Wextra -Werror), runs there with
#     UIR_EMU_ORDER=forward and reverse, and every run prints what `uir run` prints, byte
#     for byte.
# Then the barrier test: the stencil of spec/stencil_1d.uir rendered with its
# __syncthreads() removed must differ from `uir run` in at least one of several emulator
# runs (reverse and random:SEED orders), while the rendering with barriers matches in all.
# Last line: "N passed, N failed". Exits 1 when anything failed.
set -u

UIR=${1:?usage: cuda_all.sh UIR SRCROOT [EXAMPLES_DIR]}
SRCROOT=${2:?usage: cuda_all.sh UIR SRCROOT [EXAMPLES_DIR]}
EXAMPLES=${3:-}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CXX=${CXX:-c++}
EMU="$SRCROOT/runtime/uir_cuda_emu.h"
RUN_ARGS=${UIR_RUN_ARGS---engine interp}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || NVCC=
GPU=0
if [ -n "$NVCC" ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then GPU=1; fi
NVFLAGS="-arch=${NVCC_ARCH:-sm_90} -fmad=false -prec-div=true -prec-sqrt=true -Werror all-warnings"
EMUFLAGS="-std=c++17 -O2 -pthread -ffp-contract=off -Wall -Wextra -Werror"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda_all.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

files=()
while IFS= read -r f; do files+=("$f"); done < <(
	{ find "$SRCROOT/tests/programs" -name '*.uir'; [ -n "$EXAMPLES" ] && [ -d "$EXAMPLES" ] && find "$EXAMPLES" -name '*.uir'; } |
		sort | while IFS= read -r f; do
			sed -n '/^[^#]/q;p' "$f" | grep -Eq '^# cuda($|:)' && echo "$f"
		done)

# test_one INDEX FILE: writes "PASS ..." or "FAIL ...: why" into $WORK/INDEX.result
test_one() {
	local i=$1 f=$2 d="$WORK/$1"
	mkdir -p "$d"
	local res="$d.result"
	if sed -n '/^[^#]/q;p' "$f" | grep -q '^# cuda: invalid'; then
		"$UIR" render-cuda "$f" >"$d/out" 2>"$d/err"
		local rc=$?
		if [ $rc -ne 2 ] || [ -s "$d/out" ] || [ "$(wc -l <"$d/err")" -ne 1 ] || ! grep -q '^invalid: ' "$d/err"; then
			echo "FAIL $f: want exit 2 and one 'invalid:' line, got exit $rc: $(head -c 300 "$d/err")" >"$res"
			return
		fi
		echo "PASS $f (invalid: $(cut -c10-80 "$d/err"))" >"$res"
		return
	fi
	if ! timeout 300 "$UIR" run $RUN_ARGS "$f" >"$d/run.out" 2>"$d/run.err"; then
		echo "FAIL $f: uir run failed: $(head -c 300 "$d/run.err")" >"$res"
		return
	fi
	if ! "$UIR" render-cuda --main "$f" >"$d/prog.cu" 2>"$d/render.err"; then
		echo "FAIL $f: render-cuda failed: $(head -c 300 "$d/render.err")" >"$res"
		return
	fi
	local note=""
	if [ -n "$NVCC" ]; then
		if ! "$NVCC" $NVFLAGS -x cu -o "$d/prog_nv" "$d/prog.cu" 2>"$d/nvcc.err"; then
			echo "FAIL $f: nvcc: $(head -c 800 "$d/nvcc.err")" >"$res"
			return
		fi
		note=" nvcc"
		if [ $GPU = 1 ]; then
			timeout 300 "$d/prog_nv" >"$d/nv.out" 2>"$d/nv.err"
			if ! cmp -s "$d/run.out" "$d/nv.out"; then
				echo "FAIL $f: on the GPU: output differs from uir run: $(head -c 300 "$d/nv.err")" >"$res"
				return
			fi
			note="$note+gpu"
		fi
	fi
	if ! $CXX $EMUFLAGS -include "$EMU" -x c++ -o "$d/prog_emu" "$d/prog.cu" 2>"$d/cxx.err"; then
		echo "FAIL $f: $CXX (emulator): $(head -c 800 "$d/cxx.err")" >"$res"
		return
	fi
	local order
	for order in forward reverse; do
		UIR_EMU_ORDER=$order timeout 300 "$d/prog_emu" >"$d/emu.out" 2>"$d/emu.err"
		local rc=$?
		if [ $rc -ne 0 ] || ! cmp -s "$d/run.out" "$d/emu.out"; then
			echo "FAIL $f: emulator ($order): exit $rc, output $(cmp -s "$d/run.out" "$d/emu.out" && echo same || echo differs): $(head -c 300 "$d/emu.err")" >"$res"
			return
		fi
	done
	echo "PASS $f (emulator$note)" >"$res"
}

# The barrier test: without __syncthreads() the stencil races, and the emulator shows it.
barrier_test() {
	local d="$WORK/barrier" f="$SRCROOT/tests/programs/spec/stencil_1d.uir"
	mkdir -p "$d"
	local res="$WORK/barrier.result"
	"$UIR" run $RUN_ARGS "$f" >"$d/run.out" 2>/dev/null &&
		"$UIR" render-cuda --main "$f" >"$d/with.cu" 2>/dev/null || {
		echo "FAIL barrier test: cannot run or render $f" >"$res"
		return
	}
	grep -v '__syncthreads();' "$d/with.cu" >"$d/without.cu"
	if ! $CXX $EMUFLAGS -include "$EMU" -x c++ -o "$d/with" "$d/with.cu" 2>"$d/err" ||
		! $CXX $EMUFLAGS -include "$EMU" -x c++ -o "$d/without" "$d/without.cu" 2>"$d/err"; then
		echo "FAIL barrier test: does not compile: $(head -c 300 "$d/err")" >"$res"
		return
	fi
	local order differ=0 runs=0
	for order in reverse random:1 random:2 random:3 random:4 random:5; do
		UIR_EMU_ORDER=$order "$d/with" >"$d/with.out" 2>/dev/null
		if ! cmp -s "$d/run.out" "$d/with.out"; then
			echo "FAIL barrier test: with barriers, $order differs from uir run" >"$res"
			return
		fi
		UIR_EMU_ORDER=$order "$d/without" >"$d/without.out" 2>/dev/null
		runs=$((runs + 1))
		cmp -s "$d/run.out" "$d/without.out" || differ=$((differ + 1))
	done
	if [ $differ -eq 0 ]; then
		echo "FAIL barrier test: without barriers all $runs emulator runs matched uir run (no race seen)" >"$res"
		return
	fi
	echo "PASS barrier test: without barriers $differ of $runs runs differ from uir run" >"$res"
}

barrier_test &
i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	test_one "$i" "$f" &
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n 2>/dev/null || sleep 0.05
	done
done
wait

pass=0
fail=0
for r in "$WORK"/*.result; do
	[ -e "$r" ] || continue
	read -r status rest <"$r"
	case $status in
	PASS)
		pass=$((pass + 1))
		[ "${VERBOSE:-0}" = 1 ] && cat "$r"
		;;
	FAIL)
		fail=$((fail + 1))
		cat "$r"
		;;
	esac
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
