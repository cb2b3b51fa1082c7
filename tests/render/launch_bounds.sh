#!/usr/bin/env bash
# launch_bounds.sh - render-cuda's __launch_bounds__ (docs/render.md, "CUDA").
#
# Usage: launch_bounds.sh UIR SRCROOT text|nvcc
#
# text: every `# cuda` program under SRCROOT/tests/programs/cuda renders with one
#   `__global__ void __launch_bounds__(B) uir_kN(` per kernel, B the block that the host's
#   UIR_LAUNCH(uir_kN, grid, B, ...) launches (a kernel without a local loop: 1; with
#   dim3(BX, BY, BZ), the product), among them
#   __launch_bounds__(1024) for block_1024_reverse.uir. Needs only uir.
# nvcc: the 1024-thread kernels of block_1024_reverse.uir and launch_bounds_1024_registers.uir
#   (32 f64 values live a thread: 102 registers without the bound) compile with nvcc
#   -arch=sm_90 --resource-usage to at most 64 registers a thread, 65536 / 1024, so that a
#   block can be launched. Without nvcc ($NVCC, nvcc on PATH, /usr/local/cuda/bin/nvcc):
#   exit 77 (skipped).
# Last line "N passed, N failed"; exits 1 when any check failed.
set -u

UIR=${1:?usage: launch_bounds.sh UIR SRCROOT text|nvcc}
SRCROOT=${2:?usage: launch_bounds.sh UIR SRCROOT text|nvcc}
MODE=${3:?usage: launch_bounds.sh UIR SRCROOT text|nvcc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/launch_bounds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL $*"
}

case $MODE in
text)
	n=0
	for f in "$SRCROOT"/tests/programs/cuda/*.uir; do
		d=$(sed -n '/^[^#]/q;p' "$f")
		grep -Eq '^# cuda(| speed: .*)$' <<<"$d" || continue
		n=$((n + 1))
		if ! "$UIR" render-cuda "$f" >"$WORK/p.cu" 2>"$WORK/p.err"; then
			bad "$f: render-cuda: $(head -c 300 "$WORK/p.err")"
			continue
		fi
		kernels=$(grep -c '^__global__ ' "$WORK/p.cu")
		bounded=$(grep -c '^__global__ void __launch_bounds__([0-9]*) uir_k[0-9]*(' "$WORK/p.cu")
		[ "$kernels" -gt 0 ] && [ "$kernels" = "$bounded" ] && ok ||
			bad "$f: $kernels __global__ functions, $bounded with __launch_bounds__(B) uir_kN("
		# each launch's block is its kernel's bound
		while read -r k block; do
			grep -q "^__global__ void __launch_bounds__($block) $k(" "$WORK/p.cu" && ok ||
				bad "$f: $k is launched with blocks of $block, not its __launch_bounds__: $(grep "$k(" "$WORK/p.cu" | head -1)"
		done < <(sed -n 's/^\tUIR_LAUNCH(\(uir_k[0-9]*\), [0-9]*, \([0-9]*\).*/\1 \2/p' "$WORK/p.cu")
		# a grid or block of 2 or 3 dimensions: UIR_LAUNCH(uir_kN, dim3(..), dim3(X, Y, Z), ...),
		# bounded by the block's whole size X*Y*Z
		while read -r k x y z; do
			block=$((x * y * z))
			grep -q "^__global__ void __launch_bounds__($block) $k(" "$WORK/p.cu" && ok ||
				bad "$f: $k is launched with blocks of ${x}x${y}x${z}, not its __launch_bounds__: $(grep "$k(" "$WORK/p.cu" | head -1)"
		done < <(sed -n 's/^\tUIR_LAUNCH(\(uir_k[0-9]*\), dim3([0-9, ]*), dim3(\([0-9]*\), \([0-9]*\), \([0-9]*\)).*/\1 \2 \3 \4/p' "$WORK/p.cu")
		case $(basename "$f") in
		block_1024_reverse.uir)
			grep -q '^__global__ void __launch_bounds__(1024) uir_k0(' "$WORK/p.cu" && ok ||
				bad "$f: no __launch_bounds__(1024) on uir_k0" ;;
		block_1thread_serial.uir)
			grep -q '^__global__ void __launch_bounds__(1) uir_k0(' "$WORK/p.cu" && ok ||
				bad "$f: no __launch_bounds__(1) on uir_k0 (no local loop: blocks of 1 thread)" ;;
		esac
	done
	[ "$n" -ge 10 ] && ok || bad "only $n # cuda programs under $SRCROOT/tests/programs/cuda"
	;;
nvcc)
	NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
	if [ ! -x "$NVCC" ]; then
		echo "launch_bounds: no nvcc ($NVCC not found): skipped"
		exit 77
	fi
	for name in block_1024_reverse launch_bounds_1024_registers; do
		f=$SRCROOT/tests/programs/cuda/$name.uir
		if ! "$UIR" render-cuda --main "$f" >"$WORK/$name.cu" 2>"$WORK/$name.err"; then
			bad "$f: render-cuda --main: $(head -c 300 "$WORK/$name.err")"
			continue
		fi
		if ! "$NVCC" -arch=sm_90 -fmad=false -prec-div=true -prec-sqrt=true -Werror all-warnings --resource-usage \
			-c -o "$WORK/$name.o" "$WORK/$name.cu" >"$WORK/$name.log" 2>&1; then
			bad "$f: nvcc: $(grep -m3 -E 'error|warning' "$WORK/$name.log" | tr '\n' ' ' | head -c 600)"
			continue
		fi
		# ptxas info: Compiling entry function '_Z6uir_k0Pd...' ... Used N registers
		regs=$(awk '/Compiling entry function .*uir_k0/ { k = 1 } k && /Used [0-9]+ registers/ {
			for (i = 1; i <= NF; i++) if ($i == "Used") { print $(i + 1); exit } }' "$WORK/$name.log")
		if [ -z "$regs" ]; then
			bad "$f: no register count for uir_k0 in nvcc --resource-usage: $(head -c 600 "$WORK/$name.log")"
		elif [ "$regs" -le 64 ]; then
			echo "$name: uir_k0, blocks of 1024 threads: $regs registers a thread"
			ok
		else
			bad "$f: uir_k0 runs blocks of 1024 threads with $regs registers a thread (at most 64 fit a block)"
		fi
	done
	;;
*)
	echo "launch_bounds.sh: MODE is text or nvcc, not $MODE" >&2
	exit 2
	;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
