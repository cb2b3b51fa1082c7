#!/usr/bin/env bash
# run_tests.sh - tests of `uir test`, the test runner, against a stand-in compiler.
#
# Usage: tests/runner/run_tests.sh UIR
#   UIR: the uir binary whose `test` command is tested (for example build/uir).
#
# Every check runs `UIR test --uir fake_uir.sh ...` on the small programs in cases/, so the
# runner's behaviour is tested without depending on the real check/run: pass and fail
# verdicts and their messages, the second engine (jit) against the first (interp), `# expect` in every type (NaN, -0), timeouts that kill a
# whole process group, -j, --shard, --junit (parsed with python3 when it is there), -v,
# --engine, usage errors, the progress line on a terminal. Buffer types still come from the
# real uir_load() linked into UIR, so the cases are valid programs.
# Needs bash, coreutils, seq, sed; python3 is optional (the JUnit and terminal checks).
# Prints one line per failed check and a summary; exits 1 when any check failed.

set -u
if [ $# -ne 1 ]; then
	echo "usage: $0 UIR" >&2
	exit 64
fi
uir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/uir-runner-tests-XXXXXX")
trap 'rm -rf "$work"' EXIT
fake=$work/fake_uir.sh
cp "$here/fake_uir.sh" "$fake" && chmod +x "$fake" || exit 1
cd "$here/cases" || exit 1
unset CC FAKE_UIR_LOG FAKE_UIR_ENGINE FAKE_UIR_PIDS

checks=0
failed=0
ok() { checks=$((checks + 1)); }
bad() {
	checks=$((checks + 1))
	failed=$((failed + 1))
	echo "FAILED: $*"
}
# t ARGS...: runs the runner; stdout in $work/out, stderr in $work/err, status in $rc.
t() {
	"$uir" test --uir "$fake" "$@" >"$work/out" 2>"$work/err"
	rc=$?
}
want_rc() { [ "$rc" -eq "$1" ] && ok || bad "$2: exit status $rc, wanted $1"; }
want_line() { grep -qxF -- "$1" "$work/out" && ok || bad "$2: no line '$1' in: $(cat "$work/out")"; }
want_last() { [ "$(tail -n 1 "$work/out")" = "$1" ] && ok || bad "$2: last line '$(tail -n 1 "$work/out")', wanted '$1'"; }
want_err() { grep -qF -- "$1" "$work/err" && ok || bad "$2: stderr lacks '$1': $(cat "$work/err")"; }

# ---- passing tests: every mode that can pass, the folder search, the skipped files ----
t -j 2 --timeout 30 pass
want_rc 0 "pass folder"
want_last "12 passed, 0 failed, 0 skipped" "pass folder"
for f in error expect_f32 expect_types fault nan plain prose strict sub/nested big; do
	want_line "PASS pass/$f.uir" "pass folder"
done
grep -q -e hidden -e notes -e ref.cu "$work/out" && bad "pass folder: collected a file it should skip"
grep -q $'\r' "$work/out" && bad "pass folder: a progress line on a pipe"
if grep -qxF "PASS pass/render.uir" "$work/out"; then
	render=1
else
	render=0
	want_line "PASS pass/render.uir (not run: render: not implemented yet)" "render note"
fi
if ! grep -qxF "PASS pass/cuda_invalid.uir" "$work/out"; then
	want_line "PASS pass/cuda_invalid.uir (not run: cuda: invalid: not implemented yet)" \
		"cuda: invalid note"
fi

# ---- failing tests: one reason each ----
t -j 3 fail
want_rc 1 "fail folder"
want_last "0 passed, 15 failed, 0 skipped" "fail folder"
while IFS= read -r line; do
	want_line "$line" "fail folder"
done <<'EOF'
FAIL fail/contradiction.uir: directives: # error E0503 cannot be combined with # render
FAIL fail/crash.uir: run was killed by signal 11 (Segmentation fault)
FAIL fail/error_accepted.uir: expected error E0502, but check accepted the program
FAIL fail/error_other.uir: expected error E0503, check reported E0501: fail/error_other.uir:3:5: error[E0501]: offset is not a unique number
FAIL fail/expect_badvalue.uir: expect n: value 1, '300', is not a u8 value
FAIL fail/expect_count.uir: expect out: 3 values given, the buffer has 4
FAIL fail/expect_nobuf.uir: expect nope: the program has no buffer nope
FAIL fail/expect_value.uir: expect out: element 3 is 4, expected 5
FAIL fail/fault_ran.uir: expected a fault (E0601), but run succeeded
FAIL fail/internal.uir: run exited 70: internal error: unreachable in lower.c:12
FAIL fail/negzero.uir: expect z: element 0 is -0, expected 0
FAIL fail/run_error.uir: run exited 1: fail/run_error.uir:3:5: error[E0601]: store out of bounds: out[9], size 4
FAIL fail/strict_fails.uir: check exited 1: fail/strict_fails.uir:3:5: error[E0501]: strict: a guarded sum is an extension
FAIL fail/two_expects.uir: directives: two # expect lines for buffer out (lines 1 and 2)
EOF
grep -q '^FAIL fail/xml.uir: run exited 1: bad <&>' "$work/out" && ok || bad "xml failure line"
grep -qxF "failed:" "$work/out" && ok || bad "no list of failed tests"

# ---- render: the rendered C must print what run printed ----
t render/differs.uir
if [ $render = 1 ]; then
	want_rc 1 "render differs"
	want_line "FAIL render/differs.uir: rendered C differs from run: buffer y, element 1: run printed 2.5, rendered C printed 2.25" "render differs"
	CC=/nonexistent/cc t pass/render.uir
	want_rc 0 "render without a C compiler"
	want_line "SKIP pass/render.uir: render: no C compiler (/nonexistent/cc not found)" "render skip"
	want_last "0 passed, 0 failed, 1 skipped" "render skip"
else
	want_rc 0 "render not implemented"
fi

# ---- huge outputs: the runner's memory does not grow with them, differences are found ----
# peak ARGS...: runs the runner as t does; $rc its status, $peak_kb the largest resident
# size (KiB) of it and every process it waited for (its children here are the stand-in's
# shell, yes, head, tr and cc: small). Needs python3 (getrusage of the children).
peak() {
	set -- $(/usr/bin/python3 - "$uir" "$fake" "$work" "$@" <<'EOF'
import resource, subprocess, sys
uir, fake, work, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with open(work + "/out", "wb") as o, open(work + "/err", "wb") as e:
    rc = subprocess.call([uir, "test", "--uir", fake] + args, stdout=o, stderr=e)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
)
	rc=$1 peak_kb=$2
}
if [ -x /usr/bin/python3 ]; then
	# 80 MB of output on each engine: the runner kept both and a copy (over 300 MB)
	peak -j 1 huge/same.uir
	want_rc 0 "huge output"
	want_line "PASS huge/same.uir" "huge output"
	[ "$peak_kb" -lt 102400 ] && ok || bad "huge output: the runner's peak RSS was $peak_kb KiB (bound 100 MiB)"
	peak -j 1 -v huge/jit_differs.uir huge/expect_end.uir
	want_rc 1 "huge differences"
	want_line "FAIL huge/jit_differs.uir: jit differs from interp: buffer big, element 39999999: interp printed 0, jit printed 1" "huge jit"
	want_line "FAIL huge/expect_end.uir: expect y: element 2 is 3, expected 4" "huge expect"
	[ "$peak_kb" -lt 102400 ] && ok || bad "huge differences: the runner's peak RSS was $peak_kb KiB (bound 100 MiB)"
	# -v shows the head of the output, not all of it
	[ "$(wc -c < "$work/out")" -lt 1000000 ] && ok || bad "huge -v: $(wc -c < "$work/out") bytes of report"
	grep -q "^    \.\.\. ([0-9]* more bytes)$" "$work/out" && ok || bad "huge -v: no '... (N more bytes)' line"
	if [ $render = 1 ]; then
		peak -j 1 huge/render_differs.uir
		want_line "FAIL huge/render_differs.uir: rendered C differs from run: buffer big, element 39999999: run printed 0, rendered C printed 2" "huge render"
		[ "$peak_kb" -lt 102400 ] && ok || bad "huge render: the runner's peak RSS was $peak_kb KiB (bound 100 MiB)"
	fi
fi

# ---- -v prints the failing step's command and outputs ----
t -v fail/expect_value.uir
want_line "    \$ $fake run --engine interp -- fail/expect_value.uir" "-v"
want_line "    out: 1 2 3 4" "-v"
t fail/expect_value.uir
grep -q '^    ' "$work/out" && bad "outputs printed without -v"

# ---- --engine and # strict reach the child's command line ----
export FAKE_UIR_LOG=$work/log FAKE_UIR_ENGINE=jit
t --engine jit pass/plain.uir pass/strict.uir
want_rc 0 "--engine jit"
grep -qxF "run --engine jit -- pass/plain.uir" "$work/log" && ok || bad "--engine not passed: $(cat "$work/log")"
grep -qxF "check --strict -- pass/strict.uir" "$work/log" && ok || bad "# strict not passed: $(cat "$work/log")"
grep -q -- "--engine interp" "$work/log" && bad "--engine jit also ran interp: $(cat "$work/log")"
t --engine interp pass/plain.uir
want_rc 1 "--engine interp against a stand-in that wants jit"
unset FAKE_UIR_LOG FAKE_UIR_ENGINE

# ---- every run-test runs on both engines, the JIT compared with the interpreter ----
export FAKE_UIR_LOG=$work/log
: >"$work/log"
t pass/plain.uir pass/fault.uir
want_rc 0 "both engines"
# (every path follows `--`, so that a test named -rf.uir is not read as options)
for l in "run --engine interp -- pass/plain.uir" "run --engine jit -- pass/plain.uir" \
	"run --engine interp -- pass/fault.uir" "run --engine jit -- pass/fault.uir"; do
	grep -qxF "$l" "$work/log" && ok || bad "both engines: no '$l' in: $(cat "$work/log")"
done
: >"$work/log"
t --engine interp pass/plain.uir
grep -q -- "--engine jit" "$work/log" && bad "--engine interp also ran the jit: $(cat "$work/log")"
unset FAKE_UIR_LOG
t -j 2 jit
want_rc 1 "jit folder"
want_last "1 passed, 4 failed, 0 skipped" "jit folder"
while IFS= read -r line; do
	want_line "$line" "jit folder"
done <<'EOF'
PASS jit/same.uir
FAIL jit/differs.uir: jit differs from interp: buffer out, element 3: interp printed 4, jit printed 5
FAIL jit/crash.uir: run --engine jit was killed by signal 11 (Segmentation fault)
FAIL jit/fault_missed.uir: jit differs from interp: interp faulted (E0601), jit ran to the end
FAIL jit/fault_other.uir: jit differs from interp: standard error, line 1: interp printed 'jit/fault_other.uir:3:5: error[E0601]: store out of bounds: out[9], size 4', jit printed 'jit/fault_other.uir:3:5: error[E0601]: store out of bounds: out[7], size 4'
EOF
# without the LLVM back end the JIT step is noted as not run, and the tests pass
FAKE_UIR_NO_JIT=1 t -j 1 jit/same.uir pass/plain.uir pass/fault.uir
want_rc 0 "no jit"
want_line "PASS pass/plain.uir (not run: jit: the LLVM back end (uir-llvm.so) is not installed next to uir)" "no jit"
want_line "PASS pass/fault.uir (not run: jit: the LLVM back end (uir-llvm.so) is not installed next to uir)" "no jit"
want_last "3 passed, 0 failed, 0 skipped" "no jit"

# ---- a test past its time limit is killed with its whole process group ----
export FAKE_UIR_PIDS=$work/pids
start=$(date +%s)
t --timeout 1 timeout
end=$(date +%s)
want_rc 1 "timeout"
want_line "FAIL timeout/sleep.uir: timed out after 1 s (in run)" "timeout"
[ $((end - start)) -lt 10 ] && ok || bad "timeout: took $((end - start)) s"
# alive PID: the process exists and is not a zombie (killed, not yet reaped by init)
alive() {
	if [ -r "/proc/$1/stat" ]; then
		! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null && [ -r "/proc/$1/stat" ]
	else
		kill -0 "$1" 2>/dev/null
	fi
}
if [ -s "$work/pids" ]; then
	pid=$(head -n 1 "$work/pids")
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		alive "$pid" || break
		sleep 0.1
	done
	if alive "$pid"; then
		bad "timeout: the stand-in's child $pid survived"
		kill "$pid" 2>/dev/null
	else
		ok
	fi
else
	bad "timeout: the stand-in did not start its child"
fi
unset FAKE_UIR_PIDS

# ---- -j runs tests at once (four tests of 1 s each) ----
start=$(date +%s%N)
t -j 4 parallel
end=$(date +%s%N)
want_rc 0 "-j 4"
ms=$(((end - start) / 1000000))
[ $ms -lt 3500 ] && ok || bad "-j 4: four 1 s tests took $ms ms"

# ---- --shard K/N: test i of the sorted list belongs to shard (i mod N) + 1 ----
t pass fail
sort_all=$(sed -n 's/^\(PASS\|FAIL\|SKIP\) \([^: ]*\).*/\2/p' "$work/out" | LC_ALL=C sort)
for k in 1 2 3; do
	t --shard $k/3 pass fail
	got=$(sed -n 's/^\(PASS\|FAIL\|SKIP\) \([^: ]*\).*/\2/p' "$work/out" | LC_ALL=C sort)
	want=$(echo "$sort_all" | awk -v k=$k 'NR % 3 == k % 3')
	[ "$got" = "$want" ] && ok || bad "--shard $k/3: got [$got], wanted [$want]"
done
t --shard 5/5 pass/plain.uir
want_rc 0 "empty shard"
want_last "0 passed, 0 failed, 0 skipped" "empty shard"

# ---- duplicates are run once ----
t pass/plain.uir pass pass/plain.uir
want_last "12 passed, 0 failed, 0 skipped" "duplicate paths"

# ---- JUnit XML ----
t --junit "$work/junit.xml" pass fail
want_rc 1 "junit run"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$work/junit.xml" >"$work/py" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
fails = [c for c in cases if c.find("failure") is not None]
assert root.tag == "testsuites", root.tag
assert len(cases) == 27, len(cases)
assert len(fails) == 15, len(fails)
assert root.get("tests") == "27" and root.get("failures") == "15", root.attrib
for c in fails:
    assert c.find("failure").get("message"), c.get("name")
x = [c for c in cases if c.get("file") == "fail/xml.uir"][0].find("failure")
assert 'bad <&> "quotes"' in x.get("message"), x.get("message")
assert "caf\u00e9" in x.text, x.text
v = [c for c in cases if c.get("file") == "fail/expect_value.uir"][0]
assert v.get("classname") == "fail" and v.get("name") == "expect_value.uir", v.attrib
assert "out: 1 2 3 4" in v.find("failure").text
print("ok")
EOF
	grep -qxF ok "$work/py" && ok || bad "junit: $(cat "$work/py")"
else
	grep -q '<testsuites' "$work/junit.xml" && ok || bad "junit not written"
fi

# ---- bad usage: exit 64 and say what is wrong ----
t --bogus pass;            want_rc 64 "unknown option"; want_err "unknown option '--bogus'" "unknown option"
t -j 0 pass;               want_rc 64 "-j 0"; want_err "bad -j value '0'" "-j 0"
t --shard 4/3 pass;        want_rc 64 "--shard 4/3"; want_err "bad --shard value '4/3'" "--shard"
t --timeout x pass;        want_rc 64 "--timeout x"; want_err "bad --timeout value 'x'" "--timeout"
t --engine fast pass;      want_rc 64 "--engine fast"; want_err "bad --engine value 'fast'" "--engine"
t no/such/path.uir;        want_rc 64 "no such path"; want_err "no such file or folder: no/such/path.uir" "no such path"
t;                         want_rc 64 "no paths"; want_err "no test paths given" "no paths"
t --junit /nonexistent/x.xml pass; want_rc 64 "--junit unwritable"; want_err "cannot write /nonexistent/x.xml" "--junit"
t --help;                  want_rc 0 "--help"; grep -q '^usage: uir test' "$work/out" && ok || bad "--help text"

# ---- a progress line on a terminal only ----
if command -v python3 >/dev/null 2>&1; then
	python3 - "$uir" "$fake" >"$work/py" 2>&1 <<'EOF'
import os, pty, sys
uir, fake = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(uir, [uir, "test", "--uir", fake, "pass/plain.uir", "pass/nan.uir"])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
assert b"\r[" in out and b"/2] 0 failed" in out, out
assert out.rstrip().endswith(b"2 passed, 0 failed, 0 skipped"), out
print("ok")
EOF
	grep -qxF ok "$work/py" && ok || bad "progress line on a terminal: $(cat "$work/py")"
fi

echo "runner tests: $((checks - failed)) of $checks checks passed"
[ $failed -eq 0 ]
