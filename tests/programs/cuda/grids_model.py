#!/usr/bin/python3
"""grids_model.py - the `# expect` lines of the programs of grids and blocks of 2 and 3
dimensions (docs/language.md 6.5): cuda/grid2d_matmul_tiled.uir (matmul),
cuda/grid3d_block2d_reverse.uir (grid3d), cuda/grid2d_transpose_padded_8x32.uir (transpose),
cuda/grid2d_one_thread_and.uir (onethread) and exact/grid2d_reversed_rows.uir (reversed2d),
computed from docs/language.md alone, not by uir: the generator of 3.3, f32 arithmetic rounded
after every op (an f64 result rounded to f32 is exact for + - * of f32 values), the loops run
in order, and `run`'s printing (10.1).

    /usr/bin/python3 tests/programs/cuda/grids_model.py [matmul grid3d ...]
"""
import os, struct, sys

# the generator of 3.3.1, from the op model (tests/ops/model.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'ops'))
from model import M64, splitmix64  # noqa: E402

def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]

def rand_f32(seed, n):
    out = []
    for i in range(n):
        z = splitmix64(((seed << 32) + i) & M64)
        u = (z >> 40) * 2.0 ** -24
        out.append(f32(-1.0 + 2.0 * u))
    return out

def rand_int_range(seed, n, lo, hi, bits=32):
    w = hi - lo
    out = []
    for i in range(n):
        z = splitmix64(((seed << 32) + i) & M64)
        v = (lo + z % w) & ((1 << bits) - 1)
        if v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out

def fmt_f32(x):
    if x != x:
        return 'nan'
    if x == float('inf'):
        return 'inf'
    if x == float('-inf'):
        return '-inf'
    for p in range(1, 10):
        s = '%.*g' % (p, x)
        if f32(float(s)) == x:
            return s
    raise ValueError(x)

def expect(name, vals, kind='f32'):
    if kind == 'f32':
        return '# expect %s: %s' % (name, ' '.join(fmt_f32(v) for v in vals))
    return '# expect %s: %s' % (name, ' '.join(str(v) for v in vals))

assert fmt_f32(rand_f32(3, 1)[0]) == '-0.37751675'

def matmul():
    A = rand_f32(31, 4096)
    B = rand_f32(32, 4096)
    C = []
    for r in range(64):
        for c in range(64):
            acc = 0.0
            for k in range(64):
                acc = f32(acc + f32(A[r * 64 + k] * B[k * 64 + c]))
            C.append(acc)
    return [expect('C', C)]

def grid3d():
    IN = rand_f32(41, 768)
    w = [0.5, -2.0]
    out = [0.0] * 768
    for gz in range(2):
        for gy in range(3):
            for gx in range(4):
                blk = (gz * 3 + gy) * 4 + gx
                for i in range(32):
                    v = IN[blk * 32 + 31 - i]
                    out[blk * 32 + i] = f32(f32(v * w[gz]) + float(blk))
    return [expect('out', out)]

def transpose():
    H, W = 64, 96
    IN = rand_f32(61, H * W)
    out = [0.0] * (H * W)
    for y in range(H):
        for x in range(W):
            out[x * H + y] = IN[y * W + x]
    return [expect('out', out)]

def onethread():
    IN = rand_int_range(51, 512, -1000, 1000)
    sums, firsts = [], []
    for b in range(16):
        s = sum(IN[b * 32:(b + 1) * 32])
        sums.append(s)
        firsts.append(IN[b * 32] + s)
    return [expect('sums', sums, 'i32'), expect('firsts', firsts, 'i32')]

def reversed2d():
    out = [0] * 8
    for gy in range(2):
        for gx in range(4):
            out[(1 - gy) * 4 + gx] = 10 * gy + gx
    return [expect('out', out, 'i32')]

tests = {'matmul': matmul, 'grid3d': grid3d, 'transpose': transpose, 'onethread': onethread,
         'reversed2d': reversed2d}
for name in sys.argv[1:] or tests:
    print('\n'.join(tests[name]()))
