#!/usr/bin/env bash
# emu_stack.sh - the CUDA emulator's threads have stacks big enough for a large kernel frame.
#
# Usage: emu_stack.sh SRCROOT
#
# A generated program (bulkrender seed 142186) rendered to a 120,000-line kernel whose frame
# at -O0 is 264,544 bytes; the emulator's threads had 256 KiB stacks, and it crashed
# (signal 11). This builds a small kernel with a 1 MiB local array (volatile, so that it
# stays on the stack), launched on 64 threads with the emulator at -O0, and checks:
#   - it runs with the default stack (2 MiB) and every thread's sum is right;
#   - UIR_EMU_STACK_KIB=4096 runs it too, and a bad value warns and falls back to 2 MiB.
# Exits 1 on a failure, 77 (skipped) without a C++ compiler.
set -u
SRCROOT=${1:?usage: emu_stack.sh SRCROOT}
. "$(dirname "$0")/setup.sh" emu_stack
cat > "$WORK/big.cu" <<'CU'
#include <stdio.h>
__global__ void big(unsigned long long *out)
{
	volatile unsigned char frame[1 << 20];
	unsigned int t = threadIdx.x;
	for (unsigned int i = 0; i < sizeof frame; i++)
		frame[i] = (unsigned char)(i + t);
	unsigned long long s = 0;
	for (unsigned int i = 0; i < sizeof frame; i += 4096)
		s += frame[i];
	out[t] = s;
}
int main(void)
{
	static unsigned long long out[64];
	unsigned long long *d;
	cudaMalloc((void **)&d, sizeof out);
	UIR_LAUNCH(big, 1, 64, d);
	cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
	for (unsigned int t = 0; t < 64; t++)
		printf("%llu\n", out[t]);
	return 0;
}
CU
fail=0
$CXX -std=c++17 -O0 -pthread -ffp-contract=off -include "$SRCROOT/runtime/uir_cuda_emu.h" -x c++ \
	-o "$WORK/big" "$WORK/big.cu" || { echo "FAIL: the kernel does not build"; exit 1; }
# thread t sums (i + t) mod 256 over i = 0, 4096, 8192, ...: 256 terms, each t mod 256
for t in $(seq 0 63); do echo $((256 * t)); done > "$WORK/want"
for stack in "" 4096 abc; do
	if UIR_EMU_STACK_KIB=$stack "$WORK/big" > "$WORK/got" 2> "$WORK/err" && cmp -s "$WORK/want" "$WORK/got"; then
		echo "ok: UIR_EMU_STACK_KIB='$stack'"
	else
		echo "FAIL: UIR_EMU_STACK_KIB='$stack': the kernel crashed or printed wrong sums"; fail=1
	fi
done
if ! UIR_EMU_STACK_KIB=abc "$WORK/big" 2>&1 >/dev/null | grep -q "UIR_EMU_STACK_KIB is a number"; then
	echo "FAIL: a bad UIR_EMU_STACK_KIB is not reported"; fail=1
fi
exit $fail
