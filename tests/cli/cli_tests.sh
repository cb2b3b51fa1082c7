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
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
