# setup.sh - sourced by the emulator tests of this folder: `. setup.sh NAME`.
# Sets CXX (default c++) and exits 77 (skipped) when it is not found; sets WORK, a
# temporary folder removed when the script exits.
CXX=${CXX:-c++}
if ! command -v "${CXX%% *}" >/dev/null 2>&1; then
	echo "$1: no C++ compiler ($CXX): skipped"
	exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
