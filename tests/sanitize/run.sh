#!/bin/sh
# run.sh - builds uir with AddressSanitizer + UndefinedBehaviorSanitizer and runs the test
# suite under it (docs/testing.md, "Sanitizers").
#
#   tests/sanitize/run.sh [--ci] [--build DIR] [TEST...]
#
# Configures DIR (default build-asan, next to build/) with Meson's own option
#   -Db_sanitize=address,undefined  -Db_lundef=false
# and -fno-sanitize-recover=all (the first UBSan report stops the program with a non-zero
# status instead of printing and going on), builds everything, and runs `meson test` on it:
# every test, or the TEST names given, or with --ci the subset CI runs (below). The JIT
# module src/llvm/uir-llvm.so is built and tested too: it is compiled with the sanitizers
# and dlopen'ed by the sanitized uir as usual; the static LLVM libraries linked into it are
# not instrumented (their memory errors would go unseen, ours are caught), and JIT-compiled
# code is not instrumented either.
#
# --ci: the subset CI runs, short tests where uir itself does most of the work: unit-check
# unit-runtime unit-ranges cli runner jit-pool jit-auto jit-programs jit-aot ptx-cli.
# Left out: programs (3.5 minutes under ASan on the idle machine, 24 on a loaded one),
# the fuzz smoke tests (their targets are built with ASan+UBSan by clang in the normal
# suite anyway), gen-ci, gen-bulk*, jit-vs-interp (10 minutes) and jit-fuzz-ops (the JIT
# module loads slowly under ASan), ptx-ptxas, ptx-grep, render-c-*, racecheck and cuda-*
# (long, or mostly time in gcc, clang, ptxas or g++, which are not instrumented). The
# whole suite, run by hand (no TEST named), passed in one run in about 40 minutes with
# NPROC=1 (docs/testing.md, "Sanitizers").
#
# Test timeouts are multiplied by TIMEOUT_MULT (default 5: ASan code runs 2-5 times slower);
# NPROC tests run at once (default 2).
# Environment: ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS are set unless already set
# (leak detection on, abort on the first error, a stack trace for UBSan). Exit status:
# meson test's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-asan
ci=0
while [ $# -gt 0 ]; do
	case $1 in
	--ci) ci=1; shift ;;
	--build) build=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "usage: $0 [--ci] [--build DIR] [TEST...]" >&2; exit 64 ;;
	*) break ;;
	esac
done
cd "$root"
opts="--native-file native-llvm19.ini -Db_sanitize=address,undefined -Db_lundef=false
  -Dc_args=-fno-sanitize-recover=all -Dcpp_args=-fno-sanitize-recover=all
  -Dbuildtype=debugoptimized"
if [ -f "$build/build.ninja" ]; then
	# shellcheck disable=SC2086
	meson setup --reconfigure "$build" $opts >/dev/null
else
	# shellcheck disable=SC2086
	meson setup "$build" $opts >/dev/null
fi
ninja -C "$build"
: "${ASAN_OPTIONS:=halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1:strict_string_checks=1:detect_stack_use_after_return=1}"
: "${UBSAN_OPTIONS:=halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1}"
# use_tls=0: gcc 12's LeakSanitizer crashes ("Tracer caught signal 11", a bogus DTLS range)
# when it scans the dynamic TLS of a process that dlopen'ed uir-llvm.so and ran threads
# (`uir ptx` on some programs); not scanning TLS as a root avoids it. print_suppressions=0:
# the summary of suppressed leaks (LSan's own `*tls_get_addr*`) would change the standard
# error of a failing run, which `uir test` compares between engines.
# suppressions: tests/sanitize/lsan.supp (what use_tls=0 makes LSan see as leaks).
: "${LSAN_OPTIONS:=use_tls=0:print_suppressions=0:suppressions=$here/lsan.supp}"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
if [ $# -eq 0 ] && [ $ci -eq 1 ]; then
	want="unit-check unit-runtime unit-ranges cli runner jit-pool jit-auto jit-programs jit-aot
	  ptx-cli"
	set --
	for t in $(meson test -C "$build" --list 2>/dev/null | sed -n 's/^uir[^ ]* \/ //p'); do
		case " $(echo $want) " in *" $t "*) set -- "$@" "$t" ;; esac
	done
fi
start=$(date +%s)
status=0
meson test -C "$build" --num-processes "${NPROC:-2}" --timeout-multiplier "${TIMEOUT_MULT:-5}" \
	--print-errorlogs "$@" || status=$?
echo "sanitize: meson test under ASan+UBSan took $(( $(date +%s) - start )) s (status $status)"
exit $status
