#!/usr/bin/python3
"""opdiff.py - every .uir op against the independent model of tests/ops/model.py.

    opdiff.py UIR [--engines interp,jit,render] [--keep DIR] [--only TYPE,...]
              [--variants scalar,vector,literal,folded] [--expects]

For each operand type (bool, i8, u8, i32, u32, i64, u64, f32, f64) one .uir program is
written (in kernel form, so that it also goes through render-cuda): edge-value inputs (0,
±1, MIN, MAX, MIN+1, MAX-1, powers of two, shift counts around the width, values at the
rounding boundaries of the casts, and for floats ±0, ±inf, NaNs with payloads, subnormals,
the largest and smallest values, ties of floor/ceil/trunc and of the rounding to f32,
seeded random bit patterns); float inputs are written as bit patterns and bitcast. Every op
of docs/language.md 4.5 that takes the type is computed over them in loops:

  scalar     binary ops over every pair of inputs, unary ops over every input, `select`
             over both conditions, `fma` over every triple of a smaller set and over
             random triples with c near -(a*b), casts to every type, bitcasts to every type
             of the same size, exp2 log2 sin cos over their own inputs
  vector     the same ops on vectors (load.K, splat.K, store.K; K from 2 to 16 by type)
  literal    one operand an untyped literal (`add x 0.5`, `shl 3 x`), and expressions of
             typed literals only (`div -128:i8 -1:i8`), which a back end may fold
  init       the INIT forms of docs/language.md 3.2: random (3.3), random with a range, iota

Each program runs in each engine (`uir run --engine interp`, `--engine jit`, and `uir
render --main` compiled with cc; optionally `cuda-emu`, the render-cuda output under
runtime/uir_cuda_emu.h, and `cuda-gpu`, with nvcc on a GPU), the printed values are read
back to bits (docs/language.md 10.1) and compared with the model bit for bit, every NaN
matching every NaN (2.4.2); the printed text itself must be 10.1's (shortest %.*g that reads
back, `nan` for every NaN). The interpreter's `run --hash` and `run --dump` of every buffer
must be the model's bytes with NaNs canonical (2.4.2). Prints the cases per op and type,
every mismatch (engine, op, type, inputs, model value, uir value), and exits 1 on any
mismatch. --expects also runs expects.py: the `# expect` lines it gave test programs must
still be the model's.
"""
import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as M  # noqa: E402

SRCROOT = os.path.dirname(os.path.dirname(HERE))
TYPE_NAMES = ['bool', 'i8', 'u8', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64']
VEC_K = {'i8': 16, 'u8': 8, 'i32': 4, 'u32': 8, 'i64': 2, 'u64': 4, 'f32': 4, 'f64': 2}
BITS_TYPE = {'f32': 'u32', 'f64': 'u64'}
ALL_VARIANTS = ['scalar', 'vector', 'literal', 'folded']
VARIANTS = set(ALL_VARIANTS)

# ---- inputs --------------------------------------------------------------------------------


def uniq(xs):
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def pad(xs, k, fill):
    """xs extended by fill() values (no repeats) to a multiple of k."""
    xs = list(xs)
    seen = set(xs)
    while len(xs) % k:
        v = fill()
        if v not in seen:
            seen.add(v)
            xs.append(v)
    return xs


def int_edges(t, rng, full):
    w = t.bits
    c = [0, 1, 2, 3, 5, 7, 8, 9, w - 1, w, w + 1, 2 * w - 1, 31, 32, 33, 63, 64, 65,
         127, 128, 255, 256, t.min, t.min + 1, t.max, t.max - 1, t.max // 2, t.max // 2 + 1,
         -1, -2, -3, -7, -8, 1 << (w // 2), (1 << (w // 2)) + 1]
    if full:
        # rounding boundaries of int to float: 2^24 + 1 and 2^53 + 1 are ties, + 3 round up
        c += [16777217, 16777219, (1 << 24) - 1, (1 << 53) + 1, (1 << 53) + 3,
              (1 << 31) - 1, 1 << 31, -(1 << 31) - 1, (1 << 32) - 1, 1 << 32,
              (1 << 63) - 1 - 511, (1 << 63) - 512, -(1 << 63) + 1024, (1 << 64) - 1025,
              (1 << 64) - 1024, 1000000007, -123456789, 0x55, 0xAA, 0x5555555555555555]
    c = uniq(v for v in c if t.min <= v <= t.max)
    c += [rng.randint(t.min, t.max) for _ in range(4 if not full else 8)]
    c += [rng.randint(-100, 100) for _ in range(2)] if t.signed else [rng.randint(0, 200)]
    return pad(uniq(c), 16, lambda: rng.randint(t.min, t.max))


def f_bits(fmt, x):
    """Bits of an exact Python float (a double) in fmt, rounding once (exact for values of fmt)."""
    if x != x:
        return fmt.qnan
    if x in (float('inf'), float('-inf')):
        return (fmt.sign if x < 0 else 0) | fmt.inf
    if x == 0:
        return fmt.sign if str(x).startswith('-') else 0
    return M.from_fraction(fmt, M.Fraction(x))


def float_edges(fmt, rng, full):
    p, one = fmt.p, M.one(fmt)
    S = fmt.sign
    b = [0, S, one, S | one, f_bits(fmt, 2.0), f_bits(fmt, 0.5), f_bits(fmt, 1.5),
         f_bits(fmt, -1.5), f_bits(fmt, 2.5), f_bits(fmt, -2.5), f_bits(fmt, 3.0),
         f_bits(fmt, -0.5), f_bits(fmt, 0.1), f_bits(fmt, 1 / 3), f_bits(fmt, 10.0),
         f_bits(fmt, -100.0), one + 1, one - 1, S | (one + 1),
         fmt.max_finite, S | fmt.max_finite, fmt.max_finite - 1,
         1 << (p - 1), S | (1 << (p - 1)), (1 << (p - 1)) - 1, 1, S | 1, 1 << (p - 2),
         fmt.inf, S | fmt.inf, fmt.qnan, S | fmt.qnan, fmt.inf | 1, fmt.qnan | 0x12345,
         M.from_fraction(fmt, M.Fraction(2) ** -p),               # half an ulp of 1
         M.from_fraction(fmt, M.Fraction(3) * M.Fraction(2) ** (-p - 1)),
         M.from_fraction(fmt, M.Fraction(2) ** (p - 1)),            # 2^(p-1): no fraction bits left
         M.from_fraction(fmt, M.Fraction(2 ** (p - 1) - 1) + M.Fraction(1, 2))]
    if full:
        # float to integer boundaries (saturation, truncation, the largest value below 2^k)
        for k in (7, 8, 31, 32, 63, 64):
            b += [f_bits(fmt, 2.0 ** k), f_bits(fmt, -2.0 ** k),
                  f_bits(fmt, 2.0 ** k) - 1, (S | f_bits(fmt, 2.0 ** k)) + 1]
        b += [f_bits(fmt, x) for x in (127.5, -128.5, 255.5, 256.5, -0.999, 0.999, 4294967295.0
                                       if fmt is M.F64 else 4294967040.0, 3.141592653589793,
                                       2.718281828459045, 1e10, -7.0, 65536.0)]
        b += [M.from_fraction(fmt, M.Fraction(2) ** p + 1) if fmt is M.F64 else f_bits(fmt, 16777218.0),
              M.from_fraction(fmt, M.Fraction(2) ** p - 1)]
        # f64 values at the rounding boundaries of f64 to f32 (ties, the overflow threshold)
        if fmt is M.F64:
            b += [M.from_fraction(fmt, 1 + M.Fraction(2) ** -24), M.from_fraction(fmt, 1 + M.Fraction(3, 2 ** 24)),
                  M.from_fraction(fmt, (2 - M.Fraction(2) ** -24) * M.Fraction(2) ** 127),
                  M.from_fraction(fmt, (2 - M.Fraction(2) ** -25) * M.Fraction(2) ** 127),
                  M.from_fraction(fmt, M.Fraction(2) ** -150), M.from_fraction(fmt, M.Fraction(3, 2) * M.Fraction(2) ** -150),
                  M.from_fraction(fmt, M.Fraction(2) ** -149), M.from_fraction(fmt, M.Fraction(2) ** -126),
                  M.from_fraction(fmt, M.Fraction(2) ** -127 * 3), f_bits(fmt, 1e-300), f_bits(fmt, 1e300)]
    b = uniq(b)
    n_rand = 10 if full else 6
    for _ in range(n_rand):
        e = rng.randint(1, (1 << fmt.ebits) - 2)
        b.append((rng.getrandbits(1) * S) | (e << (p - 1)) | rng.getrandbits(p - 1))
    for _ in range(n_rand):
        b.append(f_bits(fmt, rng.uniform(-4, 4)))
    return pad(uniq(b), 16, lambda: f_bits(fmt, rng.uniform(-100, 100)))


def math_inputs(fmt, op, rng):
    """Inputs of exp2 log2 sin cos: the common edges and their own hard cases."""
    fr = M.Fraction
    xs = []
    if op == 'exp2':
        lo = fmt.emin - fmt.p
        xs += [f_bits(fmt, float(v)) for v in (lo - 1, lo, lo + 0.5, lo + 1, fmt.emin, -1, 1, 10,
                                               fmt.emax, fmt.emax + 1, -0.5, 0.5, 1e-3, -1e-3)]
        xs += [M.from_fraction(fmt, fr(fmt.emax + 1) - fr(1, 1 << 10)), fmt.qnan,
               M.from_fraction(fmt, fr(2) ** -40), M.from_fraction(fmt, -fr(2) ** -40)]
        xs += [f_bits(fmt, rng.uniform(fmt.emin - fmt.p, fmt.emax + 1)) for _ in range(120)]
        xs += [f_bits(fmt, rng.uniform(-2, 2)) for _ in range(60)]
        xs += [f_bits(fmt, rng.randint(-100, 100) + rng.choice([0.5, 0.25, 1 / 128, -1 / 1024])) for _ in range(20)]
    elif op == 'log2':
        xs += [M.from_fraction(fmt, fr(2) ** k) for k in (-149, -126, -1, 1, 20, 127)]
        xs += [M.one(fmt) + 1, M.one(fmt) - 1, M.one(fmt) + 3, f_bits(fmt, 10.0), f_bits(fmt, 0.75),
               f_bits(fmt, 1.5), 3, (1 << (fmt.p - 1)) + 12345, f_bits(fmt, -2.0)]
        if fmt is M.F64:
            xs += [M.from_fraction(fmt, fr(2) ** k) for k in (-1074, -1022, 1023)]
        for _ in range(120):
            e = rng.randint(0, (1 << fmt.ebits) - 2)
            xs.append((e << (fmt.p - 1)) | rng.getrandbits(fmt.p - 1))
        xs += [f_bits(fmt, rng.uniform(0.5, 2.0)) for _ in range(60)]
        xs += [M.one(fmt) + rng.randint(-1000, 1000) for _ in range(20)]   # near 1
    else:
        xs += [f_bits(fmt, v) for v in (1.0, -1.0, 3.0, 3.141592653589793, 1.5707963267948966,
                                        6.283185307179586, 355.0, 103993.0, 1e-8, -1e-8,
                                        1e5, 1e10, 1e22, 2.0 ** 60, -2.0 ** 80, 0.7853981633974483)]
        xs += [fmt.max_finite, S_(fmt) | fmt.max_finite, 1, 1 << (fmt.p - 1)]
        if fmt is M.F64:   # the binary64 value closest to a multiple of pi/2 (docs/math.md)
            xs += [M.from_fraction(fmt, fr(6381956970095103) * fr(2) ** 797), f_bits(fmt, 2.0 ** 1000)]
        else:
            xs += [f_bits(fmt, 16367173.0), f_bits(fmt, 2.0 ** 100)]
        for _ in range(60):
            e = rng.randint(0, (1 << fmt.ebits) - 2)
            xs.append((rng.getrandbits(1) * fmt.sign) | (e << (fmt.p - 1)) | rng.getrandbits(fmt.p - 1))
        xs += [f_bits(fmt, rng.uniform(-10, 10)) for _ in range(80)]
        xs += [f_bits(fmt, rng.uniform(-1, 1) * 10.0 ** rng.randint(3, 30)) for _ in range(40)]
    return uniq(xs)


def S_(fmt):
    return fmt.sign


def fma_random(fmt, rng, n):
    """Triples where fma differs from mul then add: c = -(a*b rounded) + a little."""
    out = []
    for i in range(n):
        a = f_bits(fmt, rng.uniform(-2, 2))
        b = f_bits(fmt, rng.uniform(-2, 2))
        pr = M.f_mul(fmt, a, b)
        if i % 4 == 0:
            c = f_bits(fmt, rng.uniform(-4, 4))
        elif i % 4 == 1:
            c = M.f_neg(fmt, pr)
        else:
            c = M.f_neg(fmt, pr) + rng.choice([-1, 1, 2, -2])
        out.append((a, b, c))
    # underflow and overflow of the single rounding
    tiny = M.from_fraction(fmt, M.Fraction(2) ** (fmt.emin // 2 - fmt.p // 2))
    out.append((tiny, tiny, S_(fmt) | 1))
    out.append((fmt.max_finite, f_bits(fmt, 2.0), S_(fmt) | fmt.max_finite))
    out.append((f_bits(fmt, 1.5), fmt.max_finite, S_(fmt) | fmt.max_finite))
    out.append((0, S_(fmt), S_(fmt)))
    out.append((S_(fmt), S_(fmt), S_(fmt)))
    out.append((f_bits(fmt, 3.0), f_bits(fmt, 5.0), f_bits(fmt, -15.0)))
    while len(out) % 16:
        out.append((f_bits(fmt, rng.uniform(-1, 1)), f_bits(fmt, rng.uniform(-1, 1)), f_bits(fmt, rng.uniform(-1, 1))))
    return out


# ---- literals ------------------------------------------------------------------------------


def literal(t, v, typed=False):
    """.uir literal text (docs/language.md 1.3) of the value v of type t."""
    t = M.T(t)
    suffix = ':' + t.name if typed else ''
    if t.kind == 'bool':
        return 'true' if v else 'false'
    if t.kind == 'int':
        return str(v) + suffix
    fmt = t.fmt
    k, s, m = M.decode(fmt, v)
    if k == M.NAN:
        return 'nan' + suffix
    if k == M.INF:
        return ('-inf' if s else 'inf') + suffix
    if k == M.ZERO:
        return ('-0.0' if s else '0.0') + suffix
    x = M.bits_to_float(fmt, v)
    for prec in range(1, 18):
        mant, ex = ('%.*e' % (prec - 1, x)).split('e')
        if '.' not in mant:
            mant += '.0'
        txt = '%se%d' % (mant, int(ex))
        if M.parse_float(fmt, txt) == v:
            return txt + suffix
    raise AssertionError('no literal for %x' % v)


# ---- programs ------------------------------------------------------------------------------


class Check:
    """One output buffer: the model's values for its elements, and what they are."""

    def __init__(self, buf, family, op, typ, rtype, inputs, expected, variant):
        self.buf, self.family, self.op, self.typ, self.rtype = buf, family, op, typ, rtype
        self.inputs, self.expected, self.variant = inputs, expected, variant
        self.want = None


class Program:
    def __init__(self, name):
        self.name = name
        self.decls = []
        self.body = []
        self.checks = []
        self.nbuf = 0
        self.contents = {}      # buffer name -> (type, the model's values); None: undecided
        self.kernels = {}       # (stage, grid, block, inner loop) -> statements
        self.stage = 1

    def buffer(self, typ, n, init=None, prefix='b'):
        self.nbuf += 1
        name = '%s%d' % (prefix, self.nbuf)
        self.decls.append('buffer %s %s %d%s' % (name, typ, n, (' = ' + init) if init else ''))
        return name

    def list_buffer(self, typ, vals):
        name = self.buffer(typ, len(vals), '[' + ' '.join(literal(typ, v) for v in vals) + ']')
        self.contents[name] = (typ, list(vals))
        return name

    def kernel(self, grid, block, stmts):
        """Statements for `loop g GRID global { loop t BLOCK local { ... } }`. Statements of one
        shape (grid, block, and an inner loop written as its first line `loop k N {` and last
        `}`) share one kernel: one store per op in one loop body. Kernels that fill the inputs
        (stage 0) come first."""
        inner = None
        if stmts[0].startswith('loop ') and stmts[0].endswith('{') and stmts[-1] == '}':
            inner, stmts = stmts[0], [s[2:] for s in stmts[1:-1]]
        self.kernels.setdefault((self.stage, grid, block, inner), []).extend(stmts)

    def check(self, family, op, typ, rtype, inputs, expected, code_fn, variant='scalar'):
        if variant not in VARIANTS and variant != 'input':
            return None
        buf = self.buffer(rtype, len(expected), prefix='r')
        self.checks.append(Check(buf, family, op, typ, rtype, inputs, expected, variant))
        self.contents[buf] = (rtype, expected)
        code_fn(buf)
        return buf

    def text(self):
        head = ['# opdiff.py: %s (tests/ops/opdiff.py writes this file; the model: tests/ops/model.py)' % self.name]
        body = []
        for stage in (0, 1):
            for (st, grid, block, inner), stmts in self.kernels.items():
                if st != stage:
                    continue
                ind = '      ' if inner else '    '
                body.append('loop g %d global {' % grid)
                body.append('  loop t %d local {' % block)
                if inner:
                    body.append('    ' + inner)
                body += [ind + x for x in stmts]
                if inner:
                    body.append('    }')
                body += ['  }', '}']
        return '\n'.join(head + self.decls + [''] + body) + '\n'


def family_of(op, arity):
    if op in M.MATH:
        return 'math'
    if op in M.CMP:
        return 'compare'
    if op in ('cast', 'bitcast', 'select', 'fma'):
        return op
    return 'unary' if arity == 1 else 'binary'


def value_input(prog, tname, vals):
    """A buffer of type tname holding vals; floats are written as bits and bitcast in a first
    kernel (so NaN payloads, -NaN and every bit pattern reach the ops). The float buffer
    itself is checked as `bitcast` of the bits."""
    if tname not in BITS_TYPE:
        return prog.list_buffer(tname, vals)
    it = BITS_TYPE[tname]
    ivals = [M.wrap(M.T(it), v) for v in vals]
    src = prog.list_buffer(it, ivals)
    exp = [M.bitcast(it, tname, v) for v in ivals]
    n = len(vals)
    prog.stage = 0
    dst = prog.check('bitcast', 'bitcast %s' % tname, it, tname, [(v,) for v in ivals], exp,
                     lambda r: prog.kernel(1, n, ['store %s t (bitcast %s (load %s t))' % (r, tname, src)]),
                     variant='input')
    prog.stage = 1
    return dst


def model_apply(op, tname, args):
    return M.apply(op, tname, *args)


def gen_type(tname, rng, full=True, vectors=True, literals=True):
    """The program of every op taking operands of type tname."""
    t = M.T(tname)
    prog = Program('ops on %s' % tname)
    K = VEC_K.get(tname)
    if t.kind == 'bool':
        U = [0, 1]
        A = U
        P = [0, 0, 1, 1]
        Q = [0, 1, 0, 1]
    elif t.kind == 'int':
        U = int_edges(t, rng, True)
        A = int_edges(t, rng, False)
    else:
        U = float_edges(t.fmt, rng, True)
        A = float_edges(t.fmt, rng, False)
    bU = value_input(prog, tname, U)
    bA = bU if A is U else value_input(prog, tname, A)
    nU, nA = len(U), len(A)
    vectors = vectors and K is not None

    for op, ar, rt in M.ops_of(tname):
        fam = family_of(op, ar)
        if op in M.MATH or op in ('fma', 'select'):
            continue
        if ar == 1:
            ins = [(x,) for x in U]
            exp = [model_apply(op, tname, a) for a in ins]
            prog.check(fam, op, tname, rt, ins, exp,
                       lambda r: prog.kernel(1, nU, ['store %s t (%s (load %s t))' % (r, op, bU)]))
            if vectors:
                prog.check(fam, op, tname, rt, ins, exp,
                           lambda r: prog.kernel(1, nU // K, ['store.%d %s (mul t %d) (%s (load.%d %s (mul t %d)))'
                                                              % (K, r, K, op, K, bU, K)]), 'vector')
            if literals:
                L = lit_values(t, U)
                ins = [(x,) for x in L]
                exp = [model_apply(op, tname, a) for a in ins]
                prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(1, 1, [
                    'store %s %d (%s %s)' % (r, i, op, literal(tname, x, True)) for i, x in enumerate(L)]), 'literal')
            continue
        if t.kind == 'bool':
            ins = list(zip(P, Q))
            exp = [model_apply(op, tname, a) for a in ins]
            bP, bQ = prog.list_buffer('bool', P), prog.list_buffer('bool', Q)
            prog.check(fam, op, tname, rt, ins, exp,
                       lambda r: prog.kernel(1, 4, ['store %s t (%s (load %s t) (load %s t))' % (r, op, bP, bQ)]))
            prog.check(fam, op, tname, rt, ins, exp,
                       lambda r: prog.kernel(1, 1, ['store.4 %s 0 (%s (load.4 %s 0) (load.4 %s 0))' % (r, op, bP, bQ)]), 'vector')
            prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(1, 1, [
                'store %s %d (%s %s %s)' % (r, i, op, literal('bool', a), literal('bool', b)) for i, (a, b) in enumerate(ins)]), 'literal')
            continue
        ins = [(x, y) for x in A for y in A]
        exp = [model_apply(op, tname, a) for a in ins]
        prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(nA, nA, [
            'store %s (add (mul g %d) t) (%s (load %s g) (load %s t))' % (r, nA, op, bA, bA)]))
        if vectors:
            prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(nA, nA // K, [
                'store.%d %s (add (mul g %d) (mul t %d)) (%s (splat.%d (load %s g)) (load.%d %s (mul t %d)))'
                % (K, r, nA, K, op, K, bA, K, bA, K)]), 'vector')
        if literals:
            L = lit_values(t, A)
            # the literal on the right, then on the left, untyped (typed by the other operand)
            # one thread, one loop over the inputs, a store per literal and side
            nL = len(L)
            body = ['store R (add (mul i %d) %d) (%s (load %s i) %s)' % (2 * nL, j, op, bU, literal(tname, y))
                    for j, y in enumerate(L)]
            body += ['store R (add (mul i %d) %d) (%s %s (load %s i))' % (2 * nL, nL + j, op, literal(tname, y), bU)
                     for j, y in enumerate(L)]
            ins = [None] * (2 * nL * nU)
            for i, x in enumerate(U):
                for j, y in enumerate(L):
                    ins[i * 2 * nL + j] = (x, y)
                    ins[i * 2 * nL + nL + j] = (y, x)
            exp = [model_apply(op, tname, a) for a in ins]
            prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(1, 1, [
                'loop i %d {' % nU] + ['  ' + b.replace('store R ', 'store %s ' % r) for b in body] + ['}']), 'literal')
            # typed literals only
            ins = [(x, y) for x in L for y in L]
            exp = [model_apply(op, tname, a) for a in ins]
            prog.check(fam, op, tname, rt, ins, exp, lambda r: prog.kernel(1, 1, [
                'store %s %d (%s %s %s)' % (r, i, op, literal(tname, a, True), literal(tname, b, True))
                for i, (a, b) in enumerate(ins)]), 'folded')

    # select over both conditions
    C = [1, 0]
    bC = prog.list_buffer('bool', C)
    ins = [(c, x, y) for x in A for y in A for c in C]
    exp = [model_apply('select', tname, a) for a in ins]
    prog.check('select', 'select', tname, tname, ins, exp, lambda r: prog.kernel(nA, nA, [
        'loop k 2 {', '  store %s (add (mul (add (mul g %d) t) 2) k) (select (load %s k) (load %s g) (load %s t))'
        % (r, nA, bC, bA, bA), '}']))
    if vectors:
        CB = [(i * 7 + i // 3) % 2 for i in range(nA)]
        bCB = prog.list_buffer('bool', CB)
        ins = [(CB[j], x, A[j]) for x in A for j in range(nA)]
        exp = [model_apply('select', tname, a) for a in ins]
        prog.check('select', 'select', tname, tname, ins, exp, lambda r: prog.kernel(nA, nA // K, [
            'store.%d %s (add (mul g %d) (mul t %d)) (select (load.%d %s (mul t %d)) (splat.%d (load %s g)) (load.%d %s (mul t %d)))'
            % (K, r, nA, K, K, bCB, K, K, bA, K, bA, K)]), 'vector')
    if literals and t.kind != 'bool':
        L = lit_values(t, A)[:4]
        ins = [(c, a, b) for c in C for a in L for b in L]
        exp = [model_apply('select', tname, a) for a in ins]
        prog.check('select', 'select', tname, tname, ins, exp, lambda r: prog.kernel(1, 1, [
            'store %s %d (select %s %s %s)' % (r, i, literal('bool', c), literal(tname, a, True), literal(tname, b))
            for i, (c, a, b) in enumerate(ins)]), 'folded')

    # casts to every type, bitcasts to every type of the same size
    for d in TYPE_NAMES:
        ins = [(x,) for x in U]
        exp = [M.cast(tname, d, x) for x in U]
        prog.check('cast', 'cast %s' % d, tname, d, ins, exp,
                   lambda r: prog.kernel(1, nU, ['store %s t (cast %s (load %s t))' % (r, d, bU)]))
        if vectors and d != 'bool':
            prog.check('cast', 'cast %s' % d, tname, d, ins, exp, lambda r: prog.kernel(1, nU // K, [
                'store.%d %s (mul t %d) (cast %s (load.%d %s (mul t %d)))' % (K, r, K, d, K, bU, K)]), 'vector')
        if literals:
            L = lit_values(t, U)
            ins = [(x,) for x in L]
            exp = [M.cast(tname, d, x) for x in L]
            prog.check('cast', 'cast %s' % d, tname, d, ins, exp, lambda r: prog.kernel(1, 1, [
                'store %s %d (cast %s %s)' % (r, i, d, literal(tname, x, True)) for i, x in enumerate(L)]), 'folded')
        dt = M.T(d)
        if t.kind != 'bool' and dt.kind != 'bool' and dt.bits == t.bits:
            ins = [(x,) for x in U]
            exp = [M.bitcast(tname, d, x) for x in U]
            prog.check('bitcast', 'bitcast %s' % d, tname, d, ins, exp,
                       lambda r: prog.kernel(1, nU, ['store %s t (bitcast %s (load %s t))' % (r, d, bU)]))
            if vectors:
                prog.check('bitcast', 'bitcast %s' % d, tname, d, ins, exp, lambda r: prog.kernel(1, nU // K, [
                    'store.%d %s (mul t %d) (bitcast %s (load.%d %s (mul t %d)))' % (K, r, K, d, K, bU, K)]), 'vector')

    if t.kind == 'float':
        gen_float_extra(prog, t, rng, K if vectors else None, literals)
    return prog


def lit_values(t, pool):
    """A few values for literal operands."""
    if t.kind == 'bool':
        return [0, 1]
    if t.kind == 'int':
        return uniq(v for v in [0, 1, -1, 2, 7, t.bits, t.bits + 1, t.min, t.max, 3]
                    if t.min <= v <= t.max)
    f = t.fmt
    return [0, f.sign, M.one(f), f.sign | M.one(f), f_bits(f, 0.5), f_bits(f, 3.0), f.inf,
            f.sign | f.inf, f.qnan, f.max_finite, 1, f_bits(f, 0.1)]


def gen_float_extra(prog, t, rng, K, literals):
    fmt = t.fmt
    tname = t.name
    # fma: every triple of a small set, and random triples near cancellation
    F = [0, fmt.sign, M.one(fmt), fmt.sign | M.one(fmt), f_bits(fmt, 0.5), f_bits(fmt, 3.0),
         M.one(fmt) + 1, fmt.max_finite, 1, 1 << (fmt.p - 1), fmt.inf, fmt.sign | fmt.inf, fmt.qnan,
         f_bits(fmt, 0.1), f_bits(fmt, -1 / 3), f_bits(fmt, 1e-3)]
    bF = value_input(prog, tname, F)
    n = len(F)
    ins = [(a, b, c) for a in F for b in F for c in F]
    exp = [M.f_fma(fmt, *a) for a in ins]
    prog.check('fma', 'fma', tname, tname, ins, exp, lambda r: prog.kernel(n, n, [
        'loop k %d {' % n, '  store %s (add (mul (add (mul g %d) t) %d) k) (fma (load %s g) (load %s t) (load %s k))'
        % (r, n, n, bF, bF, bF), '}']))
    trip = fma_random(fmt, rng, 240)
    ba = value_input(prog, tname, [x[0] for x in trip])
    bb = value_input(prog, tname, [x[1] for x in trip])
    bc = value_input(prog, tname, [x[2] for x in trip])
    exp = [M.f_fma(fmt, *a) for a in trip]
    nt = len(trip)
    prog.check('fma', 'fma', tname, tname, trip, exp, lambda r: prog.kernel(1, nt, [
        'store %s t (fma (load %s t) (load %s t) (load %s t))' % (r, ba, bb, bc)]))
    if K:
        prog.check('fma', 'fma', tname, tname, trip, exp, lambda r: prog.kernel(1, nt // K, [
            'store.%d %s (mul t %d) (fma (load.%d %s (mul t %d)) (load.%d %s (mul t %d)) (load.%d %s (mul t %d)))'
            % (K, r, K, K, ba, K, K, bb, K, K, bc, K)]), 'vector')
    if literals:
        sub = trip[:16] + [(F[i], F[j], F[k]) for i, j, k in ((2, 3, 0), (7, 7, 11), (0, 1, 1), (10, 0, 2), (6, 6, 3))]
        exp = [M.f_fma(fmt, *a) for a in sub]
        prog.check('fma', 'fma', tname, tname, sub, exp, lambda r: prog.kernel(1, 1, [
            'store %s %d (fma %s %s %s)' % (r, i, literal(tname, a, True), literal(tname, b), literal(tname, c))
            for i, (a, b, c) in enumerate(sub)]), 'folded')
    # exp2 log2 sin cos on their own inputs (docs/math.md); undecided cases are not compared
    for op in ('exp2', 'log2', 'sin', 'cos'):
        X = math_inputs(fmt, op, rng)
        X = pad(X, 16, lambda: f_bits(fmt, rng.uniform(-50, 50)))
        bX = value_input(prog, tname, X)
        ins = [(x,) for x in X]
        exp = [M.apply(op, tname, x) for x in X]
        nx = len(X)
        prog.check('math', op, tname, tname, ins, exp,
                   lambda r: prog.kernel(1, nx, ['store %s t (%s (load %s t))' % (r, op, bX)]))
        if K:
            prog.check('math', op, tname, tname, ins, exp, lambda r: prog.kernel(1, nx // K, [
                'store.%d %s (mul t %d) (%s (load.%d %s (mul t %d)))' % (K, r, K, op, K, bX, K)]), 'vector')


def gen_init(rng):
    """The INIT forms (docs/language.md 3.2, 3.3), checked as printed by run."""
    prog = Program('INIT forms')
    n = 64
    for tname in TYPE_NAMES:
        t = M.T(tname)
        for seed in (0, 3, 4294967295):
            exp = M.init_random(tname, seed, n)
            add_init(prog, tname, 'random %d' % seed, exp)
        exp = M.init_iota(tname, n)
        add_init(prog, tname, 'iota', exp)
        if t.kind == 'int':
            rngs = [(t.min, t.max + 1), (0, 1), (-3 if t.signed else 3, 17), (t.max - 5, t.max + 1)]
            for lo, hi in rngs:
                add_init(prog, tname, 'random 7 %d %d' % (lo, hi), M.init_random(tname, 7, n, lo, hi))
        elif t.kind == 'float':
            for lo, hi in (('-8', '8'), ('0.0', '1e-30'), ('1.0', '1.0000001'), ('-1e300', '1e300')
                           if tname == 'f64' else ('-3e38', '3e38'), ('0.1', '0.3')):
                add_init(prog, tname, 'random 9 %s %s' % (lo, hi), M.init_random(tname, 9, n, lo, hi))
    return prog


def add_init(prog, tname, init, exp):
    buf = prog.buffer(tname, len(exp), init, prefix='r')
    prog.checks.append(Check(buf, 'init', init.split()[0], tname, tname, [(init,)] * len(exp), exp, init))
    prog.contents[buf] = (tname, exp)


# ---- running -------------------------------------------------------------------------------


def buffer_bytes(tname, vals):
    """The little-endian bytes of a buffer, NaNs canonical (docs/language.md 2.4.2), or None
    when the model left a value undecided."""
    t = M.T(tname)
    if any(v is None for v in vals):
        return None
    out = bytearray()
    for v in vals:
        if t.kind == 'float':
            v = t.fmt.qnan if M.is_nan(t.fmt, v) else v
        else:
            v = M.to_unsigned_bits(t, v)
        out += v.to_bytes(t.bits // 8, 'little')
    return bytes(out)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & M.M64
    return h


def npy_data(path):
    """The data bytes of a .npy file (format versions 1 to 3)."""
    with open(path, 'rb') as f:
        raw = f.read()
    assert raw[:6] == b'\x93NUMPY', path
    major = raw[6]
    if major == 1:
        hlen, start = int.from_bytes(raw[8:10], 'little'), 10
    else:
        hlen, start = int.from_bytes(raw[8:12], 'little'), 12
    return raw[start + hlen:]


def check_bytes(prog, how, got, stats, mismatches, limit):
    """`run --hash` (got: name -> hex text) or `run --dump` (got: name -> bytes) of every
    buffer whose contents the model decided."""
    for name, (tname, vals) in prog.contents.items():
        want = buffer_bytes(tname, vals)
        st = stats[(how, how, tname)]
        if want is None:
            st['undecided'] += 1
            continue
        st['cases'] += 1
        if how == 'hash':
            ok = got.get(name) == '%016x' % fnv1a64(want)
            detail = 'hash %s, model %016x' % (got.get(name), fnv1a64(want))
        else:
            data = got.get(name)
            ok = data == want
            detail = 'first differing byte %s' % (
                next((i for i in range(min(len(data), len(want))) if data[i] != want[i]), min(len(data), len(want)))
                if data is not None else 'no file')
        if not ok:
            st['bad'] += 1
            if len(mismatches) < limit:
                mismatches.append('interp: run --%s: %s (%s %d): %s' % (how, name, tname, len(vals), detail))


def parse_output(out):
    res = {}
    for line in out.splitlines():
        name, _, vals = line.partition(':')
        res[name] = vals.split()
    return res


class Runner:
    def __init__(self, uir, work):
        self.uir, self.work = uir, work
        self.cc = os.environ.get('CC', 'cc')
        self.cxx = os.environ.get('CXX', 'c++')
        self.skipped = {}

    def run_hash_dump(self, path):
        """`run --engine interp --hash` and `--dump DIR` of the program."""
        p = subprocess.run([self.uir, 'run', '--engine', 'interp', '--hash', '--', path],
                           capture_output=True, text=True, check=True)
        hashes = {k: v[0] for k, v in parse_output(p.stdout).items()}
        d = path[:-4] + '.dump'
        os.makedirs(d, exist_ok=True)
        subprocess.run([self.uir, 'run', '--engine', 'interp', '--dump', d, '--', path],
                       capture_output=True, check=True)
        dumps = {f[:-4]: npy_data(os.path.join(d, f)) for f in os.listdir(d) if f.endswith('.npy')}
        return hashes, dumps

    def run(self, engine, path):
        """stdout of the program under engine, or None (with the reason kept) when the engine
        is not available here."""
        base = path[:-4]
        if engine in ('interp', 'jit'):
            p = subprocess.run([self.uir, 'run', '--engine', engine, '--', path], capture_output=True, text=True)
            if p.returncode == 64 and engine == 'jit':
                self.skipped[engine] = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'exit 64'
                return None
            if p.returncode:
                raise RuntimeError('%s %s: exit %d: %s' % (engine, path, p.returncode, p.stderr[:2000]))
            return p.stdout
        if engine == 'render':
            if not shutil.which(self.cc):
                self.skipped[engine] = 'no C compiler (%s)' % self.cc
                return None
            src = subprocess.run([self.uir, 'render', '--main', '--', path], capture_output=True, text=True, check=True).stdout
            with open(base + '.c', 'w') as f:
                f.write(src)
            subprocess.run([self.cc, '-std=c11', '-O2', '-pthread', '-o', base + '.c.exe', base + '.c', '-lm'], check=True)
            return subprocess.run([base + '.c.exe'], capture_output=True, text=True, check=True).stdout
        if engine in ('cuda-emu', 'cuda-gpu'):
            src = subprocess.run([self.uir, 'render-cuda', '--main', '--', path], capture_output=True, text=True, check=True).stdout
            with open(base + '.cu', 'w') as f:
                f.write(src)
            if engine == 'cuda-emu':
                cmd = [self.cxx, '-std=c++17', '-O2', '-pthread', '-ffp-contract=off', '-include',
                       os.path.join(SRCROOT, 'runtime', 'uir_cuda_emu.h'), '-x', 'c++', base + '.cu', '-o', base + '.cu.exe']
            else:
                nvcc = os.environ.get('NVCC', shutil.which('nvcc') or '/usr/local/cuda/bin/nvcc')
                cmd = [nvcc, '-arch=' + os.environ.get('NVCC_ARCH', 'native'), '-fmad=false', '-prec-div=true',
                       '-prec-sqrt=true', '-o', base + '.cu.exe', base + '.cu']
            subprocess.run(cmd, check=True)
            return subprocess.run([base + '.cu.exe'], capture_output=True, text=True, check=True).stdout
        raise ValueError(engine)


def compare(prog, engine, out, stats, mismatches, limit):
    got = parse_output(out)
    for c in prog.checks:
        key = (c.family, c.op, c.typ)
        st = stats[key]
        if c.buf not in got:
            mismatches.append('%s: %s %s (%s): buffer %s missing from the output' % (engine, c.op, c.typ, c.variant, c.buf))
            continue
        vals = got[c.buf]
        if len(vals) != len(c.expected):
            mismatches.append('%s: %s %s (%s): %d values printed, %d expected' % (engine, c.op, c.typ, c.variant, len(vals), len(c.expected)))
            continue
        rt = M.T(c.rtype)
        if c.want is None:
            # 10.1's text of each model value ('nan' for every NaN): equal shortest texts mean
            # equal bits, so a printed value that is this text is right
            c.want = [None if e is None else M.text(rt, e) for e in c.expected]
        for i, (s, w) in enumerate(zip(vals, c.want)):
            if w is None:
                st['undecided'] += 1
                continue
            st['cases'] += 1
            if s == w:
                continue
            e = c.expected[i]
            v = M.parse(rt, s)
            if M.same(rt, v, e):
                kind = 'printed %r, 10.1 says %r' % (s, w)
            else:
                kind = ''
            st['bad'] += 1
            if len(mismatches) < limit:
                args = ', '.join(show_in(c, j, x) for j, x in enumerate(c.inputs[i]))
                mismatches.append('%s: %s %s (%s, %s[%d]): inputs %s: model %s, uir %s %s' % (
                    engine, c.op, c.typ, c.variant, c.buf, i, args, M.show(rt, e),
                    M.show(rt, v) if not kind else s, kind))


def show_in(c, j, x):
    if isinstance(x, str):
        return x
    if c.op == 'select' and j == 0:
        return 'true' if x else 'false'
    return M.show(c.typ, x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('uir')
    ap.add_argument('--engines', default='interp,jit,render')
    ap.add_argument('--only', default='', help='types (and init) to do, comma-separated')
    ap.add_argument('--keep', help='write the programs (and renderings) here')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--limit', type=int, default=200, help='mismatches printed at most')
    ap.add_argument('--variants', default=','.join(ALL_VARIANTS),
                    help='which forms of each op: scalar, vector, literal, folded')
    ap.add_argument('--expects', action='store_true', help="also check expects.py's programs")
    args = ap.parse_args()
    VARIANTS.clear()
    VARIANTS.update(v for v in args.variants.split(',') if v)
    engines = [e for e in args.engines.split(',') if e]
    only = [x for x in args.only.split(',') if x]
    t0 = time.time()
    work = args.keep or tempfile.mkdtemp(prefix='opdiff.')
    os.makedirs(work, exist_ok=True)
    runner = Runner(os.path.abspath(args.uir), work)
    stats = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    mismatches = []
    failures = []           # runs that did not finish (a tool's error, a crash)
    progs = []
    for tname in TYPE_NAMES + ['init']:
        if only and tname not in only:
            continue
        rng = random.Random('%d:%s' % (args.seed, tname))
        prog = gen_init(rng) if tname == 'init' else gen_type(tname, rng)
        path = os.path.join(work, 'ops_%s.uir' % tname)
        with open(path, 'w') as f:
            f.write(prog.text())
        progs.append((prog, path))
    t_model = time.time() - t0
    engine_time = collections.Counter()
    for prog, path in progs:
        for e in engines:
            if e in runner.skipped:
                continue
            t1 = time.time()
            try:
                out = runner.run(e, path)
                if out is not None:
                    compare(prog, e, out, stats[e], mismatches, args.limit)
                if out is not None and e == 'interp':
                    hashes, dumps = runner.run_hash_dump(path)
                    check_bytes(prog, 'hash', hashes, stats[e], mismatches, args.limit)
                    check_bytes(prog, 'dump', dumps, stats[e], mismatches, args.limit)
            except (subprocess.CalledProcessError, RuntimeError, OSError) as err:
                detail = getattr(err, 'stderr', None) or ''
                failures.append('%s: %s: %s %s' % (e, os.path.basename(path), err,
                                                            detail.strip()[:2000] if isinstance(detail, str) else ''))
            engine_time[e] += time.time() - t1
    ran = [e for e in engines if e not in runner.skipped]
    # the table: cases per (family, op, type), counted once (the interpreter's), and
    # mismatches per engine
    rows = collections.OrderedDict()
    for e in ran:
        for key, st in stats[e].items():
            rows.setdefault(key, {})[e] = st
    print('%-8s %-12s %-5s %8s %9s  %s' % ('family', 'op', 'type', 'cases', 'undecided', '  '.join('%s bad' % e for e in ran)))
    fam_tot = collections.Counter()
    fam_und = collections.Counter()
    for (fam, op, typ), per in sorted(rows.items()):
        first = per[ran[0]]
        fam_tot[fam] += first['cases']
        fam_und[fam] += first['undecided']
        print('%-8s %-12s %-5s %8d %9d  %s' % (fam, op, typ, first['cases'], first['undecided'],
                                             '  '.join('%*d' % (len(e) + 4, per.get(e, {}).get('bad', 0)) for e in ran)))
    print()
    for fam in sorted(fam_tot):
        unit = 'buffers (all of them, bytes as docs/language.md 2.4.2 says)' if fam in ('hash', 'dump') else 'cases'
        print('%-8s %8d %s%s' % (fam, fam_tot[fam], unit, ('  (%d undecided, not compared)' % fam_und[fam]) if fam_und[fam] else ''))
    total = sum(n for fam, n in fam_tot.items() if fam not in ('hash', 'dump'))
    bad = sum(st['bad'] for e in ran for st in stats[e].values())
    print('total: %d (op, type, input) cases per engine; engines: %s%s' % (
        total, ', '.join(ran), ''.join('; %s not run: %s' % kv for kv in runner.skipped.items())))
    print('time: model and programs %.1f s, %s' % (t_model, ', '.join('%s %.1f s' % kv for kv in engine_time.items())))
    for m in mismatches:
        print('MISMATCH ' + m)
    if len(mismatches) >= args.limit:
        print('(only the first %d mismatches printed)' % args.limit)
    for f in failures:
        print('FAILED ' + f)
    print('%d mismatches, %d failed runs' % (bad, len(failures)) if bad or mismatches or failures else 'no mismatch')
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    rc = 1 if (bad or mismatches or failures) else 0
    if args.expects:
        import expects
        rc |= expects.run(SRCROOT, False)
    print('time: %.1f s in all' % (time.time() - t0))
    return rc


if __name__ == '__main__':
    sys.exit(main())
