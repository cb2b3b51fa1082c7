#!/usr/bin/python3
"""expects.py - `# expect` lines of test programs, computed by the model (tests/ops/model.py).

    expects.py [--write] [SRCROOT]

Programs whose other checks only compare back ends that share runtime/uir_ops.h (a `# cuda`
or `# render` test compares the CUDA or the C with `run`) get `# expect` lines from an
independent source: each program below is re-stated in Python, sequentially (docs/language.md
4.4.2, 5.3.1), with every op, every `random` INIT and every print taken from model.py, never
from uir. Without --write, checks that each program's `# expect` lines are exactly the
model's and exits 1 otherwise; with --write, puts them in (after the first line, the mode
directive), replacing the old ones.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as M  # noqa: E402

F32, F64 = M.F32, M.F64


class Undecided(Exception):
    pass


def op(o, t, *a):
    v = M.apply(o, t, *a)
    if v is None:
        raise Undecided('%s %s %s' % (o, t, a))
    return v


def lit(t, text):
    """An untyped float literal of type t (2.6.6: rounded once from its decimal text)."""
    return M.parse_float(M.T(t).fmt, text)


def rand(t, seed, n, lo=None, hi=None):
    return M.init_random(t, seed, n, lo, hi)


# ---- the programs ----------------------------------------------------------------------------


def block_1024_reverse():
    x = rand('u32', 101, 2048)
    y = [0] * 2048
    for g in range(2):
        tile = [x[g * 1024 + t] for t in range(1024)]
        for t in range(1024):
            y[g * 1024 + t] = op('xor', 'u32', tile[1023 - t], 0xFF)
    return {'y': ('u32', y)}


def block_1thread_serial():
    x = rand('i64', 91, 512)
    m = [0] * 16
    for g in range(16):
        best = x[g * 32]
        for j in range(32):
            best = op('max', 'i64', best, x[g * 32 + j])
        m[g] = best
    return {'m': ('i64', m)}


def block_code_fence():
    x = rand('i32', 5, 64, -50, 50)
    y = [0] * 64
    for g in range(4):
        a = [x[g * 16 + t] for t in range(16)]
        for r in range(3):
            v = a[r]
            a = [op('add', 'i32', a[t], v) for t in range(16)]
        for t in range(16):
            y[g * 16 + t] = a[t]
    return {'y': ('i32', y)}


def f64_math_kernel():
    T = 'f64'
    x = rand(T, 131, 64, -8, 8)
    y, z = [0] * 64, [0] * 64
    for g in range(2):
        for t in range(32):
            i = g * 32 + t
            v = x[i]
            a = op('fma', T, op('sin', T, v), op('cos', T, v), op('sqrt', T, op('abs', T, v)))
            b = op('add', T, op('exp2', T, op('div', T, v, lit(T, '4.0'))), op('log2', T, op('abs', T, v)))
            y[i] = op('select', T, int(t == 3), F64.qnan, op('min', T, a, b))
            z[i] = op('max', T, op('floor', T, op('mul', T, v, lit(T, '3.0'))),
                      op('div', T, lit(T, '1.0'), op('sub', T, v, lit(T, '0.5'))))
    return {'y': (T, y), 'z': (T, z)}


def int_edges_kernel():
    a = rand('i32', 141, 64)
    b = rand('i32', 142, 64, -2, 2)
    q, r, w, u, s, c = ([0] * 64 for _ in range(6))
    for g in range(2):
        for t in range(32):
            i = g * 32 + t
            x = -2147483648 if t == 5 else a[i]
            y = -1 if t == 5 else b[i]
            q[i] = op('div', 'i32', x, y)
            r[i] = op('mod', 'i32', x, y)
            w[i] = op('mul', 'i8', M.cast('i32', 'i8', x), 3)
            u[i] = op('sub', 'u8', M.cast('i32', 'u8', y), 7)
            s[i] = op('shl', 'i64', M.cast('i32', 'i64', x), M.cast('i32', 'i64', t + 60))
            c[i] = M.cast('f32', 'i32', op('mul', 'f32', M.cast('i32', 'f32', x), lit('f32', '4.0')))
    return {'q': ('i32', q), 'r': ('i32', r), 'w': ('i8', w), 'u': ('u8', u), 's': ('i64', s), 'c': ('i32', c)}


def kernels_chain():
    x = rand('i32', 121, 256, -100, 100)
    sq = [op('mul', 'i32', v, v) for v in x]
    d = [0] * 256
    for g in range(4):
        tile = sq[g * 64:(g + 1) * 64]
        for t in range(64):
            d[g * 64 + t] = op('sub', 'i32', tile[t], tile[op('mod', 'i32', t + 1, 64)])
    hist = [0] * 8
    for v in d:
        k = op('and', 'i32', v, 7)
        hist[k] = op('add', 'u32', hist[k], 1)
    return {'sq': ('i32', sq), 'd': ('i32', d), 'hist': ('u32', hist)}


def launch_bounds_1024_registers(text):
    # the file's own lets: s_i = s_(i-1) + (a_i * a_(31-i)) / (a_k + 3.0); read k from it
    ks = [int(k) for k in re.findall(r'\(div \(mul a\d+ a\d+\) \(add a(\d+) 3\.0\)\)', text)]
    pairs = [(int(p), int(q)) for p, q in re.findall(r'\(div \(mul a(\d+) a(\d+)\)', text)]
    assert len(ks) == 32 and pairs == [(i, 31 - i) for i in range(32)] and ks == [(7 * i + 1) % 32 for i in range(32)]
    T = 'f64'
    x = rand(T, 7, 32768)
    three = lit(T, '3.0')
    y = [0] * 1024
    for t in range(1024):
        a = x[t * 32:(t + 1) * 32]
        s = None
        for i in range(32):
            term = op('div', T, op('mul', T, a[i], a[31 - i]), op('add', T, a[ks[i]], three))
            s = term if s is None else op('add', T, s, term)
        y[t] = s
    return {'y': (T, y)}


def matmul_tiled_rect():
    T = 'f32'
    A = rand(T, 21, 1536)
    B = rand(T, 22, 3072)
    C = [0] * 2048
    for g in range(8):
        for t in range(256):
            ty, tx = t // 16, t % 16
            row, col = (g // 4) * 16 + ty, (g % 4) * 16 + tx
            acc = 0                                      # the alloc starts at +0 in each block
            for kk in range(48):                         # k tiles of 16, j within, in order
                acc = op('add', T, acc, op('mul', T, A[row * 48 + kk], B[kk * 64 + col]))
            C[row * 64 + col] = acc
    return {'C': (T, C)}


def reduce_tree_max_unroll():
    T = 'f32'
    x = rand(T, 31, 4096)
    m = [0] * 8
    for g in range(8):
        part = [op('max', T, x[g * 512 + t], x[g * 512 + t + 256]) for t in range(256)]
        for s in range(8):
            half = 128 >> s
            nxt = [op('max', T, part[t], part[t + half]) for t in range(half)]
            part[:half] = nxt
        m[g] = part[0]
    return {'m': (T, m)}


def scan_block_128():
    x = rand('i32', 41, 512, -1000, 1000)
    y = [0] * 512
    for g in range(4):
        a = x[g * 128:(g + 1) * 128]
        for s in range(7):
            d = 1 << s
            a = [op('add', 'i32', a[t], a[t - d]) if t >= d else a[t] for t in range(128)]
        y[g * 128:(g + 1) * 128] = a
    return {'y': ('i32', y)}


def softmax_rows_256():
    T = 'f32'
    x = rand(T, 71, 1024, -4, 4)
    y = [0] * 1024
    for g in range(4):
        row = x[g * 256:(g + 1) * 256]
        mx = row[0]
        for j in range(256):
            mx = op('max', T, mx, row[j])
        e = [op('exp2', T, op('sub', T, v, mx)) for v in row]
        sm = 0
        for j in range(256):
            sm = op('add', T, sm, e[j])
        for t in range(256):
            y[g * 256 + t] = op('div', T, e[t], sm)
    return {'y': (T, y)}


def stencil2d_halo():
    T = 'f32'
    inp = rand(T, 61, 1156)
    out = [0] * 1024
    for g in range(4):
        tile = [inp[((g // 2) * 16 + j // 18) * 34 + (g % 2) * 16 + j % 18] for j in range(324)]
        for t in range(256):
            ty, tx = t // 16, t % 16
            r = []
            for k in range(3):
                base = (ty + k) * 18 + tx
                r.append(op('add', T, op('add', T, tile[base], tile[base + 1]), tile[base + 2]))
            out[((g // 2) * 16 + ty) * 32 + (g % 2) * 16 + tx] = op('add', T, op('add', T, r[0], r[1]), r[2])
    return {'out': (T, out)}


def transpose_tile_padded():
    inp = M.init_iota('i32', 2048)
    out = [0] * 2048
    for g in range(8):
        tile = [0] * 272
        for t in range(256):
            ty, tx = t // 16, t % 16
            tile[ty * 17 + tx] = inp[((g // 4) * 16 + ty) * 64 + (g % 4) * 16 + tx]
        for t in range(256):
            ty, tx = t // 16, t % 16
            out[((g % 4) * 16 + ty) * 32 + (g // 4) * 16 + tx] = tile[tx * 17 + ty]
    return {'out': ('i32', out)}


def vector_load4():
    x = rand('f32', 111, 1024)
    y = [op('add', 'f32', op('mul', 'f32', v, lit('f32', '2.5')), lit('f32', '-1.0')) for v in x]
    z = [0] * 510
    for k in range(256):
        g, t = divmod(k, 128)
        o = g * 256 + t * 2 + 1
        z[g * 128 + t] = op('add', 'f32', x[o], x[o + 1])
    a = rand('i64', 112, 256)
    b = [0] * 256
    for k in range(128):
        b[2 * k] = a[2 * k + 1]
        b[2 * k + 1] = op('neg', 'i64', a[2 * k])
    c = rand('u32', 113, 512)
    d = [op('xor', 'u32', v, 0xF0F0F0F0) for v in c]
    return {'y': ('f32', y), 'z': ('f32', z), 'b': ('i64', b), 'd': ('u32', d)}


def unroll_budget():
    a = M.init_iota('i64', 4096)
    s = [0] * 64
    c = [3, -1]
    for i in range(64):
        for j in range(64):
            for k in range(2):
                x = op('add', 'i64', a[i * 64 + j], M.cast('i32', 'i64', c[k]))
                s[i] = op('add', 'i64', s[i], op('div', 'i64', op('mul', 'i64', x, x), k + 1))
    return {'s': ('i64', s)}


PROGRAMS = [
    ('tests/programs/cuda/block_1024_reverse.uir', block_1024_reverse),
    ('tests/programs/cuda/block_1thread_serial.uir', block_1thread_serial),
    ('tests/programs/cuda/block_code_fence.uir', block_code_fence),
    ('tests/programs/cuda/f64_math_kernel.uir', f64_math_kernel),
    ('tests/programs/cuda/int_edges_kernel.uir', int_edges_kernel),
    ('tests/programs/cuda/kernels_chain.uir', kernels_chain),
    ('tests/programs/cuda/launch_bounds_1024_registers.uir', launch_bounds_1024_registers),
    ('tests/programs/cuda/matmul_tiled_rect.uir', matmul_tiled_rect),
    ('tests/programs/cuda/reduce_tree_max_unroll.uir', reduce_tree_max_unroll),
    ('tests/programs/cuda/scan_block_128.uir', scan_block_128),
    ('tests/programs/cuda/softmax_rows_256.uir', softmax_rows_256),
    ('tests/programs/cuda/stencil2d_halo.uir', stencil2d_halo),
    ('tests/programs/cuda/transpose_tile_padded.uir', transpose_tile_padded),
    ('tests/programs/cuda/vector_load4.uir', vector_load4),
    ('tests/programs/regress/unroll_budget.uir', unroll_budget),
]


def expect_lines(path, fn, text):
    bufs = fn(text) if fn.__code__.co_argcount else fn()
    return ['# expect %s: %s' % (name, ' '.join(M.text(t, v) for v in vals)) for name, (t, vals) in bufs.items()]


def split_file(text):
    lines = text.split('\n')
    n = 0
    while n < len(lines) and lines[n].startswith('#'):
        n += 1
    return lines[:n], lines[n:]


def run(srcroot, write):
    bad = 0
    for rel, fn in PROGRAMS:
        path = os.path.join(srcroot, rel)
        with open(path) as f:
            text = f.read()
        try:
            want = expect_lines(path, fn, text)
        except Undecided as e:
            print('%s: the model cannot decide %s: no # expect lines' % (rel, e))
            continue
        head, rest = split_file(text)
        have = [ln for ln in head if ln.startswith('# expect ')]
        if write:
            others = [ln for ln in head if not ln.startswith('# expect ')]
            with open(path, 'w') as f:
                f.write('\n'.join(others[:1] + want + others[1:] + rest))
            print('%s: %d # expect lines' % (rel, len(want)))
        elif have != want:
            bad += 1
            names = {ln.split(':')[0] for ln in have} ^ {ln.split(':')[0] for ln in want}
            print('%s: # expect lines differ from the model%s' % (rel, (' (buffers %s)' % sorted(names)) if names else ''))
    if not write:
        print('expects.py: %d programs, %s' % (len(PROGRAMS), 'all # expect lines are the model\'s' if not bad else '%d differ' % bad))
    return 1 if bad else 0


if __name__ == '__main__':
    args = [a for a in sys.argv[1:] if a != '--write']
    sys.exit(run(args[0] if args else os.path.dirname(os.path.dirname(HERE)), '--write' in sys.argv[1:]))
