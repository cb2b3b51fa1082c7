#!/bin/sh
# ci.sh - a CI-sized run of the program generator, the mutator and the differential runner.
#
#   tests/gen/ci.sh UIR SRCROOT
#
# Runs the fixed seeds 0..63 through tests/gen/difftest.py without shrinking (54 s on 2 busy
# cores with every back end of today: interpreter, jit, render, CUDA emulator; never more than
# 120 s, a time cap stops starting seeds) and exits non-zero on any failure. Failing programs
# are kept under the folder printed at the end.
# UIRGEN_AVOID="knob ..." turns generator features off (see tests/gen/README.md).
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 UIR SRCROOT" >&2
	exit 64
fi
uir=$1
src=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/uirgen-ci.XXXXXX")
avoid=
for k in ${UIRGEN_AVOID:-}; do
	avoid="$avoid --avoid $k"
done
status=0
# shellcheck disable=SC2086
python3 "$src/tests/gen/difftest.py" --uir "$uir" --srcroot "$src" --seeds 0..63 \
	--time 120 --jobs 2 --mutants 3 --no-shrink --timeout 30 \
	--save "$out/tests" --out "$out/failures" $avoid || status=$?
if [ "$status" -eq 0 ]; then
	rm -rf "$out"
else
	echo "failing programs kept in $out/failures" >&2
fi
exit "$status"
