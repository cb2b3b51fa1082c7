#!/usr/bin/env bash
# racecheck_all.sh - `uir run --racecheck` against the static race check, on every test
# program, plus the exact-race cases of tests/racecheck/cases/.
#
#   tests/racecheck/racecheck_all.sh [UIR [DIR...]]
#
# UIR is the uir binary (default build/src/uir); DIRs are searched for .uir files (default
# tests/programs). For every program:
#
#   * `check` accepts it (with the default rules): `run --racecheck` must report no race
#     (no E0504), and its exit status and standard output must equal those of
#     `run --engine interp` (the check changes nothing else);
#   * `check` rejects it with E05xx and its message names a colliding pair ("threads t=0 and
#     t=1 both write ...", "thread t=1 writes tile[1], which thread t=0 reads"): a real
#     collision, so `run --racecheck` must report E0504;
#   * `check` rejects it with E05xx conservatively ("the rule is conservative here") or
#     without naming a pair: listed with what `run --racecheck` says, not a failure;
#   * `check` rejects it with another code: not runnable, counted.
#
# Then each tests/racecheck/cases/*.uir must give exactly the diagnostic in its
# `# racecheck: ...` lines (see docs/testing.md), run with the options of its
# `# racecheck options: ...` line if any. Exits 1 when anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
uir=${1:-$root/build/src/uir}
shift 2>/dev/null || true
if [ ! -x "$uir" ]; then
	echo "racecheck_all.sh: no uir binary at '$uir'" >&2
	exit 64
fi
dirs=()
for d in "$@"; do
	[ -e "$d" ] && dirs+=("$d") # a missing folder is skipped
done
if [ $# -eq 0 ]; then
	dirs=("$root/tests/programs")
fi
limit=${RACECHECK_TIMEOUT:-120}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail=0
n_acc=0 n_real=0 n_real_found=0 n_cons=0 n_cons_found=0 n_other=0 n_skip=0
cons_list=""

bad() {
	echo "FAIL $*"
	fail=$((fail + 1))
}

while IFS= read -r f; do
	"$uir" check "$f" >/dev/null 2>"$tmp/check.err"
	crc=$?
	if [ $crc -eq 0 ]; then
		n_acc=$((n_acc + 1))
		# shellcheck disable=SC2046 # `# racecheck options: --only s` -> two words
	timeout "$limit" "$uir" run --racecheck $(sed -n 's/^# racecheck options: //p' "$f") "$f" >"$tmp/rc.out" 2>"$tmp/rc.err"
		rrc=$?
		if grep -q 'E0504' "$tmp/rc.err"; then
			bad "$f: check accepts it but --racecheck finds a race (a bug in check?):"
			sed 's/^/    /' "$tmp/rc.err" | head -8
			continue
		fi
		timeout "$limit" "$uir" run --engine interp "$f" >"$tmp/plain.out" 2>/dev/null
		prc=$?
		if [ $rrc -ne $prc ] || ! cmp -s "$tmp/rc.out" "$tmp/plain.out"; then
			bad "$f: run --racecheck (exit $rrc) differs from run --engine interp (exit $prc)"
			head -3 "$tmp/rc.err" | sed 's/^/    /'
		fi
		continue
	fi
	code=$(grep -o -m1 'error\[E[0-9]*\]' "$tmp/check.err" | tr -dc 'E0-9')
	case $code in
	E05*) ;;
	*)
		n_skip=$((n_skip + 1))
		continue
		;;
	esac
	# shellcheck disable=SC2046 # `# racecheck options: --only s` -> two words
	timeout "$limit" "$uir" run --racecheck $(sed -n 's/^# racecheck options: //p' "$f") "$f" >"$tmp/rc.out" 2>"$tmp/rc.err"
	rrc=$?
	found=no
	grep -q 'error\[E0504\]' "$tmp/rc.err" && found=yes
	if [ $found = yes ] && { [ $rrc -ne 1 ] || [ -s "$tmp/rc.out" ]; }; then
		bad "$f: E0504 but exit $rrc or output on stdout"
	fi
	# "threads t=0 and t=1 both write s[0]", "thread t=1 writes tile[1], which thread t=0 reads";
	# in a grid or block of 2 or 3 dimensions a tuple "(ty=0, tx=1)" stands for "t=1"
	it='([A-Za-z_0-9]+=-?[0-9]+|\(([A-Za-z_0-9]+=-?[0-9]+, )+[A-Za-z_0-9]+=-?[0-9]+\))'
	if grep -Eq "[a-z]+ $it (and $it both|writes [^ ]+( \\(line [0-9]+\\))?, which [a-z]+ $it reads)" "$tmp/check.err"; then
		n_real=$((n_real + 1))
		if [ $found = yes ]; then
			n_real_found=$((n_real_found + 1))
		else
			bad "$f: check names a real collision ($code) but --racecheck finds no race (exit $rrc)"
			grep -E 'both|which' "$tmp/check.err" | head -2 | sed 's/^/    /'
			head -3 "$tmp/rc.err" | sed 's/^/    /'
		fi
		continue
	fi
	if grep -q 'conservative' "$tmp/check.err"; then
		n_cons=$((n_cons + 1))
		[ $found = yes ] && n_cons_found=$((n_cons_found + 1))
		what="no race (exit $rrc)"
		[ $found = yes ] && what="race: $(grep -m1 'error\[E0504\]' "$tmp/rc.err" | sed 's/.*race: //')"
		cons_list+="  conservative $code ${f#"$root/"}: $what"$'\n'
		continue
	fi
	n_other=$((n_other + 1))
	what="no race (exit $rrc)"
	[ $found = yes ] && what="race: $(grep -m1 'error\[E0504\]' "$tmp/rc.err" | sed 's/.*race: //')"
	cons_list+="  no pair named $code ${f#"$root/"}: $what"$'\n'
done < <([ ${#dirs[@]} -eq 0 ] || find "${dirs[@]}" -name '*.uir' ! -path '*/racecheck/cases/*' | sort)

# ---- exact cases ----
n_case=0
for f in "$here"/cases/*.uir; do
	n_case=$((n_case + 1))
	want_rc=$(sed -n 's/^# racecheck exit: //p' "$f")
	want_rc=${want_rc:-1}
	# shellcheck disable=SC2046 # `# racecheck options: --only s` -> two words
	timeout "$limit" "$uir" run --racecheck $(sed -n 's/^# racecheck options: //p' "$f") "$f" >"$tmp/rc.out" 2>"$tmp/rc.err"
	rrc=$?
	[ $rrc -eq "$want_rc" ] || bad "${f#"$root/"}: exit $rrc, expected $want_rc"
	if [ "$want_rc" -ne 0 ] && [ -s "$tmp/rc.out" ]; then
		bad "${f#"$root/"}: output on stdout after a race"
	fi
	while IFS= read -r want; do
		[ "$want" = none ] && continue
		grep -qF -- "$want" "$tmp/rc.err" || {
			bad "${f#"$root/"}: standard error lacks: $want"
			sed 's/^/    /' "$tmp/rc.err" | head -8
		}
	done < <(sed -n 's/^# racecheck: //p' "$f")
	if grep -q '^# racecheck: none' "$f" && grep -q E0504 "$tmp/rc.err"; then
		bad "${f#"$root/"}: a race reported where there is none"
	fi
done

echo "accepted by check: $n_acc programs, no race reported by --racecheck unless listed as FAIL"
echo "rejected with a named collision: $n_real, race found by --racecheck in $n_real_found"
echo "rejected conservatively: $n_cons (race found in $n_cons_found); rejected without a named pair: $n_other"
printf '%s' "$cons_list"
echo "not runnable (E01-E04 or E0301): $n_skip; exact cases: $n_case"
if [ $fail -ne 0 ]; then
	echo "$fail failed"
	exit 1
fi
echo "all passed"
