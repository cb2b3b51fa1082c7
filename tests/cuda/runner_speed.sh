#!/usr/bin/env bash
# runner_speed.sh - the defences of `# cuda speed: X` against a kernel or a program that games
# the timing (docs/testing.md, "`# cuda speed: X`"), each checked without a GPU and without
# depending on this machine's speed.
#
# Usage: runner_speed.sh UIR SRCROOT
#
# The GPU layer is a stand-in: a stand-in nvcc builds with the CUDA emulator and force-includes
# tests/cuda/speed_shim.h, which logs every launch, event and copy in order, fixes the time
# between two events (SHIM_KERNEL_MS for the rendering's kernels, SHIM_REF_MS for the
# reference) and can change the L2 size (SHIM_L2); the timing binary it builds logs its
# command line. UIR_TEST_CUDA=gpu makes the runner take its GPU path. Cheating kernels come
# from a stand-in uir (--uir) that runs the real one but rewrites the kernel() of
# `render-cuda` for two tests: first_only.uir launches its kernels only the first time, and
# hardcode.uir copies the outputs of the program's own inputs into y instead. Checked:
#   - every launch compared: first_only fails at launch 2 (the first timed one);
#   - the seed: hardcode passes `# cuda` (the program's inputs) and fails `# cuda speed`
#     (the seeded inputs); a program that writes the answers for its own inputs as literals
#     (and passes its `# expect` line) fails because the reference kernel then differs from
#     run, while its honest twin passes; a wrong reference fails; the seed is printed, is new
#     each run, is fixed by --seed or UIR_TEST_SEED and reaches run --seed and the timing
#     binary; a program that faults only on the seeded inputs fails with run --seed's error;
#   - the L2 flush: every launch of both kernels follows a copy of the buffers, then a launch of
#     uir_flush_l2, then an event; every launch is followed by its event and by the copies
#     back; 4 launches of each, interleaved;
#   - the bandwidth bound: 0.001 ms for the 524288 bytes of saxpy at the emulated 16 GB/s is
#     invalid; 0.04 ms is valid with the 1 MiB L2 and invalid with a 64 KiB one (then 196608
#     of the 262144 written bytes count).
# Needs a C++ compiler (else exit 77, skipped). Prints one line per failed check and a
# summary; exits 1 when any failed.
set -u

UIR=${1:?usage: runner_speed.sh UIR SRCROOT}
SRCROOT=$(cd "${2:?usage: runner_speed.sh UIR SRCROOT}" && pwd)
UIR=$(cd "$(dirname "$UIR")" && pwd)/$(basename "$UIR")
PY=$(command -v python3 || echo /usr/bin/python3)
. "$(dirname "$0")/setup.sh" runner_speed
mkdir -p "$WORK/bin" "$WORK/t"

# The stand-in nvcc: the emulator and the shim; a timing build becomes OUT.real and OUT, a
# script that logs its command line and runs it.
cat >"$WORK/bin/nvcc" <<'NVCC'
#!/usr/bin/env bash
args=() out= timed=0 prev=
for a in "$@"; do
	case $a in
	-arch=* | -fmad=* | -prec-div=* | -prec-sqrt=*) ;;
	*.cu) args+=(-x c++ "$a") ;;
	*) args+=("$a") ;;
	esac
	[ "$a" = -DUIR_TIME ] && timed=1
	[ "$prev" = -o ] && out=$a
	prev=$a
done
build() { ${CXX:-c++} -std=c++17 -O2 -pthread -ffp-contract=off -include "$FAKE_EMU" -include "$FAKE_SHIM" "$@"; }
[ $timed = 1 ] && [ -n "$out" ] || { build "${args[@]}"; exit; }
for i in "${!args[@]}"; do [ "${args[$i]}" = "$out" ] && args[$i]="$out.real"; done
build "${args[@]}" || exit
printf '#!/bin/sh\necho "prog_speed $*" >>"$FAKE_LOG"\nexec "$0.real" "$@"\n' >"$out"
chmod +x "$out"
NVCC
# The stand-in uir: the real one, but render-cuda of first_only.uir and hardcode.uir gets a
# cheating kernel() (the rendering's own renamed uir_honest_kernel).
cat >"$WORK/bin/uir" <<'UIR'
#!/usr/bin/env bash
for a in "$@"; do file=$a; done
case "$1:${file##*/}" in
render-cuda:first_only.uir | render-cuda:hardcode.uir) ;;
*) exec "$REAL_UIR" "$@" ;;
esac
r=$(mktemp "$FAKE_WORK/render.XXXXXX") || exit
"$REAL_UIR" "$@" >"$r" || exit
"$PY" "$FAKE_WORK/cheat.py" "${file##*/}" "$r"
rc=$?
rm -f "$r"
exit $rc
UIR
cat >"$WORK/cheat.py" <<'PY'
import os, struct, sys
name, path = sys.argv[1], sys.argv[2]
src = open(path).read()
sig = "\nvoid kernel(float *x /* b0 */, float *y /* b1 */)\n{\n"
assert sig in src, "kernel() not found"
if name == "first_only.uir":
    # the kernels run the first time only: later launches leave the inputs as they are
    src = src.replace(sig, sig + "\tstatic int uir_cheat_launches;\n\tif (uir_cheat_launches++)\n\t\treturn;\n")
else:
    # y gets the program's outputs for its own inputs (run --dump), whatever x and y hold
    data = open(os.path.join(os.environ["FAKE_WORK"], "default", "y.npy"), "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    ys = struct.unpack("<%df" % ((len(data) - 10 - hlen) // 4), data[10 + hlen:])
    cheat = ("\nstatic const float uir_cheat_y[%d] = { %s };\n" % (len(ys), ", ".join(float(v).hex() + "f" for v in ys)) +
             "static void uir_honest_kernel(float *x, float *y);\n"
             "void kernel(float *x, float *y)\n{\n\t(void)x;\n\t(void)uir_honest_kernel;\n"
             "\tcudaMemcpy(y, uir_cheat_y, sizeof uir_cheat_y, cudaMemcpyHostToDevice);\n}\n")
    src = src.replace(sig, cheat + sig.replace("void kernel(", "static void uir_honest_kernel("))
sys.stdout.write(src)
PY
chmod +x "$WORK/bin/nvcc" "$WORK/bin/uir"
export FAKE_LOG="$WORK/log" FAKE_EMU="$SRCROOT/runtime/uir_cuda_emu.h" FAKE_SHIM="$SRCROOT/tests/cuda/speed_shim.h"
export FAKE_WORK="$WORK" REAL_UIR="$UIR" PY

S="$SRCROOT/tests/programs/cuda/speed"
T="$WORK/t"
for n in saxpy_speed first_only hardcode; do
	sed 's/^# cuda speed: .*/# cuda speed: 0.5/' "$S/saxpy_speed.uir" >"$T/$n.uir"
	cp "$S/saxpy_speed.ref.cu" "$T/$n.ref.cu"
done
"$UIR" run --dump "$WORK/default" "$T/saxpy_speed.uir" >/dev/null || exit 1

# saxpy over 4 elements, honest and with the answers for its own inputs written as literals
cat >"$T/saxpy4.uir" <<'EOF'
# cuda speed: 0.5
buffer x f32 4 = random 1
buffer y f32 4 = random 2
loop g 1 global {
  loop t 4 local {
    store y t (add (mul 2.5 (load x t)) (load y t))
  }
}
EOF
cat >"$T/saxpy4.ref.cu" <<'EOF'
#ifndef UIR_LAUNCH
#define UIR_LAUNCH(name, grid, block, ...) name<<<grid, block>>>(__VA_ARGS__)
#endif
__global__ void ref_saxpy4(const float *x, float *y)
{
	int i = threadIdx.x;
	y[i] = __fadd_rn(__fmul_rn(2.5f, x[i]), y[i]);
}
void kernel(float *x, float *y)
{
	UIR_LAUNCH(ref_saxpy4, 1, 4, x, y);
}
EOF
read -r -a Y < <("$UIR" run --only y "$T/saxpy4.uir" | sed 's/^y://')
sed "s/^# cuda speed: 0.5/# cuda speed: 0.5\n# expect y: ${Y[*]}/" "$T/saxpy4.uir" >"$T/saxpy4_honest.uir"
{
	echo "# cuda speed: 0.5"
	echo "# expect y: ${Y[*]}"
	echo "buffer x f32 4 = random 1"
	echo "buffer y f32 4 = random 2"
	echo "loop g 1 global {"
	echo "  loop t 4 local {"
	echo "    store y t (select (eq t 0) ${Y[0]} (select (eq t 1) ${Y[1]} (select (eq t 2) ${Y[2]} ${Y[3]})))"
	echo "  }"
	echo "}"
} >"$T/saxpy4_literals.uir"
cp "$T/saxpy4.ref.cu" "$T/saxpy4_honest.ref.cu"
cp "$T/saxpy4.ref.cu" "$T/saxpy4_literals.ref.cu"
sed 's/__fmul_rn(2.5f/__fmul_rn(2.0f/' "$T/saxpy4.ref.cu" >"$T/wrong_ref.ref.cu"
cp "$T/saxpy4.uir" "$T/wrong_ref.uir"
rm "$T/saxpy4.uir" "$T/saxpy4.ref.cu"
# a gather whose own indices are in bounds, but not all of those drawn from the seed
{
	echo "# cuda speed: 0.5"
	echo "buffer idx i32 64 = random 3 0 65"
	echo "buffer x f32 64 = random 2"
	echo "buffer y f32 64"
	echo "loop g 1 global {"
	echo "  loop t 64 local {"
	echo "    store y t (load x (load idx t))"
	echo "  }"
	echo "}"
} >"$WORK/gather.uir"

SEED='seed 0x[0-9a-f]{16}'
gpu() { PATH="$WORK/bin:$PATH" NVCC="$WORK/bin/nvcc" UIR_TEST_CUDA=gpu "$UIR" test --uir "$WORK/bin/uir" --engine interp --timeout 300 "$@"; }

cd "$T" || exit 1

# ---- every launch compared, the seeded inputs, the reference's bits ----
: >"$FAKE_LOG"
gpu -j 2 . >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "cheats: exit $rc, wanted 1: $(cat "$WORK/out")"
want "^PASS \./saxpy_speed\.uir \(cuda: GPU; speed 2\.00x the reference \(0\.5000 ms vs 1\.0000 ms, wanted 0\.5x\); $SEED\)$" "honest saxpy"
want "^FAIL \./first_only\.uir: cuda speed: on the inputs of $SEED, the kernel's launch 2 of 4 \(timed\) differs from run: buffer y, element 0: run gives .*, the kernel gave .* \(65536 elements differ\)$" "correct on the first launch only"
want "^FAIL \./hardcode\.uir: cuda speed: on the inputs of $SEED, the kernel's launch 1 of 4 \(the warm-up\) differs from run: buffer y, element 0: " "outputs hard-coded for the program's inputs"
want "^PASS \./saxpy4_honest\.uir \(cuda: GPU; speed .*; $SEED\)$" "saxpy4 with its # expect"
want "^FAIL \./saxpy4_literals\.uir: cuda speed: on the inputs of $SEED, the reference kernel's launch 1 of 4 \(the warm-up\) differs from run: buffer y, element 0: run gives ${Y[0]}, the reference gave " "answers written as literals"
want "^FAIL \./wrong_ref\.uir: cuda speed: on the inputs of $SEED, the reference kernel's launch 1 of 4 \(the warm-up\) differs from run: buffer y" "a wrong reference"
# the same run's tests share one seed
[ "$(grep -oE "$SEED" "$WORK/out" | sort -u | wc -l)" -eq 1 ] && ok || bad "one seed a run: $(cat "$WORK/out")"
seed1=$(grep -oE "$SEED" "$WORK/out" | head -1)
# hardcode passes as a plain `# cuda` test: on the program's own inputs it gives run's bits
sed 's/^# cuda speed: .*/# cuda/' hardcode.uir >"$WORK/hardcode.uir"
mkdir -p "$WORK/plain" && cp "$WORK/hardcode.uir" "$WORK/plain/hardcode.uir"
gpu "$WORK/plain/hardcode.uir" >"$WORK/out" 2>&1
want '^PASS .*/hardcode\.uir \(cuda: GPU\)$' "hard-coded outputs pass on the program's own inputs"

# ---- the seed: new each run, printed, fixed by --seed and UIR_TEST_SEED ----
gpu saxpy_speed.uir >"$WORK/out" 2>&1
seed2=$(grep -oE "$SEED" "$WORK/out" | head -1)
[ -n "$seed2" ] && [ "$seed1" != "$seed2" ] && ok || bad "a new seed each run: '$seed1', then '$seed2'"
: >"$FAKE_LOG"
gpu --seed 0x1234 saxpy_speed.uir >"$WORK/out" 2>&1
want '^PASS saxpy_speed\.uir \(cuda: GPU; speed .*; seed 0x0000000000001234\)$' "--seed 0x1234"
grep -qE '^prog_speed 0x0000000000001234 /.*/expect$' "$FAKE_LOG" && ok || bad "the timing binary's seed: $(cat "$FAKE_LOG")"
UIR_TEST_SEED=4660 gpu saxpy_speed.uir >"$WORK/out" 2>&1
want '; seed 0x0000000000001234\)$' "UIR_TEST_SEED=4660"
UIR_TEST_SEED=1 gpu --seed 4660 saxpy_speed.uir >"$WORK/out" 2>&1
want '; seed 0x0000000000001234\)$' "--seed wins over UIR_TEST_SEED"
"$UIR" test --seed 0x10000000000000000 saxpy_speed.uir >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 64 ] && ok || bad "--seed out of range: exit $rc"
want "bad --seed value '0x10000000000000000'" "--seed out of range: message"
UIR_TEST_SEED=nope "$UIR" test saxpy_speed.uir >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 64 ] && ok || bad "bad UIR_TEST_SEED: exit $rc"
# run --seed gives the same bits as the timing binary drew: the expected file matches a
# fresh run --seed of the same seed, and differs from another seed's
"$UIR" run --seed 0x1234 --only y saxpy_speed.uir >"$WORK/a" && "$UIR" run --seed 0x1235 --only y saxpy_speed.uir >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" && bad "two seeds gave the same y" || ok
# a fault that only the seeded inputs reach: run --seed's error, with the seed
s=
for k in $(seq 1 40); do
	"$UIR" run --seed "$k" "$WORK/gather.uir" >/dev/null 2>&1 || { s=$k; break; }
done
if [ -n "$s" ] && "$UIR" run "$WORK/gather.uir" >/dev/null 2>&1; then
	cp "$WORK/gather.uir" gather.uir
	printf '#include <stdint.h>\nvoid kernel(int32_t *idx, float *x, float *y) { (void)idx; (void)x; (void)y; }\n' >gather.ref.cu
	gpu --seed "$s" gather.uir >"$WORK/out" 2>&1
	want "^FAIL gather\.uir: cuda speed: run on the inputs of seed 0x$(printf %016x "$s") \(run --seed\) exited 1: .*error\[E0601\]" "a fault on the seeded inputs"
	rm -f gather.uir gather.ref.cu
else
	bad "no seed from 1 to 40 makes gather.uir fault, or its own inputs do"
fi

# ---- the L2 flush between launches, in the order of the log ----
: >"$FAKE_LOG"
SHIM_LOG="$WORK/calls" gpu --seed 7 saxpy_speed.uir >"$WORK/out" 2>&1
want '^PASS saxpy_speed\.uir ' "the logged run"
"$PY" - "$WORK/calls" >"$WORK/order" <<'PY'
import sys
calls = [l.strip() for l in open(sys.argv[1])]
# per launch: the buffers copied in, the flush, an event, the launch, an event, copied out
one = ["copy to device", "copy to device", "launch uir_flush_l2", "event", None, "event", "copy to host", "copy to host"]
want = []
for r in range(4):
    for k in ("launch uir_k0", "launch ref_saxpy"):
        want += [k if w is None else w for w in one]
# (the `# cuda` run of the same test comes first: the timing run starts 2 copies before its
# first flush)
i = calls.index("launch uir_flush_l2") if "launch uir_flush_l2" in calls else 2
got = calls[i - 2:]
print("ok" if got == want else "calls: %r\nwanted: %r" % (got, want))
PY
grep -qx ok "$WORK/order" && ok || bad "the order of copies, flushes, events and launches: $(head -c 1500 "$WORK/order")"

# ---- the bandwidth bound ----
SHIM_KERNEL_MS=0.001 gpu --seed 7 saxpy_speed.uir >"$WORK/out" 2>&1
want '^FAIL saxpy_speed\.uir: cuda speed: the timing is invalid: the kernel took 0\.0010 ms, less than the 0\.0328 ms that its 524288 bytes \(524288 read, 0 written beyond the 1048576-byte L2\) take at the device.s peak of 16\.00 GB/s \(seed 0x0000000000000007\)$' "faster than the memory allows"
SHIM_KERNEL_MS=0.04 gpu --seed 7 saxpy_speed.uir >"$WORK/out" 2>&1
want '^PASS saxpy_speed\.uir \(cuda: GPU; speed 25\.00x the reference' "0.04 ms with the 1 MiB L2"
SHIM_KERNEL_MS=0.04 SHIM_L2=65536 gpu --seed 7 saxpy_speed.uir >"$WORK/out" 2>&1
want '^FAIL saxpy_speed\.uir: cuda speed: the timing is invalid: the kernel took 0\.0400 ms, less than the 0\.0451 ms that its 720896 bytes \(524288 read, 196608 written beyond the 65536-byte L2\)' "0.04 ms with a 64 KiB L2"

checks_done
