#!/usr/bin/env bash
# jit_bench.sh - the LLVM JIT against hand-written C of the same loops (bench/kernels/):
# execution time of `uir run --engine jit --threads 1` (the kernel call only, from --time)
# against the C kernel built with gcc and with clang at -O3 -march=native
# -ffp-contract=off (no fast-math, as the JIT), median of RUNS runs each. The column aot
# is the same JIT code (`uir compile`) linked into the C kernel's own harness in place of
# the C kernel: same process, same 64-byte aligned buffers, so it compares the generated
# code alone. The column render is the C of `uir render NAME.uir` built with RENDER_CC
# (default clang) at the C kernels' flags and linked into the same harness the same way:
# the two native paths (LLVM from the JIT, the portable C through a C compiler) side by
# side. Then the JIT's compile latency (lowering + optimisation + code generation) and the
# time to load the back end.
#
#   bench/jit_bench.sh [UIR [RUNS]]        (UIR default build/src/uir, RUNS default 5)
#
# Every column is timed in PROCS (default 3) processes, interleaved with the other columns,
# each the median of RUNS runs inside the process (the JIT through `uir run --repeat RUNS`,
# the C through the harness's loop, both giving the buffers their values before each run);
# a column shows the median of the processes.
#
# Environment: CC_LIST (default "gcc clang-19 clang"; the ones found are used), RENDER_CC,
# KERNELS (default: all of bench/kernels/*.uir), CPU_TIME=1 to time with the process's
# CPU clock instead of the wall clock on both sides (steadier on a busy machine; the
# kernels run on one thread).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
uir=${1:-build/src/uir}
runs=${2:-5}
procs=${PROCS:-3}
if [ ! -x "$uir" ]; then
	echo "jit_bench.sh: no uir binary at '$uir' (pass its path as the first argument)" >&2
	exit 64
fi
kernels=${KERNELS:-$(cd "$here/kernels" && for f in *.uir; do [ -f "${f%.uir}.c" ] && echo "${f%.uir}"; done)}
ccs=""
for cc in ${CC_LIST:-gcc clang-19 clang}; do
	if command -v "$cc" >/dev/null 2>&1; then
		ccs="$ccs $cc"
	fi
done
if [ "${CPU_TIME:-0}" = 1 ]; then
	export UIR_TIME_CPU=1 BENCH_CPU=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

# field NAME of a --time line: "lowering 0.63 ms" -> 0.63
field() { sed -n "s/.*$1 \([0-9.]*\) ms.*/\1/p"; }

render_cc=${RENDER_CC:-clang}
if ! command -v "$render_cc" >/dev/null 2>&1; then
	echo "jit_bench.sh: RENDER_CC '$render_cc' not found" >&2
	exit 64
fi
printf '%-14s %10s %10s %10s' kernel jit_ms aot_ms render_ms
for cc in $ccs; do printf ' %10s' "${cc}_ms"; done
printf ' %8s %8s %8s %10s %10s %8s %8s\n' jit/best aot/best rndr/best compile_ms load_ms same_bits rndr_bits
for k in $kernels; do
	for cc in $ccs; do
		"$cc" -O3 -march=native -ffp-contract=off -std=c11 -o "$tmp/$k.$cc" "$here/kernels/$k.c"
	done
	"$uir" compile "$here/kernels/$k.uir" -o "$tmp/$k.o"
	cc -O2 -std=c11 -DUIR_AOT -o "$tmp/$k.aot" "$here/kernels/$k.c" "$tmp/$k.o" -lm
	"$uir" render "$here/kernels/$k.uir" -o "$tmp/$k.render.c"
	"$render_cc" -O3 -march=native -ffp-contract=off -std=c11 -pthread -c -o "$tmp/$k.render.o" "$tmp/$k.render.c"
	cc -O2 -std=c11 -DUIR_RENDERED -o "$tmp/$k.render" "$here/kernels/$k.c" "$tmp/$k.render.o" -pthread -lm
	"$uir" render --main "$here/kernels/$k.uir" -o "$tmp/$k.main.c"
	"$render_cc" -O3 -march=native -ffp-contract=off -std=c11 -pthread -o "$tmp/$k.main" "$tmp/$k.main.c" -lm
	# PROCS rounds; in each, every contender once, interleaved (so that a drift of the
	# machine's speed falls on all of them alike), each timing RUNS runs in its process
	# (the JIT with --repeat) and giving their median; a column is the median of its rounds.
	rm -f "$tmp"/t.*
	for _ in $(seq "$procs"); do
		"$uir" run --engine jit --threads 1 --time --repeat "$runs" --hash "$here/kernels/$k.uir" >"$tmp/out" 2>"$tmp/err"
		field execution <"$tmp/err" >>"$tmp/t.jit"
		awk -v l="$(field lowering <"$tmp/err")" -v o="$(field optimisation <"$tmp/err")" \
			-v j="$(field JIT <"$tmp/err")" 'BEGIN { print l + o + j }' >>"$tmp/t.compile"
		field load <"$tmp/err" >>"$tmp/t.load"
		"$tmp/$k.aot" "$runs" | awk '{ print $2 }' >>"$tmp/t.aot"
		"$tmp/$k.render" "$runs" | awk '{ print $2 }' >>"$tmp/t.render"
		for cc in $ccs; do
			"$tmp/$k.$cc" "$runs" | awk '{ print $2 }' >>"$tmp/t.cc.$cc"
		done
	done
	"$uir" run --engine interp --hash "$here/kernels/$k.uir" >"$tmp/ref" 2>/dev/null || true
	ok=no
	cmp -s "$tmp/out" "$tmp/ref" && ok=yes
	# (the full print of the JIT, whose bits are checked above, against the rendered main's)
	rok=no
	"$tmp/$k.main" | cksum >"$tmp/rout" && "$uir" run --engine jit "$here/kernels/$k.uir" | cksum >"$tmp/rref" &&
		cmp -s "$tmp/rout" "$tmp/rref" && rok=yes
	jit=$(median <"$tmp/t.jit")
	aot=$(median <"$tmp/t.aot")
	rendered=$(median <"$tmp/t.render")
	best=""
	line=""
	for cc in $ccs; do
		t=$(median <"$tmp/t.cc.$cc")
		line="$line $(printf ' %10s' "$t")"
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	ratio=$(awk -v a="$jit" -v b="$best" 'BEGIN { printf "%.2f", a / b }')
	aratio=$(awk -v a="$aot" -v b="$best" 'BEGIN { printf "%.2f", a / b }')
	rratio=$(awk -v a="$rendered" -v b="$best" 'BEGIN { printf "%.2f", a / b }')
	printf '%-14s %10s %10s %10s%s %8s %8s %8s %10s %10s %8s %8s\n' "$k" "$jit" "$aot" "$rendered" "$line" \
		"$ratio" "$aratio" "$rratio" "$(median <"$tmp/t.compile")" "$(median <"$tmp/t.load")" "$ok" "$rok"
done
