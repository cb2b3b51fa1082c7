# setup.sh - sourced by the emulator tests of this folder: `. setup.sh NAME`.
# Sets CXX (default c++) and exits 77 (skipped) when it is not found; sets WORK, a
# temporary folder removed when the script exits. Defines the checks' counters: ok, bad
# MESSAGE (prints FAILED: MESSAGE), want REGEX WHAT (a line of $WORK/out matches REGEX),
# and checks_done (the summary line; false when any failed).
CXX=${CXX:-c++}
if ! command -v "${CXX%% *}" >/dev/null 2>&1; then
	echo "$1: no C++ compiler ($CXX): skipped"
	exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
checks=0
failed=0
ok() { checks=$((checks + 1)); }
bad() {
	checks=$((checks + 1))
	failed=$((failed + 1))
	echo "FAILED: $*"
}
want() { grep -qE -- "$1" "$WORK/out" && ok || bad "$2: no line matching '$1' in: $(cat "$WORK/out")"; }
checks_done() {
	echo "$((checks - failed)) of $checks checks passed"
	[ $failed -eq 0 ]
}
