#!/usr/bin/env bash
# nvcc_all.sh - every `# cuda` test's render-cuda output must build with nvcc for sm_90
# (docs/language.md 8.3.6): nvcc -arch=sm_90 -fmad=false -prec-div=true -prec-sqrt=true
# -Werror all-warnings.
#
# Usage: nvcc_all.sh UIR SRCROOT [EXAMPLES_DIR]
#
# Takes every .uir under SRCROOT/tests/programs (and EXAMPLES_DIR, an extra folder,
# when given) whose directives hold `# cuda` or
# `# cuda speed` (not `# cuda: invalid`), renders it with `render-cuda --main`, and
# compiles the renderings with nvcc (-c: a GPU is not needed). nvcc is slow (seconds a
# file, mostly fixed cost), so the files are compiled in groups: one translation unit per
# group of $GROUP files (default 32), each file inside its own namespace with its main
# renamed, the C headers the renderings include included once before them; the `# cuda
# speed` renderings also go in one more group with -DUIR_TIME (the timing main). A group that
# fails is compiled again file by file, so that the message names the file. The groups
# run $JOBS at a time (default: the number of cores).
#
# nvcc: $NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc. Without one the script
# prints why and exits 77 (meson: skipped). Last line: "N files built in G groups, F
# failed (S s)". Exits 1 when any file failed.
set -u

UIR=${1:?usage: nvcc_all.sh UIR SRCROOT [EXAMPLES_DIR]}
SRCROOT=${2:?usage: nvcc_all.sh UIR SRCROOT [EXAMPLES_DIR]}
EXAMPLES=${3:-}
GROUP=${GROUP:-32}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
	echo "nvcc_all: no nvcc ($NVCC not found): skipped"
	exit 77
fi
FLAGS=(-arch="${NVCC_ARCH:-sm_90}" -fmad=false -prec-div=true -prec-sqrt=true -Werror all-warnings)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nvcc_all.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
start=$(date +%s)

files=()
while IFS= read -r f; do files+=("$f"); done < <(
	{ find "$SRCROOT/tests/programs" -name '*.uir'; [ -n "$EXAMPLES" ] && [ -d "$EXAMPLES" ] && find "$EXAMPLES" -name '*.uir'; } |
		sort | while IFS= read -r f; do
			d=$(sed -n '/^[^#]/q;p' "$f")
			grep -Eq '^# cuda(| speed: .*)$' <<<"$d" && echo "$f"
		done)
if [ ${#files[@]} -eq 0 ]; then
	echo "nvcc_all: no # cuda tests found under $SRCROOT/tests/programs"
	exit 1
fi

failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL $*"
}

# Render every file; a rendering that fails is a failure already.
n=0
ok=()
for f in "${files[@]}"; do
	n=$((n + 1))
	if "$UIR" render-cuda --main "$f" >"$WORK/p$n.cu" 2>"$WORK/p$n.err"; then
		ok+=("$n")
		echo "$f" >"$WORK/p$n.name"
	else
		fail "$f: render-cuda --main: $(head -c 300 "$WORK/p$n.err")"
	fi
done

# group WHAT K...: a new group, one translation unit of the renderings K (WHAT in its
# header comment), each in a namespace; its number in $groups, its files $g.*.
groups=0
group() {
	groups=$((groups + 1))
	g="$WORK/group$groups"
	local what=$1
	shift
	{
		echo "/* nvcc_all.sh: $what, each in a namespace */"
		printf '#include <%s>\n' stdint.h math.h stdio.h stdlib.h string.h
		for k in "$@"; do
			echo "namespace uir_t$k {"
			echo "#define main uir_main"
			echo "#include \"$WORK/p$k.cu\""
			echo "#undef main"
			echo "}"
		done
	} >"$g.cu"
	printf '%s\n' "$@" >"$g.members"
}

# One translation unit per group.
for ((i = 0; i < ${#ok[@]}; i += GROUP)); do
	group "$GROUP renderings in one translation unit" "${ok[@]:i:GROUP}"
done

# The `# cuda speed` renderings once more with -DUIR_TIME (their timing main), in a group of
# their own.
timed=()
for k in "${ok[@]}"; do
	sed -n '/^[^#]/q;p' "$(cat "$WORK/p$k.name")" | grep -Eq '^# cuda speed: ' && timed+=("$k")
done
if [ ${#timed[@]} -gt 0 ]; then
	group "the timing mains of the # cuda speed renderings" "${timed[@]}"
	echo -DUIR_TIME >"$g.flags"
fi

# build_group G: compiles group G; on failure compiles its files one by one.
build_group() {
	local g="$WORK/group$1" extra=()
	[ -f "$g.flags" ] && extra=($(cat "$g.flags"))
	if "$NVCC" "${FLAGS[@]}" "${extra[@]}" -c -o "$g.o" "$g.cu" >"$g.log" 2>&1; then
		echo ok >"$g.result"
		return
	fi
	: >"$g.result"
	local k
	while IFS= read -r k; do
		if ! "$NVCC" "${FLAGS[@]}" "${extra[@]}" -c -o "$WORK/p$k.o" "$WORK/p$k.cu" >"$WORK/p$k.log" 2>&1; then
			echo "FAIL $(cat "$WORK/p$k.name")${extra[*]:+ (${extra[*]})}: nvcc: $(grep -m3 -E 'error|warning' "$WORK/p$k.log" | tr '\n' ' ' | head -c 600)" >>"$g.result"
		fi
	done <"$g.members"
	if [ ! -s "$g.result" ]; then
		echo "FAIL group $1 (files $(tr '\n' ' ' <"$g.members")): nvcc fails on the group but not on any file alone: $(grep -m3 -E 'error|warning' "$g.log" | tr '\n' ' ' | head -c 600)" >"$g.result"
	fi
}

for ((k = 1; k <= groups; k++)); do
	build_group "$k" &
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n 2>/dev/null || sleep 0.1
	done
done
wait

for ((k = 1; k <= groups; k++)); do
	while IFS= read -r line; do
		[ "$line" = ok ] && continue
		failed=$((failed + 1))
		echo "$line"
	done <"$WORK/group$k.result"
done

echo "${#files[@]} files built in $groups groups (${#timed[@]} also with -DUIR_TIME), $failed failed ($(($(date +%s) - start)) s)"
[ $failed -eq 0 ]
