# expect.sh - what the command-line test scripts share (sourced by cli_tests.sh and
# scale_tests.sh): a work folder $tmp removed on exit, the pass/fail counters, and
#   expect STATUS PATTERN-ON-STDERR command...
# which runs the command under a 60 s timeout (a hang fails, it never stalls the suite),
# with its standard output in $tmp/out and its standard error in $tmp/err, and counts a
# pass when it exits STATUS and (unless PATTERN is empty) its standard error matches.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() {
	want=$1 pat=$2
	shift 2
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then bad "$* exited $got, want $want"; head -c 2000 "$tmp/err"; return; fi
	if [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then bad "$*: stderr lacks '$pat'"; head -c 2000 "$tmp/err"; return; fi
	ok
}
