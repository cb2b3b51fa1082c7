#!/usr/bin/python3
"""racegen.py - random .uir programs of the race shapes that the exact analysis decides.

    racegen.py --seed N [--shape NAME] [--mutate|--no-mutate] [--oracle]

prints one program (the same seed always gives the same program). Each program is one
*shape* (tree reductions, disjoint guards, rotations, field pairs, reversals, per-block slabs,
scans, bounds from lets, parameters, constant tables, atomics, outer bounds, min/max/select/
shr/and offsets, vectors, one-writer guards, random affine offsets) in one *context* (a
`thread` loop, a phase of a kernel on shared memory or on a per-block slab of a buffer, the
blocks of a kernel, a thread loop inside plain loops, a thread-private alloc), with random
sizes, strides, offsets and nesting; about half of the programs carry a *mutation* that is
meant to make them racy (off-by-one guards, overlapping slabs, colliding strides, a missing
phase split, a wrong modulus, same-value writes, guards that let two iterations in, a bound
one too large). A mutation is only an intention: whether a program really races is decided
by the oracle below.

Every program is valid apart from races (no E01-E04): all values are i32, names are unique,
the axes are placed as docs/language.md 6.4 allows, and memory sizes are computed after the fact
from the oracle's run (each memory gets its largest accessed offset + 1, plus a little slack), so
that no program faults unless an offset goes negative (a few mutants do; counted apart).

**The oracle** (`oracle(prog)`) is an independent model written from docs/language.md (sections 2,
4, 5, 7), not from uir's code: it runs the program sequentially in Python (i32 wrapping,
C division, arithmetic shifts, every operand evaluated) and records, for every element, which
iteration of each enclosing parallel loop read, wrote or atomically updated it: iterations of
one run of a `thread` loop, threads of one phase of one block, blocks of one run of a kernel
(block code included), with an alloc homed at a `thread` loop, and a block's shared memory
across blocks, skipped. Two different iterations touching one element conflict when at least
one writes, except two atomics of one op. It gives the ground truth for the program's sizes:
race (the first pair), fault, or the final buffers (compared with `uir run`'s output).

With --oracle, the oracle's verdict is printed as a JSON line on standard error.
"""
import argparse
import json
import random
import sys

MASK32 = 0xFFFFFFFF
CAP = 1 << 18          # larger offsets are faults (memories are sized to at most this)

# ---------------------------------------------------------------------------------------
# The syntax tree.  Expressions: int, str (a name), or tuples:
#   (op, a, b, ...) for the ops; ('load', mem, off); ('loadv', K, mem, off);
#   ('splat', K, e); ('vec', e1, ..., eK); ('vadd', v1, v2)
# Statements:
#   ('let', name, e); ('store', mem, off, val); ('storev', K, mem, off, vec);
#   ('atomic', op, mem, off, val); ('loop', name, bound, axis, body); ('if', c, then, els)
# ---------------------------------------------------------------------------------------


def add(*xs):
    xs = [x for x in xs if not (isinstance(x, int) and x == 0)]
    if not xs:
        return 0
    e = xs[0]
    for x in xs[1:]:
        e = ('add', e, x)
    return e


def mul(a, b):
    return ('mul', a, b)


def load(m, off):
    return ('load', m, off)


def store(m, off, v):
    return ('store', m, off, v)


def loop(name, bound, axis, body):
    return ('loop', name, bound, axis, body)


def if_(c, then, els=None):
    return ('if', c, then, els)


# ---------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------

def pe(e):
    if isinstance(e, bool):
        return 'true' if e else 'false'
    if isinstance(e, int):
        return str(e)
    if isinstance(e, str):
        return e
    op = e[0]
    if op == 'load':
        return 'load %s %s' % (e[1], pa(e[2]))
    if op == 'loadv':
        return 'load.%d %s %s' % (e[1], e[2], pa(e[3]))
    if op == 'splat':
        return 'splat.%d %s' % (e[1], pa(e[2]))
    if op == 'vadd':
        return 'add %s %s' % (pa(e[1]), pa(e[2]))
    return op + ' ' + ' '.join(pa(x) for x in e[1:])


def pa(e):
    if isinstance(e, (int, str)):
        return pe(e)
    return '(' + pe(e) + ')'


def pstmts(stmts, ind, out):
    for s in stmts:
        k = s[0]
        if k == 'let':
            out.append('%slet %s = %s' % (ind, s[1], pe(s[2])))
        elif k == 'store':
            out.append('%sstore %s %s %s' % (ind, s[1], pa(s[2]), pa(s[3])))
        elif k == 'storev':
            out.append('%sstore.%d %s %s %s' % (ind, s[1], s[2], pa(s[3]), pa(s[4])))
        elif k == 'atomic':
            out.append('%satomic.%s %s %s %s' % (ind, s[1], s[2], pa(s[3]), pa(s[4])))
        elif k == 'loop':
            ax = (' ' + s[3]) if s[3] else ''
            out.append('%sloop %s %s%s {' % (ind, s[1], pa(s[2]), ax))
            pstmts(s[4], ind + '  ', out)
            out.append(ind + '}')
        elif k == 'if':
            out.append('%sif %s {' % (ind, pa(s[1])))
            pstmts(s[2], ind + '  ', out)
            if s[3]:
                out.append(ind + '} else {')
                pstmts(s[3], ind + '  ', out)
            out.append(ind + '}')
        else:
            raise ValueError(k)


# ---------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------

def splitmix64(x):
    M = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


assert splitmix64(3 * 2**32 + 0) == 0x4fad8879896d31fb  # the check value of docs/language.md 3.3.7


def wrap(x):
    return ((x + 0x80000000) & MASK32) - 0x80000000


class Mem:
    def __init__(self, name, kind, init=('zeros',), size=None):
        self.name = name
        self.kind = kind          # 'buffer' or 'alloc'
        self.init = init          # ('zeros',) ('iota',) ('fill', v) ('list', fn) ('random', seed, lo, hi)
        self.size = size          # fixed size (tables) or None: from the oracle's run

    def value(self, i):
        k = self.init[0]
        if k == 'zeros':
            return 0
        if k == 'iota':
            return wrap(i)
        if k == 'fill':
            return self.init[1]
        if k == 'list':
            return self.init[1](i)
        if k == 'random':
            _, seed, lo, hi = self.init
            z = splitmix64((seed * 2**32 + i) & ((1 << 64) - 1))
            return wrap(lo + z % (hi - lo))
        raise ValueError(k)


class Prog:
    def __init__(self, rng):
        self.rng = rng
        self.mems = []
        self.body = []
        self.counter = 0
        self.meta = {}

    def fresh(self, base):
        self.counter += 1
        return '%s%d' % (base, self.counter)

    def buffer(self, base, init=('zeros',), size=None):
        m = Mem(self.fresh(base), 'buffer', init, size)
        self.mems.append(m)
        return m.name

    def alloc(self, base):
        m = Mem(self.fresh(base), 'alloc')
        self.mems.append(m)
        return m.name

    def mem(self, name):
        for m in self.mems:
            if m.name == name:
                return m
        raise KeyError(name)

    def text(self, header=()):
        out = list(header)
        for m in self.mems:
            size = m.size if m.size else 1
            if m.kind == 'alloc':
                out.append('alloc %s i32 %d' % (m.name, size))
                continue
            k = m.init[0]
            if k == 'zeros':
                init = ''
            elif k == 'iota':
                init = ' = iota'
            elif k == 'fill':
                init = ' = fill %d' % m.init[1]
            elif k == 'random':
                init = ' = random %d %d %d' % m.init[1:]
            else:
                init = ' = [' + ' '.join(str(m.value(i)) for i in range(size)) + ']'
            out.append('buffer %s i32 %d%s' % (m.name, size, init))
        pstmts(self.body, '', out)
        return '\n'.join(out) + '\n'


# ---------------------------------------------------------------------------------------
# The oracle: compile the tree to Python, run it, record races
# ---------------------------------------------------------------------------------------

class PCtx:
    __slots__ = ('skip', 'rec', 'it', 'name', 'line')

    def __init__(self, skip, name):
        self.skip = skip
        self.rec = {}
        self.it = 0
        self.name = name


def _other(lst, it):
    return len(lst) > 1 or (len(lst) == 1 and lst[0] != it)


def _add(lst, it):
    if len(lst) < 2 and it not in lst:
        lst.append(it)


def _div(a, b):
    if b == 0:
        return 0
    if a == -2**31 and b == -1:
        return a
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _mod(a, b):
    if b == 0:
        return a
    if b == -1:
        return 0
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _sel(c, a, b):
    return a if c else b


def _not(x):
    if x is True or x is False:
        return not x
    return ~x


BIN = {
    'add': 'W(%s+%s)', 'sub': 'W(%s-%s)', 'mul': 'W(%s*%s)',
    'div': 'DIV(%s,%s)', 'mod': 'MOD(%s,%s)', 'min': 'min(%s,%s)', 'max': 'max(%s,%s)',
    'lt': '(%s<%s)', 'le': '(%s<=%s)', 'gt': '(%s>%s)', 'ge': '(%s>=%s)',
    'eq': '(%s==%s)', 'ne': '(%s!=%s)', 'and': '(%s&%s)', 'or': '(%s|%s)', 'xor': '(%s^%s)',
    'shl': 'W(%s<<(%s&31))', 'shr': '(%s>>(%s&31))',
}


def ce(e):
    if isinstance(e, bool):
        return repr(e)
    if isinstance(e, int):
        return repr(e)
    if isinstance(e, str):
        return 'V_' + e
    op = e[0]
    if op in BIN:
        return BIN[op] % (ce(e[1]), ce(e[2]))
    if op == 'neg':
        return 'W(-%s)' % ce(e[1])
    if op == 'abs':
        return 'W(abs(%s))' % ce(e[1])
    if op == 'not':
        return 'NOT(%s)' % ce(e[1])
    if op == 'select':
        return 'SEL(%s,%s,%s)' % (ce(e[1]), ce(e[2]), ce(e[3]))
    if op == 'load':
        return 'RD(%r,%s)' % (e[1], ce(e[2]))
    if op == 'loadv':
        return 'RDV(%r,%s,%d)' % (e[2], ce(e[3]), e[1])
    if op == 'splat':
        return '((%s,)*%d)' % (ce(e[2]), e[1])
    if op == 'vec':
        return '(' + ','.join(ce(x) for x in e[1:]) + ',)'
    if op == 'vadd':
        return 'VADD(%s,%s)' % (ce(e[1]), ce(e[2]))
    raise ValueError(op)


def homes(prog, roots=None):
    """alloc name -> id of its home loop (innermost thread/global loop holding every access), or None.
    Directly nested global loops (which uir rejects, E0401: docs/language.md 6.5) are modelled
    as one kernel: they count as their outermost loop, whose id roots[id(inner loop)] gives."""
    paths = {}
    if roots is None:
        roots = {}

    def acc(m, stack):
        if prog.mem(m).kind != 'alloc':
            return
        if m not in paths:
            paths[m] = list(stack)
        else:
            p = paths[m]
            n = 0
            while n < len(p) and n < len(stack) and p[n] == stack[n]:
                n += 1
            paths[m] = p[:n]

    def ex(e, stack):
        if isinstance(e, tuple):
            if e[0] == 'load':
                acc(e[1], stack)
            elif e[0] == 'loadv':
                acc(e[2], stack)
            for x in e[1:]:
                ex(x, stack)

    def st(stmts, stack, groot=None):
        for s in stmts:
            k = s[0]
            if k == 'let':
                ex(s[2], stack)
            elif k in ('store', 'atomic', 'storev'):
                m = s[2] if k != 'store' else s[1]
                acc(m, stack)
                for x in s[1:]:
                    ex(x, stack)
            elif k == 'loop':
                ex(s[2], stack)
                if s[3] == 'global' and groot is not None:
                    roots[id(s)] = groot
                    st(s[4], stack, groot)
                elif s[3] == 'global':
                    roots[id(s)] = id(s)
                    st(s[4], stack + [id(s)], id(s))
                elif s[3] == 'thread':
                    st(s[4], stack + [id(s)])
                else:
                    st(s[4], stack)
            elif k == 'if':
                ex(s[1], stack)
                st(s[2], stack)
                if s[3]:
                    st(s[3], stack)
    st(prog.body, [])
    return {m: (p[-1] if p else None) for m, p in paths.items()}


def compile_prog(prog):
    roots = {}
    home = homes(prog, roots)
    by_loop = {}
    for m, h in home.items():
        if h is not None:
            by_loop.setdefault(h, []).append(m)
    lines = ['def main():']
    nctx = [0]

    def cs(stmts, ind):
        if not stmts:
            lines.append(ind + 'pass')
        for s in stmts:
            k = s[0]
            if k == 'let':
                lines.append('%sV_%s = %s' % (ind, s[1], ce(s[2])))
            elif k == 'store':
                lines.append('%sWR(%r,%s,%s)' % (ind, s[1], ce(s[2]), ce(s[3])))
            elif k == 'storev':
                lines.append('%sWRV(%r,%s,%s,%d)' % (ind, s[2], ce(s[3]), ce(s[4]), s[1]))
            elif k == 'atomic':
                lines.append('%sAT(%r,%r,%s,%s)' % (ind, s[2], s[1], ce(s[3]), ce(s[4])))
            elif k == 'if':
                lines.append('%sif %s:' % (ind, ce(s[1])))
                cs(s[2], ind + ' ')
                if s[3]:
                    lines.append(ind + 'else:')
                    cs(s[3], ind + ' ')
            elif k == 'loop':
                name, bound, axis, body = s[1], s[2], s[3], s[4]
                if axis in ('thread', 'global', 'local'):
                    nctx[0] += 1
                    c = 'C%d' % nctx[0]
                    skip = sorted(by_loop.get(roots.get(id(s), id(s)), []))
                    innermost = not any(x[0] == 'loop' and x[3] == 'global' for x in body)
                    lines.append('%s%s = PCtx(%r, %r)' % (ind, c, frozenset(skip), '%s %s' % (axis, name)))
                    lines.append('%sSTACK.append(%s)' % (ind, c))
                    lines.append('%sfor V_%s in range(%s):' % (ind, name, ce(bound)))
                    lines.append('%s %s.it = V_%s' % (ind, c, name))
                    if innermost:   # each block (each thread-loop iteration) gets its own copy
                        for m in skip:
                            lines.append('%s MEM[%r] = {}' % (ind, m))
                    cs(body, ind + ' ')
                    lines.append('%sSTACK.pop()' % ind)
                else:
                    lines.append('%sfor V_%s in range(%s):' % (ind, name, ce(bound)))
                    cs(body, ind + ' ')
            else:
                raise ValueError(k)
    cs(prog.body, ' ')
    return '\n'.join(lines) + '\n'


def oracle(prog):
    """Run prog sequentially to the end. Returns a dict: race (None, or the first conflicting
    pair), fault (None, or the first access out of bounds: negative or >= CAP), first ('race',
    'fault' or None: which came first in program order), maxi {mem: largest offset},
    final {mem: {offset: value}}. Neither stops the run: a faulting access is skipped (a load
    gives 0), so that the sizes and the races of the in-bounds accesses are known; values after
    a fault or a race mean nothing."""
    MEM = {m.name: {} for m in prog.mems}
    MEMO = {m.name: m for m in prog.mems}
    MAXI = {m.name: -1 for m in prog.mems}
    STACK = []
    res = {'race': None, 'fault': None, 'first': None}

    def fault(m, i):
        if res['fault'] is None:
            res['fault'] = '%s[%d]' % (m, i)
            if res['first'] is None:
                res['first'] = 'fault'

    def note(m, i, kind, op=None):
        for c in STACK:
            if m in c.skip:
                continue
            key = (m, i)
            st = c.rec.get(key)
            it = c.it
            if st is None:
                st = c.rec[key] = ([], [], {})
            r, w, a = st
            if kind == 0:
                bad = _other(w, it) or any(_other(v, it) for v in a.values())
                _add(r, it)
            elif kind == 1:
                bad = _other(r, it) or _other(w, it) or any(_other(v, it) for v in a.values())
                _add(w, it)
            else:
                bad = _other(r, it) or _other(w, it) or any(_other(v, it) for o, v in a.items() if o != op)
                _add(a.setdefault(op, []), it)
            if bad and res['race'] is None:
                if res['first'] is None:
                    res['first'] = 'race'
                res['race'] = '%s: %s %s[%d] by %s=%s against %s' % (
                    c.name, ('read', 'write', 'atomic.' + str(op))[kind], m, i, c.name.split()[1], it,
                    [x for x in r + w + sum(a.values(), []) if x != it][:1])

    def RD(m, i):
        if i < 0 or i >= CAP:
            fault(m, i)
            return 0
        if i > MAXI[m]:
            MAXI[m] = i
        if STACK:
            note(m, i, 0)
        v = MEM[m].get(i)
        if v is None:
            v = 0 if MEMO[m].kind == 'alloc' else MEMO[m].value(i)
        return v

    def WR(m, i, v):
        if i < 0 or i >= CAP:
            fault(m, i)
            return
        if i > MAXI[m]:
            MAXI[m] = i
        if STACK:
            note(m, i, 1)
        MEM[m][i] = v

    def AT(m, op, i, v):
        if i < 0 or i >= CAP:
            fault(m, i)
            return
        if i > MAXI[m]:
            MAXI[m] = i
        if STACK:
            note(m, i, 2, op)
        old = MEM[m].get(i)
        if old is None:
            old = 0 if MEMO[m].kind == 'alloc' else MEMO[m].value(i)
        MEM[m][i] = wrap(old + v) if op == 'add' else (min(old, v) if op == 'min' else max(old, v))

    def RDV(m, i, k):
        return tuple(RD(m, wrap(i + j)) for j in range(k))

    def WRV(m, i, vec, k):
        for j in range(k):
            WR(m, wrap(i + j), vec[j])

    env = {'W': wrap, 'DIV': _div, 'MOD': _mod, 'SEL': _sel, 'NOT': _not, 'RD': RD, 'WR': WR,
           'AT': AT, 'RDV': RDV, 'WRV': WRV, 'PCtx': PCtx, 'STACK': STACK, 'MEM': MEM,
           'VADD': lambda a, b: tuple(wrap(x + y) for x, y in zip(a, b))}
    src = compile_prog(prog)
    exec(compile(src, '<oracle>', 'exec'), env)
    env['main']()
    res['maxi'] = MAXI
    res['final'] = MEM
    return res


# ---------------------------------------------------------------------------------------
# Generation helpers
# ---------------------------------------------------------------------------------------

def pow2_log(n):
    k = n.bit_length() - 1
    return k if n > 0 and (1 << k) == n else None


def term(rng, coef, e, nonneg=True):
    """coef * e in a random but equal form."""
    if coef == 0:
        return 0
    if coef == 1:
        return e if rng.random() < 0.8 else ('mul', 1, e) if rng.random() < 0.5 else ('div', e, 1)
    k = pow2_log(coef)
    r = rng.random()
    if k is not None and nonneg and r < 0.3:
        return ('shl', e, k)
    if coef == 2 and r < 0.4:
        return ('add', e, e)
    if r < 0.7:
        return ('mul', e, coef)
    return ('mul', coef, e)


def aff(rng, terms, c=0):
    """sum of coef*e plus c, in a random equal form (terms: [(coef, expr)])."""
    parts = [term(rng, k, e) for k, e in terms if k]
    parts = [x for x in parts if not (isinstance(x, int) and x == 0)]
    rng.shuffle(parts)
    if c:
        if parts and c > 0 and rng.random() < 0.2:
            # split the literal
            c1 = rng.randint(0, c)
            parts.insert(rng.randint(0, len(parts)), c1)
            parts.insert(rng.randint(0, len(parts)), c - c1)
        else:
            parts.insert(rng.randint(0, len(parts)), c)
    if not parts:
        return 0
    e = parts[0]
    for x in parts[1:]:
        if isinstance(x, int) and x < 0 and rng.random() < 0.6:
            e = ('sub', e, -x)
        else:
            e = ('add', e, x)
    return e


def mod_form(rng, e, k):
    """e mod k (e non-negative) in a random equal form."""
    kk = pow2_log(k)
    if kk is not None and rng.random() < 0.4:
        return ('and', e, k - 1) if rng.random() < 0.7 else ('and', k - 1, e)
    return ('mod', e, k)


def div_form(rng, e, k):
    kk = pow2_log(k)
    if kk is not None and rng.random() < 0.4:
        return ('shr', e, kk)
    return ('div', e, k)


def count(rng, lo=2, hi=256):
    """an iteration count, biased to small values and powers of two."""
    r = rng.random()
    if r < 0.35:
        return 1 << rng.randint(max(1, lo.bit_length() - 1), max(1, hi.bit_length() - 1))
    if r < 0.9:
        return rng.randint(lo, min(hi, 40))
    return rng.randint(lo, hi)


class Ctx:
    """Where a one-phase shape body runs: the parallel index `p` with `n` iterations.

    thread          loop p N thread { BODY }, memories are buffers
    thread_outer    the same inside one or two plain loops (and a top-level let)
    thread_private  the written memory is an alloc homed at the thread loop (private: a
                    collision there is no race), copied out per iteration
    phase_shared    loop g G global { loop t B local { BODY } }, written memory shared
                    (an alloc of the block), copied out in a later phase
    phase_global    the same with a buffer, block g's part at g*S + offset
    block           p is the block index g; offsets off*B + t inside loop t B local
    """

    KINDS = ['thread', 'thread', 'thread_outer', 'thread_private', 'phase_shared', 'phase_shared',
             'phase_global', 'phase_global', 'block']

    def __init__(self, P, kind=None, n=None, nmax=256):
        rng = P.rng
        self.P = P
        self.kind = kind or rng.choice(self.KINDS)
        self.kernel = self.kind in ('phase_shared', 'phase_global', 'block')
        if self.kind == 'block':
            self.n = n or count(rng, 2, min(nmax, 64))
            self.B = rng.choice([1, 1, 2, 3, 4, 8])
            self.G = self.n
            self.p = P.fresh('g')
            self.t = P.fresh('t')
        elif self.kernel:
            self.n = n or count(rng, 2, min(nmax, 1024))
            self.B = self.n
            self.G = rng.choice([1, 2, 2, 3, 4])
            self.g = P.fresh('g')
            self.p = P.fresh(rng.choice(['t', 'tid', 'x']))
        else:
            self.n = n or count(rng, 2, max(2, nmax))
            self.p = P.fresh(rng.choice(['p', 'i', 'q']))
            self.G = self.n
        self.written = []      # (name, span) of written memories
        self.slab_slack = 0
        self.unhomed = False
        # kernels: a plain loop around the phase inside the global loop, whose index a shape
        # may use in offsets (the kernel check spans all its iterations, the phase check one)
        self.r = None
        if self.kernel and rng.random() < 0.3:
            self.r = (P.fresh('r'), rng.randint(2, 4), rng.choice([None, 'unroll']))

    def uniq(self):
        """an offset that is different for every iteration (of blocks and threads) of the context."""
        if self.kind in ('phase_shared', 'phase_global'):
            return add(mul(self.g, self.n), self.p)
        if self.kind == 'block':
            return add(mul(self.p, self.B), self.t) if self.B > 1 else self.p
        return self.p

    def wmem(self, base, init=('zeros',), span=None):
        """a memory that the body writes; span: an upper bound of its offsets."""
        P = self.P
        if self.kind in ('thread_private', 'phase_shared'):
            name = P.alloc(base)
        else:
            name = P.buffer(base, init)
        self.written.append((name, span))
        return name

    def off(self, m, e):
        """the offset of written memory m in this context."""
        if self.kind == 'phase_global':
            span = dict(self.written)[m] or 1
            return add(mul(self.g, max(1, span + self.slab_slack)), e) if self.P.rng.random() < 0.5 \
                else add(e, mul(max(1, span + self.slab_slack), self.g))
        if self.kind == 'block':
            if self.B == 1:
                return e
            return add(mul(e, self.B), self.t)
        return e

    def wrap(self, body):
        P = self.P
        rng = P.rng
        if self.kind in ('thread', 'thread_outer', 'thread_private'):
            inner = list(body)
            if self.kind == 'thread_private':
                res = P.buffer('res')
                width = max((s or 1) for _, s in self.written)
                for k, (name, span) in enumerate(self.written):
                    span = span or 1
                    c = P.fresh('c')
                    inner.append(loop(c, span, None, [
                        store(res, add(mul(self.p, width * len(self.written)), c, width * k), load(name, c))]))
            st = [loop(self.p, self.n, 'thread', inner)]
            if self.kind == 'thread_private' and self.unhomed:
                # the alloc is read after the loop too: no home, so it is global memory
                res2 = P.buffer('res')
                st.append(store(res2, 0, load(self.written[0][0], 0)))
            if self.kind == 'thread_outer':
                r = P.fresh('r')
                st = [loop(r, rng.randint(1, 3), rng.choice([None, 'unroll']), st)]
                if rng.random() < 0.5:
                    st = [('let', P.fresh('a'), rng.randint(0, 9))] + st
            return st
        if self.kind == 'block':
            ph = [loop(self.t, self.B, 'local', body)]
            if self.r:
                ph = [loop(self.r[0], self.r[1], self.r[2], ph)]
            return [loop(self.p, self.G, 'global', ph)]
        phases = [loop(self.p, self.B, 'local', body)]
        if self.r:
            phases = [loop(self.r[0], self.r[1], self.r[2], phases)]
        if self.kind == 'phase_shared' and rng.random() < 0.8:
            res = P.buffer('res')
            total = sum((s or 1) for _, s in self.written)
            t2 = P.fresh('t')
            at = 0
            cp = []
            for name, span in self.written:
                span = span or 1
                R = -(-span // self.B)
                c = P.fresh('c')
                o = add(mul(t2, R), c)
                cp.append(loop(c, R, None, [if_(('lt', o, span), [
                    store(res, add(mul(self.g, self.B * sum(-(-(s or 1) // self.B) for _, s in self.written)),
                                   at * self.B, o), load(name, o))])]))
                at += R
            phases.append(loop(t2, self.B, 'local', cp))
        st = [loop(self.g, self.G, 'global', phases)]
        if self.kind == 'phase_shared' and self.unhomed:
            # a second kernel reads the alloc: it has no home, so it is global memory
            g2, t3 = P.fresh('g'), P.fresh('t')
            res2 = P.buffer('res')
            name = self.written[0][0]
            st.append(loop(g2, 1, 'global', [loop(t3, self.B, 'local', [store(res2, t3, load(name, t3))])]))
        return st


def val(P, ctx, extra=None):
    """a value to store: depends on the parallel index and an input now and then."""
    rng = P.rng
    r = rng.random()
    if r < 0.3:
        return ctx.p
    if r < 0.5:
        return rng.randint(-5, 99)
    if r < 0.75:
        x = P.buffer('x', ('random', rng.randint(0, 99), 0, 1000))
        return load(x, ctx.p)
    return ('add', ('mul', ctx.p, rng.randint(2, 9)), rng.randint(0, 9))


# ---------------------------------------------------------------------------------------
# Shapes.  Each builds P.body and sets P.meta['mutation'] (None for the race-free form).
# ---------------------------------------------------------------------------------------

def pick_mut(P, muts, rate=0.5):
    if P.force_mut is False:
        m = None
    elif P.force_mut is True or P.rng.random() < rate:
        m = P.rng.choice(muts)
    else:
        m = None
    P.meta['mutation'] = m
    return m


def finish_ctx(P, cx, body):
    P.meta['ctx'] = cx.kind
    P.body += cx.wrap(body)


def ctx_mutation(P, cx, mut):
    """mutations of the context itself (overlapping per-block slabs, an alloc made global),
    now and then when the shape has none. Returns the shape's own mutation (unchanged)."""
    rng = P.rng
    cm = None
    if mut is None and rng.random() < 0.12:
        if cx.kind == 'phase_global' and cx.G > 1:
            cm = 'slab_overlap'
        elif cx.kind in ('phase_shared', 'thread_private') and cx.G > 1:
            cm = 'unhomed_alloc'
        if cm:
            P.meta['mutation'] = cm
    if cm == 'slab_overlap':
        cx.slab_slack = -rng.randint(1, 3)
    elif cm == 'unhomed_alloc':
        cx.unhomed = True
    return mut


def sh_rotation(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    mut = pick_mut(P, ['modulus', 'same_phase_read', 'modulus_plus_read'])
    mut = ctx_mutation(P, cx, mut)
    N = n + (rng.randint(0, 3) if rng.random() < 0.3 else 0)
    if mut in ('modulus', 'modulus_plus_read'):
        N = rng.randint(1, n - 1)
    C = rng.randint(0, 2 * N + 3)
    A = cx.wmem('rot', ('iota',), N)
    r = rng.random()
    if r < 0.5:
        o = mod_form(rng, aff(rng, [(1, p)], C), N) if pow2_log(N) else ('mod', aff(rng, [(1, p)], C), N)
    elif r < 0.75:
        o = ('mod', ('sub', add(p, N * 2), (N * 2 - C) % N), N)
    else:
        H = (N - C % N)
        o = ('select', ('lt', p, H), add(p, C % N), ('sub', p, H)) if n <= N else ('mod', add(p, C), N)
    body = []
    if rng.random() < 0.3:
        ln = P.fresh('o')
        body.append(('let', ln, o))
        o = ln
    body.append(store(A, cx.off(A, o), val(P, cx)))
    if mut in ('same_phase_read', 'modulus_plus_read'):
        B2 = P.buffer('y')
        body.append(store(B2, cx.uniq(), load(A, cx.off(A, p))))
    finish_ctx(P, cx, body)


def sh_field_pairs(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    mut = pick_mut(P, ['collide', 'stride_short', 'read_neighbour', 'vector_overlap'])
    mut = ctx_mutation(P, cx, mut)
    K = rng.randint(2, 5)
    J = sorted(rng.sample(range(K), rng.randint(2, K)))
    stride = K
    if mut == 'collide':
        J.append(K + rng.randint(0, 1))
    elif mut == 'stride_short':
        stride = max(J)
        if stride < 1:
            stride = 1
    A = cx.wmem('f', ('iota',), stride * n + K + 2)
    body = []
    V = 0
    if rng.random() < 0.3 and K >= 2:
        # a vector store for the low fields
        V = rng.choice([v for v in (2, 4) if v <= K] or [2])
        if mut == 'vector_overlap':
            V = {2: 4, 4: 8}[V] if K < 4 or V == 4 else 4
        body.append(('storev', V, A, cx.off(A, aff(rng, [(stride, p)])), ('splat', V, val(P, cx))))
        J = [j for j in J if j >= V] or ([K - 1] if K - 1 >= V else [])
    elif mut == 'vector_overlap':
        P.meta['mutation'] = mut = 'collide'
        J.append(K)
    lets = {}
    for j in J:
        o = aff(rng, [(stride, p)], j)
        if rng.random() < 0.2:
            ln = P.fresh('o')
            body.append(('let', ln, o))
            o = ln
        lets[j] = o
        body.append(store(A, cx.off(A, o), val(P, cx)))
    if rng.random() < 0.4 or mut == 'read_neighbour':
        y = P.buffer('y')
        if mut == 'read_neighbour':
            j0 = rng.choice(J) if J else 0
            ro = aff(rng, [(stride, p)], stride + j0)
        else:
            ro = aff(rng, [(stride, p)], rng.randint(0, stride - 1))
        body.append(store(y, cx.uniq(), load(A, cx.off(A, ro))))
    if rng.random() < 0.3 and all(s[0] != 'let' for s in body):
        rng.shuffle(body)
    finish_ctx(P, cx, body)


def sh_reversal(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    scatter = rng.random() < 0.5
    mut = pick_mut(P, ['short_constant', 'read_same_phase'] if scatter else ['swap_bound', 'no_guard'])
    mut = ctx_mutation(P, cx, mut)
    body = []
    if scatter:
        C = n - 1 + rng.randint(0, 3)
        if mut == 'short_constant':
            # the reversal's constant is too small: offsets go negative (fault) or wrap onto others
            C = n - 2
            o = ('max', ('sub', C, p), 0)
        else:
            o = ('sub', C, p) if rng.random() < 0.6 else aff(rng, [(-1, p)], C)
        A = cx.wmem('rev', ('iota',), C + 1)
        body.append(store(A, cx.off(A, o), val(P, cx)))
        if mut == 'read_same_phase':
            y = P.buffer('y')
            body.append(store(y, cx.uniq(), load(A, cx.off(A, p))))
        P.meta['variant'] = 'scatter'
    else:
        C = n - 1
        H = (n + 1) // 2 if rng.random() < 0.5 else n // 2
        if mut == 'swap_bound':
            H = n // 2 + 1
        A = cx.wmem('rev', ('iota',), n)
        a, b = P.fresh('va'), P.fresh('vb')
        inner = [('let', a, load(A, cx.off(A, p))), ('let', b, load(A, cx.off(A, ('sub', C, p)))),
                 store(A, cx.off(A, p), b), store(A, cx.off(A, ('sub', C, p)), a)]
        body += inner if mut == 'no_guard' else [if_(('lt', p, H) if rng.random() < 0.7 else ('gt', H, p), inner)]
        P.meta['variant'] = 'swap'
    finish_ctx(P, cx, body)


def sh_disjoint_guards(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    mut = pick_mut(P, ['overlap', 'le_guard', 'ge_guard', 'wrong_div', 'two_in'])
    mut = ctx_mutation(P, cx, mut)
    K = rng.randint(2, min(4, n))
    M = -(-n // K) + (rng.randint(0, 2) if rng.random() < 0.3 else 0)
    base_step = M - 1 if mut == 'overlap' else M
    A = cx.wmem('a', ('zeros',), K * M + 2)
    branches = []
    rev = rng.random() < 0.3
    for r in range(K):
        d = div_form(rng, p, K)
        if mut == 'wrong_div' and r == K - 1:
            d = ('div', p, K + 1) if rng.random() < 0.5 else ('div', p, max(1, K - 1))
        if rev and r % 2 == 1:
            o = ('sub', r * base_step + M - 1, d)
        else:
            o = add(r * base_step, d) if rng.random() < 0.5 else add(d, r * base_step)
        branches.append((r, [store(A, cx.off(A, o), val(P, cx))]))
    cls = mod_form(rng, p, K)
    if rng.random() < 0.4:
        cl = P.fresh('cls')
        pre = [('let', cl, cls)]
        cls = cl
    else:
        pre = []
    # an if / else-if chain, the last class in the else branch, or separate ifs
    def cond(r):
        if mut == 'le_guard' and r == K - 2:
            return ('le', cls, r)
        if mut == 'ge_guard' and r == 0:
            return ('ge', cls, 0)
        if mut == 'two_in' and r == 0:
            return ('lt', cls, 2) if K > 2 else ('le', cls, 1)
        return ('eq', cls, r) if rng.random() < 0.8 else ('eq', r, cls)
    if rng.random() < 0.5:
        chain = branches[-1][1]
        for r, st in reversed(branches[:-1]):
            chain = [if_(cond(r), st, chain)]
        body = pre + chain
    else:
        body = pre + [if_(cond(r), st) for r, st in branches]
    finish_ctx(P, cx, body)


def sh_params(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    variant = rng.choice(['far_read', 'two_writers', 'stride_base'])
    P.meta['variant'] = variant
    mut = pick_mut(P, ['collide'])
    mut = ctx_mutation(P, cx, mut)
    body = []
    if variant == 'far_read':
        L = rng.randint(1, n)
        # race-free when V = 0 or V >= L: the elements read are never written
        V = rng.choice([L, L + rng.randint(0, 50), 0, n]) if mut != 'collide' else rng.randint(1, max(1, L - 1))
        off = P.buffer('off', ('list', lambda i, V=V: V), 1)
        A = cx.wmem('A', ('iota',), n + V + 1)
        body.append(if_(('lt', p, L), [store(A, cx.off(A, p), ('add', load(A, cx.off(A, p)),
                                                              load(A, cx.off(A, add(p, load(off, 0))))))]))
    elif variant == 'two_writers':
        i1, i2 = rng.sample(range(n), 2)
        V = rng.randint(0, 40)
        if mut == 'collide':
            if i2 < i1:
                i1, i2 = i2, i1
            V = i2 - i1
        elif i1 + V == i2:
            V += 1
        off = P.buffer('off', ('list', lambda i, V=V: V), 1)
        A = cx.wmem('A', ('zeros',), n + V + 1)
        body.append(if_(('eq', p, i1), [store(A, cx.off(A, add(p, load(off, 0))), val(P, cx))]))
        body.append(if_(('eq', p, i2), [store(A, cx.off(A, p), val(P, cx))]))
    else:
        K = rng.randint(2, 4)
        V = rng.choice([x for x in range(1, 3 * K) if x % K]) if mut != 'collide' else K * rng.randint(1, 2)
        if n <= V // K and mut == 'collide':
            V = K
        off = P.buffer('off', ('list', lambda i, V=V: V), 1)
        A = cx.wmem('A', ('zeros',), K * n + V + 1)
        body.append(store(A, cx.off(A, aff(rng, [(K, p)], 0)), val(P, cx)))
        body.append(store(A, cx.off(A, add(aff(rng, [(K, p)]), load(off, 0))), val(P, cx)))
    finish_ctx(P, cx, body)


def sh_const_table(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    variant = rng.choice(['guard', 'permutation', 'random_guard', 'table_offset'])
    P.meta['variant'] = variant
    mut = pick_mut(P, ['duplicate'] if variant != 'random_guard' else ['few_values'])
    mut = ctx_mutation(P, cx, mut)
    body = []
    if variant == 'guard':
        ex = rng.sample(range(n), 2 if mut else rng.randint(0, 1))
        tab = dict((i, i + rng.randint(1, 5)) for i in ex)
        T = P.buffer('tab', ('list', lambda i, tab=tab: tab.get(i, i)), n)
        R = cx.wmem('r', ('zeros',), 1)
        cond = ('ne', load(T, p), p) if rng.random() < 0.7 else ('not', ('eq', load(T, p), p))
        body.append(if_(cond, [store(R, cx.off(R, 0), val(P, cx))]))
    elif variant == 'permutation':
        m = n + (rng.randint(0, 4) if rng.random() < 0.3 else 0)
        perm = rng.sample(range(m), n)
        if mut:
            a, b = rng.sample(range(n), 2)
            perm[a] = perm[b]
        T = P.buffer('perm', ('list', lambda i, perm=perm: perm[i] if i < len(perm) else 0), n)
        A = cx.wmem('A', ('zeros',), m)
        body.append(store(A, cx.off(A, load(T, p)), val(P, cx)))
        if rng.random() < 0.3:
            y = P.buffer('y')
            body.append(store(y, cx.uniq(), load(A, cx.off(A, load(T, p)))))
    elif variant == 'random_guard':
        K = rng.randint(2, 4 * n) if not mut else rng.randint(1, max(1, n // 2))
        T = P.buffer('tab', ('random', rng.randint(0, 1000), 0, K), n)
        R = cx.wmem('r', ('zeros',), 2)
        body.append(if_(('eq', load(T, p), rng.randint(0, K - 1)), [store(R, cx.off(R, 1), val(P, cx))]))
    else:
        W = rng.randint(1, 4)
        perm = rng.sample(range(n), n)
        if mut:
            a, b = rng.sample(range(n), 2)
            perm[a] = perm[b]
        T = P.buffer('tab', ('list', lambda i, perm=perm: perm[i] if i < len(perm) else 0), n)
        A = cx.wmem('A', ('zeros',), W * n)
        j = rng.randint(0, W - 1)
        body.append(store(A, cx.off(A, aff(rng, [(W, load(T, p))], j)), val(P, cx)))
    finish_ctx(P, cx, body)


def sh_offset_ops(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    forms = ['min', 'max', 'select', 'and', 'interleave', 'xor', 'transpose', 'rotate_select', 'shr',
             'wrap_and', 'neg_div', 'neg_mod', 'select_arm', 'logic_all']
    f = rng.choice(forms)
    P.meta['variant'] = f
    mut = pick_mut(P, ['bad_constant'])
    mut = ctx_mutation(P, cx, mut)
    if f == 'min':
        C = n - 1 + rng.randint(0, 3) if not mut else rng.randint(0, n - 2)
        o = ('min', p, C) if rng.random() < 0.5 else ('min', C, p)
        span = C + 1
    elif f == 'max':
        C = -rng.randint(0, 3) if not mut else rng.randint(1, n - 1)
        o = ('max', p, C)
        span = n + C + 1
    elif f == 'select':
        H = rng.randint(0, n)
        D = rng.randint(0, 5) if not mut else -rng.randint(1, max(1, H))
        o = ('select', ('lt', p, H), p, add(p, D))
        span = n + max(D, 0)
    elif f == 'and':
        k = max(0, (n - 1).bit_length()) + (rng.randint(0, 1))
        if mut:
            k = max(0, (n - 1).bit_length() - 1)
        o = ('and', p, (1 << k) - 1)
        span = 1 << k
    elif f == 'interleave':
        H = -(-n // 2) + rng.randint(0, 2)
        if mut:
            H -= 1
        o = add(mul(('and', p, 1), H), ('shr', p, 1))
        span = 2 * H
    elif f == 'xor':
        k = max(1, (n - 1).bit_length())
        M = rng.randint(0, (1 << k) - 1)
        o = ('xor', p, M)
        if mut:
            o = ('xor', ('shr', p, 1), M)
        span = 1 << k
    elif f == 'transpose':
        D = rng.randint(2, max(2, min(8, n)))
        E = -(-n // D) + rng.randint(0, 1)
        if mut:
            E -= 1
        o = add(mul(mod_form(rng, p, D), max(1, E)), div_form(rng, p, D))
        span = D * max(E, 1) + n // D + 1
    elif f == 'rotate_select':
        H = rng.randint(0, n)
        o = ('select', ('ge', p, H), ('sub', p, H), add(p, n - H - (1 if mut else 0)))
        span = n
    elif f == 'wrap_and':
        # p * K wraps in i32; the low bits are p's own (K odd mod 2^k), or collide (K even)
        k = max(1, (n - 1).bit_length())
        K = (rng.randint(1 << 20, 1 << 30) * 2 + 1) if not mut else (rng.randint(1 << 20, 1 << 30) * 2)
        o = ('and', ('mul', p, K), (1 << k) - 1)
        span = 1 << k
    elif f == 'neg_div':
        # C division truncates toward zero: (p - C) / D for p < C and p >= C meet at 0
        C = rng.randint(0, n)
        D = rng.randint(1, 3) if mut else 1
        E = -(-C // D) + 1
        o = add(('div', ('sub', p, C), D), E)
        span = n + E + 1
    elif f == 'neg_mod':
        # (p - C) mod D keeps the sign of p - C: with D >= n no two iterations meet
        C = rng.randint(0, n)
        D = rng.randint(n, n + 4) if not mut else rng.randint(2, max(2, n - 1))
        o = add(('mod', ('sub', p, C), D), D)
        span = 2 * D + 1
    elif f in ('select_arm', 'logic_all'):
        pass    # below
    else:
        o = ('shr', p, 1) if mut else add(mul(('shr', p, 1), 2), ('and', p, 1))
        span = n
    if f in ('select_arm', 'logic_all'):
        # every operand is evaluated: the load in the arm a select does not choose, and the
        # load in the right operand of an `and` whose left is false, still read
        A = cx.wmem('A', ('iota',), n + 1)
        y = P.buffer('y')
        ro = add(p, 1) if mut else p
        if f == 'select_arm':
            v = ('select', ('ge', p, n), load(A, cx.off(A, ro)), load(A, cx.off(A, p)))
        else:
            v = ('select', ('and', ('ge', p, n), ('eq', load(A, cx.off(A, ro)), 0)), 1, 2)
        body = [store(A, cx.off(A, p), val(P, cx)), store(y, cx.uniq(), v)]
        rng.shuffle(body)
        finish_ctx(P, cx, body)
        return
    A = cx.wmem('A', ('zeros',), span)
    body = []
    if rng.random() < 0.3:
        ln = P.fresh('o')
        body.append(('let', ln, o))
        o = ln
    body.append(store(A, cx.off(A, o), val(P, cx)))
    if rng.random() < 0.3:
        body.append(store(A, cx.off(A, o), ('add', load(A, cx.off(A, o)), 1)))
    finish_ctx(P, cx, body)


def sh_vector(P):
    rng = P.rng
    cx = Ctx(P, nmax=128)
    n, p = cx.n, cx.p
    mut = pick_mut(P, ['stride_short', 'read_neighbour', 'scalar_overlap'])
    mut = ctx_mutation(P, cx, mut)
    V = rng.choice([2, 4, 8])
    S = V + rng.randint(0, 3)
    if mut == 'stride_short':
        S = rng.randint(1, V - 1)
    A = cx.wmem('v', ('zeros',), S * n + V)
    X = P.buffer('x', ('random', rng.randint(0, 99), -50, 50))
    src = ('loadv', V, X, aff(rng, [(S, p)])) if rng.random() < 0.5 else ('splat', V, val(P, cx))
    if rng.random() < 0.3:
        src = ('vadd', src, ('vec',) + tuple(rng.randint(0, 9) for _ in range(V)))
    body = [('storev', V, A, cx.off(A, aff(rng, [(S, p)])), src)]
    if S > V and rng.random() < 0.5 or mut == 'scalar_overlap':
        j = rng.randint(V, S - 1) if S > V and mut != 'scalar_overlap' else rng.randint(0, V - 1) + (S if rng.random() < 0.5 else 0)
        body.append(store(A, cx.off(A, aff(rng, [(S, p)], j)), val(P, cx)))
    if mut == 'read_neighbour' or rng.random() < 0.3:
        y = P.buffer('y')
        ro = aff(rng, [(S, p)], S if mut == 'read_neighbour' else 0)
        yo = aff(rng, [(V, cx.uniq())])
        body.append(('storev', V, y, yo, ('loadv', V, A, cx.off(A, ro))))
    finish_ctx(P, cx, body)


def sh_one_writer(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    mut = pick_mut(P, ['no_guard_same_value', 'le_guard', 'div_guard', 'ne_guard', 'two_eq'])
    mut = ctx_mutation(P, cx, mut)
    C = rng.randint(0, n - 1)
    R = cx.wmem('r', ('zeros',), 2)
    v = rng.randint(0, 9) if rng.random() < 0.6 or mut == 'no_guard_same_value' else val(P, cx)
    st = [store(R, cx.off(R, rng.randint(0, 1)), v)]
    if mut == 'no_guard_same_value':
        body = st
    else:
        if mut == 'le_guard':
            c = ('le', p, max(1, C))
        elif mut == 'div_guard':
            c = ('eq', ('div', p, 2), C // 2)
        elif mut == 'ne_guard':
            c = ('ne', p, C)
        elif mut == 'two_eq':
            c = ('or', ('eq', p, C), ('eq', p, (C + 1) % n))
        else:
            c = rng.choice([('eq', p, C), ('eq', C, p), ('eq', add(p, 1), C + 1), ('lt', p, 1),
                            ('and', ('ge', p, C), ('le', p, C)), ('eq', ('sub', p, C), 0)])
        body = [if_(c, st)]
    if rng.random() < 0.3:
        body.append(store(P.buffer('y'), cx.uniq(), val(P, cx)))
    finish_ctx(P, cx, body)


def sh_random_affine(P):
    rng = P.rng
    cx = Ctx(P, nmax=128)
    n, p = cx.n, cx.p
    P.meta['mutation'] = 'random'
    inner = []
    names = []
    for _ in range(rng.randint(0, 2)):
        i = P.fresh('j')
        m = rng.randint(1, 4)
        names.append((i, m))
    outer = [(cx.r[0], cx.r[1])] if cx.r and rng.random() < 0.8 else []
    if cx.kind in ('phase_shared', 'phase_global') and rng.random() < 0.3:
        outer.append((cx.g, cx.G))
    A0 = rng.randint(1, 6)
    A = cx.wmem('A', ('iota',), 6 * n + 3 * 4 * 4 + 8)
    accs = []
    for _ in range(rng.randint(1, 3)):
        terms = [(A0 if rng.random() < 0.7 else rng.randint(1, 6), p)]
        for i, m in names + outer:
            if rng.random() < 0.7:
                terms.append((rng.randint(0, 3), i))
        o = aff(rng, terms, rng.randint(0, 4))
        if rng.random() < 0.2:
            o = mod_form(rng, o, rng.randint(max(2, n // 2), 2 * n + 8))  # < 6n + 32
        kind = rng.choice(['store', 'store', 'load'])
        accs.append((kind, o))
    if all(k == 'load' for k, _ in accs):
        accs[0] = ('store', accs[0][1])
    body = []
    for kind, o in accs:
        if kind == 'store':
            st = store(A, cx.off(A, o), val(P, cx))
        else:
            y = P.buffer('y')
            yo = cx.uniq()
            for i, m in names + [x for x in outer if x[0] != getattr(cx, 'g', None)]:
                yo = add(mul(yo, m), i)
            st = store(y, yo, load(A, cx.off(A, o)))
        if rng.random() < 0.3:
            g = rng.choice([('lt', p, rng.randint(1, n)), ('eq', mod_form(rng, p, 2), rng.randint(0, 1)),
                            ('ge', p, rng.randint(0, n - 1)), ('ne', p, rng.randint(0, n - 1))])
            st = if_(g, [st])
        body.append(st)
    for i, m in reversed(names):
        body = [loop(i, m, rng.choice([None, None, 'unroll']), body)]
    finish_ctx(P, cx, body)


def sh_atomics(P):
    rng = P.rng
    cx = Ctx(P)
    n, p = cx.n, cx.p
    variant = rng.choice(['slot', 'hist', 'two_ops', 'plain_one', 'mixed_disjoint'])
    P.meta['variant'] = variant
    mut = pick_mut(P, {'slot': ['read_neighbour'], 'hist': ['same_phase_read'], 'two_ops': ['same_elements'],
                       'plain_one': ['same_element'], 'mixed_disjoint': ['collide']}[variant])
    mut = ctx_mutation(P, cx, mut)
    body = []
    op = rng.choice(['add', 'add', 'min', 'max'])
    if variant == 'slot':
        # each iteration updates its own slot atomically and reads it back (mixed, but disjoint)
        H = cx.wmem('h', ('iota',), n + 1)
        O = cx.wmem('o', ('zeros',), n + 1)
        body.append(('atomic', op, H, cx.off(H, p), val(P, cx)))
        ro = add(p, 1) if mut == 'read_neighbour' else p
        body.append(store(O, cx.off(O, p), load(H, cx.off(H, ro))))
    elif variant == 'hist':
        K = rng.randint(1, 8)
        H = cx.wmem('h', ('zeros',), K)
        if rng.random() < 0.5:
            keys = P.buffer('keys', ('random', rng.randint(0, 99), 0, K))
            o = load(keys, p)
        else:
            o = mod_form(rng, p, K)
        body.append(('atomic', op, H, cx.off(H, o), 1 if op == 'add' else val(P, cx)))
        if mut == 'same_phase_read':
            O = cx.wmem('o', ('zeros',), n)
            body.append(store(O, cx.off(O, p), load(H, cx.off(H, mod_form(rng, p, K)))))
    elif variant == 'two_ops':
        # add and max on one memory: disjoint halves (race-free), or one half (a race)
        K = rng.randint(1, 6)
        H = cx.wmem('h', ('zeros',), 2 * K)
        o1 = mod_form(rng, p, K)
        o2 = mod_form(rng, p, K) if mut == 'same_elements' else add(mod_form(rng, p, K), K)
        body.append(('atomic', 'add', H, cx.off(H, o1), 1))
        body.append(('atomic', 'max', H, cx.off(H, o2), p))
    elif variant == 'plain_one':
        # atomics on slots 0..K-1 and one plain store by one iteration at K (or at 0)
        K = rng.randint(1, 6)
        H = cx.wmem('h', ('zeros',), K + 1)
        body.append(('atomic', op, H, cx.off(H, mod_form(rng, p, K)), 1))
        body.append(if_(('eq', p, rng.randint(0, n - 1)), [store(H, cx.off(H, 0 if mut else K), 7)]))
    else:
        # an atomic at 2p and a plain store at 2p + 1 (or 2p + 2: the next iteration's atomic)
        H = cx.wmem('h', ('zeros',), 2 * n + 2)
        body.append(('atomic', op, H, cx.off(H, aff(rng, [(2, p)])), val(P, cx)))
        body.append(store(H, cx.off(H, aff(rng, [(2, p)], 2 if mut else 1)), val(P, cx)))
    finish_ctx(P, cx, body)


# ----- shapes with their own kernels --------------------------------------------------

def sh_tree_reduce(P):
    rng = P.rng
    variant = rng.choice(['seq', 'interleaved', 'index'])
    where = rng.choice(['shared', 'shared', 'global', 'thread'])
    P.meta['variant'] = variant
    P.meta['ctx'] = {'shared': 'phase_shared', 'global': 'phase_global', 'thread': 'thread_outer'}[where]
    k = rng.randint(1, 8 if where != 'thread' else 9)
    B = 1 << k
    H = B // 2
    muts = {'seq': ['le', 'off_by_one_read', 'no_split', 'start_plus_one', 'final_unguarded'],
            'interleaved': ['mod_s', 'no_split', 'final_unguarded'],
            'index': ['stride_s', 'no_split', 'final_unguarded']}[variant]
    if where == 'global':
        muts = muts + ['slab_overlap']
    if where == 'thread':
        muts = [m for m in muts if m not in ('no_split', 'final_unguarded')]
    mut = pick_mut(P, muts)
    G = rng.choice([1, 2, 3, 4]) if where != 'thread' else 1
    S = B - rng.randint(1, max(1, B // 2)) if mut == 'slab_overlap' else B + (rng.randint(0, 3) if rng.random() < 0.3 else 0)
    axis = rng.choice(['unroll', None])
    kk = P.fresh('k')
    s = P.fresh('s')
    if variant == 'seq':
        H0 = H + 1 if mut == 'start_plus_one' else H
        sdef = ('shr', H0, kk) if rng.random() < 0.6 else ('div', H0, ('shl', 1, kk))
    else:
        sdef = ('shl', 1, kk) if rng.random() < 0.6 else ('mul', 1, ('shl', 1, kk))
    steps = k

    if where == 'thread':
        part = P.buffer('part', ('random', rng.randint(0, 99), 0, 100))
        g = None
    elif where == 'global':
        part = P.buffer('part', ('random', rng.randint(0, 99), 0, 100))
        g = P.fresh('g')
    else:
        part = P.alloc('p')
        g = P.fresh('g')

    def at(o):
        return add(mul(g, S), o) if where == 'global' else o

    def step(t):
        if variant == 'seq':
            guard = ('le', t, s) if mut == 'le' else ('lt', t, s)
            ro = add(t, ('sub', s, 1)) if mut == 'off_by_one_read' else add(t, s)
            return [if_(guard, [store(part, at(t), ('add', load(part, at(t)), load(part, at(ro))))])]
        if variant == 'interleaved':
            guard = ('eq', ('mod', t, s if mut == 'mod_s' else ('shl', s, 1)), 0)
            return [if_(guard, [store(part, at(t), ('add', load(part, at(t)), load(part, at(add(t, s)))))])]
        i = P.fresh('i')
        return [('let', i, ('mul', ('shl', s, 0 if mut == 'stride_s' else 1), t)),
                if_(('lt', add(i, s), B), [store(part, at(i), ('add', load(part, at(i)), load(part, at(add(i, s)))))])]

    if where == 'thread':
        q = P.fresh('q')
        P.body.append(loop(kk, steps, axis, [('let', s, sdef), loop(q, H if rng.random() < 0.5 else B, 'thread', step(q))]))
        return
    x = P.buffer('x', ('random', rng.randint(0, 99), 0, 100)) if where == 'shared' else None
    sums = P.buffer('sums')
    phases = []
    if where == 'shared':
        t0 = P.fresh('t')
        phases.append(loop(t0, B, 'local', [store(part, t0, load(x, add(mul(g, B), t0)))]))
    if mut == 'no_split':
        t1 = P.fresh('t')
        phases.append(loop(t1, B, 'local', [loop(kk, steps, axis, [('let', s, sdef)] + step(t1))]))
    else:
        t1 = P.fresh('t')
        phases.append(loop(kk, steps, axis, [('let', s, sdef), loop(t1, B, 'local', step(t1))]))
    t2 = P.fresh('t')
    fin = [store(sums, g, load(part, at(0)))]
    phases.append(loop(t2, B, 'local', fin if mut == 'final_unguarded' else [if_(('eq', t2, 0), fin)]))
    P.body.append(loop(g, G, 'global', phases))


def sh_scan(P):
    rng = P.rng
    variant = rng.choice(['upsweep', 'blelloch', 'hillis_steele'])
    P.meta['variant'] = variant
    P.meta['ctx'] = 'phase_shared'
    k = rng.randint(1, 8)
    B = 1 << k
    G = rng.choice([1, 2, 3])
    muts = {'upsweep': ['ge_guard', 'mod_w', 'no_split'],
            'blelloch': ['ge_guard', 'mod_w', 'down_mod_w', 'down_no_split', 'clear_all'],
            'hillis_steele': ['in_place', 'merged_copy', 'else_reads']}[variant]
    mut = pick_mut(P, muts)
    x = P.buffer('x', ('random', rng.randint(0, 99), 0, 50))
    y = P.buffer('y')
    g = P.fresh('g')
    axis = rng.choice(['unroll', None])
    phases = []
    if variant in ('upsweep', 'blelloch'):
        s = P.alloc('s')
        t0 = P.fresh('t')
        phases.append(loop(t0, B, 'local', [store(s, t0, load(x, add(mul(g, B), t0)))]))
        d, w = P.fresh('d'), P.fresh('w')
        t1 = P.fresh('t')
        if mut == 'ge_guard':
            guard = ('ge', t1, w)
        elif mut == 'mod_w':
            guard = ('and', ('eq', ('mod', add(t1, 1), w), 0), ('ge', t1, w))
        else:
            guard = ('eq', ('mod', add(t1, 1), ('shl', w, 1)), 0)
        up = [if_(guard, [store(s, t1, ('add', load(s, t1), load(s, ('sub', t1, w))))])]
        if mut == 'no_split':
            phases.append(loop(t1, B, 'local', [loop(d, k, axis, [('let', w, ('shl', 1, d))] + up)]))
        else:
            phases.append(loop(d, k, axis, [('let', w, ('shl', 1, d)), loop(t1, B, 'local', up)]))
        if variant == 'blelloch':
            tc = P.fresh('t')
            if mut == 'clear_all':   # every thread writes 0 to s[B-1]: same-value writes
                phases.append(loop(tc, B, 'local', [store(s, B - 1, 0)]))
            else:
                phases.append(loop(tc, B, 'local', [if_(('eq', tc, B - 1), [store(s, tc, 0)])]))
            e, w2, t3, tmp = P.fresh('e'), P.fresh('w'), P.fresh('t'), P.fresh('tmp')
            dg = ('eq', ('mod', add(t3, 1), ('shl', w2, 1)), 0)
            if mut == 'down_mod_w':
                dg = ('and', ('eq', ('mod', add(t3, 1), w2), 0), ('ge', t3, w2))
            down = [if_(dg, [('let', tmp, load(s, ('sub', t3, w2))), store(s, ('sub', t3, w2), load(s, t3)),
                             store(s, t3, ('add', load(s, t3), tmp))])]
            wdef = ('shr', B // 2, e)
            if mut == 'down_no_split':
                phases.append(loop(t3, B, 'local', [loop(e, k, axis, [('let', w2, wdef)] + down)]))
            else:
                phases.append(loop(e, k, axis, [('let', w2, wdef), loop(t3, B, 'local', down)]))
        t4 = P.fresh('t')
        phases.append(loop(t4, B, 'local', [store(y, add(mul(g, B), t4), load(s, t4))]))
    else:
        a, b = P.alloc('a'), P.alloc('b')
        t0 = P.fresh('t')
        phases.append(loop(t0, B, 'local', [store(a, t0, load(x, add(mul(g, B), t0)))]))
        d, w, t1, t2 = P.fresh('d'), P.fresh('w'), P.fresh('t'), P.fresh('t')
        dst = a if mut == 'in_place' else b
        els = [store(dst, t1, load(a, t1))] if mut != 'in_place' else None
        if mut == 'else_reads':   # the else branch writes the slot of thread t + w
            els = [store(dst, add(t1, w), load(a, t1))]
        step = [if_(('ge', t1, w), [store(dst, t1, ('add', load(a, t1), load(a, ('sub', t1, w))))], els)]
        body = [('let', w, ('shl', 1, d))]
        if mut == 'in_place':
            body.append(loop(t1, B, 'local', step))
        elif mut == 'merged_copy':
            body.append(loop(t1, B, 'local', step + [store(a, t1, load(b, t1))]))
        else:
            body += [loop(t1, B, 'local', step), loop(t2, B, 'local', [store(a, t2, load(b, t2))])]
        phases.append(loop(d, k, axis, body))
        t4 = P.fresh('t')
        phases.append(loop(t4, B, 'local', [store(y, add(mul(g, B), t4), load(a, t4))]))
    P.body.append(loop(g, G, 'global', phases))


def sh_block_slabs(P):
    rng = P.rng
    P.meta['ctx'] = 'kernel'
    G = rng.randint(2, 6)
    B = count(rng, 2, 128)
    mut = pick_mut(P, ['neighbour', 'overlap', 'merged_phase', 'block_code_read', 'cross_write'])
    S = B + (rng.randint(0, 4) if rng.random() < 0.4 else 0)
    if mut == 'overlap':
        S = B - rng.randint(1, max(1, B // 2))
    x = P.buffer('x', ('iota',))
    slab = P.buffer('slab')
    y = P.buffer('y')
    g = P.fresh('g')
    t1, t2 = P.fresh('t'), P.fresh('t')
    C = rng.randint(1, B)
    fs = [('sub', B - 1, t2), ('mod', add(t2, C), B), ('div', t2, 2), ('min', t2, max(0, B - 2)), t2,
          ('select', ('lt', t2, B // 2), add(t2, B - B // 2), ('sub', t2, B // 2)) if B % 2 == 0 else t2,
          ('max', ('sub', t2, C), 0)]
    if pow2_log(B):
        fs.append(('and', ('add', t2, C), B - 1))
    F = rng.choice(fs)
    w1 = store(slab, aff(rng, [(S, g), (1, t1)]), ('mul', load(x, add(mul(g, B), t1)), 2))
    if mut == 'neighbour':
        ro = ('mod', add(mul(g, S), F, S), G * S)
    elif mut == 'cross_write':
        ro = None
    else:
        ro = add(mul(g, S), F)
    phases = [loop(t1, B, 'local', [w1])]
    v = 0
    if mut == 'block_code_read' or rng.random() < 0.3:
        vn = P.fresh('v')
        bo = mul(('mod', add(g, 1), G), S) if mut == 'block_code_read' else add(mul(g, S), rng.randint(0, B - 1))
        phases.append(('let', vn, load(slab, bo)))
        v = vn
    if mut == 'cross_write':
        st2 = store(slab, add(mul(('mod', add(g, 1), G), S), t2), t2)
    else:
        st2 = store(y, add(mul(g, B), t2), ('add', load(slab, ro), v))
    if mut == 'merged_phase':
        # the read of the slab in the phase that writes it (the barrier left out)
        lets = [s_ for s_ in phases if s_[0] == 'let']
        phases = lets + [loop(t2, B, 'local', [store(slab, aff(rng, [(S, g), (1, t2)]),
                                                      ('mul', load(x, add(mul(g, B), t2)), 2)), st2])]
    else:
        phases.append(loop(t2, B, 'local', [st2]))
    P.body.append(loop(g, G, 'global', phases))


def sh_bound_from_let(P):
    rng = P.rng
    variant = rng.choice(['let', 'let', 'param', 'stored_param', 'top_digit', 'triangle'])
    where = rng.choice(['thread', 'thread', 'kernel'])
    P.meta['variant'] = variant
    P.meta['ctx'] = where
    mut = pick_mut(P, ['bound_plus_one', 'stride_minus_one'])
    N = count(rng, 2, 64)
    C1 = rng.randint(0, 9)
    L = rng.randint(1, 12)
    C2 = C1 + L
    S = L
    if mut == 'bound_plus_one':
        C2 += 1
    elif mut == 'stride_minus_one':
        S = max(1, L - 1)
    out = P.buffer('out')
    i = P.fresh('i')
    pre = []
    if variant == 'triangle':
        # the inner bound is the parallel index itself: rows of p elements, stride N - 1
        p = P.fresh('p')
        S = N - 1 if not mut else max(1, (N - 1) // 2 if mut == 'stride_minus_one' else N - 2)
        bound = p if rng.random() < 0.5 else ('sub', p, 0)
        if where == 'thread':
            P.body.append(loop(p, N, 'thread', [loop(i, bound, None, [store(out, aff(rng, [(S, p), (1, i)]), i)])]))
        else:
            g = P.fresh('g')
            P.body.append(loop(g, rng.randint(1, 2), 'global', [loop(p, min(N, 64), 'local', [
                loop(i, bound, None, [store(out, add(mul(g, min(N, 64) * S + 64), mul(p, S), i), i)])])]))
        return
    if variant in ('let', 'top_digit'):
        a = P.fresh('a')
        pre.append(('let', a, C1))
        bound = ('sub', C2, a)
    elif variant == 'param':
        nb = P.buffer('nb', ('list', lambda _i, v=C2 - C1: v), 1)
        bound = load(nb, 0)
    else:
        nb = P.buffer('nb', ('list', lambda _i: 1), 1)
        P.body.append(store(nb, 0, C2 - C1))
        bound = load(nb, 0)
    if where == 'thread':
        p = P.fresh('p')
        o = aff(rng, [(S, p), (1, i)]) if variant != 'top_digit' else aff(rng, [(N if not mut else N - 1, i), (1, p)])
        body = [loop(i, bound, None, [store(out, o, p)])]
        if where == 'thread' and variant in ('let', 'top_digit') and rng.random() < 0.5:
            P.body += pre + [loop(p, N, 'thread', body)]
        else:
            P.body.append(loop(p, N, 'thread', pre + body))
    else:
        g, t = P.fresh('g'), P.fresh('t')
        G = rng.randint(1, 3)
        Bn = min(N, 32)
        pid = add(mul(g, Bn), t)
        o = add(mul(pid, S), i) if variant != 'top_digit' else add(mul(i, G * Bn - (1 if mut else 0)), pid)
        body = [loop(i, bound, None, [store(out, o, t)])]
        P.body.append(loop(g, G, 'global', pre + [loop(t, Bn, 'local', body)]))


def sh_outer_bound(P):
    rng = P.rng
    where = rng.choice(['thread', 'phase', 'kernel'])
    P.meta['ctx'] = where
    mut = pick_mut(P, ['guard_lets_all', 'inner_stride'])
    R = rng.randint(2, 6)
    N = count(rng, 2, 32)
    r, j = P.fresh('r'), P.fresh('j')
    out = P.buffer('out')
    if where == 'thread':
        p = P.fresh('p')
        if rng.random() < 0.5 or mut == 'guard_lets_all':
            X = rng.randint(0, R)
            st = [if_(('gt', j, X), [store(out, 0 if mut == 'guard_lets_all' else add(mul(j, N), p), p)],
                      [store(out, add(mul(add(j, 1), N), p) if rng.random() < 0.5 else add(p, mul(N, add(j, 1))), p)])]
            P.meta['variant'] = 'guard'
        else:
            i = P.fresh('i')
            Sx = (R - 1) if not mut else max(1, R - 3)
            st = [loop(i, j, None, [store(out, add(mul(p, Sx), i), i)])]
            P.meta['variant'] = 'inner'
        P.body.append(loop(r, R, None, [loop(j, r, None, [loop(p, N, 'thread', st)])]))
    elif where == 'phase':
        g, t, kk = P.fresh('g'), P.fresh('t'), P.fresh('k')
        A = P.alloc('A')
        o = add(mul(t, R), kk) if mut != 'inner_stride' else add(mul(t, max(1, R - 3)), kk)
        if mut == 'guard_lets_all':
            o = kk
        st = [if_(('lt', t, kk), [store(A, o, t)])] if rng.random() < 0.5 or mut == 'guard_lets_all' else [store(A, o, t)]
        t2 = P.fresh('t')
        P.body.append(loop(g, rng.randint(1, 2), 'global', [
            loop(j, R, None, [loop(kk, j, None, [loop(t, N, 'local', st)])]),
            loop(t2, N, 'local', [store(out, add(mul(g, N), t2), load(A, mul(t2, R)))])]))
        P.meta['variant'] = 'phase'
    else:
        g, t = P.fresh('g'), P.fresh('t')
        G = rng.randint(2, 4)
        X = rng.randint(0, R - 1)
        bad = mut is not None
        st = [if_(('gt', j, X), [store(out, t if bad else add(mul(g, N), t), g)],
                  [store(out, add(mul(g, N), t), g)])]
        P.body.append(loop(r, R, None, [loop(j, r, None, [loop(g, G, 'global', [loop(t, N, 'local', st)])])]))
        P.meta['variant'] = 'kernel'


def sh_ragged(P):
    """guarded sums: x = t + k*B covers a row of width W under `if (lt x C)`."""
    rng = P.rng
    where = rng.choice(['kernel', 'kernel', 'thread'])
    P.meta['ctx'] = where
    mut = pick_mut(P, ['guard_too_wide', 'guard_le'])
    B = count(rng, 2, 64)
    K = rng.randint(1, 4)
    W = rng.randint(max(1, B * K - B + 1), B * K + 3)
    C = W
    if mut == 'guard_too_wide':
        C = W + rng.randint(1, 3)
    out = P.buffer('grid')
    k, x = P.fresh('k'), P.fresh('x')
    if where == 'kernel':
        g, t = P.fresh('g'), P.fresh('t')
        G = rng.randint(2, 5)
        guard = ('le', x, C) if mut == 'guard_le' else (('lt', x, C) if rng.random() < 0.8 else ('gt', C, x))
        body = [('let', x, add(t, mul(k, B))), if_(guard, [store(out, add(mul(g, W), x), t)])]
        P.body.append(loop(g, G, 'global', [loop(k, K, rng.choice([None, 'unroll']), [loop(t, B, 'local', body)])]))
    else:
        p = P.fresh('p')
        G = rng.randint(2, 16)
        guard = ('le', x, C) if mut == 'guard_le' else ('lt', x, C)
        body = [loop(k, K, None, [('let', x, add(p, mul(k, B))), if_(guard, [store(out, add(mul(p, W), x), k)])])]
        # here the rows are the iterations: x = p + k*B must not make two rows meet
        P.body.append(loop(p, G, 'thread', body))


def sh_grid2d(P):
    """2-D grids and blocks: either nested global and local loops (docs/language.md 6.5), or
    flattened, the block index g giving gy = g / GX, gx = g mod GX, the thread index t giving
    ty = t / BX, tx = t mod BX."""
    rng = P.rng
    variant = rng.choice(['tile', 'transpose', 'one_per_block'])
    nested = rng.random() < 0.5
    P.meta['variant'] = variant + (' nested' if nested else '')
    P.meta['ctx'] = 'grid2d'
    GY, GX = rng.randint(1, 3), rng.randint(1, 4)
    BY, BX = rng.randint(1, 8), rng.randint(1, 16)
    if BY * BX < 2:
        BX = 2
    g = P.fresh('g')
    gy, gx = P.fresh('gy'), P.fresh('gx')
    out = P.buffer('out')
    W = GX * BX + (rng.randint(0, 2) if rng.random() < 0.3 else 0)
    blk = [('let', gy, div_form(rng, g, GX)), ('let', gx, mod_form(rng, g, GX))]

    def phase(body_fn):
        if nested:
            ty, tx = P.fresh('ty'), P.fresh('tx')
            return loop(ty, BY, 'local', [loop(tx, BX, 'local', body_fn(ty, tx))])
        t, ty, tx = P.fresh('t'), P.fresh('ty'), P.fresh('tx')
        return loop(t, BY * BX, 'local', [('let', ty, div_form(rng, t, BX)), ('let', tx, mod_form(rng, t, BX))]
                    + body_fn(ty, tx))

    def grid(phases):
        if nested:
            return loop(gy, GY, 'global', [loop(gx, GX, 'global', phases)])
        return loop(g, GY * GX, 'global', blk + phases)

    if variant == 'tile':
        mut = pick_mut(P, ['row_short', 'swapped_digit', 'block_short'])
        if mut == 'row_short':
            W = max(0, GX * BX - rng.randint(1, max(1, BX - 1)))

        def body(ty, tx):
            row = add(mul(gy, BY), ty)
            col = add(mul(gx, BX), ty if mut == 'swapped_digit' else tx)
            if mut == 'block_short':
                col = add(mul(gx, max(1, BX - 1)), tx)
            return [store(out, add(mul(row, W), col), add(mul(gy, 100), gx))]
        P.body.append(grid([phase(body)]))
    elif variant == 'transpose':
        mut = pick_mut(P, ['merged', 'tile_stride'])
        tile = P.alloc('tile')
        TS = BX - 1 if mut == 'tile_stride' and BX > 1 else BX
        x = P.buffer('x', ('iota',))

        def src(ty, tx):
            return load(x, add(mul(add(mul(gy, BY), ty), W), add(mul(gx, BX), tx)))

        def rd(ty, tx):    # the tile read transposed where the block is square, else reversed
            if BX == BY:
                return add(mul(tx, TS), ty)
            return ('sub', (BY - 1) * TS + BX - 1, add(mul(ty, TS), tx))

        def dst(ty, tx):
            return add(mul(add(mul(gy, BY), ty), W), add(mul(gx, BX), tx))
        ph1 = lambda ty, tx: [store(tile, add(mul(ty, TS), tx), src(ty, tx))]
        ph2 = lambda ty, tx: [store(out, dst(ty, tx), load(tile, rd(ty, tx)))]
        if mut == 'merged':
            phases = [phase(lambda ty, tx: ph1(ty, tx) + ph2(ty, tx))]
        else:
            phases = [phase(ph1), phase(ph2)]
        P.body.append(grid(phases))
    else:
        mut = pick_mut(P, ['one_index_only', 'wrong_block_index'])

        def body(ty, tx):
            if mut == 'one_index_only':
                c = ('eq', tx, 0)
            else:
                c = ('and', ('eq', ty, 0), ('eq', tx, 0)) if rng.random() < 0.5 else ('eq', add(ty, tx), 0)
            o = add(mul(gy, GX), gx) if mut != 'wrong_block_index' else add(gy, gx)
            return [if_(c, [store(out, o, add(ty, 1))])]
        P.body.append(grid([phase(body)]))


def sh_outer_table(P):
    """an outer loop's index reaches the checked code through a constant table: a stride, a
    guard or a bound read from a buffer the program never stores, at the outer index."""
    rng = P.rng
    variant = rng.choice(['stride', 'guard', 'bound'])
    where = rng.choice(['thread', 'kernel'])
    P.meta['variant'] = variant
    P.meta['ctx'] = where
    mut = pick_mut(P, ['bad_entry'])
    R = rng.randint(1, 6)
    N = count(rng, 2, 48)
    S = rng.randint(1, 6)
    if variant == 'stride':
        vals = [rng.randint(1, 5) for _ in range(R)]
        bad = 0
    elif variant == 'guard':
        vals = [rng.randint(0, 1) for _ in range(R)]
        bad = rng.randint(2, N)
    else:
        vals = [rng.randint(0, S) for _ in range(R)]
        bad = S + rng.randint(1, 2)
    if mut:
        vals[rng.randrange(R)] = bad
    tab = P.buffer('tab', ('list', lambda i, vals=vals: vals[i] if i < len(vals) else 0), R)
    out = P.buffer('out')
    r, v = P.fresh('r'), P.fresh('v')
    idx = r if rng.random() < 0.6 else ('mod', add(r, 1), R)

    def body(p, uniq):
        if variant == 'stride':
            return [store(out, add(mul(p, v), rng.randint(0, 3)), p)]
        if variant == 'guard':
            return [if_(('lt', p, v), [store(out, 0, p)]), store(P.buffer('y'), uniq, p)]
        i = P.fresh('i')
        return [loop(i, v, None, [store(out, add(mul(p, S), i), i)])]
    if where == 'thread':
        p = P.fresh('p')
        P.body.append(loop(r, R, None, [('let', v, load(tab, idx)), loop(p, N, 'thread', body(p, p))]))
    else:
        g, t = P.fresh('g'), P.fresh('t')
        G = rng.randint(1, 3)
        if variant == 'stride' or variant == 'bound':
            # one part per block: the checked code is the phase and the kernel
            N = min(N, 32)
            span = N * 6 + 8
            base = mul(g, span)

            def kb(p):
                bb = body(p, None)
                # shift the block's part
                def sh(st):
                    if st[0] == 'store':
                        return store(st[1], add(base, st[2]), st[3])
                    if st[0] == 'loop':
                        return loop(st[1], st[2], st[3], [sh(x) for x in st[4]])
                    return st
                return [sh(x) for x in bb]
            ph = kb(t)
        else:
            ph = [if_(('lt', t, v), [store(out, g, t)])]
        P.body.append(loop(g, G, 'global', [loop(r, R, None, [('let', v, load(tab, idx)), loop(t, N, 'local', ph)])]))


SHAPES = {
    'outer_table': sh_outer_table,
    'ragged': sh_ragged, 'grid2d': sh_grid2d,
    'tree_reduce': sh_tree_reduce, 'disjoint_guards': sh_disjoint_guards, 'rotation': sh_rotation,
    'field_pairs': sh_field_pairs, 'reversal': sh_reversal, 'block_slabs': sh_block_slabs,
    'scan': sh_scan, 'bound_from_let': sh_bound_from_let, 'params': sh_params,
    'const_table': sh_const_table, 'atomics': sh_atomics, 'outer_bound': sh_outer_bound,
    'offset_ops': sh_offset_ops, 'vector': sh_vector, 'one_writer': sh_one_writer,
    'random_affine': sh_random_affine,
}


def kernel_form(P):
    h = homes(P)
    for s in P.body:
        if not (s[0] == 'loop' and s[3] == 'global' and isinstance(s[2], int)):
            return False
    for m in P.mems:
        if m.kind == 'alloc' and m.name in h and h[m.name] is None:
            return False
    return True


def iterations(P):
    """a rough count of loop iterations (for the size cap)."""
    def ev(b):
        return b if isinstance(b, int) else 12

    def st(stmts):
        n = 0
        for s in stmts:
            if s[0] == 'loop':
                n += max(0, ev(s[2])) * max(1, st(s[4]))
            elif s[0] == 'if':
                n += max(st(s[2]), st(s[3] or []))
            else:
                n += 1
        return n
    return st(P.body)


def generate(seed, shape=None, mutate=None):
    """(Prog, meta, oracle result) for seed; meta: shape, ctx, mutation, variant, kernel, kernel_form."""
    for attempt in range(50):
        rng = random.Random(seed * 1000003 + attempt)
        P = Prog(rng)
        P.force_mut = mutate
        name = shape or rng.choice(sorted(SHAPES))
        P.meta = {'shape': name, 'mutation': None}
        SHAPES[name](P)
        if iterations(P) > 1 << 16:
            continue
        res = oracle(P)
        if res['fault'] and rng.random() < 0.7:
            continue   # keep a few faulting programs, regenerate most
        break
    # sizes from the run: the largest offset + 1, a little slack now and then
    for m in P.mems:
        if m.size is None:
            mx = res['maxi'][m.name]
            m.size = max(1, min(CAP, mx + 1 + (rng.randint(1, 3) if rng.random() < 0.3 else 0)))
        else:
            m.size = max(m.size, min(CAP, res['maxi'][m.name] + 1))
    if rng.random() < 0.03:
        # now and then a memory one element too small: the program faults (E0601, or E0301
        # when the fault is certain)
        cand = [m for m in P.mems if m.init[0] != 'list' and res['maxi'][m.name] >= 1]
        if cand:
            m = rng.choice(cand)
            m.size = res['maxi'][m.name]
            P.meta['shrunk'] = m.name
            res['fault'] = res['fault'] or '%s[%d] (shrunk)' % (m.name, m.size)
            res['shrunk'] = True
    meta = dict(P.meta)
    meta['seed'] = seed
    meta['kernel'] = any(s[0] == 'loop' and s[3] == 'global' for s in walk(P.body))
    meta['kernel_form'] = kernel_form(P)
    return P, meta, res


def walk(stmts):
    for s in stmts:
        yield s
        if s[0] == 'loop':
            yield from walk(s[4])
        elif s[0] == 'if':
            yield from walk(s[2])
            if s[3]:
                yield from walk(s[3])


def expected_output(P, res):
    """`uir run`'s standard output for a run with no race and no fault."""
    lines = []
    for m in P.mems:
        if m.kind != 'buffer':
            continue
        mem = res['final'][m.name]
        vals = [mem[i] if i in mem else m.value(i) for i in range(m.size)]
        lines.append('%s: %s' % (m.name, ' '.join(str(v) for v in vals)))
    return '\n'.join(lines) + ('\n' if lines else '')


def header(meta, res):
    verdict = 'race (%s)' % res['race'] if res['race'] else ('fault (%s)' % res['fault'] if res['fault'] else 'race-free')
    return ['# racegen seed %d: shape %s, context %s, variant %s, mutation %s' % (
        meta['seed'], meta['shape'], meta.get('ctx'), meta.get('variant'), meta.get('mutation')),
        '# oracle (tests/gen/racegen.py): %s' % verdict]


def main(argv):
    ap = argparse.ArgumentParser(description='print one random .uir program of a race shape')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--shape', choices=sorted(SHAPES))
    ap.add_argument('--mutate', dest='mutate', action='store_true', default=None)
    ap.add_argument('--no-mutate', dest='mutate', action='store_false')
    ap.add_argument('--oracle', action='store_true', help='print the oracle verdict on stderr (JSON)')
    a = ap.parse_args(argv)
    P, meta, res = generate(a.seed, a.shape, a.mutate)
    sys.stdout.write(P.text(header(meta, res)))
    if a.oracle:
        sys.stderr.write(json.dumps({'meta': meta, 'race': res['race'], 'fault': res['fault'],
                                     'first': res['first']}) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
