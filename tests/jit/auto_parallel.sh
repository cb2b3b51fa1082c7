#!/bin/sh
# auto_parallel.sh UIR SRCROOT [--all] - the JIT's automatic parallel loops (docs/llvm.md,
# "Loop optimisation"): which loops go to the thread pool (`uir llvm` calls
# uir_parallel_for for them), and that each program here gives the interpreter's bits at
# 1, 2 and 4 threads with and without them, and that `uir opt`'s text of each checks and
# runs to the same output; with --all, also every run-test with the work threshold at 0
# (every independent loop, however small), at 1, 2 and 3 threads, and through `uir opt`.
uir=${1:?usage: auto_parallel.sh UIR SRCROOT [--all]}
root=${2:?usage: auto_parallel.sh UIR SRCROOT [--all]}
dir=$root/tests/jit/parallel
. "$root/tests/cli/expect.sh"
pool() { "$uir" llvm "$@" 2>/dev/null | grep -c 'call .*@uir_parallel_for'; }
want_pool() { # FILE N [OPTION]: N calls of the pool in the IR
	got=$(pool ${3:-} "$dir/$1")
	if [ "$got" = "$2" ]; then ok; else bad "$1 ${3:-}: $got calls of uir_parallel_for, want $2"; fi
}
want_pool rows.uir 1
want_pool rows.uir 0 --no-opt
want_pool prefix.uir 0
want_pool histogram.uir 1
want_pool scalar_acc.uir 1
want_pool scalar_acc.uir 0 --no-opt
want_pool matmul_acc.uir 1
want_pool acc_carried.uir 0
want_pool acc_after.uir 1
want_pool acc_if.uir 0
want_pool private_fault.uir 1
want_pool private_rename.uir 2
want_pool acc_outer_read.uir 0
want_pool flat_saxpy.uir 0
want_pool flat_poly.uir 1
for f in "$dir"/*.uir; do
	"$uir" run --engine interp "$f" >"$tmp/ref" 2>&1
	rc=$? # NAME_fault.uir faults (E0601): the message, its line and column, must be the same
	case $f in
	*_fault.uir) [ "$rc" = 1 ] || bad "$f: interp did not fault" ;;
	*) [ "$rc" = 0 ] || bad "$f: interp failed" ;;
	esac
	for opt in "--threads 1" "--threads 2" "--threads 4" "--no-opt"; do
		# shellcheck disable=SC2086
		"$uir" run --engine jit $opt "$f" >"$tmp/got" 2>&1
		if cmp -s "$tmp/ref" "$tmp/got"; then ok; else bad "$f $opt differs from the interpreter"; fi
	done
	for t in 2 4; do # every independent loop, however small
		UIR_AUTO_PARALLEL_WORK=0 "$uir" run --engine jit --threads $t "$f" >"$tmp/got" 2>&1
		if cmp -s "$tmp/ref" "$tmp/got"; then ok; else bad "$f --threads $t (threshold 0) differs from the interpreter"; fi
	done
done
# the workers' own copies of memories updated only by integer atomics (docs/llvm.md,
# "Atomics in parallel loops"): one calloc of the copies, no locked update left; the bits at
# more threads than cores too (each worker must land on its own copies)
copies=$("$uir" llvm "$dir/atomic_copies.uir" 2>/dev/null | grep -c 'call .*@calloc')
locked=$("$uir" llvm "$dir/atomic_copies.uir" 2>/dev/null | grep -c 'atomicrmw')
if [ "$copies" = 1 ] && [ "$locked" = 0 ]; then ok; else bad "atomic_copies.uir: $copies callocs, $locked atomicrmw; want 1, 0"; fi
"$uir" run --engine interp --hash "$dir/atomic_copies.uir" >"$tmp/ref" 2>&1
for t in 3 5 7 8; do
	"$uir" run --engine jit --threads $t --hash "$dir/atomic_copies.uir" >"$tmp/got" 2>&1
	if cmp -s "$tmp/ref" "$tmp/got"; then ok; else bad "atomic_copies.uir --threads $t differs from the interpreter"; fi
done
# bounds checks ahead of a block (docs/llvm.md, "Bounds checks ahead of a block"): the
# gather's three unproven accesses are tested ahead and left out of the body run after the
# test; an offset loaded from memory the body writes is not
oobs() { "$uir" llvm -O0 "$dir/$1" 2>/dev/null | awk -v fn="@e.$2(" 'index($0, "define") == 1 { on = index($0, fn) > 0 } on && /^oob/ { n++ } END { print n + 0 }'; }
tests=$("$uir" llvm -O0 "$dir/block_check_written_fault.uir" 2>/dev/null | grep -c '^define internal .*@e\.test(')
if [ "$(oobs block_check_gather.uir iter)" = 3 ] && [ "$(oobs block_check_gather.uir iter.ahead)" = 0 ] && [ "$tests" = 0 ]; then ok
else bad "block checks: $(oobs block_check_gather.uir iter) and $(oobs block_check_gather.uir iter.ahead) checks in e.iter and e.iter.ahead, $tests tests of block_check_written_fault.uir; want 3, 0, 0"; fi
# no gather instructions (docs/llvm.md, "Optimisation and code generation"): the jammed
# rows of a mat-vec, which the SLP vectoriser would load by gathers, load lane by lane
for f in jam_matvec; do
	n=$("$uir" llvm "$dir/$f.uir" 2>/dev/null | grep -c 'llvm.masked.gather')
	[ "$n" = 0 ] && ok || bad "uir llvm $f.uir: $n gathers, want 0"
done
# offsets loaded from INITs that bound them (docs/analysis.md, "Value ranges"): no check in
# what run compiles (`uir llvm`), checks in an object (`uir compile`: its caller passes
# any values); with --input, the values are the file's and checked: the interpreter's fault
n_run=$("$uir" llvm -O0 "$dir/init_range.uir" 2>/dev/null | grep -c '^oob')
"$uir" compile --emit llvm -o "$tmp/init_range.ll" "$dir/init_range.uir" 2>/dev/null
n_obj=$(grep -c '^ok' "$tmp/init_range.ll")
[ "$n_run" = 0 ] && [ "$n_obj" -gt 0 ] && ok || bad "init_range.uir: $n_run checks in uir llvm (want 0), $n_obj in uir compile (want some)"
printf 'buffer x i32 1000 = fill 1000\nbuffer y i32 1000 = random 9 -5 10\n' >"$tmp/mk.uir"
rm -rf "$tmp/dump"
"$uir" run --dump "$tmp/dump" "$tmp/mk.uir" >/dev/null 2>&1
for in in y x; do
	"$uir" run --engine interp --hash --input x="$tmp/dump/$in.npy" "$dir/init_range.uir" >"$tmp/ref" 2>&1
	rrc=$?
	for t in 1 2; do
		"$uir" run --engine jit --threads $t --hash --input x="$tmp/dump/$in.npy" "$dir/init_range.uir" >"$tmp/got" 2>&1
		grc=$?
		if [ "$rrc" = "$grc" ] && cmp -s "$tmp/ref" "$tmp/got"; then ok; else bad "init_range.uir --input x=$in.npy --threads $t: exit $grc, not the interpreter's $rrc"; fi
	done
done
grep -q 'error\[E0601\]' "$tmp/ref" && ok || bad "init_range.uir --input x=x.npy (1000 everywhere): the interpreter did not fault"
# `uir opt FILE` checks and runs as FILE does (FILE's own output, or its error)
opt_same() {
	"$uir" run --engine interp "$1" >"$tmp/ref" 2>/dev/null
	rrc=$?
	UIR_AUTO_PARALLEL_WORK=0 "$uir" opt "$1" >"$tmp/opt.uir" 2>"$tmp/opterr" || { bad "$1: uir opt failed"; return; }
	# the diagnostics name the file: compare the exit status and standard output
	"$uir" run --engine interp "$tmp/opt.uir" >"$tmp/got" 2>/dev/null
	grc=$?
	if [ "$rrc" = "$grc" ] && cmp -s "$tmp/ref" "$tmp/got"; then ok; else bad "$1: uir opt's text runs differently"; fi
}
for f in "$dir"/*.uir; do
	opt_same "$f"
done
UIR_AUTO_PARALLEL_WORK=0 "$uir" opt "$dir/rows.uir" | grep -q '^loop i 256 thread {$' && ok || bad "uir opt rows.uir lacks 'loop i 256 thread {'"
"$uir" opt "$dir/prefix.uir" | cmp -s - "$dir/prefix.uir" && ok || bad "uir opt prefix.uir is not the program itself"
# scalar expansion (docs/llvm.md, "Scalar expansion"): the rewritten text, line by line
want_opt() { # FILE LINE: uir opt FILE has LINE
	if "$uir" opt "$dir/$1" | grep -qxF -- "$2"; then ok; else bad "uir opt $1 lacks '$2'"; fi
}
want_not_opt() { # FILE PATTERN WHAT: uir opt FILE has no line matching PATTERN (no WHAT)
	if "$uir" opt "$dir/$1" | grep -q -- "$2"; then bad "uir opt $1: $3"; else ok; fi
}
# the last iteration peeled (docs/llvm.md, "Peeling the last iteration")
want_opt0() { # FILE LINE: uir opt FILE, every independent loop taken, has LINE
	if UIR_AUTO_PARALLEL_WORK=0 "$uir" opt "$dir/$1" | grep -qxF -- "$2"; then ok; else bad "uir opt $1 (threshold 0) lacks '$2'"; fi
}
want_opt0 peel_buffer.uir 'loop r 15 thread {'
want_opt0 peel_buffer.uir 'loop r_l 1 {'
want_opt0 peel_buffer.uir '  let r = add r_l 15'
want_opt0 peel_buffer.uir '      store S_p2 p (mul (load W p) (load A (add (mul (add (mul r 16) q) 256) p)))'
want_opt0 peel_buffer.uir '      store S p (mul (load W p) (load A (add (mul (add (mul r 16) q) 256) p)))'
want_opt0 peel_alloc_read.uir 'loop i 127 thread {'
want_opt0 peel_alloc_read.uir '  let i = add i_l 127'
want_opt0 peel_partial.uir 'loop i 64 {'
want_opt acc_after.uir 'loop i 127 thread {'
# distribution alone, then the interchange of its first loop (docs/llvm.md, "Scalar expansion")
want_opt distribute_row.uir "  # uir opt: run as loop kk outside loop j (interchange; the order of each element's updates is kept)"
want_opt distribute_row.uir '    store B o (mul 1.5 (load B o))'
if [ "$("$uir" opt "$dir/distribute_row.uir" | grep -c '^  loop j 100 {')" = 2 ]; then ok; else bad "uir opt distribute_row.uir: not two loops over j"; fi
if [ "$("$uir" opt "$dir/distribute_carried.uir" | grep -c '^  loop j 100 {')" = 1 ]; then ok; else bad "uir opt distribute_carried.uir: distributed"; fi
# unroll-and-jam of a reduction into memory (docs/llvm.md, "Unroll-and-jam")
want_opt jam_mem.uir 'loop r_o 9 thread {'
want_opt jam_mem.uir '      loop r_u 8 unroll {'
want_opt jam_mem.uir '        let r = add (mul r_o 8) r_u'
want_opt jam_mem.uir 'loop r_r 4 thread {'
want_opt jam_mem.uir '  let r = add r_r 72'
for f in jam_mem_rows jam_outer_let_load jam_outer_conflict; do
	want_opt $f.uir '  loop s_o 9 {'
	want_opt $f.uir '      loop s_u 8 unroll {'
	want_opt $f.uir '        let s = add (mul s_o 8) s_u'
	want_opt $f.uir '  loop s_r 4 {'
	want_opt $f.uir '    let s = add s_r 72'
	if "$uir" opt "$dir/$f.uir" | grep -q 'r_o\|r_u'; then bad "uir opt $f.uir: the outer jam"; else ok; fi
done
want_opt jam_outer_conflict.uir 'loop r 76 {'
# the swapped jam (docs/llvm.md, "The swapped jam"): blocks of 8 j outside k, the rest as written
want_opt jam_swap.uir '  loop j_o (div (add i 1) 8) {'
want_opt jam_swap.uir '      loop j_u 8 unroll {'
want_opt jam_swap.uir '        let j = add (mul j_o 8) j_u'
want_opt jam_swap.uir '    loop j_r (mod (add i 1) 8) {'
want_opt jam_swap.uir '      let j = max 0 (sub (sub (add i 1) 1) j_r)'
for f in jam_swap_k_offset jam_swap_neighbour; do want_not_opt $f.uir 'j_o\|j_u' 'the swapped jam'; done
# the sunk jam (docs/llvm.md, "The sunk jam"): t inside s, 8 rows r side by side inside t
want_opt jam_sink.uir 'loop r_o 2 thread {'
want_opt jam_sink.uir '  loop s 12 {'
want_opt jam_sink.uir '    loop t 80 {'
want_opt jam_sink.uir '      loop r_u 8 unroll {'
want_opt jam_sink.uir 'loop r_r 4 {'
want_opt jam_sink.uir '  let r = add r_r 16'
for f in jam_sink_shared jam_sink_radix; do want_not_opt $f.uir '^    loop t 80 {' 'the sunk jam'; done
# no jam past the unroll limit or in a grid; a rewrite that does not check leaves the program as written
for f in jam_unroll_limit expand_jam_unroll_limit jam_in_grid opt_rewrite_fails; do
	if out=$("$uir" opt "$dir/$f.uir") && ! printf '%s\n' "$out" | grep -q '_u 8 unroll'; then ok; else bad "uir opt $f.uir: failed or jammed"; fi
done
for f in jam_unroll_limit expand_jam_unroll_limit jam_in_grid row_jam_one_thread; do
	if UIR_OPT_DEBUG=1 "$uir" opt "$dir/$f.uir" 2>&1 >/dev/null | grep -q 'does not check'; then bad "uir opt $f.uir: a rewrite that does not check"; else ok; fi
done
want_opt opt_rewrite_fails.uir 'loop r 16 {'
if "$uir" opt "$dir/jam_mem_carried.uir" | grep -q '_o\|_u'; then bad "uir opt jam_mem_carried.uir: an unroll-and-jam"; else ok; fi
want_opt matmul_acc.uir 'alloc acc_x f32 72'
want_opt matmul_acc.uir 'alloc acc_x_r f32 576'
want_opt matmul_acc.uir 'loop i_o 9 thread {'
want_opt matmul_acc.uir '      store acc_x_r (add (mul i_u 72) j) 0.0'
want_opt matmul_acc.uir '  loop k 72 {'
want_opt matmul_acc.uir '      loop i_u 8 unroll {'
want_opt matmul_acc.uir '        store acc_x_r (add (mul i_u 72) j) (add (load acc_x_r (add (mul i_u 72) j)) (mul (load A (add (mul i 72) k)) (load B (add (mul k 72) j))))'
want_opt matmul_acc.uir '      store C (add (mul i 72) j) (load acc_x_r (add (mul i_u 72) j))'
want_opt row_jam.uir 'loop i_o 3 {'
want_opt row_jam.uir '      store C (add (mul i 25) j) (mul 0.5 (load C (add (mul i 25) j)))'
want_opt row_jam.uir '      loop i_u 8 unroll {'
want_not_opt row_jam_carried.uir 'i_o\|i_u' 'the row jam'
want_opt row_jam_thread.uir 'alloc t_r f64 256'
want_opt row_jam_one_thread.uir 'alloc t_r f64 256'
want_opt row_jam_thread.uir 'loop i_o 2 thread {'
want_opt row_jam_thread.uir '        store t_r (add (mul i_u 32) j) (add (load t_r (add (mul i_u 32) j)) (mul (load A (add (mul i 72) k)) (load B (add (mul k 32) j))))'
want_opt row_jam_thread.uir '      store C (add (mul i 32) j) (sqrt (load t_r (add (mul i_u 32) j)))'
want_opt expand_pair.uir '    store s_x (mul j 2) 0.0'
want_opt expand_pair.uir '    store s_x (add (mul j 2) 1) 0.0'
want_opt private_rename.uir 'alloc acc_p f32 1'
want_opt private_rename.uir '  store acc_p 0 0.0'
want_opt private_rename.uir 'alloc acc_p2 f32 1'
want_opt private_rename.uir 'loop i 512 thread {'
want_opt jam_matvec.uir 'alloc acc_x f32 8'
want_opt jam_matvec.uir 'loop i_o 8 thread {'
want_opt jam_matvec.uir '    loop i_u 8 unroll {'
want_opt jam_matvec.uir '      let i = add (mul i_o 8) i_u'
want_opt jam_matvec.uir '    store acc_x i_u (add (load acc_x i_u) (mul (load A (add (mul i 200) j)) (load x j)))'
if "$uir" opt "$dir/jam_odd.uir" | grep -q '_o\|_u\|_x'; then bad "uir opt jam_odd.uir: an unroll-and-jam"; else ok; fi
# time skewing (docs/llvm.md, "Time skewing"), on one thread: tiles of i skewed by 1 a
# sweep; a read 5 ahead of the sweep before, or a step with its own row, keeps the time
# loop as written
want_opt1() { # FILE LINE: uir opt --threads 1 FILE has LINE
	if "$uir" opt --threads 1 "$dir/$1" | grep -qxF -- "$2"; then ok; else bad "uir opt --threads 1 $1 lacks '$2'"; fi
}
want_opt1 skew_stencil.uir 'loop t_k 5 {'
want_opt1 skew_stencil.uir '  let i_lo1 = (max 0 (min 262142 (sub (mul t_k 65535) (add (mul 2 t) 1))))'
want_opt1 skew_stencil.uir '  loop i_s (sub i_hi1 i_lo1) {'
want_opt1 skew_stencil.uir '    let i = add i_s i_lo1'
want_opt1 skew_inplace.uir 'loop t_k 5 {'
for f in skew_far_read skew_time_offset; do
	for n in 1 2; do
		"$uir" opt --threads $n "$dir/$f.uir" | grep -q '_k\|_lo' && bad "uir opt --threads $n $f.uir: a time skew" || ok
	done
done
# ... on more threads, split tiling (docs/llvm.md, "Split tiling"): the tiles on the pool,
# shrinking by 1 a sweep on either side, a multiple of the threads; then the triangles
# between them, on the pool too; the text checks (its `thread` loops race-free) and gives
# the bits of the loops as written. In place (each sweep's iterations depend on each
# other), the skew on one thread instead, even with the sweeps worth the pool.
out2=$(UIR_AUTO_PARALLEL_WORK=0 "$uir" opt --threads 2 "$dir/skew_stencil.uir")
for line in 'loop t_k 6 thread {' '  let i_lo1 = (max 0 (add (sub (mul t_k 43693) 8) (add (mul 2 t) 1)))' \
	'  let i_hi1 = (min 262142 (sub (sub (mul (add t_k 1) 43693) 8) (add (mul 2 t) 1)))' 'loop t_k 5 thread {' \
	'  let i_lo0 = (sub (sub (mul (add t_k 1) 43693) 8) (add (mul 2 t) 0))' \
	'  let i_hi0 = (min 262142 (add (sub (mul (add t_k 1) 43693) 8) (add (mul 2 t) 0)))'; do
	printf '%s\n' "$out2" | grep -qxF -- "$line" && ok || bad "uir opt --threads 2 skew_stencil.uir lacks '$line'"
done
"$uir" opt --threads 4 "$dir/skew_stencil.uir" | grep -qxF 'loop t_k 8 thread {' && ok ||
	bad "uir opt --threads 4 skew_stencil.uir: not 8 tiles"
# bands of 7 steps, the last one under an `if` (13 steps)
out2b=$("$uir" opt --threads 2 "$dir/split_bands.uir")
for line in 'loop t_b 2 {' 'loop t_t 7 {' '  let t = add (mul t_b 7) t_t' '  if (lt t 13) {' \
	'  let i_lo1 = (max 0 (add (sub (mul t_k 47) 14) (add (mul 2 t_t) 1)))'; do
	printf '%s\n' "$out2b" | grep -qxF -- "$line" && ok || bad "uir opt --threads 2 split_bands.uir lacks '$line'"
done
for f in skew_stencil split_bands; do
	"$uir" opt --threads 2 "$dir/$f.uir" > "$tmp/split.uir"
	"$uir" check "$tmp/split.uir" >/dev/null 2>&1 && ok || bad "uir opt --threads 2 $f.uir: its text does not check"
	want=$("$uir" run --no-opt --threads 1 --hash "$dir/$f.uir")
	for n in 1 2 3; do
		[ "$("$uir" run --threads $n --hash "$tmp/split.uir")" = "$want" ] && ok ||
			bad "uir opt --threads 2 $f.uir: its text at $n threads is not the loops as written"
	done
done
# a split whose text the check cannot prove (ISL's budget): the skew instead, a text
# that checks
"$uir" opt --threads 2 "$dir/split_check_budget.uir" >"$tmp/split.uir" 2>"$tmp/err"
grep -qxF 'loop t_k 7 {' "$tmp/split.uir" && ! grep -q ' thread {' "$tmp/split.uir" && ok ||
	bad "uir opt --threads 2 split_check_budget.uir: not the skew"
"$uir" check "$tmp/split.uir" >/dev/null 2>&1 && ok || bad "uir opt --threads 2 split_check_budget.uir: its text does not check"
out2=$(UIR_AUTO_PARALLEL_WORK=0 "$uir" opt --threads 2 "$dir/skew_inplace.uir")
printf '%s\n' "$out2" | grep -qxF 'loop t_k 5 {' && ok || bad "uir opt --threads 2 skew_inplace.uir: no skew"
printf '%s\n' "$out2" | grep -q ' thread {' && bad "uir opt --threads 2 skew_inplace.uir: a loop on the pool" || ok
out2=$(UIR_AUTO_PARALLEL_WORK=0 "$uir" opt --threads 2 "$dir/skew_stencil.uir")
out3=$(UIR_THREADS=2 UIR_AUTO_PARALLEL_WORK=0 "$uir" opt "$dir/skew_stencil.uir")
[ "$out3" = "$out2" ] && ok || bad "uir opt with UIR_THREADS=2 is not uir opt --threads 2"
for f in acc_carried acc_if acc_outer_read; do
	"$uir" opt "$dir/$f.uir" | cmp -s - "$dir/$f.uir" && ok || bad "uir opt $f.uir is not the program itself"
done
# every run-test, every independent loop on the pool
if [ "${3:-}" = --all ]; then
	n=0
	for f in $(find "$root/tests/programs" "$root/tests/jit/programs" -name '*.uir' | sort); do
		head -20 "$f" | grep -q "^# error" && continue
		grep -q "= file " "$f" && continue # a file INIT: its path is relative to where run runs
		opt_same "$f"
		n=$((n + 1))
	done
	echo "uir opt: $n programs"
	if UIR_AUTO_PARALLEL_WORK=0 "$root/tests/jit/compare.sh" "$uir" "$root/tests/programs" "$root/tests/jit/programs" \
		"$dir" >"$tmp/cmp" 2>&1; then ok; else bad "compare.sh with UIR_AUTO_PARALLEL_WORK=0:"; tail -20 "$tmp/cmp"; fi
	tail -1 "$tmp/cmp"
fi
echo "auto-parallel: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
