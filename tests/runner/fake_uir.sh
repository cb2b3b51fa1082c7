#!/bin/sh
# fake_uir.sh - a stand-in for `uir` in the test runner's own tests (run_tests.sh).
#
# `uir test --uir fake_uir.sh ...` runs every check through this script, which answers
# `check`, `run`, `render --main` and `render-cuda` from canned behaviour keyed by the test
# file's folder and name (cases/FOLDER/NAME.uir), so each runner feature can be exercised
# without the real compiler. `run --engine jit` answers as `run` does, except for the
# cases in jit/ (a different value, a fault missed or different, a crash) and when
# FAKE_UIR_NO_JIT is set (exit 64: no LLVM back end). Every call is appended to $FAKE_UIR_LOG when it is set.
#
# Usage: fake_uir.sh COMMAND [OPTIONS] FILE

cmd=$1
for a in "$@"; do file=$a; done
dir=${file%/*}
key=${dir##*/}/${file##*/}   # FOLDER/NAME.uir (the cases are always in a folder)
[ -n "${FAKE_UIR_LOG:-}" ] && echo "$*" >> "$FAKE_UIR_LOG"

# huge LAST: `big:` and 40,000,000 values, all 0 but the last, LAST (80 MB, for huge/)
huge() {
	printf 'big:'
	yes ' 0' | head -n 39999999 | tr -d '\n'
	printf ' %s\n' "$1"
}

diag() { # diag CODE MESSAGE: a diagnostic in uir's format, on stderr
	printf '%s:3:5: error[%s]: %s\n  store out 0 1\n    ^\n' "$file" "$1" "$2" >&2
}

case "$cmd" in
check)
	case "$key" in
	pass/error.uir) diag E0503 "race on out"; exit 1 ;;
	fail/error_other.uir) diag E0501 "offset is not a unique number"; exit 1 ;;
	pass/strict.uir|fail/strict_fails.uir)
		case " $* " in
		*" --strict "*) [ "$key" = pass/strict.uir ] && exit 0 ;;
		esac
		diag E0501 "strict: a guarded sum is an extension"; exit 1 ;;
	esac
	exit 0 ;;
run)
	case " $* " in
	*" --engine "*) [ -n "${FAKE_UIR_ENGINE:-}" ] && case " $* " in
		*" --engine $FAKE_UIR_ENGINE "*) ;;
		*) echo "fake: wrong engine" >&2; exit 64 ;;
		esac ;;
	esac
	case " $* " in
	*" --engine jit "*) # the second engine of every run-test (no --engine given to uir test)
		if [ -n "${FAKE_UIR_NO_JIT:-}" ]; then
			echo "uir run: --engine jit: the LLVM back end (uir-llvm.so) is not installed next to uir" >&2
			exit 64
		fi
		case "$key" in
		jit/differs.uir) echo "out: 1 2 3 5"; exit 0 ;;
		jit/fault_missed.uir) echo "out: 0 0 0 0"; exit 0 ;;
		jit/fault_other.uir) diag E0601 "store out of bounds: out[7], size 4"; exit 1 ;;
		jit/crash.uir) kill -SEGV $$ ;;
		huge/jit_differs.uir) huge 1; exit 0 ;;
		parallel/*) echo "out: 0"; exit 0 ;; # -j is timed with the interpreter's sleep only
		esac ;;
	esac
	case "$key" in
	jit/same.uir|jit/differs.uir|jit/crash.uir) echo "out: 1 2 3 4" ;;
	jit/fault_*.uir) diag E0601 "store out of bounds: out[9], size 4"; exit 1 ;;
	pass/plain.uir|pass/expect_f32.uir|fail/expect_value.uir|fail/expect_count.uir|\
	fail/expect_nobuf.uir|pass/prose.uir|sub/nested.uir|fail/fault_ran.uir)
		echo "out: 1 2 3 4" ;;
	pass/strict.uir) echo "out: 3.5 3.5 3.5 3.5" ;;
	pass/expect_types.uir)
		echo "a: -128 127 -1"
		echo "b: 255 0"
		echo "c: -1 2147483647"
		echo "d: 4294967295"
		echo "e: -9223372036854775808"
		echo "f: 18446744073709551615"
		echo "g: 1 0"
		echo "h: 0.1 1e+300" ;;
	pass/nan.uir)
		echo "v: nan nan inf -inf -0 1e-45"
		echo "w: nan 5e-324" ;;
	fail/negzero.uir) echo "z: -0" ;;
	fail/expect_badvalue.uir) echo "n: 1 255" ;;
	pass/render.uir|render/differs.uir) echo "y: 2.5 2.5" ;;
	pass/fault.uir) diag E0601 "load out of bounds: out[4], size 4"; exit 1 ;;
	fail/run_error.uir) diag E0601 "store out of bounds: out[9], size 4"; exit 1 ;;
	fail/internal.uir) echo "internal error: unreachable in lower.c:12" >&2; exit 70 ;;
	fail/crash.uir) echo "half a line" ; kill -SEGV $$ ;;
	fail/xml.uir)
		printf 'bad <&> "quotes" '"'"'apos'"'"' ]]> \001\002 \377\376 caf\303\251\n' >&2
		exit 1 ;;
	pass/big.uir)
		seq -s " " 0 299999 | sed 's/^/big: /'
		seq 1 100000 | sed 's/^/noise on stderr /' >&2 ;;
	timeout/sleep.uir)
		sleep 300 &
		[ -n "${FAKE_UIR_PIDS:-}" ] && echo $! >> "$FAKE_UIR_PIDS"
		wait ;;
	parallel/*) sleep 1; echo "out: 0" ;;
	huge/*) huge 0; [ "$key" = huge/expect_end.uir ] && echo "y: 1 2 3" ;;
	*) echo "fake: no canned run for $key" >&2; exit 1 ;;
	esac
	exit 0 ;;
render)
	# a C program that prints what run printed (or, to fail, something else)
	case "$key" in
	pass/render.uir) want="y: 2.5 2.5" ;;
	render/differs.uir) want="y: 2.5 2.25" ;;
	huge/render_differs.uir) # what huge 2 prints
		printf '#include <stdio.h>\nint main(void) { fputs("big:", stdout); for (long i = 0; i < 39999999; i++) fputs(" 0", stdout); puts(" 2"); return 0; }\n'
		exit 0 ;;
	*) echo "fake: no canned render for $key" >&2; exit 1 ;;
	esac
	printf '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n' "$want"
	exit 0 ;;
render-cuda)
	case "$key" in
	pass/cuda_invalid.uir) echo "invalid: a value computed outside the kernel (line 6)" >&2; exit 2 ;;
	esac
	echo "fake: no canned render-cuda for $key" >&2; exit 1 ;;
esac
echo "fake: unknown command $cmd" >&2
exit 64
