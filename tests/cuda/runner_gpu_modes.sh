#!/usr/bin/env bash
# runner_gpu_modes.sh - the GPU paths of `uir test` for `# cuda` and `# cuda speed`, without a
# GPU (docs/testing.md, "Where `# cuda` runs").
#
# Usage: runner_gpu_modes.sh UIR SRCROOT
#
# A stand-in nvcc (a script that checks the flags of docs/language.md 8.3.6 and builds with the CUDA
# emulator instead) and a stand-in docker (a script that checks `docker run --rm --gpus all
# ... IMAGE` and runs the rest of its command line here) let the runner's GPU and
# --cuda-docker paths run on this machine:
#   - UIR_TEST_CUDA=gpu: `# cuda` builds with nvcc -arch=native and runs; `# cuda speed: X`
#     builds the rendering with -DUIR_TIME and NAME.ref.cu, runs run --seed and the timing
#     main (which compares every launch with it) and reports the speed and the seed. The
#     stand-in's timing main reports fixed times (kernel 0.5 ms, reference 1 ms), so no
#     check depends on this machine's speed: 0.5x and 2x pass, 2.5x and 1000x fail with
#     2.00x; a test without NAME.ref.cu fails saying so (the defences against a kernel that
#     games the timing: runner_speed.sh);
#   - --cuda-docker IMAGE: every CUDA step goes through `docker run`; the runner says so;
#     an image name that could be read as an option is a usage error (64);
#   - without a GPU: `# cuda speed` only builds, and the line says so.
# Needs a C++ compiler (else exit 77, skipped). Prints one line per failed check and a
# summary; exits 1 when any failed.
set -u

UIR=${1:?usage: runner_gpu_modes.sh UIR SRCROOT}
SRCROOT=$(cd "${2:?usage: runner_gpu_modes.sh UIR SRCROOT}" && pwd)
UIR=$(cd "$(dirname "$UIR")" && pwd)/$(basename "$UIR")
. "$(dirname "$0")/setup.sh" runner_gpu_modes
mkdir -p "$WORK/bin" "$WORK/t"

# The stand-in nvcc: the flags of docs/language.md 8.3.6 must be there; builds with the emulator.
cat >"$WORK/bin/nvcc" <<'NVCC'
#!/usr/bin/env bash
echo "nvcc $*" >>"$FAKE_LOG"
for want in -fmad=false -prec-div=true -prec-sqrt=true; do
	case " $* " in *" $want "*) ;; *) echo "fake nvcc: $want missing" >&2; exit 1 ;; esac
done
case " $* " in *" -arch="*) ;; *) echo "fake nvcc: no -arch" >&2; exit 1 ;; esac
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
[ $timed = 1 ] && [ -n "$out" ] || exec ${CXX:-c++} -std=c++17 -O2 -pthread -ffp-contract=off -include "$FAKE_EMU" "${args[@]}"
# The timing main: built as OUT.real; OUT runs it and reports fixed times in place of the
# measured ones (kernel 0.5 ms, reference 1 ms: 2x), so that no check depends on the speed
# of this machine. The line must be there in the runner's format, or it is not replaced.
for i in "${!args[@]}"; do [ "${args[$i]}" = "$out" ] && args[$i]="$out.real"; done
${CXX:-c++} -std=c++17 -O2 -pthread -ffp-contract=off -include "$FAKE_EMU" "${args[@]}" || exit
cat >"$out" <<'RUN'
#!/bin/sh
"$0.real" "$@" 2>"$0.err"
rc=$?
sed -E 's/^uir-time: kernel [0-9.e+-]+ ms, reference [0-9.e+-]+ ms$/uir-time: kernel 0.5 ms, reference 1 ms/' "$0.err" >&2
exit $rc
RUN
chmod +x "$out"
NVCC
# The stand-in docker: checks its options, then runs the command after the image here.
cat >"$WORK/bin/docker" <<'DOCKER'
#!/usr/bin/env bash
echo "docker $*" >>"$FAKE_LOG"
[ "$1" = run ] || { echo "fake docker: not run" >&2; exit 1; }
shift
gpus=0
while [ $# -gt 0 ]; do
	case $1 in
	--rm) shift ;;
	--gpus) [ "$2" = all ] && gpus=1; shift 2 ;;
	--network | --user | -v | -w) shift 2 ;;
	-*) echo "fake docker: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $gpus = 1 ] || { echo "fake docker: no --gpus all" >&2; exit 1; }
[ "$1" = "$FAKE_IMAGE" ] || { echo "fake docker: image '$1', wanted '$FAKE_IMAGE'" >&2; exit 1; }
shift
exec "$@"
DOCKER
chmod +x "$WORK/bin/nvcc" "$WORK/bin/docker"
export FAKE_LOG="$WORK/log" FAKE_EMU="$SRCROOT/runtime/uir_cuda_emu.h" FAKE_IMAGE="nvidia/cuda:13.0-devel"

# Test programs: the speed tests, one asking too much, one without its reference.
S="$SRCROOT/tests/programs/cuda/speed"
cp "$S/saxpy_speed.uir" "$S/saxpy_speed.ref.cu" "$WORK/t/"
sed 's/^# cuda speed: .*/# cuda speed: 1000/' "$S/saxpy_speed.uir" >"$WORK/t/too_slow.uir"
cp "$S/saxpy_speed.ref.cu" "$WORK/t/too_slow.ref.cu"
sed 's/^# cuda speed: .*/# cuda speed: 0.5/' "$S/saxpy_speed.uir" >"$WORK/t/no_ref.uir"
# At the stand-in's fixed 2x: exactly 2 passes, 2.5 fails.
sed 's/^# cuda speed: .*/# cuda speed: 2/' "$S/saxpy_speed.uir" >"$WORK/t/at_speed.uir"
sed 's/^# cuda speed: .*/# cuda speed: 2.5/' "$S/saxpy_speed.uir" >"$WORK/t/over_speed.uir"
cp "$S/saxpy_speed.ref.cu" "$WORK/t/at_speed.ref.cu"
cp "$S/saxpy_speed.ref.cu" "$WORK/t/over_speed.ref.cu"
cp "$SRCROOT/tests/programs/spec/stencil_1d.uir" "$WORK/t/"


cd "$WORK/t" || exit 1

# ---- a GPU (UIR_TEST_CUDA=gpu with the stand-in nvcc) ----
: >"$FAKE_LOG"
PATH="$WORK/bin:$PATH" NVCC="$WORK/bin/nvcc" UIR_TEST_CUDA=gpu "$UIR" test --engine interp -j 2 --timeout 300 . >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "gpu: exit $rc, wanted 1 (three tests fail on purpose)"
want '^PASS \./stencil_1d\.uir \(cuda: GPU\)$' "gpu: # cuda"
want '^PASS \./saxpy_speed\.uir \(cuda: GPU; speed 2\.00x the reference \(0\.5000 ms vs 1\.0000 ms, wanted 0\.5x\); seed 0x[0-9a-f]{16}\)$' "gpu: # cuda speed"
want '^FAIL \./too_slow\.uir: cuda speed: the kernel is 2\.00x the reference.s speed \(.*\), wanted 1000x or better \(seed 0x[0-9a-f]{16}\)$' "gpu: too slow"
want '^PASS \./at_speed\.uir \(cuda: GPU; speed 2\.00x the reference \(0\.5000 ms vs 1\.0000 ms, wanted 2x\); seed 0x[0-9a-f]{16}\)$' "gpu: at the wanted speed"
want '^FAIL \./over_speed\.uir: cuda speed: the kernel is 2\.00x the reference.s speed \(.*\), wanted 2\.5x or better \(seed 0x[0-9a-f]{16}\)$' "gpu: just below the wanted speed"
want '^FAIL \./no_ref\.uir: cuda speed: no reference kernel \./no_ref\.ref\.cu' "gpu: no reference"
grep -q -- '-arch=native -fmad=false -prec-div=true -prec-sqrt=true -o .*/prog_cuda .*/prog\.cu$' "$FAKE_LOG" && ok ||
	bad "gpu: nvcc command line: $(cat "$FAKE_LOG")"
grep -q -- '-DUIR_TIME -o .*/prog_speed .*/prog\.cu .*/ref\.cu$' "$FAKE_LOG" && ok ||
	bad "gpu: speed build command line: $(cat "$FAKE_LOG")"

# ---- Docker (--cuda-docker with the stand-in docker; nvcc inside is the stand-in) ----
: >"$FAKE_LOG"
PATH="$WORK/bin:$PATH" "$UIR" test --engine interp -j 2 --timeout 300 --cuda-docker "$FAKE_IMAGE" stencil_1d.uir saxpy_speed.uir >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "docker: exit $rc: $(cat "$WORK/out")"
want "^PASS stencil_1d\.uir \(cuda: GPU in Docker image $FAKE_IMAGE\)$" "docker: # cuda"
want "^PASS saxpy_speed\.uir \(cuda: GPU in Docker image $FAKE_IMAGE; speed " "docker: # cuda speed"
grep -q "^docker run --rm --gpus all --network none --user [0-9]*:[0-9]* -v \(.*\):\1 -w .* $FAKE_IMAGE nvcc -arch=native" "$FAKE_LOG" && ok ||
	bad "docker: command line: $(cat "$FAKE_LOG")"
grep -q "^docker run .* $FAKE_IMAGE /.*/prog_cuda$" "$FAKE_LOG" && ok || bad "docker: run command: $(cat "$FAKE_LOG")"
grep -q "^docker run .* $FAKE_IMAGE /.*/prog_speed 0x[0-9a-f]\{16\} /.*/expect$" "$FAKE_LOG" && ok ||
	bad "docker: the timing run's command: $(cat "$FAKE_LOG")"
for img in "-v/:/host" "a b" ""; do
	"$UIR" test --cuda-docker "$img" stencil_1d.uir >"$WORK/out" 2>&1
	rc=$?
	[ $rc -eq 64 ] && ok || bad "docker: image '$img' accepted (exit $rc)"
done

# ---- no GPU: # cuda speed builds only (nvcc when there is one: the stand-in here) ----
: >"$FAKE_LOG"
PATH="$WORK/bin:$PATH" NVCC="$WORK/bin/nvcc" UIR_TEST_CUDA=emu "$UIR" test --engine interp -j 2 --timeout 300 saxpy_speed.uir >"$WORK/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "no gpu: exit $rc: $(cat "$WORK/out")"
want '^PASS saxpy_speed\.uir \(cuda: emulator; cuda speed: no GPU, build only \(nvcc\)\)$' "no gpu: speed builds only"
grep -q -- '-arch=sm_90 .*-DUIR_TIME' "$FAKE_LOG" && ok || bad "no gpu: nvcc -arch=sm_90: $(cat "$FAKE_LOG")"

checks_done
