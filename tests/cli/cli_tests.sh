#!/bin/sh
# Command-line behaviour of `uir`: E0001, usage errors (exit 64), help, exit codes, and
# that a fault prints nothing on standard output. Usage: cli_tests.sh UIR
uir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect STATUS PATTERN-ON-STDERR -- command...
expect() {
	want=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then bad "$* exited $got, want $want"; return; fi
	if [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then bad "$*: stderr lacks '$pat'"; cat "$tmp/err"; return; fi
	ok
}
expect 1 'error\[E0001\]' "$uir" check "$tmp/missing.uir"
expect 1 'error\[E0001\]' "$uir" run "$tmp/missing.uir"
expect 1 'error\[E0001\].*directory' "$uir" check "$tmp"
expect 64 'unknown command' "$uir" frobnicate x.uir
expect 64 '' "$uir"
expect 64 '' "$uir" check
expect 64 '' "$uir" check --bogus x.uir
expect 64 '' "$uir" run --engine warp x.uir
expect 64 '' "$uir" run --threads 0 x.uir
expect 0 '' "$uir" --help
printf 'buffer x i32 4\nloop i 5 {\n  if (lt i 9) {\n    store x i 1\n  }\n}\n' > "$tmp/fault.uir"
expect 1 'error\[E0601\]' "$uir" run "$tmp/fault.uir"
if [ -s "$tmp/out" ]; then bad "a faulting run printed on stdout"; else ok; fi
printf 'buffer x i32 4 = iota\n' > "$tmp/ok.uir"
expect 0 '' "$uir" run "$tmp/ok.uir"
if [ "$(cat "$tmp/out")" = "x: 0 1 2 3" ]; then ok; else bad "run printed '$(cat "$tmp/out")'"; fi
expect 64 'unknown\|no buffer\|NAME' "$uir" run --only nosuch "$tmp/ok.uir"
expect 0 '' "$uir" run --hash "$tmp/ok.uir"
if grep -Eq '^x: [0-9a-f]{16}$' "$tmp/out"; then ok; else bad "--hash printed '$(cat "$tmp/out")'"; fi
expect 0 '' "$uir" run --dump "$tmp/d" "$tmp/ok.uir"
if [ -f "$tmp/d/x.npy" ]; then ok; else bad "--dump wrote no x.npy"; fi
expect 0 '' "$uir" run --input "x=$tmp/d/x.npy" "$tmp/ok.uir"
# --repeat N: every run starts from the buffers' INIT and --input values, so N runs of a
# program that adds to its buffers print what one run prints (both engines); --time gives
# the median run and the fastest
printf 'buffer x i32 4 = iota\nbuffer y f32 3 = fill 0.5\nloop i 4 {\n  store x i (add (load x i) 10)\n}\nloop j 3 {\n  store y j (mul (load y j) 3)\n}\n' > "$tmp/acc.uir"
for engine in interp jit; do
	expect 0 'median of 7 runs' "$uir" run --engine $engine --repeat 7 --time "$tmp/acc.uir"
	if [ "$(cat "$tmp/out")" = "$(printf 'x: 10 11 12 13\ny: 1.5 1.5 1.5')" ]; then ok; else bad "--repeat 7 ($engine) printed '$(cat "$tmp/out")'"; fi
	expect 0 '' "$uir" run --engine $engine --repeat 3 --input "x=$tmp/d/x.npy" "$tmp/acc.uir"
	if [ "$(head -1 "$tmp/out")" = "x: 10 11 12 13" ]; then ok; else bad "--repeat 3 --input ($engine) printed '$(cat "$tmp/out")'"; fi
done
expect 64 'repeat' "$uir" run --repeat 0 "$tmp/acc.uir"
expect 64 'repeat' "$uir" run --repeat 2x "$tmp/acc.uir"
expect 64 'repeat' "$uir" run --racecheck --repeat 2 "$tmp/acc.uir"
# a faulting program stops at its first run: E0601 once, nothing on stdout
expect 1 'error\[E0601\]' "$uir" run --repeat 5 "$tmp/fault.uir"
if [ "$(grep -c E0601 "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; then ok; else bad "--repeat 5 of a fault: $(cat "$tmp/err")"; fi
# --racecheck --time says how long the checked run took
expect 0 'time (interp, racecheck):.*execution [0-9.]* ms' "$uir" run --racecheck --time "$tmp/acc.uir"
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
