#!/usr/bin/env bash
# naive.sh - kernels as a user writes them (bench/naive/NAME.uir: plain loops, the
# parallelism left to uir's optimiser) against their C twins (bench/naive/NAME.c: the same
# inputs and the same float operations in the same order, one thread) built with gcc and
# clang at -O3 -march=native -ffp-contract=off (no fast-math).
#
#   bench/naive.sh [UIR [RUNS]]        (UIR default build/src/uir, RUNS default 3)
#
# Each kernel runs RUNS rounds; in each, every contender once, interleaved (uir at
# --threads 1, uir at its default thread count, gcc's twin, clang's twin), each a whole
# process: `uir run [--threads 1] --time --hash --only OUT NAME.uir` (OUT is named by the
# program's "# out:" line) and the twin (which prints OUT's hash the same way). Columns,
# medians of the rounds, ms: kernel (uir: the `execution` field of --time; C: the twin's
# own "kernel X ms" line) and process (wall, with its CPU time user + system in brackets),
# then uir / gcc and uir / best C of both. bits: OK when every run of every contender
# printed the same hash, DIFF otherwise (a bug: uir is bit-exact). engine: the one `uir
# run` chose (auto: small programs are interpreted). NAME_priv.c is a second C twin of
# NAME.uir, privatised on pthreads (UIR_THREADS, else the cores), on a row of its own.
#
# Environment: KERNELS (default: every bench/naive/*.c), ENGINE (jit or interp: passed to
# `uir run --engine`; default auto), CPU_TIME=1 to time the kernels with the process's CPU
# clock instead of the wall clock (both sides).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
uir=${1:-build/src/uir}
runs=${2:-3}
if [ ! -x "$uir" ]; then
	echo "usage: bench/naive.sh [UIR [RUNS]] (no uir binary at '$uir')" >&2
	exit 64
fi
kernels=${KERNELS:-$(cd "$here/naive" && for f in *.c; do echo "${f%.c}"; done)}
ccs=gcc
for cc in clang-19 clang; do
	if command -v "$cc" >/dev/null 2>&1; then ccs="$ccs $cc" && break; fi
done
if [ "${CPU_TIME:-0}" = 1 ]; then
	export UIR_TIME_CPU=1 BENCH_CPU=1
fi
nt=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b ? a : b) }'; }

# timed NAME CMD...: runs CMD (stdout to $tmp/out, stderr to $tmp/err) and keeps, for
# contender NAME, the process's wall and CPU ms, its kernel ms and its hash line.
TIMEFORMAT='%R %U %S'
timed() {
	name=$1
	shift
	{ time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/time"
	awk '{ print $1 * 1000 >> "'"$tmp/$name.wall"'"; print ($2 + $3) * 1000 >> "'"$tmp/$name.cpu"'" }' "$tmp/time"
	sed -n 's/.*execution \([0-9.]*\) ms.*/\1/p; s/^kernel \([0-9.]*\) ms$/\1/p' "$tmp/err" >>"$tmp/$name.kernel"
	cat "$tmp/out" >>"$tmp/hashes"
}

ncol=0
printf '| kernel | bits | engine |'
for w in k proc; do
	for c in "uir t1" "uir t$nt" $ccs; do printf ' %s %s |' "$c" "$w" && ncol=$((ncol + 1)); done
done
for w in k proc; do for r in gcc best; do for t in 1 "$nt"; do
	printf ' %s t%s/%s |' "$w" "$t" "$r" && ncol=$((ncol + 1))
done; done; done
printf '\n|---|---|---|%s\n' "$(for _ in $(seq "$ncol"); do printf -- '---|'; done)"
for k in $kernels; do
	prog=$here/naive/$k.uir
	[ -f "$prog" ] || prog=$here/naive/${k%_priv}.uir
	out=$(sed -n 's/^# out: \([A-Za-z0-9_]*\).*/\1/p' "$prog")
	for cc in $ccs; do
		"$cc" -O3 -march=native -ffp-contract=off -std=c11 -pthread -o "$tmp/$k.$cc" "$here/naive/$k.c" -lm \
			2>"$tmp/cc.log" || { cat "$tmp/cc.log" >&2; exit 1; }
	done
	rm -f "$tmp"/*.wall "$tmp"/*.cpu "$tmp"/*.kernel "$tmp/hashes"
	for _ in $(seq "$runs"); do
		timed u1 "$uir" run ${ENGINE:+--engine "$ENGINE"} --threads 1 --time --hash --only "$out" "$prog"
		timed un "$uir" run ${ENGINE:+--engine "$ENGINE"} --time --hash --only "$out" "$prog"
		engine=$(sed -n 's/^time (\([a-z]*\)).*/\1/p' "$tmp/err")
		for cc in $ccs; do timed "$cc" "$tmp/$k.$cc"; done
	done
	bits=DIFF
	[ "$(sort -u "$tmp/hashes" | wc -l)" = 1 ] && bits=OK
	[ "$bits" = OK ] || { echo "naive.sh: $k: the hashes differ (count, hash):" && sort "$tmp/hashes" | uniq -c; } >&2
	kcells="" pcells="" kbest="" pbest=""
	for c in u1 un $ccs; do
		kt=$(median <"$tmp/$c.kernel")
		pt=$(median <"$tmp/$c.wall")
		kcells="$kcells $(printf '%.1f' "$kt") |"
		pcells="$pcells $pt ($(median <"$tmp/$c.cpu")) |"
		case $c in u1 | un) ;; *)
			kbest=$(min "$kt" "${kbest:-$kt}")
			pbest=$(min "$pt" "${pbest:-$pt}") ;;
		esac
	done
	ku1=$(median <"$tmp/u1.kernel") kun=$(median <"$tmp/un.kernel") kgcc=$(median <"$tmp/gcc.kernel")
	pu1=$(median <"$tmp/u1.wall") pun=$(median <"$tmp/un.wall") pgcc=$(median <"$tmp/gcc.wall")
	printf '| %s | %s | %s |%s%s %s | %s | %s | %s | %s | %s | %s | %s |\n' "$k" "$bits" "$engine" "$kcells" "$pcells" \
		"$(ratio "$ku1" "$kgcc")" "$(ratio "$kun" "$kgcc")" "$(ratio "$ku1" "$kbest")" "$(ratio "$kun" "$kbest")" \
		"$(ratio "$pu1" "$pgcc")" "$(ratio "$pun" "$pgcc")" "$(ratio "$pu1" "$pbest")" "$(ratio "$pun" "$pbest")"
done
echo
echo "(${ENGINE:+ENGINE=$ENGINE }bench/naive.sh $uir $runs, $(date +%F), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"ms, medians of $runs interleaved rounds; kernel times $([ "${CPU_TIME:-0}" = 1 ] && echo CPU || echo wall-clock);" \
	"C: $ccs at -O3 -march=native -ffp-contract=off)"
