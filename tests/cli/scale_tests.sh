#!/bin/sh
# Inputs of a size where a cost quadratic in the input, or memory that grows with a test's
# output, shows (docs/testing.md, "Scale tests"). Usage: scale_tests.sh UIR
#
# Each command runs under `timeout 60`: the sizes are chosen so that a quadratic step takes
# minutes (the name lookup that scanned every symbol: more than 120 s for 100,000 lets,
# 153 s for 100,000 buffers) while the linear code takes well under a second, so the bound
# catches the quadratic cost and never a slow machine. Memory is bounded by counting (the
# peak RSS from getrusage, through /usr/bin/python3) or by `ulimit -v`, never by time.
uir=$1
. "$(dirname "$0")/expect.sh"

# ---- names: 100,000 chained lets, 100,000 and 10,000 buffers ----
awk 'BEGIN { print "buffer out i32 1"; print "let v0 = 1"
	for (i = 1; i < 100000; i++) printf "let v%d = add v%d 1\n", i, i - 1
	print "store out 0 v99999" }' > "$tmp/lets.uir"
expect 0 '' "$uir" check "$tmp/lets.uir"
expect 0 '' "$uir" run --engine interp "$tmp/lets.uir"
if [ "$(cat "$tmp/out")" = "out: 100000" ]; then ok; else bad "100,000 lets printed '$(head -c 200 "$tmp/out")'"; fi
# the same chain inside a thread loop: every let goes through the race rules' inlining
awk 'BEGIN { print "buffer out i32 64"; print "loop t 64 thread {"; print "  let v0 = t"
	for (i = 1; i < 100000; i++) printf "  let v%d = add v%d 1\n", i, i - 1
	print "  store out t v99999"; print "}" }' > "$tmp/tlets.uir"
expect 0 '' "$uir" check "$tmp/tlets.uir"
for n in 100000 10000; do
	awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "buffer input_buffer_%06d i32 2\n", i
		for (i = 0; i < n; i++) printf "store input_buffer_%06d 0 (load input_buffer_%06d 1)\n", i, n - 1 - i }' > "$tmp/bufs$n.uir"
	expect 0 '' "$uir" check "$tmp/bufs$n.uir"
	expect 0 '' "$uir" run --engine interp "$tmp/bufs$n.uir"
	if [ "$(wc -l < "$tmp/out")" = $n ]; then ok; else bad "$n buffers: $(wc -l < "$tmp/out") lines of output"; fi
done
# the scope rules are the same at this size: the last of 100,000 buffers used before its
# declaration, and a let shadowing the first, are still found
awk 'BEGIN { print "store b99999 0 1"
	for (i = 0; i < 100000; i++) printf "buffer b%d i32 1\n", i
	print "loop i 1 {"; print "  let b0 = 1"; print "}" }' > "$tmp/scope.uir"
expect 1 "scope.uir:1:7: error\[E0102\]: 'b99999' is used before its declaration" "$uir" check "$tmp/scope.uir"
if grep -q "scope.uir:100003:7: error\[E0103\]: 'b0' is already visible here" "$tmp/err"; then ok; else bad "no E0103 for the shadowing let: $(head -c 600 "$tmp/err")"; fi
# the race rules group a parallel loop's accesses by memory: 100,000 buffers, each with two
# fields per iteration in one thread loop (E0503 under the rule; the exact analysis accepts
# each): a scan of every access per memory took 1.8 s at 10,000 buffers
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "buffer b%d i32 16\n", i
	print "loop p 8 thread {"
	for (i = 0; i < 100000; i++) printf "  store b%d (mul 2 p) 1\n  store b%d (add (mul 2 p) 1) 2\n", i, i
	print "}" }' > "$tmp/thread_bufs.uir"
expect 1 'error\[E0503\]' "$uir" check --strict "$tmp/thread_bufs.uir"
expect 0 '' "$uir" check "$tmp/thread_bufs.uir"

# ---- uir test on a huge output: the runner's memory stays bounded ----
# 40,000,000 u8 values (143 MB printed) with an `# expect` of the buffer after them. The
# largest resident size of the runner and its children (getrusage; the child `uir run`
# holds the 40 MB buffer) must stay under 100 MiB: the runner that kept run's output
# reached 420 MB. --engine interp: the JIT's own memory is not what is measured here.
printf 'buffer big u8 40000000 = random 1\n' > "$tmp/huge.uir"
printf '# expect y: 0 1 3\nbuffer big u8 40000000 = random 1\nbuffer y i32 3 = iota\n' > "$tmp/huge_expect.uir"
if [ -x /usr/bin/python3 ]; then
	set -- $(timeout 120 /usr/bin/python3 - "$uir" "$tmp" <<'EOF'
import resource, subprocess, sys
uir, tmp = sys.argv[1], sys.argv[2]
with open(tmp + "/out", "wb") as o:
    rc = subprocess.call([uir, "test", "-j", "1", "--engine", "interp", tmp + "/huge.uir",
                          tmp + "/huge_expect.uir"], stdout=o, stderr=subprocess.STDOUT)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
)
	if [ "${1:-}" = 1 ]; then ok; else bad "uir test of huge outputs exited ${1:-?}, want 1"; fi
	if [ "${2:-999999}" -lt 102400 ]; then ok; else bad "uir test of a huge output: peak RSS ${2:-?} KiB, bound 100 MiB"; fi
	if grep -qxF "PASS $tmp/huge.uir" "$tmp/out"; then ok; else bad "huge.uir did not pass: $(head -c 600 "$tmp/out")"; fi
	if grep -qxF "FAIL $tmp/huge_expect.uir: expect y: element 2 is 2, expected 3" "$tmp/out"; then ok
	else bad "the # expect after a huge output: $(head -c 600 "$tmp/out")"; fi
fi

# ---- a .npy header claiming 2^31-1 elements in a 144-byte file ----
# Under a 4 GB address-space limit, check, render and run said "out of memory" (exit 70):
# typing read the data into a buffer of the claimed size. Now the claim is compared with
# the file's size first: E0203 "truncated data", exit 1, for the INIT and for run --input.
{
	printf '\223NUMPY\001\000\166\000'
	printf "%-117s\n" "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647,), }"
	printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
} > "$tmp/big.npy"
if [ "$(wc -c < "$tmp/big.npy")" = 144 ]; then ok; else bad "big.npy has $(wc -c < "$tmp/big.npy") bytes, not 144"; fi
printf 'buffer x f32 2147483647 = file "big.npy"\n' > "$tmp/bignpy.uir"
printf 'buffer x f32 2147483647\n' > "$tmp/bigin.uir"
for cmd in check render run; do
	expect 1 'bignpy.uir:1:27: error\[E0203\]: big.npy: truncated data' sh -c 'ulimit -v 4000000 && exec "$@"' sh "$uir" $cmd "$tmp/bignpy.uir"
done
expect 1 "bigin.uir:1:8: error\[E0203\]: --input x=$tmp/big.npy: truncated data" sh -c 'ulimit -v 4000000 && exec "$@"' sh "$uir" run --input "x=$tmp/big.npy" "$tmp/bigin.uir"

echo "scale: $pass passed, $fail failed"
[ "$fail" = 0 ]
