#!/bin/sh
# Builds a fuzz target with clang-19 (libFuzzer, ASan, UBSan) and runs it for SECONDS
# (default 20). Exit 0 when no crash.
#   check: the parser+checker (fuzz_check.c), corpus seeded from tests/programs;
#   npy:   the .npy reader (fuzz_npy.c), corpus seeded by gen_npy_seeds.py plus the kept
#          inputs in tests/fuzz/npy_cases/.
# Usage: tests/fuzz/run_fuzz.sh SRCROOT [SECONDS] [WORKDIR] [check|npy]
# A WORKDIR given keeps its corpus between runs (long runs: the same WORKDIR every time).
set -e
root=$(cd "${1:-.}" && pwd)
secs=${2:-20}
work=${3:-}
target=${4:-check}
[ -n "$work" ] || work=$(mktemp -d)
cc=clang-19
command -v $cc >/dev/null 2>&1 || { echo "SKIP: clang-19 not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || [ "$target" != npy ] || { echo "SKIP: python3 not found"; exit 77; }
mkdir -p "$work/corpus"
flags="-g -O1 -std=c17 -D_GNU_SOURCE -ffp-contract=off -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -I$root/include -I$root/src -I$root/runtime"
case $target in
check)
	find "$root/tests/programs" -name '*.uir' -exec cp {} "$work/corpus/" \; 2>/dev/null || true
	# shellcheck disable=SC2086
	$cc $flags "$root"/src/util/*.c "$root"/src/front/*.c "$root"/src/check/*.c "$root/src/interp/eval_ops.c" \
	  "$root/src/program.c" "$root/tests/fuzz/fuzz_check.c" $(pkg-config --cflags --libs isl) -lm -o "$work/fuzz_check"
	opts="-max_len=4096 -timeout=25 -dict=$root/tests/fuzz/uir.dict"
	;;
npy)
	python3 "$root/tests/fuzz/gen_npy_seeds.py" "$work/corpus" >/dev/null
	cp "$root"/tests/fuzz/npy_cases/* "$work/corpus/" 2>/dev/null || true
	# shellcheck disable=SC2086
	$cc $flags "$root/tests/fuzz/fuzz_npy.c" -o "$work/fuzz_npy"
	opts="-max_len=2048 -timeout=10 -dict=$root/tests/fuzz/npy.dict"
	;;
*) echo "run_fuzz.sh: unknown target $target"; exit 2 ;;
esac
cd "$work"
status=0
# shellcheck disable=SC2086
"./fuzz_$target" -max_total_time="$secs" $opts -print_final_stats=1 corpus >fuzz.log 2>&1 || status=$?
tail -n 20 fuzz.log
if [ $status -ne 0 ]; then
  echo "fuzz $target: 0 passed, 1 failed (crash input saved in $work)"
  exit 1
fi
echo "fuzz $target: 1 passed, 0 failed"
