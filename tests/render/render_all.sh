#!/usr/bin/env bash
# render_all.sh - `uir render --main` over every valid test program (docs/language.md 8.1).
#
# Usage: render_all.sh UIR SRCROOT [EXAMPLES_DIR]
#
# For every .uir under SRCROOT/tests/programs and EXAMPLES_DIR (an extra folder,
# when given) that `uir check` accepts:
#   - when `uir run` succeeds: renders it with --main, compiles the C with gcc and clang
#     (each at -O0 and -O3, -std=c11 -Wall -Wextra -pedantic -Werror -pthread -lm), runs
#     each binary (the gcc -O3 one also with UIR_THREADS=1 and 3) and compares standard
#     output with `uir run`'s, byte for byte;
#   - when `uir run` faults (exit 1, E0601): the rendered program, built the same four
#     ways, must exit 1 with nothing on standard output and `run`'s diagnostic on
#     standard error.
# With RENDER_SANITIZE=1, each program also runs built by clang -O1 with
# -fsanitize=undefined,address (no recovery): the rendered C has no undefined behaviour.
# With RENDER_SHARD=K/N (0 <= K < N), only the files whose place in the sorted list is K
# modulo N (the Meson suite `render-c` runs N shards, two at a time on two cores).
# RENDER_CCS (default "gcc clang") names the compilers; JOBS the programs done at once.
# Prints one line per failure (and per pass with VERBOSE=1) and, last,
# "N passed, N failed". Exits 1 when anything failed. Programs run from the current
# directory, as `uir run` does (file "x.npy" paths are relative to the .uir file).
set -u

UIR=${1:?usage: render_all.sh UIR SRCROOT [EXAMPLES_DIR]}
SRCROOT=${2:?usage: render_all.sh UIR SRCROOT [EXAMPLES_DIR]}
EXAMPLES=${3:-}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
VERBOSE=${VERBOSE:-0}
# the reference interpreter by default (UIR_RUN_ARGS="" for run's own choice)
RUN_ARGS=${UIR_RUN_ARGS---engine interp}

CCS=()
for cc in ${RENDER_CCS:-gcc clang}; do
	command -v "$cc" >/dev/null 2>&1 && CCS+=("$cc")
done
if [ ${#CCS[@]} -eq 0 ]; then
	echo "render_all.sh: no C compiler found: skipped" >&2
	exit 77 # Meson's skip
fi
CFLAGS="-std=c11 -Wall -Wextra -pedantic -Werror -pthread"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/render_all.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

SHARD_K=0
SHARD_N=1
if [ -n "${RENDER_SHARD:-}" ]; then
	SHARD_K=${RENDER_SHARD%/*}
	SHARD_N=${RENDER_SHARD#*/}
	case "$SHARD_K/$SHARD_N" in
	*[!0-9/]* | /* | */) echo "render_all.sh: RENDER_SHARD must be K/N" >&2; exit 2 ;;
	esac
	if [ "$SHARD_N" -lt 1 ] || [ "$SHARD_K" -ge "$SHARD_N" ]; then
		echo "render_all.sh: RENDER_SHARD must be K/N with 0 <= K < N" >&2
		exit 2
	fi
fi

files=()
n=0
while IFS= read -r f; do
	[ $((n % SHARD_N)) -eq "$SHARD_K" ] && files+=("$f")
	n=$((n + 1))
done < <(
	{ find "$SRCROOT/tests/programs" -name '*.uir'; [ -n "$EXAMPLES" ] && [ -d "$EXAMPLES" ] && find "$EXAMPLES" -name '*.uir'; } |
		LC_ALL=C sort)

# test_one INDEX FILE: writes "PASS name" or "FAIL name: why" into $WORK/INDEX.result
test_one() {
	local i=$1 f=$2 d="$WORK/$1"
	mkdir -p "$d"
	local res="$d.result"
	if ! "$UIR" check "$f" >/dev/null 2>&1; then
		echo "SKIP $f" >"$res"
		return
	fi
	timeout 120 "$UIR" run $RUN_ARGS "$f" >"$d/run.out" 2>"$d/run.err"
	local rrc=$?
	if [ $rrc -ne 0 ] && ! grep -q 'error\[E0601\]' "$d/run.err"; then
		# exit 1 with another run-time error (E06, out of memory) is a program that does
		# not run anywhere; a crash, a timeout or an internal error is a failure
		if [ $rrc -eq 1 ] && grep -q 'error\[E06' "$d/run.err"; then
			echo "NORUN $f: uir run exit $rrc: $(head -c 200 "$d/run.err")" >"$res"
		else
			echo "FAIL $f: uir run exit $rrc (crash, timeout or internal error): $(head -c 200 "$d/run.err")" >"$res"
		fi
		return
	fi
	if ! "$UIR" render --main "$f" >"$d/prog.c" 2>"$d/render.err"; then
		echo "FAIL $f: uir render failed: $(head -c 300 "$d/render.err")" >"$res"
		return
	fi
	local cc opt
	for cc in "${CCS[@]}"; do
		for opt in -O0 -O3; do
			local bin="$d/prog.$cc$opt"
			if ! $cc $CFLAGS $opt -o "$bin" "$d/prog.c" -lm 2>"$d/cc.err"; then
				echo "FAIL $f: $cc $opt: $(head -c 600 "$d/cc.err")" >"$res"
				return
			fi
			if [ $rrc -ne 0 ]; then
				# a fault: exit 1, no output, run's diagnostic
				timeout 120 "$bin" >"$d/prog.out" 2>"$d/prog.err"
				local prc=$?
				if [ $prc -ne 1 ] || [ -s "$d/prog.out" ] || ! cmp -s "$d/run.err" "$d/prog.err"; then
					echo "FAIL $f: $cc $opt: fault: exit $prc (want 1), stdout $(wc -c <"$d/prog.out") bytes, stderr $(cmp -s "$d/run.err" "$d/prog.err" && echo same || echo differs)" >"$res"
					return
				fi
				rm -f "$bin"
				continue
			fi
			local envs=("")
			if [ "$cc" = "${CCS[0]}" ] && [ "$opt" = -O3 ]; then envs=("" 1 3); fi
			local t
			for t in "${envs[@]}"; do
				if [ -n "$t" ]; then
					UIR_THREADS=$t timeout 120 "$bin" >"$d/prog.out" 2>"$d/prog.err"
				else
					timeout 120 "$bin" >"$d/prog.out" 2>"$d/prog.err"
				fi
				local prc=$?
				if [ $prc -ne 0 ]; then
					echo "FAIL $f: $cc $opt${t:+ UIR_THREADS=$t}: exit $prc: $(head -c 300 "$d/prog.err")" >"$res"
					return
				fi
				if ! cmp -s "$d/run.out" "$d/prog.out"; then
					echo "FAIL $f: $cc $opt${t:+ UIR_THREADS=$t}: output differs from uir run: $(cmp "$d/run.out" "$d/prog.out" 2>&1 | head -c 200)" >"$res"
					return
				fi
			done
			rm -f "$bin"
		done
	done
	if [ $rrc -ne 0 ]; then
		echo "PASS $f (fault)" >"$res"
		return
	fi
	if [ "${RENDER_SANITIZE:-0}" = 1 ]; then
		if ! clang $CFLAGS -O1 -g -fsanitize=undefined,address -fno-sanitize-recover=all -o "$d/prog.san" "$d/prog.c" -lm 2>"$d/cc.err"; then
			echo "FAIL $f: clang -fsanitize: $(head -c 600 "$d/cc.err")" >"$res"
			return
		fi
		if ! ASAN_OPTIONS=detect_leaks=0 timeout 300 "$d/prog.san" >"$d/prog.out" 2>"$d/prog.err" ||
			! cmp -s "$d/run.out" "$d/prog.out"; then
			echo "FAIL $f: sanitized run: $(head -c 600 "$d/prog.err")" >"$res"
			return
		fi
	fi
	echo "PASS $f" >"$res"
}

i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	(
		t0=$EPOCHREALTIME
		test_one "$i" "$f"
		line=$(cat "$WORK/$i.result")
		echo "$line [$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s]" >"$WORK/$i.result"
	) &
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n 2>/dev/null || sleep 0.05
	done
done
wait

pass=0
fail=0
skip=0
norun=0
for r in "$WORK"/*.result; do
	[ -e "$r" ] || continue
	read -r status rest <"$r"
	case $status in
	PASS)
		pass=$((pass + 1))
		[ "$VERBOSE" = 1 ] && cat "$r"
		;;
	FAIL)
		fail=$((fail + 1))
		cat "$r"
		;;
	NORUN)
		norun=$((norun + 1))
		cat "$r"
		;;
	SKIP) skip=$((skip + 1)) ;;
	esac
done
echo "${RENDER_SHARD:+shard $RENDER_SHARD: }${#files[@]} files: $skip rejected by uir check, $norun not run (uir run failed other than E0601), $((pass + fail)) rendered and built with ${CCS[*]} at -O0 and -O3"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
