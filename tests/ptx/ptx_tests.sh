#!/bin/sh
# `uir ptx` (src/llvm/ptx.c, src/cli/ptx.c). Usage:
#
#   ptx_tests.sh ptxas UIR DIR...   every `# cuda` program under the DIRs (recursively; not
#                                   `# cuda: invalid`) gives PTX that ptxas -arch=sm_90
#                                   accepts (exit 77, a skip, when there is no ptxas)
#   ptx_tests.sh grep UIR DIR...    the same programs: exit 0, no fma instruction unless
#                                   the program has the `fma` op, no float add/sub/mul
#                                   without .rn; `# cuda: invalid` programs exit 2 with
#                                   one `invalid:` line and nothing on stdout
#   ptx_tests.sh cli UIR DIR        usage errors (64), --help, -o, --llvm, --arch, exit 1
#                                   for a wrong program (DIR: tests/ptx/programs)
#   ptx_tests.sh params UIR         kernels of many buffers (generated here): up to 544
#                                   (4352 bytes of parameters) `.version 7.8`, 545 to 4095
#                                   `.version 8.1`, which ptxas accepts; 4096, or 545 below
#                                   sm_70, exit 2 with one `invalid:` line (the ptxas half is
#                                   skipped, exit 77 when all else passed, without ptxas)
#   ptx_tests.sh driver UIR FAKEDIR `uir ptx --run` and `uir test --ptx` against the stand-in
#                                   libcuda.so.1 in FAKEDIR (tests/ptx/fake_cuda.c): launches,
#                                   buffers back, a recorded fault, no driver
#
# ptxas is $PTXAS, else /usr/local/cuda/bin/ptxas, else ptxas on the PATH.
mode=$1 uir=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
	echo "$mode: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}

# the `# cuda` programs under the DIRs, one a line (sorted, so failures read in order)
cuda_programs() {
	for d in "$@"; do
		grep -rl --include='*.uir' '^# cuda' "$d" 2>/dev/null
	done | sort
}
invalid() { grep -q '^# cuda: invalid' "$1"; }
# whether the program uses the fma op (not in a comment)
uses_fma() { grep -v '^[[:space:]]*#' "$1" | grep -Eq '(^|[[:space:](])fma[[:space:]]'; }

case $mode in
ptxas)
	ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
	[ -x "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null)
	if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
		echo "no ptxas (set PTXAS): skipped"
		exit 77
	fi
	n=0
	for f in $(cuda_programs "$@"); do
		invalid "$f" && continue
		n=$((n + 1))
		if ! "$uir" ptx "$f" -o "$tmp/k.ptx" 2>"$tmp/err"; then
			bad "uir ptx $f failed"; head -5 "$tmp/err"; continue
		fi
		if "$ptxas" -arch=sm_90 "$tmp/k.ptx" -o "$tmp/k.cubin" 2>"$tmp/err"; then
			ok
		else
			bad "ptxas rejects the PTX of $f"; head -5 "$tmp/err"
		fi
	done
	[ "$n" -gt 0 ] || bad "no # cuda programs found under $*"
	finish
	;;
grep)
	n=0
	for f in $(cuda_programs "$@"); do
		if invalid "$f"; then
			"$uir" ptx "$f" >"$tmp/out" 2>"$tmp/err"
			rc=$?
			if [ "$rc" != 2 ]; then bad "$f (# cuda: invalid): exit $rc, want 2"; continue; fi
			if [ -s "$tmp/out" ]; then bad "$f (# cuda: invalid): printed on stdout"; continue; fi
			if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^invalid: ' "$tmp/err"; then
				bad "$f (# cuda: invalid): stderr is not one 'invalid:' line"; cat "$tmp/err"; continue
			fi
			ok
			continue
		fi
		n=$((n + 1))
		if ! "$uir" ptx "$f" -o "$tmp/k.ptx" 2>"$tmp/err"; then
			bad "uir ptx $f failed"; head -5 "$tmp/err"; continue
		fi
		if ! grep -q '^\.visible \.entry uir_k0(' "$tmp/k.ptx"; then
			bad "$f: no .entry uir_k0"; continue
		fi
		if ! uses_fma "$f" && grep -Eq '(^|[[:space:]])(fma|mad)(\.[a-z0-9]+)*\.f(32|64)' "$tmp/k.ptx"; then
			bad "$f has no fma op but its PTX has:"; grep -E '(fma|mad)(\.[a-z0-9]+)*\.f(32|64)' "$tmp/k.ptx" | head -3
			continue
		fi
		if grep -Eq '^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?(add|sub|mul)(\.ftz|\.sat)*\.f(32|64)[[:space:]]' "$tmp/k.ptx"; then
			bad "$f: float add/sub/mul without .rn:"
			grep -E '^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?(add|sub|mul)(\.ftz|\.sat)*\.f(32|64)[[:space:]]' "$tmp/k.ptx" | head -3
			continue
		fi
		ok
	done
	[ "$n" -gt 0 ] || bad "no # cuda programs found under $*"
	finish
	;;
cli)
	dir=$1
	# expect STATUS PATTERN-ON-STDERR -- command...
	expect() {
		want=$1 pat=$2
		shift 2
		"$@" >"$tmp/out" 2>"$tmp/err"
		got=$?
		if [ "$got" != "$want" ]; then bad "$* exited $got, want $want"; cat "$tmp/err"; return 1; fi
		if [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then bad "$*: stderr lacks '$pat'"; cat "$tmp/err"; return 1; fi
		ok
	}
	prog=$dir/all_ops.uir
	expect 64 'expected one FILE' "$uir" ptx
	expect 64 'expected one FILE' "$uir" ptx "$prog" "$prog"
	expect 64 'unknown option' "$uir" ptx --bogus "$prog"
	expect 64 'needs a value' "$uir" ptx "$prog" -o
	expect 64 'needs a value' "$uir" ptx "$prog" --arch
	expect 64 'arch' "$uir" ptx --arch 90 "$prog"
	expect 64 'unknown --arch' "$uir" ptx --arch sm_13 "$prog"
	[ -s "$tmp/out" ] && bad "a bad --arch printed on stdout"
	expect 0 '' "$uir" ptx --help && grep -q 'usage: uir ptx' "$tmp/out" || bad "--help printed no usage"
	expect 1 'error\[E0001\]' "$uir" ptx "$tmp/missing.uir"
	printf 'buffer x i32 4\nloop g 2 global {\n  loop t 4 local {\n    store x t 1\n  }\n}\n' >"$tmp/race.uir"
	expect 1 'error\[E05' "$uir" ptx "$tmp/race.uir"
	[ -s "$tmp/out" ] && bad "a wrong program printed on stdout"
	# not in kernel form: exit 2, one line, nothing on stdout
	printf 'buffer x i32 4\nlet a = 1\nloop g 4 global {\n  loop t 1 local {\n    store x g a\n  }\n}\n' >"$tmp/let.uir"
	expect 2 '^invalid: line 2: let' "$uir" ptx "$tmp/let.uir"
	[ -s "$tmp/out" ] && bad "an invalid program printed on stdout"
	printf 'buffer x i32 4\nloop i 4 {\n  store x i 1\n}\n' >"$tmp/plain.uir"
	expect 2 '^invalid: ' "$uir" ptx "$tmp/plain.uir"
	# -o writes the file, prints nothing
	expect 0 '' "$uir" ptx -o "$tmp/a.ptx" "$prog"
	[ -s "$tmp/out" ] && bad "-o also printed on stdout"
	grep -q '^\.target sm_90' "$tmp/a.ptx" && ok || bad "-o: no .target sm_90 in the file"
	expect 1 'cannot write' "$uir" ptx -o "$tmp/no/such/dir.ptx" "$prog"
	# --arch
	expect 0 '' "$uir" ptx --arch sm_80 "$prog"
	grep -q '^\.target sm_80' "$tmp/out" && ok || bad "--arch sm_80: no .target sm_80"
	# --llvm: the NVPTX module, kernels marked
	expect 0 '' "$uir" ptx --llvm "$prog"
	grep -q 'target triple = "nvptx64-nvidia-cuda"' "$tmp/out" && ok || bad "--llvm: no nvptx64 triple"
	grep -q '!nvvm.annotations' "$tmp/out" && ok || bad "--llvm: no nvvm.annotations"
	grep -q 'llvm.nvvm.barrier0' "$tmp/out" && ok || bad "--llvm: no barrier"
	# the same kernels, names and parameters as render-cuda's
	"$uir" render-cuda "$prog" >"$tmp/cu" 2>/dev/null
	"$uir" ptx "$prog" >"$tmp/ptx" 2>/dev/null
	a=$(grep -c '^__global__ void .*uir_k' "$tmp/cu")
	b=$(grep -c '^\.visible \.entry uir_k' "$tmp/ptx")
	[ "$a" = "$b" ] && [ "$a" -gt 0 ] && ok || bad "render-cuda has $a kernels, ptx $b"
	# a grid of 0 still defines its kernel; a kernel without local loops: blocks of 1
	printf 'buffer x i32 4\nloop g 0 global {\n  loop t 4 local {\n    store x (add (mul g 4) t) 1\n  }\n}\nloop h 4 global {\n  let v = load x h\n}\n' >"$tmp/zero.uir"
	expect 0 '' "$uir" ptx "$tmp/zero.uir"
	grep -q 'uir_k1' "$tmp/out" && grep -q '\.maxntid 1, 1, 1' "$tmp/out" && ok || bad "zero grid / block of 1"
	# the bounds checks record into uir_fault; --no-bounds-check leaves them out
	printf 'buffer x i32 4\nbuffer n i32 1 = [9]\nloop g 1 global {\n  loop t 4 local {\n    store x (add t (load n 0)) 1\n  }\n}\n' >"$tmp/oob.uir"
	expect 0 '' "$uir" ptx "$tmp/oob.uir"
	grep -q 'atom.*cas.*uir_fault\|uir_fault' "$tmp/out" && grep -q 'atom' "$tmp/out" && ok || bad "no fault recording"
	expect 0 '' "$uir" ptx --no-bounds-check "$tmp/oob.uir"
	grep -q 'atom' "$tmp/out" && bad "--no-bounds-check kept the check" || ok
	# float atomic.min/max: compare-and-swap loops on the bits (b32 for f32, b64 for f64, in
	# global and shared memory), never a float atom.min/max, whose NaN and -0 rules differ
	printf 'buffer a f32 1\nbuffer b f64 1\nbuffer c f32 2\nalloc s f32 1\nloop g 2 global {\n  loop t 32 local {\n    atomic.min a 0 (cast f32 t)\n    atomic.max b 0 (cast f64 t)\n    atomic.min s 0 (cast f32 t)\n  }\n  loop t 32 local {\n    if (eq t 0) {\n      store c g (load s 0)\n    }\n  }\n}\n' >"$tmp/fatom.uir"
	expect 0 '' "$uir" ptx --no-bounds-check "$tmp/fatom.uir"
	grep -q 'atom\.global\.cas\.b32' "$tmp/out" && grep -q 'atom\.global\.cas\.b64' "$tmp/out" &&
		grep -q 'atom\.shared\.cas\.b32' "$tmp/out" && ok || bad "float atomics: not atom.cas.b32/b64 loops"
	grep -Eq 'atom\.[a-z.]*(min|max)\.f' "$tmp/out" && bad "float atomics: a float atom.min/max" || ok
	finish
	;;
driver)
	fake=$1
	expect() {
		want=$1 pat=$2
		shift 2
		"$@" >"$tmp/out" 2>"$tmp/err"
		got=$?
		if [ "$got" != "$want" ]; then bad "$* exited $got, want $want"; cat "$tmp/err"; return 1; fi
		if [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then bad "$*: stderr lacks '$pat'"; cat "$tmp/err"; return 1; fi
		ok
	}
	printf '# cuda\nbuffer x i32 4 = iota\nbuffer y f32 2 = [1.5 2]\nbuffer z u8 3\n' >"$tmp/p.uir"
	printf 'loop g 0 global {\n  loop t 4 local {\n    store x (add (mul g 4) t) 7\n  }\n}\n' >>"$tmp/p.uir"
	printf 'loop g 2 global {\n  loop t 8 local {\n    if (eq t 0) {\n      store y g (load y g)\n    }\n  }\n}\n' >>"$tmp/p.uir"
	printf 'loop g 3 global {\n  let v = load x g\n}\n' >>"$tmp/p.uir"
	grep -v '^loop\|^  \|^}' "$tmp/p.uir" >"$tmp/bufs.uir"
	"$uir" run "$tmp/bufs.uir" >"$tmp/want" 2>&1 || bad "run of the buffers alone failed"
	# no driver at all (unless this machine has a real one): exit 64, a clear reason
	# (meson puts FAKEDIR on LD_LIBRARY_PATH for the whole test: take it out here)
	nofake=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | grep -vxF "$fake" | paste -sd: -)
	if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
		expect 64 '^uir ptx --run: no CUDA driver' env LD_LIBRARY_PATH="$nofake" "$uir" ptx --run "$tmp/p.uir"
		env LD_LIBRARY_PATH="$nofake" "$uir" test --ptx "$tmp/p.uir" >"$tmp/t0" 2>&1
		grep -q 'SKIP.*ptx: no CUDA driver' "$tmp/t0" && ok || { bad "uir test --ptx without a driver: no skip"; cat "$tmp/t0"; }
	fi
	export LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export FAKE_CUDA_LOG="$tmp/log"
	: >"$tmp/log"
	expect 0 '' "$uir" ptx --run "$tmp/p.uir"
	cmp -s "$tmp/out" "$tmp/want" && ok || { bad "ptx --run printed other buffers than went in"; diff "$tmp/want" "$tmp/out"; }
	# a grid of 0 is not launched; grids, blocks and parameters as render-cuda launches them
	printf 'launch uir_k1 2 8 1\nlaunch uir_k2 3 1 1\n' >"$tmp/wantlog"
	cmp -s "$tmp/log" "$tmp/wantlog" && ok || { bad "launches differ"; diff "$tmp/wantlog" "$tmp/log"; }
	expect 0 'time: kernels' "$uir" ptx --run --time "$tmp/p.uir"
	# 545 buffers (over the 4352 bytes of PTX 7.8: the PTX is 8.1): one launch of 545
	# parameters, and the buffers back (as they went: the stand-in runs no kernel)
	awk 'BEGIN { for (i = 0; i < 545; i++) printf "buffer b%d i32 1\n", i
		print "loop g 1 global {"; print "  loop t 1 local {"
		for (i = 0; i < 545; i++) printf "    store b%d t %d\n", i, i
		print "  }"; print "}" }' >"$tmp/wide.uir"
	: >"$tmp/log"
	expect 0 '' "$uir" ptx --run "$tmp/wide.uir"
	printf 'launch uir_k0 1 1 545\n' >"$tmp/wantlog"
	cmp -s "$tmp/log" "$tmp/wantlog" && ok || { bad "545 buffers: launches differ"; diff "$tmp/wantlog" "$tmp/log"; }
	grep -q '^b544: 0$' "$tmp/out" && ok || bad "545 buffers: b544 did not come back"
	# a 3-D grid of 2-D blocks, and a 1-D grid of 2-D blocks (docs/language.md 6.5): the
	# launches give every dimension, x first
	printf 'buffer o i32 96\nloop gz 2 global {\n  loop gy 3 global {\n    loop gx 4 global {\n      loop ty 1 local {\n' >"$tmp/grid.uir"
	printf '        loop tx 2 local {\n          store o (add (mul (add (mul gz 12) (add (mul gy 4) gx)) 2) tx) 1\n        }\n      }\n    }\n  }\n}\n' >>"$tmp/grid.uir"
	printf 'loop g 2 global {\n  loop ty 4 local {\n    loop tx 8 local {\n      store o (add (mul g 32) (add (mul ty 8) tx)) 2\n    }\n  }\n}\n' >>"$tmp/grid.uir"
	: >"$tmp/log"
	expect 0 '' "$uir" ptx --run "$tmp/grid.uir"
	printf 'launch uir_k0 4x3x2 2x1x1 1\nlaunch uir_k1 2x1x1 8x4x1 1\n' >"$tmp/wantlog"
	cmp -s "$tmp/log" "$tmp/wantlog" && ok || { bad "grids and blocks of 2 and 3 dimensions: launches differ"; diff "$tmp/wantlog" "$tmp/log"; }
	# a recorded fault: run's E0601 for its site, nothing on stdout, exit 1
	printf 'buffer x i32 4\nbuffer n i32 1 = [9]\nloop g 1 global {\n  loop t 4 local {\n    store x (add t (load n 0)) 1\n  }\n}\n' >"$tmp/oob.uir"
	FAKE_CUDA_FAULT=$(((1 << 32) | 9)) expect 1 'error\[E0601\].*x\[9\]' "$uir" ptx --run "$tmp/oob.uir"
	[ -s "$tmp/out" ] && bad "a fault printed buffers"
	# uir test --ptx: the step runs and is compared with run (the fake runs no kernel, so a
	# kernel that changes nothing passes and one that changes something fails)
	printf '# cuda\nbuffer x i32 4 = iota\nloop g 1 global {\n  loop t 4 local {\n    store x t t\n  }\n}\n' >"$tmp/same.uir"
	printf '# cuda\nbuffer x i32 4 = iota\nloop g 1 global {\n  loop t 4 local {\n    store x t 5\n  }\n}\n' >"$tmp/diff.uir"
	"$uir" test --ptx -v "$tmp/same.uir" >"$tmp/t1" 2>&1
	grep -q '^PASS' "$tmp/t1" && ok || { bad "uir test --ptx: same.uir did not pass"; cat "$tmp/t1"; }
	"$uir" test --ptx -v "$tmp/diff.uir" >"$tmp/t2" 2>&1
	grep -q 'ptx differs from run' "$tmp/t2" && ok || { bad "uir test --ptx: diff.uir did not fail on ptx"; cat "$tmp/t2"; }
	finish
	;;
params)
	ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
	[ -x "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null)
	[ -n "$ptxas" ] && [ -x "$ptxas" ] || ptxas=
	# many N: a kernel of N buffer parameters (8 bytes each): N - 1 it stores, one it reads
	many() {
		awk -v n="$(($1 - 1))" 'BEGIN {
			for (i = 0; i < n; i++) printf "buffer b%d f32 2\n", i
			print "buffer r i32 2 = [1 0]"
			print "loop g 1 global {"; print "  loop t 2 local {"
			for (i = 0; i < n; i++) printf "    store b%d t (cast f32 (add (load r t) %d))\n", i, i
			print "  }"; print "}" }' >"$tmp/many$1.uir"
	}
	for n in 544 545 4095; do
		many $n
		f=$tmp/many$n.uir
		case $n in 544) want=7.8 ;; *) want=8.1 ;; esac
		if ! "$uir" ptx "$f" -o "$tmp/k.ptx" 2>"$tmp/err"; then
			bad "uir ptx of $n parameters failed"; head -3 "$tmp/err"; continue
		fi
		v=$(sed -n 's/^\.version //p' "$tmp/k.ptx")
		[ "$v" = "$want" ] && ok || bad "$n parameters: .version $v, want $want"
		[ -z "$ptxas" ] && continue
		if "$ptxas" -arch=sm_90 "$tmp/k.ptx" -o "$tmp/k.cubin" 2>"$tmp/err"; then
			ok
		else
			bad "ptxas rejects the PTX of $n parameters"; head -3 "$tmp/err"
		fi
	done
	# refused: 4096 parameters anywhere, 545 below sm_70 (exit 2, one line, nothing out)
	many 4096
	many 545
	for c in "4096 sm_90" "545 sm_60"; do
		set -- $c
		"$uir" ptx --arch "$2" "$tmp/many$1.uir" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" != 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
			! grep -q "^invalid: line $(($1 + 1)): global loop 'g' uses $1 buffers" "$tmp/err"; then
			bad "$1 buffers for $2: exit $rc, want 2 and one invalid: line"; cat "$tmp/err"
		else
			ok
		fi
	done
	if [ -z "$ptxas" ] && [ "$fail" = 0 ]; then
		echo "params: $pass passed; no ptxas (set PTXAS): its checks skipped"
		exit 77
	fi
	finish
	;;
*)
	echo "usage: ptx_tests.sh ptxas|grep|cli|params|driver UIR DIR..." >&2
	exit 64
	;;
esac
