#!/bin/sh
# exact_input.sh - the exact analysis reads a never-stored buffer's INIT (docs/language.md
# 7.6.2, 7.6.3); `run --input` of that buffer checks again with the new values, and so does
# `run --seed` of a `random` one.
# Usage: exact_input.sh UIR SRCROOT. Prints "N passed, N failed"; exits 1 on a failure.
uir=$1
prog=$2/tests/programs/verify/ok_param_value_apart.uir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# A one-element i32 .npy holding $2, written to $1.
npy() {
	py=/usr/bin/python3
	[ -x $py ] || py=python3
	$py - "$1" "$2" <<'PY'
import struct, sys
h = "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }"
h += " " * (117 - len(h)) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<i", int(sys.argv[2])))
PY
}
npy "$tmp/x184.npy" 184
npy "$tmp/x185.npy" 185
# xs = 184 from its INIT: check accepts (thread 15 writes A[199], thread 200 A[200])
"$uir" check "$prog" >"$tmp/out" 2>&1 && pass=$((pass + 1)) || bad "check rejects: $(cat "$tmp/out")"
# the same value from --input: runs
"$uir" run --only A --input xs="$tmp/x184.npy" "$prog" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ] &&
	pass=$((pass + 1)) || bad "run --input 184: $(cat "$tmp/err")"
# 185: threads 15 and 200 both write A[200]: exit 1, the pair, the note, nothing on stdout
"$uir" run --only A --input xs="$tmp/x185.npy" "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'error\[E0503\]' "$tmp/err" &&
	grep -q 'threads t=15 and t=200 both write A\[200\]' "$tmp/err" &&
	grep -q '^note: .*--input xs two iterations race' "$tmp/err"; then
	pass=$((pass + 1))
else
	bad "run --input 185: exit $rc, stdout $(wc -c <"$tmp/out") bytes: $(cat "$tmp/err")"
fi
# --engine jit and interp alike (the check comes before the engine)
for e in interp jit; do
	"$uir" run --engine $e --input xs="$tmp/x185.npy" "$prog" >"$tmp/out" 2>&1
	[ $? -eq 1 ] && pass=$((pass + 1)) || bad "--engine $e ran with a racing input"
done
# check --no-exact gives the rule's verdict (E0503: two offsets of A), --strict too
for o in --no-exact --strict; do
	"$uir" check $o "$prog" >"$tmp/out" 2>&1
	[ $? -eq 1 ] && grep -q 'error\[E0503\]' "$tmp/out" && pass=$((pass + 1)) || bad "check $o: $(cat "$tmp/out")"
done
# run --seed: a `random` buffer the analysis read gets new values, checked again alike
sed 's/^buffer xs i32 1 = \[184\]/buffer xs i32 1 = random 1 184 186/' "$prog" | grep -v '^# expect' >"$tmp/seeded.uir"
"$uir" run --only xs "$tmp/seeded.uir" >"$tmp/out" 2>&1 && grep -qx 'xs: 184' "$tmp/out" &&
	pass=$((pass + 1)) || bad "random 1 184 186 is not 184: $(cat "$tmp/out")"
"$uir" run --only xs --seed 1 "$tmp/seeded.uir" >"$tmp/out" 2>&1 && grep -qx 'xs: 184' "$tmp/out" &&
	pass=$((pass + 1)) || bad "--seed 1 (xs 184): $(cat "$tmp/out")"
"$uir" run --only A --seed 2 "$tmp/seeded.uir" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'error\[E0503\]' "$tmp/err" &&
	grep -q '^note: .*with the values that --seed 0x0000000000000002 draws for it two iterations race' "$tmp/err"; then
	pass=$((pass + 1))
else
	bad "run --seed 2 (xs 185): exit $rc: $(cat "$tmp/err")"
fi
# an --input of the buffer wins over the seed
"$uir" run --only A --seed 2 --input xs="$tmp/x184.npy" "$tmp/seeded.uir" >"$tmp/out" 2>"$tmp/err" &&
	pass=$((pass + 1)) || bad "run --seed 2 --input 184: $(cat "$tmp/err")"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
