#!/usr/bin/python3
"""optdiff.py - random programs aimed at the loop optimiser (src/opt/: privatisation, scalar
expansion with loop distribution, interchange, automatic parallel loops) against the
interpreter.

Every seed gives one program: loop nests of depth 1-3 with literal bounds (2..40; inner reductions sometimes 65..90 and
outer loops multiples of 8, for the expansion and the unroll-and-jam), f32 and
i32 buffers with `random` inits, and small scalar allocs used as accumulators in many
variations -- written before read or not, written under an `if`, read after the loop or
before the first store, at several constant offsets, lets before and after the first store
(some loading a buffer the body writes), reductions with float add/sub/mul/min/max/fma and
integer add/mul/xor/min/max, stores of the accumulator at `i*N+j`, at `j` only (a conflict
across i), at offsets loaded from an index table, nested inner loops, `if`s inside,
per-iteration arrays filled by a loop, an array carried from one iteration of an outer
loop to the next, a carried prefix, loop bounds loaded from a buffer, sometimes an existing
`thread` loop, an alloc shared by two nests, a data-guarded out-of-bounds store (E0601),
and odd layouts (tabs, CR LF, trailing comments, `}` after a statement, `loop i 8{`, no
final newline).

For each program `uir run --engine interp --hash` (standard output, exit status and
standard error) is the reference; `uir run --engine jit --hash` must give the same at
`--threads 1`, `--threads 2`, `--threads 4` and `--no-opt`, all with
UIR_AUTO_PARALLEL_WORK=0 (every independent loop is taken) and UIR_OPT_DEBUG=1 (a rewrite
that does not check is reported, and is a failure). `uir opt` must succeed, its text must
pass `uir check` and give the reference's exit status and standard output in the
interpreter and in the JIT (2 threads). Programs that read an index table through a
loaded offset are also run with `--input` of other values for the table (duplicates: the
table's INIT, which the analyses may read, no longer holds), in the interpreter and the
JIT at 4 threads.

    tests/gen/optdiff.py [--uir build/src/uir] [--seeds 0..299] [--keep DIR] [--no-input] [-v]

The counts show that the transformations fire: a program counts as privatised when `uir
opt` adds `thread` to a loop whose body uses an alloc, parallel when it adds `thread` to
another loop, expanded when it adds an `_x` alloc, interchanged when it carries the
interchange comment. Last line: "optdiff: N programs, P privatised, X expanded, R of them
rewritten (privatised or expanded, R%), T parallel, C interchanged, L peeled (a loop's last
iteration run apart), J jammed (unroll-and-jam; O of them the outer jam, W the swapped jam,
`loop j_o (div J U)`, K the sunk jam, k written outside i and j and run inside them, Y the row jam,
rows i side by side inside j inside k), F faulting, I with --input, B failed";
exits 1 when any failed (kept in --keep: the program, its `uir opt` text and any input)."""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))

LOOP_NAMES = ['i', 'j', 'k', 'l', 'h']
F_LITS = ['0.5', '1.5', '-0.25', '2.0', '0.0', '-0.0', '3.0e-2', '-1.0', '0.75']
F_INITS = ['0.0', '0.0', '0.0', '1.0', '-0.0', '-inf', 'inf', '0.5']
I_INITS = ['0', '0', '1', '-1', '7']


def lin(vs):
    """Row-major offset of the indices VS [(name, bound)]: text and largest value."""
    if not vs:
        return '0', 0
    t, mx = vs[0][0], vs[0][1] - 1
    for name, b in vs[1:]:
        t = 'add (mul %s %d) %s' % (par(t), b, name)
        mx = mx * b + b - 1
    return t, mx


def par(t):
    return '(%s)' % t if ' ' in t else t


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.lines = []
        self.maxoff = {}
        self.nlet = 0
        self.fault = rng.random() < 0.12
        self.fault_done = False
        self.used = set()
        self.msize = {'m': rng.choice([1, 1, 1, 2, 2, 3]), 'm2': rng.choice([1, 1, 2, 3]),
                      'mt0': rng.choice([1, 2]), 'mt1': 1, 'n': rng.choice([1, 1, 2]), 'nt0': 1, 'nt1': 1}
        self.tsize = rng.randint(2, 8)
        self.nvals = []  # the loaded bounds
        self.dyn = None
        self.thread = False  # inside an existing thread loop: race-free shapes only
        self.clean = False
        self.fixed_out = None

    # ---- helpers ----
    def emit(self, ind, s):
        self.lines.append('  ' * ind + s)

    def use(self, mem, mx):
        self.used.add(mem)
        self.maxoff[mem] = max(self.maxoff.get(mem, 0), mx)

    def bound(self, depth):
        r = self.r
        if depth >= 3:
            return r.randint(2, 8)
        if depth == 2:
            # sometimes a reduction long enough (over 64) to be worth an expansion or an
            # unroll-and-jam (src/opt/expand.c)
            return r.randint(65, 90) if r.random() < 0.35 else r.randint(2, 16)
        if depth == 1 and r.random() < 0.2:
            return r.randint(65, 90)
        # sometimes a multiple of 8: the rows of an unroll-and-jam
        return r.choice([r.randint(2, 12), r.randint(2, 40), 8 * r.randint(2, 5), 8 * r.randint(2, 5)])

    def newlet(self, p):
        self.nlet += 1
        return '%s%d' % (p, self.nlet)

    def off(self, mem, scope, lets=()):
        """An in-bounds offset into MEM from SCOPE's indices (and integer lets)."""
        r = self.r
        k = r.random()
        if not scope or k < 0.06:
            c = r.randint(0, 5)
            self.use(mem, c)
            return str(c)
        if lets and k < 0.15:
            name, mx = r.choice(lets)
            self.use(mem, mx)
            return name
        if k < 0.45:
            t, mx = lin(scope)
        elif k < 0.7:
            sub = [v for v in scope if r.random() < 0.6] or [r.choice(scope)]
            t, mx = lin(sub)
        elif k < 0.85:
            v = r.choice(scope)
            t, mx = v[0], v[1] - 1
        else:
            sub = [v for v in scope if r.random() < 0.5] or [r.choice(scope)]
            t, mx = lin(sub)
            c = r.randint(1, 4)
            t, mx = 'add %s %d' % (par(t), c), mx + c
        self.use(mem, mx)
        return t

    def red_off(self, mem, scope, jname):
        """An offset for a read in a reduction loop: often invariant in j or stride 1 in j,
        so that the interchange would pay."""
        r = self.r
        k = r.random()
        others = [v for v in scope if v[0] != jname]
        js = [v for v in scope if v[0] == jname]
        if k < 0.4 and others:
            t, mx = lin([v for v in others if r.random() < 0.8] or others[-1:])
        elif k < 0.8 and js:
            sub = [v for v in others if r.random() < 0.7]
            t, mx = lin(sub + js)
        else:
            return self.off(mem, scope)
        self.use(mem, mx)
        return t

    # ---- values ----
    def fval(self, scope, ctx, depth=0):
        r = self.r
        k = r.random()
        if depth < 2 and k < 0.25:
            op = r.choice(['add', 'sub', 'mul', 'min', 'max', 'add', 'mul'])
            return '(%s %s %s)' % (op, self.fval(scope, ctx, depth + 1), self.fval(scope, ctx, depth + 1))
        if k < 0.6:
            return '(load A %s)' % par(self.red_off('A', scope, ctx.get('j')) if ctx.get('red') else self.off('A', scope, ctx.get('ilets', ())))
        if k < 0.68 and ctx.get('flets'):
            return r.choice(ctx['flets'])
        if k < 0.74 and not self.thread and not ctx.get('red') and not self.clean:
            return '(load O %s)' % par(self.off('O', scope))
        if k < 0.82:
            return '(cast f32 (load B %s))' % par(self.red_off('B', scope, ctx.get('j')) if ctx.get('red') else self.off('B', scope))
        if k < 0.9 and ctx.get('macc'):
            a = ctx['macc']
            return '(load %s %d)' % (a, r.randrange(self.msize[a]))
        return r.choice(F_LITS)

    def ival(self, scope, ctx, depth=0):
        r = self.r
        k = r.random()
        if depth < 2 and k < 0.2:
            op = r.choice(['add', 'sub', 'mul', 'xor', 'and', 'max'])
            return '(%s %s %s)' % (op, self.ival(scope, ctx, depth + 1), self.ival(scope, ctx, depth + 1))
        if k < 0.6:
            return '(load B %s)' % par(self.red_off('B', scope, ctx.get('j')) if ctx.get('red') else self.off('B', scope))
        if k < 0.7 and scope:
            return r.choice(scope)[0]
        if k < 0.78 and not self.thread and not ctx.get('red'):
            return '(load Q %s)' % par(self.off('Q', scope))
        return str(r.randint(-5, 9))

    def cond(self, scope, ctx):
        r = self.r
        k = r.random()
        if k < 0.35:
            return '(gt %s %s)' % (self.fval(scope, ctx, 1), r.choice(['0.0', '0.3', '-0.5']))
        if k < 0.6 and scope:
            v = r.choice(scope)
            return '(lt %s %d)' % (v[0], r.randint(1, max(1, v[1] - 1)))
        if k < 0.8 and scope:
            v = r.choice(scope)
            return '(eq (mod %s %d) 0)' % (v[0], r.randint(2, 3))
        return '(ne (and (load B %s) 3) 0)' % par(self.off('B', scope))

    def out_off(self, scope, ctx, mem='O'):
        """Where an accumulator is stored: i*N+j, j only, a loaded offset, a constant."""
        r = self.r
        if self.thread:
            if self.fixed_out is None:
                self.fixed_out = lin(scope)
            self.use(mem, self.fixed_out[1])
            return self.fixed_out[0]
        k = r.random() * (0.7 if self.clean else 1)
        if k < 0.5:
            t, mx = lin(scope)
        elif k < 0.7:
            t, mx = scope[-1][0], scope[-1][1] - 1
        elif k < 0.82:
            if mem != 'O':
                return self.out_off(scope, ctx, mem)
            self.used.add('I')
            return 'load I %s' % par(self.off('I', scope))
        elif k < 0.9:
            t, mx = lin(scope)
            t, mx = 'add %s 1' % par(t), mx + 1
        else:
            c = r.randint(0, 3)
            t, mx = str(c), c
        self.use(mem, mx)
        return t

    def red(self, op, acc, val):
        if op == 'fma':
            return '(fma %s %s %s)' % (val, self.r.choice(F_LITS[:4]), acc)
        return '(%s %s %s)' % (op, acc, val)

    def fop(self):
        return self.r.choice(['add', 'add', 'add', 'mul', 'min', 'max', 'sub', 'fma'])

    def iop(self):
        return self.r.choice(['add', 'add', 'mul', 'xor', 'min', 'max'])

    # ---- the reduction loop's body ----
    def red_stmts(self, ind, scope, ctx, d_in):
        r = self.r
        a, n = ctx['macc'], ctx.get('nacc')
        for _ in range(r.choice([1, 1, 2, 3])):
            k = r.random()
            e = r.randrange(self.msize[a])
            rc = dict(ctx, red=True)
            if k < 0.55:
                self.emit(ind, 'store %s %d %s' % (a, e, self.red(self.fop(), '(load %s %d)' % (a, e), self.fval(scope, rc))))
            elif k < 0.67:
                self.emit(ind, 'if %s {' % self.cond(scope, rc))
                self.emit(ind + 1, 'store %s %d %s' % (a, e, self.red(self.fop(), '(load %s %d)' % (a, e), self.fval(scope, rc))))
                if r.random() < 0.3:
                    self.emit(ind, '} else {')
                    self.emit(ind + 1, 'store %s %d %s' % (a, e, self.red('mul', '(load %s %d)' % (a, e), '0.5')))
                self.emit(ind, '}')
            elif k < 0.77 and d_in >= 1:
                name = LOOP_NAMES[len(scope)]
                b = self.bound(len(scope))
                self.emit(ind, 'loop %s %d%s {' % (name, b, ' unroll' if b <= 64 and r.random() < 0.15 else ''))
                self.red_stmts(ind + 1, scope + [(name, b)], ctx, d_in - 1)
                self.emit(ind, '}')
            elif k < 0.84 and self.msize[a] > 1:
                e2 = (e + 1) % self.msize[a]
                self.emit(ind, 'store %s %d %s' % (a, e2, self.red(self.fop(), '(load %s %d)' % (a, e2), '(load %s %d)' % (a, e))))
            elif k < 0.9 and not self.thread:
                if self.fault and not self.fault_done and not self.clean:
                    self.fault_store(ind, scope, '(load %s %d)' % (a, e))
                else:
                    self.emit(ind, 'store O %s (load %s %d)' % (par(self.out_off(scope, ctx)), a, e))
            elif n:
                en = r.randrange(self.msize[n])
                self.emit(ind, 'store %s %d (%s (load %s %d) %s)' % (n, en, self.iop(), n, en, self.ival(scope, rc)))
            else:
                self.emit(ind, 'store %s %d %s' % (a, e, self.red(self.fop(), '(load %s %d)' % (a, e), self.fval(scope, rc))))

    # ---- an accumulator's loop: its body starts with lets and the first store ----
    def acc_body(self, ind, scope, jname, d_in, a, n):
        r = self.r
        n = n if r.random() < 0.3 and not self.clean else None
        if n:
            self.used.add(n)
        ctx = {'j': jname, 'macc': a, 'nacc': n, 'ilets': [], 'flets': []}
        # lets before the first store
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            k = r.random() * (0.8 if self.clean else 1)
            if k < 0.4:
                t, mx = lin(scope) if r.random() < 0.6 else (scope[-1][0], scope[-1][1] - 1)
                name = self.newlet('c')
                self.emit(ind, 'let %s = %s' % (name, t))
                ctx['ilets'].append((name, mx))
            elif k < 0.8 or self.thread:
                name = self.newlet('v')
                self.emit(ind, 'let %s = load A %s' % (name, par(self.off('A', scope))))
                ctx['flets'].append(name)
            elif k < 0.92:
                name = self.newlet('w')  # loads a buffer the body writes
                self.emit(ind, 'let %s = load O %s' % (name, par(self.off('O', scope))))
                ctx['flets'].append(name)
            else:
                name = self.newlet('z')  # reads the accumulator before the first store
                self.emit(ind, 'let %s = load %s %d' % (name, a, r.randrange(self.msize[a])))
                ctx['flets'].append(name)
        if r.random() < 0.06 and not self.thread and not self.clean:
            self.emit(ind, 'store O %s (load %s %d)' % (par(self.out_off(scope, ctx)), a, r.randrange(self.msize[a])))
        # the first stores: usually every element, sometimes some, sometimes none
        k = r.random()
        elems = list(range(self.msize[a]))
        if k < 0.12 and not self.clean:
            elems = [e for e in elems if r.random() < 0.5]
        r.shuffle(elems)
        guard = r.random() < 0.1 and not self.clean
        for e in elems:
            init = r.choice(F_INITS) if r.random() < 0.8 else self.fval(scope, ctx, 1)
            if guard and e == elems[0]:
                self.emit(ind, 'if %s {' % self.cond(scope, ctx))
                self.emit(ind + 1, 'store %s %d %s' % (a, e, init))
                self.emit(ind, '}')
            else:
                self.emit(ind, 'store %s %d %s' % (a, e, init))
        if n:
            for e in range(self.msize[n]):
                if r.random() < 0.9:
                    self.emit(ind, 'store %s %d %s' % (n, e, r.choice(I_INITS)))
        if r.random() < 0.08 and not self.clean:
            name = self.newlet('p')  # a let after the first store
            self.emit(ind, 'let %s = %s' % (name, self.fval(scope, ctx, 1)))
            ctx['flets'].append(name)
        # the reduction loops
        if d_in >= 1:
            for _ in range(1 if r.random() < 0.85 else 2):
                name = LOOP_NAMES[len(scope)]
                b = self.bound(len(scope))
                self.emit(ind, 'loop %s %d%s {' % (name, b, ' unroll' if b <= 64 and r.random() < 0.08 else ''))
                self.red_stmts(ind + 1, scope + [(name, b)], ctx, d_in - 1)
                self.emit(ind, '}')
                if r.random() < 0.15:
                    self.rest(ind, scope, ctx, 1)
        else:
            self.red_stmts(ind, scope, ctx, 0)
        self.rest(ind, scope, ctx, r.choice([1, 1, 2, 3]))

    def rest(self, ind, scope, ctx, count):
        r = self.r
        a, n = ctx['macc'], ctx.get('nacc')
        for _ in range(count):
            k = r.random()
            e = r.randrange(self.msize[a])
            if self.fault and not self.fault_done and not self.thread and not self.clean:
                self.fault_store(ind, scope, '(load %s %d)' % (a, e))
            elif self.dyn and r.random() < 0.3:
                # never runs, but a thread loop over a loaded bound checks its offsets on entry
                self.dyn = False
                self.emit(ind, 'if (lt %s 0) {' % scope[0][0])
                self.emit(ind + 1, 'store O (mul %s 1000000000) (load %s %d)' % (scope[0][0], a, e))
                self.emit(ind, '}')
            elif k < 0.55:
                v = '(load %s %d)' % (a, e)
                if self.msize[a] > 1 and r.random() < 0.4:
                    v = '(%s %s (load %s %d))' % (r.choice(['sub', 'add', 'mul']), v, a, (e + 1) % self.msize[a])
                self.emit(ind, 'store O %s %s' % (par(self.out_off(scope, ctx)), v))
            elif k < 0.67 and n:
                self.emit(ind, 'store Q %s (load %s %d)' % (par(self.out_off(scope, ctx, 'Q')), n, r.randrange(self.msize[n])))
            elif k < 0.77:
                self.emit(ind, 'if %s {' % self.cond(scope, ctx))
                self.emit(ind + 1, 'store O %s (load %s %d)' % (par(self.out_off(scope, ctx)), a, e))
                self.emit(ind, '}')
            elif k < 0.87 and not (self.fault and k > 0.8):
                self.emit(ind, 'store %s %d %s' % (a, e, self.red(self.fop(), '(load %s %d)' % (a, e), self.fval(scope, ctx, 1))))
            else:
                self.emit(ind, 'store O %s (load %s %d)' % (par(self.out_off(scope, ctx)), a, e))

    def fault_store(self, ind, scope, v):
        """A store past the end of O when the data say so (E0601 at run time)."""
        self.fault_done = self.r.random() < 0.7
        t, _ = lin(scope)
        self.emit(ind, 'if (gt (load A %s) %s) {' % (par(self.off('A', scope)), self.r.choice(['0.5', '0.9', '0.98'])))
        self.emit(ind + 1, 'store O (add %s @SO@) %s' % (par(t), v))
        self.emit(ind, '}')

    def bound_text(self, b, may_load):
        """The bound B as a literal, or (sometimes) loaded from the table N."""
        if may_load and self.r.random() < 0.12:
            self.nvals.append(b)
            self.used.add('N')
            self.dyn = True
            return '(load N %d)' % (len(self.nvals) - 1)
        return str(b)

    # ---- nests ----
    def acc_nest(self, ind, a, n, thread):
        r = self.r
        # a clean nest has none of the variations that forbid the rewrites (so that they are
        # seen to fire); the others have them at random
        self.clean = r.random() < 0.4
        d = r.choice([1, 2, 2, 3, 3, 3])
        nout = r.choice([0, 0, 1]) if d == 2 else (r.choice([0, 1, 1, 1, 2]) if d == 3 else 0)
        self.thread = thread
        self.fixed_out = None
        scope, opened = [], 0
        self.dyn = None
        for o in range(nout):
            name = LOOP_NAMES[len(scope)]
            b = self.bound(len(scope))
            self.emit(ind + o, 'loop %s %s%s {' % (name, self.bound_text(b, o == 0 and not thread), ' thread' if thread and o == 0 else ''))
            scope.append((name, b))
            opened += 1
            if r.random() < 0.15 and not thread:
                self.emit(ind + o + 1, 'store O %s %s' % (par(self.off('O', scope)), self.fval(scope, {})))
        jind = ind + nout
        b = self.bound(len(scope))
        for rep in range(2 if r.random() < 0.1 and not self.clean and not (thread and nout == 0) else 1):  # one scalar in two sibling loops
            name = LOOP_NAMES[len(scope)]
            if not thread:
                b = self.bound(len(scope))
            self.emit(jind, 'loop %s %d%s {' % (name, b, ' thread' if thread and nout == 0 else ''))
            self.acc_body(jind + 1, scope + [(name, b)], name, d - nout - 1, a, n)
            self.emit(jind, '}')
        if nout and r.random() < 0.1 and not thread and not self.clean:  # read after the loop: not private
            self.emit(jind, 'store O %s (load %s 0)' % (par(self.out_off(scope, {})), a))
        for o in reversed(range(opened)):
            self.emit(ind + o, '}')
        self.thread = False

    def direct_nest(self, ind):
        """A reduction straight into a buffer element (the interchange's shape, or the
        unroll-and-jam's)."""
        i, j, k = [('i', self.bound(0)), ('j', self.bound(1)), ('k', self.bound(2))]
        row = self.r.random() < 0.35
        if row and self.r.random() < 0.6:
            j, k = ('j', 8 * self.r.randint(2, 5) + self.r.choice([0, 0, 3])), ('k', self.r.randint(65, 90))
        self.emit(ind, 'loop i %d {' % i[1])
        self.emit(ind + 1, 'loop j %d {' % j[1])
        o = self.out_off([i, j], {})
        ctx = {'j': 'j', 'red': True}
        self.emit(ind + 2, 'loop k %d {' % k[1])
        val = self.fval([i, j, k], ctx)
        if row:
            # a row of A that j walks down (a matrix-vector product): no interchange pays,
            # an unroll-and-jam does (src/opt/jam.c)
            a = lin([j, k])
            self.use('A', a[1])
            val = '(mul (load A %s) %s)' % (par(a[0]), val)
        self.emit(ind + 3, 'store O %s %s' % (par(o), self.red(self.fop(), '(load O %s)' % par(o), val)))
        self.emit(ind + 2, '}')
        if self.r.random() < 0.3:
            # a statement after the reduction: the j loop is distributed first (expand.c)
            self.emit(ind + 2, 'store O %s (mul (load O %s) 0.5)' % (par(o), par(o)))
        self.emit(ind + 1, '}')
        self.emit(ind, '}')

    def swap_nest(self, ind):
        """The swapped jam's shape (src/opt/jam.c): k outside j, j walking down a column of
        A, each O element a reduction over k; j's bound a literal or triangular in i. One in
        four is not legal: O's offset also moves with k, or the update reads the element of
        j + 1."""
        r = self.r
        ni, nk = r.randint(1, 12), r.randint(65, 90)
        tri = r.random() < 0.5
        c = r.randint(0, 9)
        nj = ni - 1 + c if tri else 8 * r.randint(2, 5) + r.choice([0, 0, 3, 7])
        if nj < 1:
            nj, tri = 1, False
        kind = r.random()
        row = nj + 1 + (nk if kind < 0.12 else 0)
        o = '(add (mul i %d) %s)' % (row, '(add j k)' if kind < 0.12 else 'j')
        rd = '(add %s 1)' % o if 0.12 <= kind < 0.25 else o
        self.use('O', (ni - 1) * row + nj + (nk if kind < 0.12 else 1))
        self.use('A', (nj - 1) * nk + nk - 1)
        self.emit(ind, 'loop i %d {' % ni)
        self.emit(ind + 1, 'loop k %d {' % nk)
        self.emit(ind + 2, 'loop j %s {' % ('(add i %d)' % c if tri else str(nj)))
        val = self.fval([('i', ni), ('j', nj), ('k', nk)], {'red': True})
        val = '(mul (load A (add (mul j %d) k)) %s)' % (nk, val)
        self.emit(ind + 3, 'store O %s %s' % (par(o), self.red(self.fop(), '(load O %s)' % par(rd), val)))
        self.emit(ind + 2, '}')
        self.emit(ind + 1, '}')
        self.emit(ind, '}')

    def sink_nest(self, ind):
        """The sunk jam's shape (src/opt/jam.c): a reduction loop k outside loops i and j,
        j walking down a column of A, each O element a reduction over k. One in three is
        not legal: every j of a row updates one element, the rows' elements overlap, or the
        update reads the next element."""
        r = self.r
        ni, nj, nk = r.randint(16, 30), r.randint(1, 12), r.randint(65, 90)
        kind = r.random()
        if kind < 0.1:
            o = 'i'
        elif kind < 0.2:
            o = '(add (mul i %d) j)' % r.randint(1, max(1, nj - 1))
        elif r.random() < 0.5:
            o = '(add (mul i %d) j)' % (nj + r.choice([0, 0, 3]))
        else:
            o = '(add (mul j %d) i)' % ni
        rd = '(add %s 1)' % o if 0.2 <= kind < 0.3 else o
        self.use('O', (ni - 1) * (nj + 3) + nj + (ni - 1) * nj + 1)
        self.use('A', (max(ni, nj) - 1) * nk + nk - 1)
        self.emit(ind, 'loop k %d {' % nk)
        self.emit(ind + 1, 'loop i %d {' % ni)
        self.emit(ind + 2, 'loop j %d {' % nj)
        val = self.fval([('i', ni), ('j', nj), ('k', nk)], {'red': True})
        val = '(mul (mul (load A (add (mul i %d) k)) (load A (add (mul j %d) k))) %s)' % (nk, nk, val)
        self.emit(ind + 3, 'store O %s %s' % (par(o), self.red(self.fop(), '(load O %s)' % par(rd), val)))
        self.emit(ind + 2, '}')
        self.emit(ind + 1, '}')
        self.emit(ind, '}')

    def row_nest(self, ind):
        """The row jam's shape (src/opt/jam.c): rows i of O, each summed over k along a row
        of B (j inner, stride 1), with a statement on the row before or after the nest at
        times, written k outside j or j outside k. One in four is not legal: a row reads the
        row before it, or every row updates the same elements."""
        r = self.r
        ni = r.choice([8 * r.randint(2, 4), 4 * r.choice([5, 7]), r.randint(16, 30)])
        nk, nj = r.randint(65, 90), r.randint(16, 40)
        kind = r.random()
        row = nj + r.choice([0, 0, 2])
        o = 'j' if kind < 0.12 else '(add (mul i %d) j)' % row
        rd = '(add (mul (max 0 (sub i 1)) %d) j)' % row if 0.12 <= kind < 0.25 else o
        self.use('O', (ni - 1) * row + nj - 1)
        self.use('A', (ni - 1) * nk + nk - 1)
        self.use('A', (nk - 1) * nj + nj - 1)
        scope = [('i', ni), ('j', nj), ('k', nk)]
        self.emit(ind, 'loop i %d {' % ni)
        if r.random() < 0.3:
            self.emit(ind + 1, 'loop j %d {' % nj)
            self.emit(ind + 2, 'store O %s %s' % (par(o), self.fval(scope[:2], {})))
            self.emit(ind + 1, '}')
        val = self.fval(scope, {'red': True})
        val = '(mul (mul (load A (add (mul i %d) k)) (load A (add (mul k %d) j))) %s)' % (nk, nj, val)
        body = 'store O %s %s' % (par(o), self.red(self.fop(), '(load O %s)' % par(rd), val))
        outer, inner = (('k', nk), ('j', nj)) if r.random() < 0.6 else (('j', nj), ('k', nk))
        self.emit(ind + 1, 'loop %s %d {' % outer)
        self.emit(ind + 2, 'loop %s %d {' % inner)
        self.emit(ind + 3, body)
        self.emit(ind + 2, '}')
        self.emit(ind + 1, '}')
        if r.random() < 0.3:
            self.emit(ind + 1, 'loop j %d {' % nj)
            self.emit(ind + 2, 'store O %s (mul (load O %s) 0.5)' % (par(o), par(o)))
            self.emit(ind + 1, '}')
        self.emit(ind, '}')

    def array_nest(self, ind):
        """A per-iteration array filled by a loop, then read (privatisation's intervals):
        an alloc t, sometimes read after the loop (into R), or a buffer S (printed); either
        way the last iteration's values survive, so the loop runs in parallel only with that
        iteration peeled, when every iteration writes the whole array."""
        r = self.r
        T = self.tsize
        ni = self.bound(0)
        t = 'S' if r.random() < 0.3 else 't'
        self.used.add(t)
        self.emit(ind, 'loop i %d {' % ni)
        c = r.choice([0, 0, 0, 1])
        nfill = T - c if r.random() < 0.8 else max(1, T - c - 1)  # sometimes an element short
        if r.random() < 0.3:
            self.emit(ind + 1, 'loop k %d {' % nfill)
            self.emit(ind + 2, 'store %s (add k %d) %s' % (t, c, self.fval([('i', ni), ('k', nfill)], {})))
            self.emit(ind + 2, 'store O %s (load %s (add k %d))' % (par(self.off('O', [('i', ni), ('k', nfill)])), t, c))
            self.emit(ind + 1, '}')
        else:
            self.emit(ind + 1, 'loop k %d {' % nfill)
            self.emit(ind + 2, 'store %s %s %s' % (t, 'k' if c == 0 else '(add k %d)' % c, self.fval([('i', ni), ('k', nfill)], {})))
            self.emit(ind + 1, '}')
            if r.random() < 0.5:
                self.emit(ind + 1, 'store %s %d %s' % (t, r.randrange(T), self.fval([('i', ni)], {})))
            self.emit(ind + 1, 'loop k %d {' % T)
            o = lin([('i', ni), ('k', T)])
            self.use('O', o[1])
            self.emit(ind + 2, 'store O %s (add (load %s k) %s)' % (par(o[0]), t, self.fval([('i', ni), ('k', T)], {})))
            self.emit(ind + 1, '}')
        self.emit(ind, '}')
        if t == 't' and r.random() < 0.3:
            self.used.add('R')
            self.emit(ind, 'loop k %d {' % T)
            self.emit(ind + 1, 'store R k (load t k)')
            self.emit(ind, '}')

    def carried_nest(self, ind):
        """A per-iteration scalar t and an array u that carries each column's value from one
        iteration of the outer loop to the next (a new thread loop would make u
        per-iteration)."""
        r = self.r
        P, L, K = r.randint(2, 4), self.bound(1), self.bound(2)
        self.used.update(('t', 'u'))
        self.usize = max(getattr(self, 'usize', 1), L + 1)
        sh = r.choice([0, 0, 0, 1])  # read u[l + 1]: carried within the outer iteration too
        self.emit(ind, 'loop p %d {' % P)
        self.emit(ind + 1, 'loop l %s {' % self.bound_text(L, True))
        self.emit(ind + 2, 'store t 0 (load u %s)' % ('l' if not sh else '(add l 1)'))
        self.emit(ind + 2, 'loop k %d {' % K)
        self.emit(ind + 3, 'store t 0 %s' % self.red(self.fop(), '(load t 0)', self.fval([('p', P), ('l', L), ('k', K)], {'red': True})))
        self.emit(ind + 2, '}')
        o = lin([('p', P), ('l', L)])
        self.use('O', o[1])
        self.emit(ind + 2, 'store O %s (load t 0)' % par(o[0]))
        if r.random() < 0.8:
            self.emit(ind + 2, 'store u l (load t 0)')
        self.emit(ind + 1, '}')
        self.emit(ind, '}')

    def seq_nest(self, ind):
        """A carried dependence: a prefix over a row."""
        r = self.r
        n = self.bound(0)
        self.emit(ind, 'loop i %d {' % n)
        self.use('O', n)
        self.emit(ind + 1, 'store O (add i 1) (%s (load O i) %s)' % (r.choice(['add', 'max', 'mul']), self.fval([('i', n)], {})))
        self.emit(ind, '}')

    def program(self):
        r = self.r
        for nest in range(1 if r.random() < 0.7 else 2):
            k = r.random()
            if k < 0.7:
                # one alloc in two nests, or two; an existing thread loop's allocs of its own
                thread = r.random() < 0.1
                a = 'mt%d' % nest if thread else 'm' if nest == 0 or r.random() < 0.5 else 'm2'
                self.used.add(a)
                self.acc_nest(0, a, 'nt%d' % nest if thread else 'n', thread)
            elif k < 0.78:
                self.direct_nest(0)
            elif k < 0.8:
                self.swap_nest(0)
            elif k < 0.82:
                self.sink_nest(0)
            elif k < 0.84:
                self.row_nest(0)
            elif k < 0.88:
                self.array_nest(0)
            elif k < 0.94:
                self.carried_nest(0)
            else:
                self.seq_nest(0)
        if 'm' in self.used and r.random() < 0.06:
            self.emit(0, 'store O 0 (load m 0)')  # read after every loop
            self.use('O', 0)
        so = self.maxoff.get('O', 0) + 1
        body = '\n'.join(self.lines).replace('@SO@', str(so))
        decls = []
        s = lambda: r.randint(0, 2 ** 32 - 1)
        decls.append('buffer A f32 %d = random %d' % (self.maxoff.get('A', 0) + 1 + r.randint(0, 3), s()))
        if 'N' in self.used:
            decls.append('buffer N i32 %d = [%s]' % (len(self.nvals), ' '.join(map(str, self.nvals))))
        if 'B' in self.used:
            decls.append('buffer B i32 %d = random %d%s' % (self.maxoff['B'] + 1, s(), r.choice(['', ' -100 100', ' 0 8'])))
        self.index_distinct = False
        if 'I' in self.used:
            ni = self.maxoff['I'] + 1
            if self.fault and r.random() < 0.5:
                decls.append('buffer I i32 %d = random %d 0 %d' % (ni, s(), so + 2))
            elif ni <= so and r.random() < 0.6:
                vals = r.sample(range(so), ni)
                decls.append('buffer I i32 %d = [%s]' % (ni, ' '.join(map(str, vals))))
                self.index_distinct = True
            else:
                decls.append('buffer I i32 %d = random %d 0 %d' % (ni, s(), so))
        decls.append('buffer O f32 %d%s' % (so, r.choice(['', ' = random %d' % s()])))
        if 'Q' in self.used:
            decls.append('buffer Q i32 %d' % (self.maxoff['Q'] + 1))
        for b in ('S', 'R'):
            if b in self.used:
                decls.append('buffer %s f32 %d' % (b, self.tsize))
        for a in ('m', 'm2', 'mt0', 'mt1'):
            if a in self.used:
                decls.append('alloc %s f32 %d' % (a, self.msize[a]))
        for a in ('n', 'nt0', 'nt1'):
            if a in self.used:
                decls.append('alloc %s i32 %d' % (a, self.msize[a]))
        if 't' in self.used:
            decls.append('alloc t f32 %d' % self.tsize)
        if 'u' in self.used:
            decls.append('alloc u f32 %d' % self.usize)
        self.so = so
        return '\n'.join(decls) + '\n' + body + '\n'


def odd_layout(text, rng):
    """TEXT with one or more layout changes that keep its meaning."""
    lines = text.split('\n')
    k = rng.random()
    if k < 0.25:  # tabs for indentation
        lines = [re.sub(r'^((?:  )+)', lambda m: '\t' * (len(m.group(1)) // 2), ln) for ln in lines]
    elif k < 0.45:  # trailing comments on loop headers, comment lines
        out = []
        for ln in lines:
            if ln.rstrip().endswith('{') and rng.random() < 0.5:
                ln += ' # a { comment } here'
            out.append(ln)
            if ln.strip() and rng.random() < 0.1:
                out.append('# comment line with loop j 3 { and }')
        lines = out
    elif k < 0.65:  # `}` on the line of the statement before it
        out = []
        for ln in lines:
            if ln.strip() == '}' and out and not out[-1].rstrip().endswith('{') and \
               not out[-1].lstrip().startswith('#') and rng.random() < 0.5:
                out[-1] += ' }'
            else:
                out.append(ln)
        lines = out
    elif k < 0.8:  # blank lines and trailing blanks
        lines = [ln + ('  ' if rng.random() < 0.3 else '') for ln in lines]
        lines = [x for ln in lines for x in ([ln, ''] if rng.random() < 0.1 else [ln])]
    text = '\n'.join(lines)
    if rng.random() < 0.2:
        text = re.sub(r'(loop \w+ \S+) \{', lambda m: m.group(1) + ('{' if rng.random() < 0.5 else ' {'), text)
    if rng.random() < 0.3:
        text = text.replace('\n', '\r\n')
    if rng.random() < 0.3:
        text = text.rstrip('\r\n')
    return text


def npy_i32(path, vals):
    hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    hdr += ' ' * (63 - (10 + len(hdr)) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + struct.pack('<%di' % len(vals), *vals))


def run(cmd, env, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''


DEBUG_MSG = b"the optimiser's rewrite of"


def thread_loops(text, allocs):
    """(loops with `thread` whose body names an alloc, other `thread` loops) in TEXT."""
    code = '\n'.join(ln.split('#', 1)[0] for ln in text.replace('\r', '').split('\n'))
    priv = other = 0
    for m in re.finditer(r'\bloop\s+\w+\s+[^{\n]*\bthread\s*\{', code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {'{': 1, '}': -1}.get(code[i], 0)
            i += 1
        body = code[m.end():i]
        if any(re.search(r'\b%s\b' % a, body) for a in allocs):
            priv += 1
        else:
            other += 1
    return priv, other


def check_one(a, seed, tmp):
    rng = random.Random(seed)
    g = Gen(rng)
    text = g.program()
    if rng.random() < 0.2:
        text = odd_layout(text, rng)
    f = os.path.join(tmp, 'p%d.uir' % seed)
    with open(f, 'w', newline='') as fh:
        fh.write(text)
    env = dict(os.environ, UIR_AUTO_PARALLEL_WORK='0', UIR_OPT_DEBUG='1')
    fails, info = [], {}
    crc, _, cerr = run([a.uir, 'check', f], env)
    if crc != 0:
        return text, f, ['generator: check fails: ' + cerr.decode(errors='replace').split('\n')[0]], info, None
    ref = run([a.uir, 'run', '--engine', 'interp', '--hash', f], env)
    info['fault'] = ref[0] != 0
    if ref[0] not in (0, 1):
        fails.append('interp: exit %s' % ref[0])
    for opt in (['--threads', '1'], ['--threads', '2'], ['--threads', '4'], ['--no-opt']):
        got = run([a.uir, 'run', '--engine', 'jit', '--hash'] + opt + [f], env)
        if DEBUG_MSG in got[2]:
            fails.append('jit %s: the rewrite does not check: %s' % (' '.join(opt), got[2].decode(errors='replace').split('\n')[1][:200]))
        elif got != ref:
            what = 'exit %s vs %s' % (got[0], ref[0]) if got[0] != ref[0] else \
                   ('other output' if got[1] != ref[1] else 'other stderr: %r vs %r' % (got[2][:200], ref[2][:200]))
            fails.append('jit %s: %s' % (' '.join(opt), what))
    orc, otext, oerr = run([a.uir, 'opt', f], env)
    of = f + '.opt.uir'
    if orc != 0:
        fails.append('opt: exit %s: %s' % (orc, oerr.decode(errors='replace').split('\n')[0][:200]))
        otext = None
    else:
        with open(of, 'wb') as fh:
            fh.write(otext)
        o_s = otext.decode(errors='replace')
        info['expanded'] = bool(re.search(r'^\s*alloc \w+_x\d* ', o_s, re.M)) and not re.search(r'^\s*alloc \w+_x\d* ', text, re.M)
        allocs = re.findall(r'^\s*alloc (\w+)', text, re.M)
        p0, t0 = thread_loops(text, allocs)
        p1, t1 = thread_loops(o_s, allocs)  # an expansion's new allocs do not count
        info['private'] = p1 > p0
        info['parallel'] = t1 > t0
        info['interchanged'] = '# uir opt: run as loop' in o_s
        info['peeled'] = bool(re.search(r'^\s*loop \w+_l\d* 1 \{', o_s, re.M))
        info['jammed'] = bool(re.search(r'^\s*loop \w+_u\d* \d+ unroll \{', o_s, re.M))
        info['swapped'] = bool(re.search(r'^\s*loop \w+_o\d* \(div ', o_s, re.M))  # the swapped jam
        # the sunk jam: the k loop written outside i and j runs inside them, i_u inside it
        info['sunk'] = bool(re.search(r'^loop k \d+ \{\n\s*loop i \d+ \{\n\s*loop j ', text, re.M)) and \
            bool(re.search(r'loop i_o\d* \d+ (thread )?\{\n\s*loop j \d+ \{\n\s*loop k \d+ \{\n\s*loop i_u', o_s))
        # the row jam (src/opt/jam.c): rows i_u inside j inside k
        info['rows'] = bool(re.search(r'loop i_o\d* \d+ (thread )?\{\n(\s*loop i_u\d* \d+ \{\n(.*\n)*?)?\s*loop k \d+ \{\n\s*loop j \d+ \{\n\s*loop i_u\d* \d+ unroll', o_s))
        # the outer jam (src/opt/jam.c): r_o over two loops, then r_u inside the inner one
        info['outer'] = not info['rows'] and bool(re.search(r'loop (\w+)_o\d* \d+ (thread )?\{\n\s*loop \w+ \d+ \{\n\s*loop \w+ \d+ \{\n'
                                       r'\s*loop \1_u\d* \d+ unroll \{', o_s))
        qrc, _, qerr = run([a.uir, 'check', of], env)
        if qrc != 0:
            fails.append('opt text does not check: ' + qerr.decode(errors='replace').split('\n')[0][:200])
        else:
            got = run([a.uir, 'run', '--engine', 'interp', '--hash', of], env)
            if got[:2] != ref[:2]:
                fails.append('opt text, interp: %s' % ('exit %s vs %s' % (got[0], ref[0]) if got[0] != ref[0] else 'other output'))
            got = run([a.uir, 'run', '--engine', 'jit', '--threads', '2', '--hash', of], env)
            if got[:2] != ref[:2] or DEBUG_MSG in got[2]:
                fails.append('opt text, jit: %s' % ('exit %s vs %s' % (got[0], ref[0]) if got[0] != ref[0] else
                                                     'the rewrite does not check' if DEBUG_MSG in got[2] else 'other output'))
    inp = None
    if a.input and 'I' in g.used and not g.fault:
        # other values for the index table: duplicates, and a chain of neighbours
        n = g.maxoff['I'] + 1
        vals = [rng.randrange(g.so) for _ in range(n)] if rng.random() < 0.5 else \
               [min(g.so - 1, max(0, (x * 7) // 8)) for x in range(n)]
        inp = f + '.I.npy'
        npy_i32(inp, vals)
        ref2 = run([a.uir, 'run', '--engine', 'interp', '--hash', '--input', 'I=' + inp, f], env)
        for t in ('1', '4'):
            got = run([a.uir, 'run', '--engine', 'jit', '--hash', '--threads', t, '--input', 'I=' + inp, f], env)
            if got[:2] != ref2[:2]:
                fails.append('--input I, jit --threads %s: %s' % (t, 'exit %s vs %s' % (got[0], ref2[0]) if got[0] != ref2[0] else 'other output'))
        info['input'] = True
    return text, f, fails, info, (otext, inp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--uir', default=os.path.join(ROOT, 'build', 'src', 'uir'))
    ap.add_argument('--seeds', default='0..299')
    ap.add_argument('--keep', default=None)
    ap.add_argument('--no-input', dest='input', action='store_false', help='skip the --input runs')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition('..')
    seeds = range(int(lo), int(hi or lo) + 1)
    tmp = tempfile.mkdtemp(prefix='optdiff.')
    cnt = dict(n=0, private=0, expanded=0, rewritten=0, parallel=0, interchanged=0, peeled=0, jammed=0, outer=0, swapped=0, sunk=0, rows=0, fault=0, input=0, bad=0)
    try:
        for seed in seeds:
            text, f, fails, info, extra = check_one(a, seed, tmp)
            cnt['n'] += 1
            for k in ('private', 'expanded', 'parallel', 'interchanged', 'peeled', 'jammed', 'outer', 'swapped', 'sunk', 'rows', 'fault', 'input'):
                cnt[k] += bool(info.get(k))
            cnt['rewritten'] += bool(info.get('private') or info.get('expanded'))
            if a.verbose:
                print('seed %d: %s' % (seed, ' '.join(k for k in sorted(info) if info[k]) or '-'), flush=True)
            if fails:
                cnt['bad'] += 1
                print('FAIL seed %d: %s' % (seed, '; '.join(fails)), flush=True)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(f, os.path.join(a.keep, 'seed%d.uir' % seed))
                    if extra and extra[0] is not None:
                        with open(os.path.join(a.keep, 'seed%d.opt.uir' % seed), 'wb') as fh:
                            fh.write(extra[0])
                    if extra and extra[1]:
                        shutil.copy(extra[1], os.path.join(a.keep, 'seed%d.I.npy' % seed))
            for x in (f, f + '.opt.uir', f + '.I.npy'):
                if os.path.exists(x):
                    os.unlink(x)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = max(cnt['n'], 1)
    print('optdiff: %d programs, %d privatised, %d expanded, %d of them rewritten (privatised or expanded, %.0f%%), '
          '%d parallel, %d interchanged, %d peeled, %d jammed (%d of them the outer jam, %d the swapped jam, %d the sunk jam, %d the row jam), '
          '%d faulting, '
          '%d with --input, '
          '%d failed' % (
              cnt['n'], cnt['private'], cnt['expanded'], cnt['rewritten'], 100.0 * cnt['rewritten'] / n,
              cnt['parallel'], cnt['interchanged'], cnt['peeled'], cnt['jammed'], cnt['outer'], cnt['swapped'], cnt['sunk'], cnt['rows'], cnt['fault'], cnt['input'],
              cnt['bad']))
    return 1 if cnt['bad'] else 0


if __name__ == '__main__':
    sys.exit(main())
