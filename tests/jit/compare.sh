#!/usr/bin/env bash
# compare.sh - runs every .uir under the given paths with the reference interpreter and
# with the LLVM JIT (at several thread counts) and fails on any difference in standard
# output (--hash: the bits of every buffer, NaNs canonical), standard error or exit status.
#
#   tests/jit/compare.sh UIR PATH... 
#
# Environment: THREADS (default "1 2 3") the --threads values tried with the JIT;
# JIT_ARGS extra arguments for the JIT runs. Prints one line per difference and a summary;
# exits 1 when any program differs.
set -u
uir=$1
shift
threads=${THREADS:-"1 2 3"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0
while IFS= read -r f; do
	n=$((n + 1))
	"$uir" run --engine interp --hash "$f" >"$tmp/i.out" 2>"$tmp/i.err"
	irc=$?
	for t in $threads; do
		# shellcheck disable=SC2086
		"$uir" run --engine jit --threads "$t" --hash ${JIT_ARGS:-} "$f" >"$tmp/j.out" 2>"$tmp/j.err"
		jrc=$?
		if [ "$irc" != "$jrc" ] || ! cmp -s "$tmp/i.out" "$tmp/j.out" || ! cmp -s "$tmp/i.err" "$tmp/j.err"; then
			bad=$((bad + 1))
			echo "DIFF $f (threads $t): exit $irc vs $jrc"
			diff "$tmp/i.out" "$tmp/j.out" | head -5
			diff "$tmp/i.err" "$tmp/j.err" | head -10
			break
		fi
	done
done < <(find "$@" -name '*.uir' | sort)
echo "$n programs, $bad differ"
if [ "$n" = 0 ]; then
	echo "compare.sh: no .uir programs under $*" >&2
	exit 1
fi
[ "$bad" = 0 ]
