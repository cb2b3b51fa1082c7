#!/usr/bin/python3
"""skewdiff.py - random stencils aimed at the time skew of the loop optimiser
(src/opt/skew.c; docs/llvm.md, "Time skewing") against the JIT running the loops as written.

Every seed gives one program: a time loop `loop t T` (T 2..12; sometimes inside an outer
`loop r 2`) over 1 to 3 sweeps a step, each a plain loop that writes one buffer at `add i
c` from loads of the buffers at `add i d` -- d mostly 0..2 on either side of c (forward and
backward neighbours), in some programs up to 6 (a read further ahead than a skew of 3 a
sweep keeps in order: the skew must be refused where it would reorder a dependence); 1-D
over f32 or i32 buffers of 262,144..400,000 elements (sometimes 3,000..8,000: under the
2 MiB the skew asks for), or 2-D over ROWS x COLS (sometimes rows of 1024..1600 and 13..23
steps: split tiling's bands of steps) with an inner `loop j` and offsets
`add (mul (add i di) COLS) (add j dj)` or `add (add (mul i COLS) j) D` (the j loop
sometimes over the whole row, so that a neighbour wraps into the next row). Two or three
buffers, one sometimes read-only with a `random` init; sweeps in place (Gauss-Seidel: the
buffer written is read at its neighbours), under an `if` on the index (`lt (mod i 7) 3`,
sometimes with an `else`, sometimes `mod (add i t) 5`), f32 add/sub/mul/min/max and i32
add/sub/xor/mul with literal coefficients, lets of loads and of the value stored, a sweep
with an inner `loop k` reduction into its element (1-D: three loops from t down), a sweep
whose bound differs from the others', and the forms the skew must refuse: an offset that
uses t, fewer than 8 sweeps in all, memories under 2 MiB, a fourth loop from t down (2-D).
The sweeps' bounds keep every access in bounds.

For each program the reference is `uir run --engine jit --no-opt --threads 1 --hash
--no-cache` (standard output and exit status); `uir run --engine jit --hash --no-cache`
must give the same at `--threads 1`, `--threads 2` and `--threads 4`, and every 10th seed
(programs kept smaller) `uir run --engine interp --hash` too. `uir opt --threads 1` (the
skew) and `uir opt --threads 2` (split tiling where the dependence cone holds, docs/llvm.md
"Split tiling"; else the skew, or sweeps on the pool) must exit 0, each text must pass `uir
check` and give the reference in the JIT at 2 threads (the split's also at 3). Every run has
UIR_OPT_DEBUG=1: a rewrite that does not check is reported on standard error, and is a
failure. A program with a form the skew must refuse (above) that `uir opt` skews or splits
anyway is a failure too.

    tests/gen/skewdiff.py [--uir build/src/uir] [--seeds 0..39] [--keep DIR] [-v]

A program counts as skewed when the text of `uir opt --threads 1` has a tile loop (a line
`loop NAME_k N {`), as split when that of `--threads 2` has `loop NAME_k N thread {`. Last
line: "skewdiff: N programs, S skewed, P split, F failed"; exits 1 when any
failed (kept in --keep: the program and its `uir opt` text)."""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))

F_COEF = ['0.25', '0.5', '0.125', '-0.5', '1.5', '0.75', '-0.25', '2.0']
I_COEF = ['3', '5', '-7', '2', '1', '0x55', '-1']
MIN_BYTES = 2 * 1024 * 1024  # src/opt/opt.h OPT_SKEW_MIN_BYTES
MIN_STEPS = 8  # OPT_SKEW_MIN_STEPS
SKEWED = re.compile(r'^\s*loop \w+_k \d+ \{', re.M)
SPLIT = re.compile(r'^\s*loop \w+_k \d+ thread \{', re.M)


def par(t):
    return '(%s)' % t if ' ' in t else t


def add(a, b):
    """`add A B`, leaving out a 0."""
    if b == '0':
        return a
    return 'add %s %s' % (par(a), par(b))


class Gen:
    def __init__(self, rng, small_work):
        r = self.r = rng
        self.ty = 'i32' if r.random() < 0.25 else 'f32'
        self.dim = 2 if r.random() < 0.3 else 1
        self.far = r.random() < 0.3  # offsets up to 6: a skew of 3 may not keep them
        self.small = r.random() < 0.1  # memories under 2 MiB
        self.T = r.randint(2, 8 if small_work else 12)
        self.m = r.choice([1, 2, 2, 3, 3])
        self.outer = r.random() < 0.12
        self.nbuf = r.choice([2, 2, 3])
        self.ro = r.random() < 0.5  # the last buffer is read-only
        names = ['a', 'b', 'c'][:self.nbuf]
        self.writable = names[:-1] if self.ro else names
        self.names = names
        self.tuse = r.random() < 0.08  # an offset uses t: refused
        self.tdone = False
        self.deep = self.dim == 2 and r.random() < 0.06  # a fourth loop: refused
        self.wrap = self.dim == 2 and r.random() < 0.35  # j over the whole row
        self.flat = r.random() < 0.5  # 2-D offsets as one displacement
        if self.dim == 1:
            self.N = r.randint(3000, 8000) if self.small else r.randint(262144, 400000)
            self.R = self.C = None
        else:
            self.C = r.randint(200, 700)
            if self.small:
                self.R = r.randint(8, 20)
            else:
                e = r.randint(262144, 340000) if self.nbuf == 2 else r.randint(180000, 300000)
                self.R = e // self.C + 1
            self.N = self.R * self.C
        self.lines = []
        self.acc = []  # (sweep, buffer, di, dj, uses k (its bound - 1), uses t)
        self.nlet = 0
        self.used = set()
        self.reasons = []  # why the skew must be refused
        # names the rewrite makes up (t_k, i_s, i_lo0, i_hi0) or others, sometimes taken
        self.odd_names = r.random() < 0.15
        self.tname = r.choice(['step', 'i_s', 't_k']) if self.odd_names and r.random() < 0.5 else 't'
        self.rname = 't_k' if self.odd_names and r.random() < 0.5 and self.tname != 't_k' else 'r'
        self.oneline = r.random() < 0.15  # a sweep of one statement on one line
        self.const = r.random() < 0.12  # some reads at a constant offset
        # 2-D with long rows and more steps: split tiling's bands of steps (drawn last, so
        # that the other seeds keep their programs)
        if self.dim == 2 and not self.small and not small_work and r.random() < 0.35:
            self.C = r.randint(1024, 1600)
            self.R = (r.randint(262144, 340000) if self.nbuf == 2 else r.randint(180000, 300000)) // self.C + 1
            self.N = self.R * self.C
            self.T = r.randint(13, 23)

    def emit(self, ind, s):
        self.lines.append('  ' * ind + s)

    # ---- offsets ----
    def disp(self, write):
        """(di, dj): a row and column displacement (1-D: di only)."""
        r = self.r
        if self.far and r.random() < 0.4:
            d = r.randint(3, 6)
        else:
            d = r.choice([0, 1, 1, 2] if write else [0, 0, 1, 1, 2])
        if self.dim == 1:
            return d, 0
        if self.far and r.random() < 0.3:
            dj = r.randint(3, 6)
        else:
            dj = r.choice([0, 0, 1, 2])
        return d, dj

    def off(self, s, buf, d, kk=0, uset=False):
        """The offset text of an access of BUF in sweep S at displacement D, noted."""
        self.used.add(buf)
        self.acc.append((s, buf, d[0], d[1], kk, uset))
        if self.dim == 1:
            t = 'i'
            if kk:
                t = add(t, 'k')
            if uset:
                t = add(t, 't')
            return add(t, str(d[0]))
        di, dj = d
        if self.flat:
            t = add('add (mul i %d) j' % self.C, str(di * self.C + dj))
        else:
            t = 'add (mul %s %d) %s' % (par(add('i', str(di))), self.C, par(add('j', str(dj))))
        if uset:
            t = add(t, 't')
        return t

    def maybe_t(self):
        if self.tuse and not self.tdone and self.r.random() < 0.5:
            self.tdone = True
            return True
        return False

    # ---- values ----
    def coef(self):
        return self.r.choice(F_COEF if self.ty == 'f32' else I_COEF)

    def op(self):
        if self.ty == 'f32':
            return self.r.choice(['add', 'add', 'add', 'sub', 'mul', 'min', 'max'])
        return self.r.choice(['add', 'add', 'sub', 'xor', 'mul'])

    def scaled(self, leaf):
        r = self.r
        if r.random() < 0.5:
            if self.ty == 'f32' or r.random() < 0.6:
                return '(mul %s %s)' % (self.coef(), leaf)
            return '(xor %s %s)' % (leaf, self.coef())
        return leaf

    def combine(self, leaves):
        r = self.r
        leaves = leaves[:]
        r.shuffle(leaves)
        e = self.scaled(leaves[0])
        for x in leaves[1:]:
            e = '(%s %s %s)' % (self.op(), e, self.scaled(x))
        if r.random() < 0.15:
            e = '(%s %s %s)' % (r.choice(['add', 'mul']), e, self.coef())
        return e

    def cond(self, ind_names):
        r = self.r
        v = r.choice(ind_names)
        p = r.randint(2, 9)
        if r.random() < 0.15:
            v = '(add %s t)' % v  # a guard that changes with the step
        return '(%s (mod %s %d) %d)' % (r.choice(['lt', 'lt', 'ge', 'eq']), v, p, r.randint(1, p - 1))

    # ---- sweeps ----
    def sweep(self, s, ind, prev):
        r = self.r
        tgt = self.writable[s % len(self.writable)] if r.random() < 0.85 else r.choice(self.writable)
        others = [b for b in self.names if b != tgt]
        # one sweep a step, or one buffer written: in place mostly, so that a step needs the one before
        inplace = r.random() < (0.7 if self.m == 1 or len(self.writable) == 1 else 0.25) or not others
        main = prev if prev in others else (r.choice(others) if others else tgt)
        srcs = [tgt] if inplace else []
        start, first = ind, len(self.lines)
        lets = set()
        self.emit(ind, 'loop i @B%d@ {' % s)
        ind += 1
        names = ['i']
        if self.dim == 2:
            self.emit(ind, 'loop j @J%d@ {' % s)
            ind += 1
            names.append('j')
        if self.deep:
            self.emit(ind, 'loop k 2 {')
            ind += 1
        if self.dim == 1 and r.random() < 0.08:
            # an inner reduction into the element: three loops from t down
            K = r.randint(2, 3)
            w = self.disp(True)
            wo = self.off(s, tgt, w)
            src = r.choice(others + [main]) if others else tgt
            ro = self.off(s, src, self.disp(False), kk=K - 1, uset=self.maybe_t())
            self.emit(ind, 'loop k %d {' % K)
            self.emit(ind + 1, 'store %s %s (%s (load %s %s) %s)' % (
                tgt, par(wo), self.op(), tgt, par(wo), self.scaled('(load %s %s)' % (src, par(ro)))))
            self.emit(ind, '}')
        elif r.random() < 0.04:
            # a sum into one element: every step's sweep meets every other's there
            src = r.choice(others) if others else tgt
            o = self.off(s, src, self.disp(False))
            e = str(r.randint(0, 3))
            self.used.add(tgt)
            self.emit(ind, 'store %s %s (%s (load %s %s) %s)' % (tgt, e, self.op(), tgt, e, self.scaled('(load %s %s)' % (src, par(o)))))
        else:
            w = self.disp(True)
            nread = r.choice([1, 2, 2, 3, 3, 4])
            leaves = []
            for n in range(nread):
                b = main if r.random() < 0.6 else r.choice(others + srcs) if others else tgt
                if n == 0 and inplace:
                    b = tgt
                if b == tgt and not inplace:
                    b = main
                if self.const and r.random() < 0.3:
                    self.used.add(b)
                    o = str(r.randint(0, 8))
                else:
                    o = self.off(s, b, self.disp(False), uset=self.maybe_t())
                leaf = '(load %s %s)' % (b, par(o))
                if r.random() < 0.2:
                    v = self.letname(s, lets)
                    self.emit(ind, 'let %s = %s' % (v, leaf[1:-1]))
                    leaf = v
                    if r.random() < 0.3:
                        leaves.append(v)
                leaves.append(leaf)
            val = self.combine(leaves)
            if r.random() < 0.15:
                v = self.letname(s, lets)
                self.emit(ind, 'let %s = %s' % (v, val[1:-1] if val.startswith('(') and self.balanced(val) else val))
                val = v
            wo = self.off(s, tgt, w, uset=self.maybe_t())
            if r.random() < 0.2:
                self.emit(ind, 'if %s {' % self.cond(names))
                self.emit(ind + 1, 'store %s %s %s' % (tgt, par(wo), val))
                if r.random() < 0.3:
                    self.emit(ind, '} else {')
                    src = r.choice(others) if others else tgt
                    o = self.off(s, src, self.disp(False))
                    self.emit(ind + 1, 'store %s %s %s' % (tgt, par(wo), self.scaled('(load %s %s)' % (src, par(o)))))
                self.emit(ind, '}')
            else:
                self.emit(ind, 'store %s %s %s' % (tgt, par(wo), val))
        for x in reversed(range(start, ind)):
            self.emit(x, '}')
        iname = r.choice(['x', 'idx', 'i_lo0', 'i_s']) if self.odd_names and r.random() < 0.5 else 'i'
        if iname in lets or iname == self.tname:
            iname = 'i'
        for n in range(first, len(self.lines)):
            self.lines[n] = re.sub(r'\bi\b', iname, self.lines[n])
        if self.oneline and len(self.lines) - first == 3 and r.random() < 0.5:
            self.lines[first:] = [self.lines[first] + ' ' + self.lines[first + 1].strip() + ' }']
        return tgt

    def letname(self, s, lets):
        r = self.r
        self.nlet += 1
        v = 'v%d' % self.nlet
        if self.odd_names and r.random() < 0.5:
            v = r.choice(['i_lo%d' % s, 'i_hi%d' % s, 'i_s', 'i_lo%d' % r.randint(0, 2), v])
        if v in lets or v == self.tname:
            v = 'v%d' % self.nlet
        lets.add(v)
        return v

    @staticmethod
    def balanced(e):
        """Whether E's first bracket closes at its end."""
        depth = 0
        for n, ch in enumerate(e):
            depth += {'(': 1, ')': -1}.get(ch, 0)
            if depth == 0:
                return n == len(e) - 1
        return False

    def program(self):
        r = self.r
        ind = 0
        if self.outer:
            self.emit(ind, 'loop %s 2 {' % self.rname)
            ind += 1
        self.emit(ind, 'loop t %d {' % self.T)
        prev = self.writable[-1]
        for s in range(self.m):
            prev = self.sweep(s, ind + 1, prev)
        self.emit(ind, '}')
        if self.outer:
            self.emit(0, '}')
        body = '\n'.join(self.lines)
        body = re.sub(r'\bt\b', self.tname, body)
        T = self.T
        if self.dim == 1:
            mx = max(di + kk + (T - 1 if ut else 0) for _, _, di, _, kk, ut in self.acc)
            B = self.N - mx
            bounds = {s: B for s in range(self.m)}
            if self.m > 1 and r.random() < 0.25:
                s = r.randrange(self.m)
                own = self.N - max(di + kk + (T - 1 if ut else 0) for x, _, di, _, kk, ut in self.acc if x == s)
                bounds[s] = r.choice([B - r.randint(1, 300), r.randint(B // 3, B - 1), own, r.randint(1, 50)])
            for s in range(self.m):
                body = body.replace('@B%d@' % s, str(bounds[s]))
                for x, _, di, _, kk, ut in self.acc:
                    if x == s:
                        assert bounds[s] - 1 + di + kk + (T - 1 if ut else 0) < self.N
        else:
            C = self.C
            mdi = max(a[2] for a in self.acc)
            mdj = max(a[3] for a in self.acc)
            anyt = any(a[5] for a in self.acc)
            Cj = C if self.wrap else C - mdj
            Ri = self.R - mdi - (1 if self.wrap and mdj else 0) - (1 if anyt else 0)
            rows = {s: Ri for s in range(self.m)}
            cols = {s: Cj for s in range(self.m)}
            if self.m > 1 and r.random() < 0.25:
                s = r.randrange(self.m)
                k = r.random()
                if k < 0.15:
                    rows[s] = r.randint(1, min(Ri, 5))
                elif k < 0.5:
                    rows[s] = r.randint(max(1, Ri // 2), max(1, Ri - 1))
                else:
                    cols[s] = r.randint(max(1, Cj // 2), max(1, Cj - 1))
            for s in range(self.m):
                body = body.replace('@B%d@' % s, str(rows[s])).replace('@J%d@' % s, str(cols[s]))
                for x, _, di, dj, _, ut in self.acc:
                    if x == s:
                        assert (rows[s] - 1) * C + cols[s] - 1 + di * C + dj + (T - 1 if ut else 0) < self.N
        # the forms the skew must refuse
        if self.T * self.m < MIN_STEPS:
            self.reasons.append('%d sweeps in all' % (self.T * self.m))
        if any(a[5] for a in self.acc):
            self.reasons.append('an offset uses t')
        if len(self.used) * self.N * 4 < MIN_BYTES:
            self.reasons.append('memories of %d bytes' % (len(self.used) * self.N * 4))
        if self.deep:
            self.reasons.append('four loops deep')
        decls = []
        seed = lambda: r.randint(0, 2 ** 32 - 1)
        for b in self.names:
            if b == 'a' or (b == self.names[-1] and self.ro) or r.random() < 0.5:
                rng = '' if self.ty == 'f32' else r.choice(['', ' -1000 1000', ' 0 16'])
                decls.append('buffer %s %s %d = random %d%s' % (b, self.ty, self.N, seed(), rng))
            else:
                decls.append('buffer %s %s %d' % (b, self.ty, self.N))
        head = '# skewdiff: %s, %s, T %d, %d sweeps a step%s\n' % (
            '1-D' if self.dim == 1 else '2-D %d x %d' % (self.R, self.C), self.ty, self.T, self.m,
            '; must be refused: ' + ', '.join(self.reasons) if self.reasons else '')
        return head + '\n'.join(decls) + '\n' + body + '\n'


def run(cmd, env, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''


DEBUG_MSG = b'does not check'


def first_line(b):
    return b.decode(errors='replace').strip().split('\n')[0][:200]


def check_one(a, seed, tmp):
    rng = random.Random(seed)
    interp = seed % 10 == 0
    g = Gen(rng, interp)
    text = g.program()
    f = os.path.join(tmp, 'p%d.uir' % seed)
    with open(f, 'w') as fh:
        fh.write(text)
    env = dict(os.environ, UIR_OPT_DEBUG='1')
    fails, info = [], {}
    crc, _, cerr = run(['nice', a.uir, 'check', f], env)
    if crc != 0:
        return text, f, ['generator: check fails: ' + first_line(cerr)], info, None
    jit = ['nice', a.uir, 'run', '--engine', 'jit', '--hash', '--no-cache']
    ref = run(jit + ['--no-opt', '--threads', '1', f], env)
    if ref[0] != 0:
        fails.append('reference: exit %s: %s' % (ref[0], first_line(ref[2])))
    runs = [('jit --threads %s' % n, jit + ['--threads', n, f]) for n in ('1', '2', '4')]
    if interp:
        runs.append(('interp', ['nice', a.uir, 'run', '--engine', 'interp', '--hash', f]))
    for what, cmd in runs:
        got = run(cmd, env)
        if DEBUG_MSG in got[2]:
            fails.append('%s: the rewrite does not check: %s' % (what, first_line(got[2])))
        elif got[:2] != ref[:2]:
            fails.append('%s: %s' % (what, 'exit %s vs %s' % (got[0], ref[0]) if got[0] != ref[0] else 'other output'))
    otext = None
    for nt in ('1', '2'):
        orc, ot, oerr = run(['nice', a.uir, 'opt', '--threads', nt, f], env)
        of = f + '.opt.uir'
        what = 'opt --threads %s' % nt
        if orc != 0:
            fails.append('%s: exit %s: %s' % (what, orc, first_line(oerr)))
            continue
        if otext is None or nt == '2':
            otext = ot
        with open(of, 'wb') as fh:
            fh.write(ot)
        if DEBUG_MSG in oerr:
            fails.append('%s: the rewrite does not check: %s' % (what, first_line(oerr)))
        o = ot.decode(errors='replace')
        # more tile loops than the program has (it may name a loop like one)
        key = 'skewed' if nt == '1' else 'split'
        info[key] = len((SKEWED if nt == '1' else SPLIT).findall(o)) > len((SKEWED if nt == '1' else SPLIT).findall(text))
        if info[key] and g.reasons:
            fails.append('%s though %s' % (key, ', '.join(g.reasons)))
        qrc, _, qerr = run(['nice', a.uir, 'check', of], env)
        if qrc != 0:
            fails.append('%s: its text does not check: %s' % (what, first_line(qerr)))
            continue
        for n in ('2', '3') if nt == '2' else ('2',):
            got = run(jit + ['--threads', n, of], env)
            if DEBUG_MSG in got[2]:
                fails.append('%s text, jit: the rewrite does not check: %s' % (what, first_line(got[2])))
            elif got[:2] != ref[:2]:
                fails.append('%s text, jit --threads %s: %s' % (what, n, 'exit %s vs %s' % (got[0], ref[0])
                                                               if got[0] != ref[0] else 'other output'))
    info['refused'] = bool(g.reasons)
    return text, f, fails, info, otext


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--uir', default=os.path.join(ROOT, 'build', 'src', 'uir'))
    ap.add_argument('--seeds', default='0..39')
    ap.add_argument('--keep', default=None)
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition('..')
    seeds = range(int(lo), int(hi or lo) + 1)
    tmp = tempfile.mkdtemp(prefix='skewdiff.')
    cnt = dict(n=0, skewed=0, split=0, bad=0)
    try:
        for seed in seeds:
            text, f, fails, info, otext = check_one(a, seed, tmp)
            cnt['n'] += 1
            cnt['skewed'] += bool(info.get('skewed'))
            cnt['split'] += bool(info.get('split'))
            if a.verbose:
                print('seed %d: %s %s %s' % (seed, text.split('\n')[0][2:],
                                         'skewed' if info.get('skewed') else '-',
                                         'split' if info.get('split') else '-'), flush=True)
            if fails:
                cnt['bad'] += 1
                print('FAIL seed %d: %s' % (seed, '; '.join(fails)), flush=True)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(f, os.path.join(a.keep, 'seed%d.uir' % seed))
                    if otext is not None:
                        with open(os.path.join(a.keep, 'seed%d.opt.uir' % seed), 'wb') as fh:
                            fh.write(otext)
            for x in (f, f + '.opt.uir'):
                if os.path.exists(x):
                    os.unlink(x)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('skewdiff: %d programs, %d skewed, %d split, %d failed' % (cnt['n'], cnt['skewed'], cnt['split'], cnt['bad']))
    return 1 if cnt['bad'] else 0


if __name__ == '__main__':
    sys.exit(main())
