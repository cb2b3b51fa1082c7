#!/bin/sh
# Builds the parser+checker fuzz target with clang-19 (libFuzzer, ASan, UBSan) and runs it
# for SECONDS (default 20) on a corpus seeded from tests/programs. Exit 0 when no crash.
# Usage: tests/fuzz/run_fuzz.sh SRCROOT [SECONDS] [WORKDIR]
set -e
root=${1:-.}
secs=${2:-20}
work=${3:-$(mktemp -d)}
cc=clang-19
command -v $cc >/dev/null 2>&1 || { echo "SKIP: clang-19 not found"; exit 77; }
mkdir -p "$work/corpus"
find "$root/tests/programs" -name '*.uir' -exec cp {} "$work/corpus/" \; 2>/dev/null || true
$cc -g -O1 -std=c17 -D_GNU_SOURCE -ffp-contract=off -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined \
  -I"$root/include" -I"$root/src" -I"$root/runtime" \
  "$root"/src/util/*.c "$root"/src/front/*.c "$root"/src/check/*.c "$root/src/program.c" \
  "$root/tests/fuzz/fuzz_check.c" -lm -o "$work/fuzz_check"
cd "$work"
status=0
./fuzz_check -max_total_time="$secs" -max_len=4096 -timeout=25 -print_final_stats=1 corpus >fuzz.log 2>&1 || status=$?
tail -n 20 fuzz.log
if [ $status -ne 0 ]; then
  echo "fuzz: 0 passed, 1 failed (crash input saved in $work)"
  exit 1
fi
echo "fuzz: 1 passed, 0 failed"
