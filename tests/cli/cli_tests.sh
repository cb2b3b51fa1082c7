#!/bin/sh
# Command-line behaviour of `uir`: E0001, usage errors (exit 64), help, exit codes, and
# that a fault prints nothing on standard output. Usage: cli_tests.sh UIR
uir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/expect.sh"
expect 1 'error\[E0001\]' "$uir" check "$tmp/missing.uir"
expect 1 'error\[E0001\]' "$uir" run "$tmp/missing.uir"
expect 1 'error\[E0001\].*directory' "$uir" check "$tmp"
expect 64 'unknown command' "$uir" frobnicate x.uir
expect 64 '' "$uir"
expect 64 '' "$uir" check
expect 64 '' "$uir" check --bogus x.uir
expect 64 '' "$uir" run --engine warp x.uir
expect 64 '' "$uir" run --threads 0 x.uir
expect 64 'uir opt: --threads needs an integer from 1 to 1024' "$uir" opt --threads 0 x.uir
expect 64 'uir opt: UIR_THREADS needs an integer from 1 to 1024' env UIR_THREADS=many "$uir" opt x.uir
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
# ... a fault in the run too; nothing when no engine ran (an error in the set-up)
expect 1 'time (interp):.*execution' "$uir" run --engine interp --time "$tmp/fault.uir"
if "$uir" run --time --input "x=$tmp/nosuch.npy" "$tmp/ok.uir" 2>&1 | grep -q 'time ('; then
	bad "run --time printed times after an error in the set-up"
else ok; fi
# ---- run --seed S: every `random` buffer drawn from S, in its type and range; the rest as
# written; the check value of seed 3, buffer 0, element 0 (docs/commands.md) ----
printf 'buffer a f32 3 = random 5\nbuffer b i32 4 = iota\nbuffer c i8 6 = random 9 -3 3\nbuffer d bool 5 = random 2\nbuffer e f64 2 = random 1 10 11\nbuffer f u64 2 = random 4\n' > "$tmp/seeds.uir"
expect 0 '' "$uir" run --seed 3 "$tmp/seeds.uir"
cp "$tmp/out" "$tmp/seed3"
if grep -q '^a: -0.30907607 ' "$tmp/seed3" && grep -qx 'b: 0 1 2 3' "$tmp/seed3"; then ok; else bad "--seed 3: $(cat "$tmp/seed3")"; fi
if grep -Eq '^c:( -?[0-2]){6}$' "$tmp/seed3" && grep -Eq '^d:( [01]){5}$' "$tmp/seed3" && grep -Eq '^e: 10\.[0-9]+ 10\.[0-9]+$' "$tmp/seed3"; then ok; else bad "--seed 3 ranges: $(cat "$tmp/seed3")"; fi
expect 0 '' "$uir" run --engine jit --seed 0x3 "$tmp/seeds.uir"
if cmp -s "$tmp/out" "$tmp/seed3"; then ok; else bad "--seed 0x3 (jit) differs from --seed 3"; fi
expect 0 '' "$uir" run --seed 4 "$tmp/seeds.uir"
if [ "$(grep -c '^b: 0 1 2 3$' "$tmp/out")" = 1 ] && ! cmp -s "$tmp/out" "$tmp/seed3"; then ok; else bad "--seed 4 is --seed 3"; fi
expect 0 '' "$uir" run "$tmp/seeds.uir"
if ! grep -q '^a: -0.30907607 ' "$tmp/out"; then ok; else bad "no --seed drew the seeded values"; fi
expect 0 '' "$uir" run --seed 18446744073709551615 "$tmp/seeds.uir"
expect 0 '' "$uir" run --seed 0xFFFFFFFFFFFFFFFF "$tmp/seeds.uir"
expect 64 "uir run: --seed needs a whole number from 0 to 2^64-1" "$uir" run --seed 18446744073709551616 "$tmp/seeds.uir"
expect 64 "found '0x'" "$uir" run --seed 0x "$tmp/seeds.uir"
expect 64 "found '-1'" "$uir" run --seed -1 "$tmp/seeds.uir"
expect 64 "found '12a'" "$uir" run --seed 12a "$tmp/seeds.uir"
# ---- run --traffic: per buffer, the elements whose first access reads them and those
# written, in bytes and elements; the interpreter only ----
printf 'buffer x f32 8 = iota\nbuffer y f32 8 = fill 1\nbuffer t i32 4\nbuffer s i32 1\nbuffer u u8 16\nloop i 6 {\n  store y i (add (load x i) (load y i))\n}\nloop j 4 {\n  store t j j\n  store t j (add (load t j) 1)\n  atomic.add s 0 (load t j)\n}\n' > "$tmp/traffic.uir"
expect 0 'traffic: all buffers: read 52 bytes, wrote 44 bytes' "$uir" run --traffic "$tmp/traffic.uir"
for line in 'traffic: x: read 6 of 8 elements (24 bytes), wrote 0 (0 bytes)' \
	'traffic: y: read 6 of 8 elements (24 bytes), wrote 6 (24 bytes)' \
	'traffic: t: read 0 of 4 elements (0 bytes), wrote 4 (16 bytes)' \
	'traffic: s: read 1 of 1 elements (4 bytes), wrote 1 (4 bytes)' \
	'traffic: u: read 0 of 16 elements (0 bytes), wrote 0 (0 bytes)'; do
	if grep -qxF "$line" "$tmp/err"; then ok; else bad "--traffic: no line '$line' in: $(cat "$tmp/err")"; fi
done
if [ "$(head -1 "$tmp/out")" = "x: 0 1 2 3 4 5 6 7" ]; then ok; else bad "--traffic printed '$(cat "$tmp/out")'"; fi
# only the loads whose value the program necessarily uses count: not an unused let, not the
# value operands of select (rendered `c ? a : b`), not a bool and/or, not a let of the block
# around an if that uses it
printf 'buffer x f32 4 = iota\nbuffer c bool 4 = fill true\nbuffer d bool 4\nbuffer e f32 4 = iota\nbuffer y f32 4\nbuffer z bool 4\nloop i 4 {\n  let v = load x i\n  let w = load e i\n  store y i (select (load c i) (load x i) 2.0)\n  store z i (and (load c i) (load d i))\n  if (lt i 2) {\n    store y i w\n  }\n}\n' > "$tmp/used.uir"
expect 0 'traffic: all buffers: read 4 bytes, wrote 20 bytes' "$uir" run --traffic "$tmp/used.uir"
expect 64 'traffic runs in the interpreter' "$uir" run --traffic --engine jit "$tmp/traffic.uir"
expect 64 'traffic counts one plain run' "$uir" run --traffic --racecheck "$tmp/traffic.uir"
expect 64 'traffic counts one plain run' "$uir" run --traffic --repeat 2 "$tmp/traffic.uir"
expect 1 'error\[E0601\]' "$uir" run --traffic "$tmp/fault.uir"
if grep -q traffic "$tmp/err"; then bad "a faulting --traffic run printed its counts"; else ok; fi
# ---- test names that look like options ----
# a test whose name starts with '-' is a file, not options, for the runner's children
mkdir "$tmp/dash"
printf '# expect x: 0 1\nbuffer x i32 2 = iota\n' > "$tmp/dash/-rf.uir"
(cd "$tmp/dash" && "$uir" test -- -rf.uir) > "$tmp/out" 2>&1
if grep -qxF "PASS -rf.uir" "$tmp/out"; then ok; else bad "uir test -- -rf.uir: $(cat "$tmp/out")"; fi
# a bad short option in a group is named as written, not the word before it
expect 64 "uir run: unknown option '-z'" "$uir" run -zq "$tmp/ok.uir"
expect 64 "uir check: unknown option '-z'" "$uir" check -zq "$tmp/ok.uir"
expect 64 "uir run: unknown option '--bogus'" "$uir" run --bogus "$tmp/ok.uir"
expect 64 "uir compile: -o needs a value" "$uir" compile "$tmp/ok.uir" -o
# control bytes of user text (a path, a file INIT, an option value) print as '?'
esc=$(printf '\033')
printf 'buffer x f32 2 = file "a%s[2Jb.npy"\n' "$esc" > "$tmp/esc.uir"
expect 1 'esc.uir:1:18: error\[E0203\]: a?\[2Jb.npy: cannot open: No such file or directory' "$uir" check "$tmp/esc.uir"
if grep -q "$esc" "$tmp/err"; then bad "an ESC byte reached the terminal: $(od -c "$tmp/err" | head -3)"; else ok; fi
expect 1 'error\[E0001\]' "$uir" check "$tmp/x${esc}[2J.uir"
if grep -q "$esc" "$tmp/err"; then bad "an ESC byte in a path reached the terminal"; else ok; fi
expect 64 "no buffer called '?\[2J'" "$uir" run --only "${esc}[2J" "$tmp/ok.uir"
if grep -q "$esc" "$tmp/err"; then bad "an ESC byte in --only reached the terminal"; else ok; fi
mkdir "$tmp/e${esc}d" && cp "$tmp/ok.uir" "$tmp/e${esc}d/t.uir"
"$uir" test "$tmp/e${esc}d" > "$tmp/out" 2>&1
if grep -q "$esc" "$tmp/out" || ! grep -q '^PASS .*/e?d/t.uir$' "$tmp/out"; then bad "uir test printed an ESC byte: $(od -c "$tmp/out" | head -3)"; else ok; fi
# a missing file INIT says why
printf 'buffer x f32 2 = file "missing.npy"\n' > "$tmp/miss.uir"
expect 1 'missing.npy: cannot open: No such file or directory' "$uir" check "$tmp/miss.uir"
# compile to a full device: uir's message and exit 1, not LLVM's "LLVM ERROR"
if "$uir" compile "$tmp/ok.uir" -o "$tmp/ok.o" 2>/dev/null; then
	for e in obj asm llvm; do
		expect 1 'uir compile: cannot write /dev/full: No space left on device' "$uir" compile "$tmp/ok.uir" -o /dev/full --emit $e
		if grep -q 'LLVM ERROR' "$tmp/err"; then bad "compile --emit $e -o /dev/full: $(cat "$tmp/err")"; else ok; fi
	done
	expect 1 'uir compile: cannot write' "$uir" compile "$tmp/ok.uir" -o "$tmp/nodir/x.o"
fi
# E0403 says "an atomic"
printf 'buffer s i32 4\nloop g 4 global {\n  atomic.add s 0 1\n  loop t 4 local {\n    store s t 1\n  }\n}\n' > "$tmp/e0403.uir"
expect 1 'error\[E0403\]: an atomic in block code' "$uir" check "$tmp/e0403.uir"
# E0201 for atomic.add on a float says why (the order of the updates) and what floats take;
# atomic.min/max on floats are accepted
printf 'buffer x f32 1\natomic.add x 0 1.0\n' > "$tmp/addf.uir"
expect 1 'addf.uir:2:12: error\[E0201\]: atomic.add takes integer memory, x is f32: a float sum depends on the order of the updates (atomic.min and atomic.max take floats)' "$uir" check "$tmp/addf.uir"
printf 'buffer x bool 1\natomic.max x 0 true\n' > "$tmp/maxb.uir"
expect 1 'error\[E0201\]: atomic.max takes integer or float memory, x is bool' "$uir" check "$tmp/maxb.uir"
printf 'buffer x f32 1\nbuffer y f64 1\natomic.min x 0 1.0\natomic.max y 0 1.0\n' > "$tmp/minf.uir"
expect 0 '' "$uir" check "$tmp/minf.uir"
# offsets inline lets to 4000 expression nodes: a chain of 2000 lets of one op each is
# checked, 2001 are E0501 with a message that says so
for n in 2000 2001; do
	awk -v n=$n 'BEGIN { print "buffer out i32 64"; print "loop t 64 thread {"; print "  let v0 = t"
		for (i = 1; i < n; i++) printf "  let v%d = add v%d 0\n", i, i - 1
		printf "  store out v%d 1\n", n - 1; print "}" }' > "$tmp/chain$n.uir"
done
expect 0 '' "$uir" check "$tmp/chain2000.uir"
expect 1 'error\[E0501\]: the offset of out is too large to check: with its lets inlined it nests more than 4000 operations and names deep (a chain of 2000 lets of one op each)' "$uir" check "$tmp/chain2001.uir"
# -j says its limit
expect 64 "bad -j value '5000': a whole number of commands from 1 to 4096" "$uir" test -j 5000 "$tmp/ok.uir"
expect 0 '' "$uir" test -j 4096 "$tmp/ok.uir"
# a FIFO is not read (opening it would wait for a writer): E0001 for a program, E0203 for
# a file INIT, and the runner ignores it, each saying so
mkfifo "$tmp/fifo.uir" "$tmp/fifo.npy"
expect 1 'fifo.uir:1:1: error\[E0001\]: cannot read the file: it is a FIFO, not a regular file' "$uir" check "$tmp/fifo.uir"
expect 1 'error\[E0001\]: cannot read the file: it is a FIFO' "$uir" run "$tmp/fifo.uir"
printf 'buffer x f32 2 = file "fifo.npy"\n' > "$tmp/fifonpy.uir"
expect 1 'fifo.npy: cannot open: it is a FIFO, not a regular file' "$uir" check "$tmp/fifonpy.uir"
expect 1 "error\[E0203\]: --input x=$tmp/fifo.npy: cannot open: it is a FIFO" "$uir" run --input "x=$tmp/fifo.npy" "$tmp/ok.uir"
expect 0 'ignoring .*fifo.uir: it is a FIFO, not a regular file' "$uir" test "$tmp/fifo.uir"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
