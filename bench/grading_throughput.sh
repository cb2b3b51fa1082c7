#!/usr/bin/env bash
# grading_throughput.sh - the time `uir test` takes for many `# cuda` tests (not run in CI).
#
# Usage: bench/grading_throughput.sh [UIR [COPIES [JOBS [SRC]]]]
#   UIR     the uir binary (default build/src/uir)
#   COPIES  copies of each test (default 4; 38 copies of the 26 are 988 tests)
#   JOBS    `uir test -j JOBS` (default: the number of cores)
#   SRC     the folder of tests to copy (default tests/programs/cuda)
#
# Copies every `# cuda` test of SRC (26 in tests/programs/cuda; with the NAME.ref.cu of a
# `# cuda speed` test beside it)
# COPIES times into a temporary folder, c1/ c2/ ..., and runs `uir test -j JOBS` on it once,
# with a cache folder of its own (UIR_CACHE_DIR, empty at the start: the precompiled header
# and the JIT's code are made during the run and their cost is in the numbers). Every
# variable of the caller's environment reaches the runner (UIR_TEST_PCH=0, CXX, ...).
# Prints one Markdown row: tests, passed / failed / skipped, wall seconds, CPU seconds (user
# + system of the runner and every process it started), wall seconds per test, CPU seconds
# per test, and the load average before and after. The verdicts must be the same whatever
# the settings: the script exits 1 when a test failed.
# Needs GNU time (/usr/bin/time).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
UIR=${1:-$here/build/src/uir}
COPIES=${2:-4}
JOBS=${3:-$(nproc)}
SRC=${4:-$here/tests/programs/cuda}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/grading_throughput.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/t" "$WORK/cache"
for ((k = 1; k <= COPIES; k++)); do
	mkdir -p "$WORK/t/c$k"
	(cd "$SRC" && find . -name '*.uir') | while IFS= read -r f; do
		sed -n '/^[^#]/q;p' "$SRC/$f" | grep -qx '# cuda' || continue
		mkdir -p "$WORK/t/c$k/$(dirname "$f")"
		cp "$SRC/$f" "$WORK/t/c$k/$f"
		ref=${f%.uir}.ref.cu
		[ -f "$SRC/$ref" ] && cp "$SRC/$ref" "$WORK/t/c$k/$ref"
	done
done
ntests=$(find "$WORK/t" -name '*.uir' | wc -l)
load0=$(cut -d' ' -f1 /proc/loadavg)
UIR_CACHE_DIR="$WORK/cache" /usr/bin/time -f '%e %U %S' -o "$WORK/time" \
	"$UIR" test -j "$JOBS" --timeout 600 "$WORK/t" >"$WORK/out" 2>&1
rc=$?
load1=$(cut -d' ' -f1 /proc/loadavg)
read -r wall user sys <"$WORK/time"
summary=$(tail -1 "$WORK/out")
cpu=$(echo "$user + $sys" | bc)
printf '| %d | %s | %.1f | %.1f | %.3f | %.3f | %s / %s |\n' "$ntests" "$summary" "$wall" "$cpu" \
	"$(echo "$wall / $ntests" | bc -l)" "$(echo "$cpu / $ntests" | bc -l)" "$load0" "$load1"
if [ $rc -ne 0 ]; then
	grep '^FAIL' "$WORK/out" | head -20
	exit 1
fi
exit 0
