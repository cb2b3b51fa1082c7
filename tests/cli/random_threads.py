#!/usr/bin/env python3
"""random_threads.py - large `random` buffers are drawn on several threads (docs/language.md
3.3, docs/commands.md `run --threads`): at 1, 2, 3 and 5 threads, with the INIT's seed and
with `run --seed`, every buffer has the same bits, and the elements at every thread's share
boundary (and others spread over the buffer) are the independent model's
(tests/ops/model.py). The buffers cover each path of the fill: f32, f64 in a range, i32 in
a range of 2^k values (a mask) and of other widths (a division), u32 without a range, u8
and bool (element by element).

Usage: random_threads.py UIR. Prints "N passed, N failed"; exits 1 on a failure."""
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'ops'))
import model  # noqa: E402

N = 600007  # past 2 shares of 2^18 elements: drawn on up to 2 threads
BUFS = [  # name, type, seed, lo, hi
    ('a', 'f32', 5, None, None),
    ('b', 'f64', 6, -3, 7),
    ('c', 'i32', 7, 0, 256),
    ('d', 'i32', 8, -1000, 1000),
    ('e', 'u32', 9, None, None),
    ('f', 'u8', 10, 3, 200),
    ('g', 'bool', 11, None, None),
]
SIZE = {'f32': 4, 'f64': 8, 'i32': 4, 'u32': 4, 'u8': 1, 'bool': 1}
SEED = 0x0123456789ABCDEF
M64 = (1 << 64) - 1


def seeded_bits(s, b, i):
    """`run --seed S`: the bits of element i of buffer number b (runtime/uir_init.h)."""
    sm = model.splitmix64
    k0 = sm((s ^ sm(2 * b)) & M64)
    k1 = sm((s ^ sm(2 * b + 1)) & M64)
    return sm(sm((k0 + i) & M64) ^ k1)


def npy_data(path):
    raw = open(path, 'rb').read()
    hl = struct.unpack('<H', raw[8:10])[0]
    return raw[10 + hl:]


def element_bits(t, v):
    """An element of the model (float bits, or an integer value) as its unsigned bits."""
    return v & ((1 << (8 * SIZE[t])) - 1)


def main():
    uir = sys.argv[1]
    passed = failed = 0
    tmp = tempfile.mkdtemp()
    prog = os.path.join(tmp, 'big.uir')
    with open(prog, 'w') as f:
        for name, t, seed, lo, hi in BUFS:
            rng = '' if lo is None else ' %d %d' % (lo, hi)
            f.write('buffer %s %s %d = random %d%s\n' % (name, t, N, seed, rng))
    rnd = random.Random(1)
    idx = {0, N - 1}
    for t in range(1, 6):
        for k in range(1, t):
            b = N * k // t
            idx |= {b - 1, b, b + 1}
    idx |= {rnd.randrange(N) for _ in range(200)}
    for seeded in (False, True):
        first = None
        for threads in (1, 2, 3, 5):
            out = os.path.join(tmp, 'd%d%d' % (seeded, threads))
            os.mkdir(out)
            cmd = [uir, 'run', '--threads', str(threads), '--hash', '--only', 'a', '--dump', out, prog]
            if seeded:
                cmd[2:2] = ['--seed', '0x%x' % SEED]
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                failed += 1
                print('FAIL: %s: exit %d: %s' % (' '.join(cmd), r.returncode, r.stderr))
                continue
            data = {b[0]: npy_data(os.path.join(out, b[0] + '.npy')) for b in BUFS}
            what = '%s at %d threads' % ('--seed' if seeded else 'the INIT', threads)
            if first is None:
                first = data
                for bi, (name, t, seed, lo, hi) in enumerate(BUFS):
                    sz, bad = SIZE[t], []
                    for i in sorted(idx):
                        z = seeded_bits(SEED, bi, i) if seeded else model.splitmix64(((seed << 32) + i) & M64)
                        want = element_bits(t, model.random_value(t, z, lo, hi))
                        got = int.from_bytes(data[name][i * sz:(i + 1) * sz], 'little')
                        if got != want:
                            bad.append('%s[%d] = %#x, the model %#x' % (name, i, got, want))
                    if bad:
                        failed += 1
                        print('FAIL: %s: %d of %d elements differ: %s' % (what, len(bad), len(idx), '; '.join(bad[:4])))
                    else:
                        passed += 1
            else:
                diff = [name for name, *_ in BUFS if data[name] != first[name]]
                if diff:
                    failed += 1
                    print('FAIL: %s: buffers %s differ from 1 thread' % (what, ' '.join(diff)))
                else:
                    passed += 1
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
