#!/usr/bin/env bash
# path_comment.sh - a program path that holds `*/`, `/*`, a newline, a backslash, a tab, a
# quote, `??` and a non-ASCII byte still renders to C and CUDA that compile and print what
# `uir run` prints: the first line of either output is a comment that
# names the path (docs/render.md), and a fault's message, a string literal, names it too.
#
# Usage: path_comment.sh UIR SRCROOT
#
# Copies tests/programs/spec/stencil_1d.uir (a kernel) and a program that faults (one
# thread, so that CUDA records the fault `run` reports) into such a folder and gives uir their absolute paths. render --main: built with $CC (default cc)
# -std=c11 -Wall -Wextra -pedantic -Werror; render-cuda --main: built in the emulator with
# $CXX (default c++) -std=c++17 -Wall -Wextra -Werror, and with nvcc -c when there is one.
# Each binary's standard output, standard error and exit status must be `run`'s. Last line
# "N passed, N failed"; exits 1 when any check failed.
set -u

UIR=${1:?usage: path_comment.sh UIR SRCROOT}
SRCROOT=${2:?usage: path_comment.sh UIR SRCROOT}
CC=${CC:-cc}
CXX=${CXX:-c++}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/path_comment.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL $*"
}

# .../a*/*b<newline>c\/d??/e"<tab><e9>/ : `*/` `/*` `\` + newline, `??/`
DIR="$WORK/a*/*b"$'\n'"c\\/d??/e\""$'\t\xe9'
mkdir -p "$DIR" || { echo "path_comment: cannot make the folder"; exit 1; }
cp "$SRCROOT/tests/programs/spec/stencil_1d.uir" "$DIR/stencil.uir"
printf 'buffer x i32 4\nbuffer n i32 1 = [9]\nloop g 1 global {\n  loop t 1 local {\n    store x (add t (load n 0)) 1\n  }\n}\n' >"$DIR/fault.uir"

# same WHAT EXPECTED_PREFIX ACTUAL_PREFIX: outputs and exit status of two runs agree
same() {
	if cmp -s "$2.out" "$3.out" && cmp -s "$2.err" "$3.err" && [ "$(cat "$2.rc")" = "$(cat "$3.rc")" ]; then
		ok
	else
		bad "$1: exit $(cat "$3.rc") (run: $(cat "$2.rc")); stdout $(head -c 200 "$3.out" | tr '\n' ' ');" \
			"stderr $(head -c 300 "$3.err" | tr '\n' ' ')"
	fi
}

# runs PREFIX CMD...: stdout, stderr, exit status into PREFIX.out/.err/.rc
runs() {
	local p=$1
	shift
	"$@" >"$p.out" 2>"$p.err"
	echo $? >"$p.rc"
}

for name in stencil fault; do
	f="$DIR/$name.uir"
	w="$WORK/$name"
	runs "$w.run" "$UIR" run --engine interp "$f"
	[ "$name" = fault ] && { [ "$(cat "$w.run.rc")" = 1 ] && ok || bad "$name: run does not fault"; }

	# C
	if "$UIR" render --main "$f" >"$w.c" 2>"$w.c.err"; then
		if "$CC" -std=c11 -Wall -Wextra -pedantic -Werror -O1 -pthread -o "$w.cbin" "$w.c" -lm >"$w.cc.log" 2>&1; then
			ok
			runs "$w.cres" "$w.cbin"
			same "$name: render, $CC" "$w.run" "$w.cres"
		else
			bad "$name: render --main output does not build with $CC: $(head -c 600 "$w.cc.log" | tr '\n' ' ')"
		fi
	else
		bad "$name: render --main: $(head -c 300 "$w.c.err")"
	fi

	# CUDA
	if ! "$UIR" render-cuda --main "$f" >"$w.cu" 2>"$w.cu.err"; then
		bad "$name: render-cuda --main: $(head -c 300 "$w.cu.err")"
		continue
	fi
	if command -v "$CXX" >/dev/null 2>&1; then
		if "$CXX" -std=c++17 -Wall -Wextra -Werror -O1 -pthread -ffp-contract=off \
			-include "$SRCROOT/runtime/uir_cuda_emu.h" -x c++ -o "$w.emu" "$w.cu" -lm >"$w.cxx.log" 2>&1; then
			ok
			runs "$w.eres" "$w.emu"
			same "$name: render-cuda, emulator" "$w.run" "$w.eres"
		else
			bad "$name: render-cuda --main output does not build in the emulator: $(head -c 600 "$w.cxx.log" | tr '\n' ' ')"
		fi
	fi
	if [ -x "$NVCC" ]; then
		if "$NVCC" -arch=sm_90 -fmad=false -prec-div=true -prec-sqrt=true -Werror all-warnings -x cu -c \
			-o "$w.o" "$w.cu" >"$w.nvcc.log" 2>&1; then
			ok
		else
			bad "$name: render-cuda --main output does not build with nvcc: $(head -c 600 "$w.nvcc.log" | tr '\n' ' ')"
		fi
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
