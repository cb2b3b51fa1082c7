#!/usr/bin/env bash
# gpu_check.sh - on a machine with an NVIDIA GPU and nvcc: build uir, run every `# cuda` test
# and every `# cuda speed` test on the GPU, and write a table of kernel time against the
# hand-written reference into bench/. One prepared script, so that the minutes on a GPU
# machine go to measuring.
#
# Usage: bench/gpu_check.sh [BUILD_DIR [OUT.md]]
#   BUILD_DIR  Meson build folder (default build; configured here when missing)
#   OUT        the table (default bench/gpu_check_results.md)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), JOBS (default
# 2), TIMEOUT per test (default 300 s).
#
# Steps, each logged under $OUT.d/:
#   1. nvidia-smi -L and nvcc --version (the script stops when either fails: no GPU);
#   2. meson setup (if needed) and ninja;
#   3. `uir test --engine interp` on every `# cuda` program with UIR_TEST_CUDA=gpu: each
#      rendering built with nvcc -arch=native -fmad=false -prec-div=true -prec-sqrt=true,
#      run on the GPU, every buffer compared bit for bit with `uir run`;
#   4. the `# cuda speed` tests (tests/programs/cuda/speed): the timing main of
#      render-cuda --main -DUIR_TIME against NAME.ref.cu on inputs drawn from a new seed
#      (warm-up, best of 3, interleaved, the L2 flushed before each launch, every launch of
#      both compared with run --seed, the bandwidth bound; docs/testing.md);
#   5. the nvcc suite for sm_90 (tests/cuda/nvcc_all.sh), and the barrier-race test.
# Writes OUT: the GPU, then per speed test the kernel and reference times and the ratio,
# then the pass/fail counts of every step. Exits 1 when any step failed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$here/$BUILD" ;; esac
OUT=${2:-$here/bench/gpu_check_results.md}
LOG="$OUT.d"
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-300}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export NVCC
mkdir -p "$LOG"
status=0

step() { echo "== $*" >&2; }

step "1. the GPU and nvcc"
if ! nvidia-smi -L >"$LOG/gpu.txt" 2>&1; then
	echo "gpu_check: no GPU (nvidia-smi -L failed: $(head -c 200 "$LOG/gpu.txt"))" >&2
	exit 1
fi
if ! "$NVCC" --version >"$LOG/nvcc.txt" 2>&1; then
	echo "gpu_check: no nvcc ($NVCC)" >&2
	exit 1
fi
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader >>"$LOG/gpu.txt" 2>&1

step "2. build uir"
if [ ! -d "$BUILD" ]; then
	meson setup "$BUILD" "$here" >"$LOG/setup.txt" 2>&1 || { echo "gpu_check: meson setup failed" >&2; exit 1; }
fi
ninja -C "$BUILD" >"$LOG/build.txt" 2>&1 || { echo "gpu_check: the build failed (see $LOG/build.txt)" >&2; exit 1; }
UIR="$BUILD/src/uir"

step "3. every # cuda test on the GPU"
mapfile -t cuda_tests < <(grep -rlx '# cuda' "$here/tests/programs" | sort)
UIR_TEST_CUDA=gpu "$UIR" test --engine interp -j "$JOBS" --timeout "$TIMEOUT" --junit "$LOG/cuda.xml" \
	"${cuda_tests[@]}" >"$LOG/cuda.txt" 2>&1 || status=1
cuda_summary=$(tail -n 1 "$LOG/cuda.txt")

step "4. the # cuda speed tests"
UIR_TEST_CUDA=gpu "$UIR" test --engine interp -j 1 --timeout "$TIMEOUT" "$here/tests/programs/cuda/speed" \
	>"$LOG/speed.txt" 2>&1 || status=1
speed_summary=$(tail -n 1 "$LOG/speed.txt")

step "5. the nvcc suite (sm_90) and the barrier race"
"$here/tests/cuda/nvcc_all.sh" "$UIR" "$here" >"$LOG/nvcc_all.txt" 2>&1 || status=1
"$here/tests/cuda/race_barrier.sh" "$UIR" "$here" >"$LOG/race.txt" 2>&1 || status=1

{
	echo "# GPU check ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	echo
	echo "GPU: $(tr '\n' ' ' <"$LOG/gpu.txt")"
	echo
	echo "nvcc: $(grep -m1 release "$LOG/nvcc.txt")"
	echo
	echo "## # cuda speed: kernel time against the hand-written reference (best of 3, CUDA events)"
	echo
	echo "| test | result | speed vs reference | kernel ms | reference ms | wanted |"
	echo "|---|---|---|---|---|---|"
	while IFS= read -r line; do
		case $line in
		PASS* | FAIL*) ;;
		*) continue ;;
		esac
		res=${line%% *}
		name=$(echo "$line" | sed -E 's/^(PASS|FAIL) ([^ :]*).*/\2/')
		name=${name#"$here/"}
		x=$(echo "$line" | grep -oE '(speed |is )[0-9.]+x' | grep -oE '[0-9.]+' | head -1)
		ms=$(echo "$line" | grep -oE '\(([0-9.]+) ms vs ([0-9.]+) ms' | grep -oE '[0-9.]+' | tr '\n' ' ')
		want=$(echo "$line" | grep -oE 'wanted [0-9.]+x' | grep -oE '[0-9.]+')
		set -- $ms
		echo "| $name | $res | ${x:--}x | ${1:--} | ${2:--} | ${want:--}x |"
	done <"$LOG/speed.txt"
	echo
	echo "## Summaries"
	echo
	echo "* \`# cuda\` tests on the GPU: $cuda_summary"
	echo "* \`# cuda speed\` tests: $speed_summary"
	echo "* nvcc sm_90 suite: $(tail -n 1 "$LOG/nvcc_all.txt")"
	echo "* barrier race (emulator): $(tail -n 1 "$LOG/race.txt")"
	echo
	echo "Logs: $LOG/"
} >"$OUT"
cat "$OUT"
exit $status
