#!/usr/bin/env python3
"""fuzz_ops.py - differential test of the LLVM JIT against the reference interpreter.

Generates random well-typed .uir programs: every op of docs/language.md 4.5 on every type it
takes, scalar and vector, over inputs full of edge values (NaN, +-inf, -0, subnormals,
MIN, MAX, -1, 0), with offsets sometimes out of bounds and divisors sometimes 0 or -1. Each
program is run with `uir run --hash` under both engines (and JIT thread counts 1 and 2);
stdout, stderr and the exit status must match exactly.

    tests/jit/fuzz_ops.py UIR [COUNT [SEED]]

Exits 1 on the first difference, leaving the program in /tmp/uir_fuzz_fail.uir.
"""
import os
import random
import subprocess
import sys
import tempfile

INTS = ['i8', 'u8', 'i32', 'u32', 'i64', 'u64']
FLOATS = ['f32', 'f64']
NUMS = INTS + FLOATS
TYPES = ['bool'] + NUMS
BITS = {'i8': 8, 'u8': 8, 'i32': 32, 'u32': 32, 'i64': 64, 'u64': 64, 'f32': 32, 'f64': 64, 'bool': 8}
N = 24  # elements per input buffer


def int_edges(t):
    b = BITS[t]
    if t.startswith('u'):
        lo, hi = 0, 2 ** b - 1
    else:
        lo, hi = -2 ** (b - 1), 2 ** (b - 1) - 1
    vals = [lo, hi, 0, 1, 2, 3, 7, lo + 1, hi - 1, 100 % (hi + 1), b - 1, b, b + 1]
    if lo < 0:
        vals += [-1, -2, -7, -100 % (hi + 1) if False else -3]
    return [v for v in vals if lo <= v <= hi]


FLOAT_EDGES = ['nan', 'inf', '-inf', '0.0', '-0.0', '1.0', '-1.0', '0.5', '1.5', '-2.5', '3.0e38',
               '-3.0e38', '1.0e-40', '-1.0e-45', '1.0e-38', '2147483648.0', '-2147483649.0', '4294967296.0',
               '9.3e18', '-9.3e18', '255.5', '-128.5', '1.0e10', '0.1', '100.0', '-0.75', '6.2831853', '1.0e300']


def values(t, rnd):
    out = []
    for _ in range(N):
        if t == 'bool':
            out.append(rnd.choice(['true', 'false']))
        elif t in INTS:
            if rnd.random() < 0.6:
                out.append(str(rnd.choice(int_edges(t))))
            else:
                b = BITS[t]
                lo, hi = (0, 2 ** b - 1) if t.startswith('u') else (-2 ** (b - 1), 2 ** (b - 1) - 1)
                out.append(str(rnd.randint(lo, hi)))
        else:
            if rnd.random() < 0.6:
                v = rnd.choice(FLOAT_EDGES)
                if t == 'f32' and v in ('1.0e300',):
                    v = '1.0e30'
                out.append(v)
            else:
                out.append(repr(rnd.uniform(-1000, 1000)))
    return out


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.lets = []  # (name, type, lanes)
        self.nlet = 0
        self.top = False  # generating top-level lets: no loop index

    def leaf(self, t, lanes=1):
        r = self.r
        cands = [x for x in self.lets if x[1] == t and x[2] == lanes]
        if cands and r.random() < 0.3:
            return r.choice(cands)[0]
        if lanes > 1:
            return 'load.%d in_%s %s' % (lanes, t, self.off(lanes))
        if r.random() < 0.25:
            return self.lit(t)
        return 'load in_%s %s' % (t, self.off(1))

    def lit(self, t):
        r = self.r
        if t == 'bool':
            return r.choice(['true', 'false'])
        if t in INTS:
            return '%d:%s' % (r.choice(int_edges(t)), t)
        v = r.choice(FLOAT_EDGES)
        if t == 'f32' and v == '1.0e300':
            v = '1.5'
        if t == 'f32' and v in ('3.0e38', '-3.0e38') and r.random() < 0.5:
            v = '2.0'
        return '%s:%s' % (v, t)

    def off(self, lanes):
        r = self.r
        k = r.random()
        if k < 0.01:
            return str(r.choice([-1, N, N - lanes + 1, 1000]))  # a fault
        if k < 0.03:
            return '(mod (load in_i32 i) %d)' % (N - lanes + 1)  # maybe negative: a fault
        if k < 0.4 or self.top:
            return str(r.randint(0, N - lanes))
        return '(mod (add i %d) %d)' % (r.randint(0, 5), N - lanes + 1)

    def expr(self, t, lanes, d):
        r = self.r
        if d <= 0 or r.random() < 0.2:
            return self.leaf(t, lanes)
        a = lambda: self.expr(t, lanes, d - 1)
        choices = []
        if t in NUMS:
            choices += ['bin', 'bin', 'un', 'minmax', 'select', 'cast']
        if t in INTS:
            choices += ['logic', 'shift', 'divmod', 'divmod', 'bitcast']
        if t in FLOATS:
            choices += ['fma', 'math', 'math', 'divmod', 'bitcast']
        if t == 'bool':
            choices += ['cmp', 'cmp', 'cmp', 'logic', 'select', 'cast']
        if lanes == 1 and t != 'bool':
            choices += ['lane']
        if lanes > 1 and t != 'bool':
            choices += ['splat', 'vec']
        c = r.choice(choices)
        if c == 'bin':
            return '%s (%s) (%s)' % (r.choice(['add', 'sub', 'mul']), a(), a())
        if c == 'divmod':
            return '%s (%s) (%s)' % (r.choice(['div', 'mod']), a(), a())
        if c == 'un':
            return '%s (%s)' % (r.choice(['neg', 'abs']), a())
        if c == 'minmax':
            return '%s (%s) (%s)' % (r.choice(['min', 'max']), a(), a())
        if c == 'select':
            return 'select (%s) (%s) (%s)' % (self.expr('bool', lanes, d - 1), a(), a())
        if c == 'logic':
            if r.random() < 0.3:
                return 'not (%s)' % a()
            return '%s (%s) (%s)' % (r.choice(['and', 'or', 'xor']), a(), a())
        if c == 'shift':
            return '%s (%s) (%s)' % (r.choice(['shl', 'shr']), a(), a())
        if c == 'fma':
            return 'fma (%s) (%s) (%s)' % (a(), a(), a())
        if c == 'math':
            return '%s (%s)' % (r.choice(['sqrt', 'recip', 'exp2', 'log2', 'sin', 'cos', 'floor', 'ceil', 'trunc']), a())
        if c == 'cmp':
            u = r.choice(NUMS + ['bool'])
            op = r.choice(['lt', 'le', 'gt', 'ge', 'eq', 'ne']) if u != 'bool' else r.choice(['eq', 'ne'])
            return '%s (%s) (%s)' % (op, self.expr(u, lanes, d - 1), self.expr(u, lanes, d - 1))
        if c == 'cast':
            u = r.choice(TYPES)
            return 'cast %s (%s)' % (t, self.expr(u, lanes, d - 1))
        if c == 'bitcast':
            same = [u for u in NUMS if BITS[u] == BITS[t]]
            u = r.choice(same)
            return 'bitcast %s (%s)' % (t, self.expr(u, lanes, d - 1))
        if c == 'lane':
            k = r.choice([2, 4, 8])
            return 'lane (%s) %d' % (self.expr(t, k, d - 1), r.randint(0, k - 1))
        if c == 'splat':
            return 'splat.%d (%s)' % (lanes, self.expr(t, 1, d - 1))
        if c == 'vec':
            return 'vec ' + ' '.join('(%s)' % self.expr(t, 1, d - 2) for _ in range(lanes))
        raise AssertionError(c)

    def program(self):
        r = self.r
        lines = []
        for t in TYPES:
            lines.append('buffer in_%s %s %d = [%s]' % (t, t, N, ' '.join(values(t, r))))
        body = []
        nout = 0
        # lets before the loop, captured by its body (a thread loop's context)
        self.top = True
        for _ in range(r.randint(0, 2)):
            t = r.choice(TYPES)
            lanes = r.choice([1, 2, 4, 8, 16])
            if lanes == 16 and t in ('i64', 'u64', 'f64'):
                lanes = 8
            name = 'g%d' % self.nlet
            self.nlet += 1
            lines.append('let %s = %s' % (name, self.expr(t, lanes, 3)))
            self.lets.append((name, t, lanes))
        self.top = False
        for _ in range(r.randint(2, 6)):
            t = r.choice(TYPES)
            lanes = r.choice([1, 1, 1, 2, 4, 8])
            if r.random() < 0.3:
                name = 'v%d' % self.nlet
                self.nlet += 1
                body.append('  let %s = %s' % (name, self.expr(t, lanes, 4)))
                self.lets.append((name, t, lanes))
                continue
            e = self.expr(t, lanes, 4)
            lines.append('buffer out%d %s 64' % (nout, t))
            if lanes > 1:
                body.append('  store.%d out%d (mul i %d) (%s)' % (lanes, nout, lanes, e))
            else:
                body.append('  store out%d i (%s)' % (nout, e))
            nout += 1
        if r.random() < 0.3:
            t = r.choice(INTS)
            lines.append('buffer out%d %s 4' % (nout, t))
            body.append('  atomic.%s out%d (mod i 4) (%s)' % (r.choice(['add', 'min', 'max']), nout, self.expr(t, 1, 2)))
        axis = r.choice(['', '', ' thread'])
        lines.append('loop i %d%s {' % (N - 16, axis))
        lines += body
        lines.append('}')
        return '\n'.join(lines) + '\n'


def run(uir, args, path):
    p = subprocess.run([uir, 'run', '--hash'] + args + [path], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    uir = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rnd = random.Random(seed)
    fd, path = tempfile.mkstemp(suffix='.uir')
    os.close(fd)
    checked = 0
    faults = 0
    for k in range(count):
        src = Gen(rnd).program()
        with open(path, 'w') as f:
            f.write(src)
        ref = run(uir, ['--engine', 'interp'], path)
        if ref[0] not in (0, 1):
            continue
        if ref[0] == 1 and b'E0601' not in ref[2]:
            continue  # a program the checker rejects (the generator is not perfect)
        checked += 1
        faults += ref[0] == 1
        for t in ('1', '2'):
            got = run(uir, ['--engine', 'jit', '--threads', t], path)
            if got != ref:
                with open('/tmp/uir_fuzz_fail.uir', 'w') as f:
                    f.write(src)
                print('DIFF in program %d (seed %d), saved as /tmp/uir_fuzz_fail.uir' % (k, seed))
                print('interp:', ref)
                print('jit:   ', got)
                return 1
    os.unlink(path)
    print('%d programs generated, %d compared (%d of them fault), no difference' % (count, checked, faults))
    return 0


if __name__ == '__main__':
    sys.exit(main())
