#!/usr/bin/env bash
# aot_test.sh - objects from `uir compile`, linked into a C program (aot_driver.c, plus
# runtime/uir_parallel.c for thread loops), must print what `uir run` prints: the same
# buffers, or the same E0601 message on stderr and a failure.
#
#   tests/jit/aot_test.sh UIR [CC]
#
# Each tests/jit/programs/aot_*.uir names its buffers for the driver in a comment line
# "# driver: NAME:TYPE:SIZE:INIT ...". Exits 77 (skipped) without a C compiler.
set -u
uir=$1
cc=${2:-${CC:-cc}}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v "$cc" >/dev/null 2>&1 || { echo "aot_test.sh: no C compiler '$cc'"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for f in "$here"/programs/aot_*.uir; do
	name=$(basename "$f" .uir)
	bufs=$(sed -n 's/^# driver: //p' "$f")
	if ! "$uir" compile "$f" -o "$tmp/$name.o"; then
		echo "FAIL $name: uir compile failed"
		fail=1
		continue
	fi
	if ! "$cc" -std=c11 -O1 -pthread -I"$root/runtime" -o "$tmp/$name" "$here/aot_driver.c" "$tmp/$name.o" \
		"$root/runtime/uir_parallel.c" -lm; then
		echo "FAIL $name: the driver does not link"
		fail=1
		continue
	fi
	# shellcheck disable=SC2086
	"$tmp/$name" $bufs >"$tmp/got.out" 2>"$tmp/got.err"
	grc=$?
	"$uir" run --engine interp "$f" >"$tmp/want.out" 2>"$tmp/want.err"
	wrc=$?
	grep -v '^kernel returned' "$tmp/got.err" >"$tmp/got.err2"
	if [ "$grc" != "$wrc" ] || ! cmp -s "$tmp/got.out" "$tmp/want.out" || ! cmp -s "$tmp/got.err2" "$tmp/want.err"; then
		echo "FAIL $name: exit $grc (want $wrc)"
		diff "$tmp/want.out" "$tmp/got.out" | head -5
		diff "$tmp/want.err" "$tmp/got.err2" | head -5
		fail=1
	else
		echo "ok   $name"
	fi
done
exit $fail
