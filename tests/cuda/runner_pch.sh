#!/usr/bin/env bash
# runner_pch.sh - the precompiled emulator header and the batched compiles of `uir test`
# (docs/testing.md, "How `# cuda` tests are compiled in the emulator").
#
# Usage: runner_pch.sh UIR SRCROOT
#
# On a few `# cuda` programs of tests/programs, in the emulator (UIR_TEST_CUDA=emu), with a
# cache folder of its own (UIR_CACHE_DIR):
#   - the tests pass, the header is precompiled once into the cache (one folder, its .gch or
#     .pch beside it), a second run builds nothing, and two runs at once on an empty cache
#     both pass and leave one;
#   - the verdicts and messages are the same with batches and the precompiled header, with
#     batches alone, with the precompiled header alone and with neither (UIR_TEST_BATCH=1,
#     UIR_TEST_PCH=0): a rendering that does not compile fails with the plain compile's
#     message, however many others share its batch; a rendering without its barriers (a
#     stand-in uir removes every `__syncthreads();`) differs from run, in a batch or alone,
#     and under ThreadSanitizer (CXX="$CXX -fsanitize=thread -g1") it is a reported race;
#   - a compiler that cannot precompile the header, and one that fails every compile that
#     uses the precompiled header, change no verdict;
#   - other words in CXX make another precompiled header; clang++ makes a .pch (when there).
# Needs a C++ compiler (else exit 77). Prints one line per failed check and a summary;
# exits 1 when any failed.
set -u

UIR=${1:?usage: runner_pch.sh UIR SRCROOT}
SRCROOT=$(cd "${2:?usage: runner_pch.sh UIR SRCROOT}" && pwd)
UIR=$(cd "$(dirname "$UIR")" && pwd)/$(basename "$UIR")
. "$(dirname "$0")/setup.sh" runner_pch
mkdir -p "$WORK/bin" "$WORK/t"
export UIR_TEST_CUDA=emu
unset UIR_TEST_PCH UIR_TEST_BATCH UIR_CACHE

# The tests: three that pass, one whose barriers the stand-in removes, one whose rendering
# it breaks.
P="$SRCROOT/tests/programs"
cp "$P/cuda/scan_block_128.uir" "$P/cuda/block_code_fence.uir" "$P/kernels/histogram_shared.uir" "$WORK/t/"
cp "$P/spec/stencil_1d.uir" "$WORK/t/nobarrier_stencil.uir"
cp "$P/kernels/saxpy_kernel.uir" "$WORK/t/broken_saxpy.uir"

# The stand-in uir: the real one, but render-cuda of nobarrier_* loses its barriers and
# that of broken_* gets a line that does not compile.
cat >"$WORK/bin/uir" <<EOF
#!/usr/bin/env bash
set -o pipefail
if [ "\$1" = render-cuda ]; then
	case "\${!#}" in
	*nobarrier_*) "$UIR" "\$@" | sed '/__syncthreads();/d'; exit ;;
	*broken_*) "$UIR" "\$@" && echo 'this is not C++;'; exit ;;
	esac
fi
exec "$UIR" "\$@"
EOF
# A compiler that cannot precompile a header.
cat >"$WORK/bin/no-pch-cxx" <<EOF
#!/bin/sh
for a in "\$@"; do [ "\$a" = c++-header ] && { echo "no-pch-cxx: no precompiled headers" >&2; exit 1; }; done
exec $CXX "\$@"
EOF
# A compiler that fails every compile that includes the header from the cache.
cat >"$WORK/bin/bad-pch-cxx" <<EOF
#!/bin/sh
prev=
for a in "\$@"; do
	case "\$prev:\$a" in -include:*/pch-*) echo "bad-pch-cxx: cannot use \$a" >&2; exit 1 ;; esac
	prev=\$a
done
exec $CXX "\$@"
EOF
chmod +x "$WORK/bin/uir" "$WORK/bin/no-pch-cxx" "$WORK/bin/bad-pch-cxx"


# run NAME [VAR=VALUE...]: uir test on the tests, its output with the temporary folders
# blanked (they differ from run to run) in $WORK/NAME.out, sorted
run() {
	local name=$1
	shift
	(cd "$WORK/t" && env "$@" "$UIR" test --uir "$WORK/bin/uir" -j 2 --timeout 300 . >"$WORK/$name.raw" 2>&1)
	sed -E 's#/[^ :]*/t-[A-Za-z0-9]{6}/#T/#g' "$WORK/$name.raw" | sort >"$WORK/$name.out"
}
pchs() { find "$1" -name 'uir_cuda_emu.h.[gp]ch' 2>/dev/null | wc -l; }
same() { cmp -s "$WORK/$1.out" "$WORK/$2.out" && ok || bad "$2 differs from $1: $(diff "$WORK/$1.out" "$WORK/$2.out")"; }

# ---- the verdicts ----
C="$WORK/cache1"
run plain UIR_CACHE_DIR="$C" UIR_TEST_PCH=0 UIR_TEST_BATCH=1
for t in scan_block_128 block_code_fence histogram_shared; do
	grep -qx "PASS \./$t\.uir (cuda: emulator)" "$WORK/plain.out" && ok || bad "plain: $t did not pass: $(cat "$WORK/plain.out")"
done
grep -q '^FAIL \./nobarrier_stencil\.uir: rendered CUDA differs from run: ' "$WORK/plain.out" && ok ||
	bad "plain: the missing barriers do not show: $(cat "$WORK/plain.out")"
grep -q '^FAIL \./broken_saxpy\.uir: c++ (CUDA emulator) exited 1: .*error' "$WORK/plain.out" && ok ||
	bad "plain: the broken rendering: $(cat "$WORK/plain.out")"
[ "$(pchs "$C")" -eq 0 ] && ok || bad "UIR_TEST_PCH=0 made a precompiled header"
# the race's element may differ from run to run: compare up to the message's colon
trim() { sed -E 's/^(FAIL \.\/nobarrier_stencil\.uir: rendered CUDA differs from run:).*/\1/' "$WORK/$1.out" >"$WORK/$1.cut"; }
trim plain
for cfg in "batch UIR_TEST_PCH=0" "pch UIR_TEST_BATCH=1" "both"; do
	name=${cfg%% *}
	vars=${cfg#"$name"}
	run "$name" UIR_CACHE_DIR="$C" $vars
	trim "$name"
	cmp -s "$WORK/plain.cut" "$WORK/$name.cut" && ok || bad "$name: verdicts differ: $(diff "$WORK/plain.cut" "$WORK/$name.cut")"
done
[ "$(pchs "$C")" -eq 1 ] && ok || bad "one precompiled header expected in $C, found $(pchs "$C")"
[ -z "$(find "$C" -name '.tmp-*')" ] && ok || bad "temporary files left in $C"
before=$(find "$C" -newer "$WORK/both.raw" -name 'uir_cuda_emu.h.*' | wc -l)
run again UIR_CACHE_DIR="$C"
[ "$(find "$C" -newer "$WORK/both.raw" -name 'uir_cuda_emu.h.*' | wc -l)" -eq "$before" ] && ok ||
	bad "a second run built the precompiled header again"
trim again
cmp -s "$WORK/plain.cut" "$WORK/again.cut" && ok || bad "again: verdicts differ"
# the barrier-less rendering in a batch of its own and alone, with the threads started in
# reverse: it must still differ from run
for cfg in "UIR_TEST_BATCH=16" "UIR_TEST_BATCH=1"; do
	(cd "$WORK/t" && env UIR_CACHE_DIR="$C" UIR_EMU_ORDER=reverse $cfg "$UIR" test --uir "$WORK/bin/uir" \
		nobarrier_stencil.uir >"$WORK/race.out" 2>&1)
	grep -q '^FAIL nobarrier_stencil\.uir: rendered CUDA differs from run: ' "$WORK/race.out" && ok ||
		bad "$cfg, reverse order: the missing barriers do not show: $(cat "$WORK/race.out")"
done

# ThreadSanitizer sees the race in a batch as alone (where the compiler has it)
if echo 'int main(){return 0;}' | $CXX -fsanitize=thread -x c++ -o "$WORK/tsan" - 2>/dev/null && "$WORK/tsan"; then
	for cfg in "UIR_TEST_BATCH=16" "UIR_TEST_BATCH=1"; do
		(cd "$WORK/t" && env UIR_CACHE_DIR="$C" CXX="$CXX -fsanitize=thread -g1" $cfg "$UIR" test --uir "$WORK/bin/uir" \
			--engine interp -j 2 --timeout 300 nobarrier_stencil.uir scan_block_128.uir >"$WORK/tsan.out" 2>&1)
		grep -q '^FAIL nobarrier_stencil\.uir: rendered CUDA exited 66: ' "$WORK/tsan.out" && ok ||
			bad "$cfg, ThreadSanitizer: no race reported: $(cat "$WORK/tsan.out")"
		grep -qx 'PASS scan_block_128\.uir (cuda: emulator)' "$WORK/tsan.out" && ok ||
			bad "$cfg, ThreadSanitizer: scan_block_128 did not pass: $(cat "$WORK/tsan.out")"
	done
fi

# ---- runs at once on an empty cache ----
C2="$WORK/cache2"
(cd "$WORK/t" && UIR_CACHE_DIR="$C2" "$UIR" test -j 1 scan_block_128.uir block_code_fence.uir >"$WORK/a.out" 2>&1) &
(cd "$WORK/t" && UIR_CACHE_DIR="$C2" "$UIR" test -j 1 histogram_shared.uir scan_block_128.uir >"$WORK/b.out" 2>&1) &
wait
for f in a b; do
	grep -qx '2 passed, 0 failed, 0 skipped' "$WORK/$f.out" && ok || bad "concurrent run $f: $(cat "$WORK/$f.out")"
done
[ "$(pchs "$C2")" -eq 1 ] && ok || bad "concurrent runs: $(pchs "$C2") precompiled headers"

# ---- compilers that do not help ----
C3="$WORK/cache3"
run nopch UIR_CACHE_DIR="$C3" CXX="$WORK/bin/no-pch-cxx"
trim nopch
cmp -s "$WORK/plain.cut" "$WORK/nopch.cut" && ok || bad "no-pch-cxx: verdicts differ: $(diff "$WORK/plain.cut" "$WORK/nopch.cut")"
[ "$(pchs "$C3")" -eq 0 ] && ok || bad "no-pch-cxx: a precompiled header was kept"
run badpch UIR_CACHE_DIR="$C3" CXX="$WORK/bin/bad-pch-cxx"
trim badpch
cmp -s "$WORK/plain.cut" "$WORK/badpch.cut" && ok || bad "bad-pch-cxx: verdicts differ: $(diff "$WORK/plain.cut" "$WORK/badpch.cut")"

# ---- other words in CXX, another compiler ----
C4="$WORK/cache4"
(cd "$WORK/t" && UIR_CACHE_DIR="$C4" "$UIR" test scan_block_128.uir >/dev/null 2>&1)
(cd "$WORK/t" && UIR_CACHE_DIR="$C4" CXX="$CXX -g0" "$UIR" test scan_block_128.uir >"$WORK/g0.out" 2>&1)
grep -qx '1 passed, 0 failed, 0 skipped' "$WORK/g0.out" && ok || bad "CXX='$CXX -g0': $(cat "$WORK/g0.out")"
[ "$(pchs "$C4")" -eq 2 ] && ok || bad "CXX with another word: $(pchs "$C4") precompiled headers, wanted 2"
if command -v clang++ >/dev/null 2>&1; then
	run clangplain UIR_CACHE_DIR="$WORK/cache5" CXX=clang++ UIR_TEST_PCH=0 UIR_TEST_BATCH=1
	trim clangplain
	run clang UIR_CACHE_DIR="$WORK/cache5" CXX=clang++
	trim clang
	cmp -s "$WORK/clangplain.cut" "$WORK/clang.cut" && ok ||
		bad "clang++: verdicts differ: $(diff "$WORK/clangplain.cut" "$WORK/clang.cut")"
	[ "$(find "$WORK/cache5" -name 'uir_cuda_emu.h.pch' | wc -l)" -eq 1 ] && ok || bad "clang++: no .pch in the cache"
fi

checks_done
