#!/bin/sh
# cache.sh UIR SRCROOT - the code cache of `uir run` (docs/llvm.md, "Code cache"): a first
# run compiles and keeps the object, a second finds it (no passes, no code generation) and
# prints the same bits; a file cut short or overwritten is compiled again; UIR_CACHE=0 and
# --no-cache leave the cache alone; a cache that cannot be written changes nothing but time;
# a change of the program (or of an option that changes the code) is a new entry. And the
# loop optimiser's answer cache (docs/llvm.md, "Answer cache"): a time skew's verdict is
# kept, read back (the same `uir opt` text, the same bits), ignored when damaged, and is
# what decides the skew when present; UIR_CACHE=0 and --no-cache leave it alone.
uir=${1:?usage: cache.sh UIR SRCROOT}
root=${2:?usage: cache.sh UIR SRCROOT}
. "$root/tests/cli/expect.sh"
prog=$root/tests/jit/parallel/block_check_gather.uir # loaded offsets: checked unless --no-bounds-check
UIR_CACHE_DIR=$tmp/cache
export UIR_CACHE_DIR
unset UIR_CACHE
"$uir" run --engine interp --hash "$prog" >"$tmp/ref" 2>&1
entries() { find "$tmp/cache" -name '*.o' 2>/dev/null | wc -l | tr -d ' '; }
run_as() { # WANT (miss|hit|off) [OPTION...]: one run, its cache line and its output
	want=$1
	shift
	"$uir" run --engine jit --time --hash "$@" "$prog" >"$tmp/got" 2>"$tmp/err"
	if grep -q "^time: code cache $want" "$tmp/err" && cmp -s "$tmp/ref" "$tmp/got"; then ok; else
		bad "run $* (want cache $want):"; cat "$tmp/err"; fi
}
run_as miss
[ "$(entries)" = 1 ] && ok || bad "after the first run: $(entries) entries, want 1"
run_as hit
run_as hit --threads 1
run_as miss --no-bounds-check # other code: another entry
[ "$(entries)" = 2 ] && ok || bad "after --no-bounds-check: $(entries) entries, want 2"
run_as off --no-cache
UIR_CACHE=0 run_as off
[ "$(entries)" = 2 ] && ok || bad "off runs wrote entries: $(entries), want 2"
# a damaged entry is ignored, compiled again and replaced
for f in "$tmp"/cache/*.o; do head -c 200 "$f" >"$tmp/cut" && cat "$tmp/cut" >"$f"; done
run_as miss
run_as hit
for f in "$tmp"/cache/*.o; do echo garbage >"$f"; done
run_as miss
run_as hit
# nowhere to write: runs as without a cache
UIR_CACHE_DIR=/proc/uir-no-such-dir run_as miss
UIR_CACHE_DIR=/proc/uir-no-such-dir run_as miss
# the answer cache (one thread: the skew is for one; docs/llvm.md, "Time skewing")
UIR_THREADS=1
export UIR_THREADS
prog=$root/tests/jit/parallel/skew_stencil.uir
rm -rf "$tmp/cache"
"$uir" run --engine interp --hash "$prog" >"$tmp/ref" 2>&1
answers() { find "$tmp/cache/opt" -type f 2>/dev/null | wc -l | tr -d ' '; }
UIR_CACHE=0 "$uir" opt "$prog" >"$tmp/opt0" 2>&1
grep -q 'loop t_k' "$tmp/opt0" && ok || bad "uir opt skew_stencil.uir: no skew"
run_as off --no-cache
UIR_CACHE=0 "$uir" opt "$prog" >/dev/null 2>&1
[ "$(answers)" = 0 ] && ok || bad "off runs kept $(answers) answers, want 0"
run_as miss
[ "$(answers)" = 1 ] && ok || bad "after the first run: $(answers) answers, want 1"
grep -qx 'uir answer 1 0' "$tmp"/cache/opt/* && ok || bad "the answer kept: $(cat "$tmp"/cache/opt/*)"
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
cmp -s "$tmp/opt0" "$tmp/opt1" && ok || bad "uir opt with the answer kept prints another text"
run_as hit
for f in "$tmp"/cache/opt/*; do echo 'uir answer 1 x' >"$f"; done # damaged: asked again
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
cmp -s "$tmp/opt0" "$tmp/opt1" && ok || bad "uir opt with a damaged answer prints another text"
grep -qx 'uir answer 1 0' "$tmp"/cache/opt/* && ok || bad "a damaged answer was not replaced"
for f in "$tmp"/cache/opt/*; do echo 'uir answer 1 -1' >"$f"; done # the kept verdict decides
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
grep -q 'loop t_k' "$tmp/opt1" && bad "uir opt skewed although the answer kept says no" || ok
# split tiling's verdict, on two threads (docs/llvm.md, "Split tiling"): kept the same way
UIR_THREADS=2
rm -rf "$tmp/cache"
UIR_CACHE=0 "$uir" opt "$prog" >"$tmp/opt0" 2>&1
grep -q 'loop t_k .* thread {' "$tmp/opt0" && ok || bad "uir opt skew_stencil.uir, two threads: no split"
run_as miss
# two answers: the split is legal (0, the first cone tried), its text checks (1)
[ "$(answers)" = 2 ] && [ "$(cat "$tmp"/cache/opt/* | sort | tr '\n' ' ')" = "uir answer 1 0 uir answer 1 1 " ] && ok ||
	bad "after the first run on two threads: $(answers) answers, $(cat "$tmp"/cache/opt/*)"
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
cmp -s "$tmp/opt0" "$tmp/opt1" && ok || bad "uir opt with the split's answers kept prints another text"
# the text's verdict kept says it does not check: the skew on one thread instead (uir opt
# keeps answers of its own: the build's file is part of their key)
rm -rf "$tmp/cache/opt"
"$uir" opt "$prog" >/dev/null 2>&1
text=$(grep -lx 'uir answer 1 1' "$tmp"/cache/opt/*)
echo 'uir answer 1 0' >"$text"
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
grep -q ' thread {' "$tmp/opt1" && bad "uir opt split although its text's answer says it does not check" || ok
grep -qxF 'loop t_k 5 {' "$tmp/opt1" && ok || bad "uir opt with the split's text refused: no skew"
run_as hit
for f in "$tmp"/cache/opt/*; do echo 'uir answer 1 -1' >"$f"; done
"$uir" opt "$prog" >"$tmp/opt1" 2>&1
grep -q ' thread {' "$tmp/opt1" && bad "uir opt split although the answer kept says no" || ok
grep -q 'loop t_k' "$tmp/opt1" && ok || bad "uir opt with the split refused: no skew on one thread"
echo "code cache: $pass passed, $fail failed"
[ "$fail" = 0 ]
