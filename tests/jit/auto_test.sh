#!/usr/bin/env bash
# auto_test.sh - which engine `uir run --engine auto` picks (src/cli/engine.c,
# engine_auto_jit()): the engine named by `--time`, and the same output as the interpreter.
#
#   tests/jit/auto_test.sh UIR [jit|interp]
#
# The second argument says whether the build has the LLVM back end (jit: plain_big.uir must
# be compiled; Meson passes it); without it the script finds out by trying.
# auto/small.uir: little work, interpreted. auto/unrolled_big.uir: work above the threshold
# of a small program, but 4096 unrolled copies of its body, whose compilation would cost far
# more than interpreting: interpreted. auto/plain_big.uir: the same work in plain loops:
# compiled (when the back end, uir-llvm.so, is there; else interpreted).
set -u
uir=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
jit=${2:-}
if [ -z "$jit" ]; then
	jit=jit
	"$uir" run --engine jit "$here/auto/small.uir" >/dev/null 2>&1 || jit=interp
fi
# want FILE ENGINE: auto runs FILE on ENGINE and prints what the interpreter prints
want() {
	if ! "$uir" run --time --hash "$here/auto/$1" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL $1: uir run failed: $(cat "$tmp/err")"
		failed=1
		return
	fi
	got=$(sed -n 's/^time (\([a-z]*\)).*/\1/p' "$tmp/err")
	if [ "$got" != "$2" ]; then
		echo "FAIL $1: auto ran it on '$got', wanted '$2'"
		failed=1
	fi
	"$uir" run --engine interp --hash "$here/auto/$1" >"$tmp/ref" 2>&1
	if ! cmp -s "$tmp/out" "$tmp/ref"; then
		echo "FAIL $1: auto's output differs from the interpreter's"
		failed=1
	fi
}
want small.uir interp
want unrolled_big.uir interp
want plain_big.uir $jit
if [ $failed = 0 ]; then
	[ $jit = jit ] && echo "auto: all as expected" || echo "auto: all as expected (no JIT back end)"
fi
exit $failed
