#!/usr/bin/env python3
"""difftest.py - differential testing of `uir` on generated programs.

    difftest.py [--uir PATH] [--srcroot DIR] [--seeds A..B] [--time SECONDS] [--jobs N]
                [--mutants K] [--save DIR] [--out DIR] [--avoid KNOB]... [--no-shrink]
                [--timeout S] [--casts all|none] [-v]

For each seed: generate a valid program (uirgen.py), `uir check` it (it must pass; and
`check --strict` must pass when the program uses no extension, and `check` must pass
whenever `check --strict` does), run it with every back end available and compare their
outputs byte for byte with the reference interpreter (`run --engine interp --threads 1`),
then check K mutants (uirmut.py), each of which must get its expected first code.

Back ends (detected at start; the first line printed says which ran):
  interp-threads  run --engine interp --threads 4
  auto            run (the default engine)
  serial          the program with every parallel loop made plain and its iterations
                  permuted (allocs zeroed where their home iteration starts): any order is
                  a legal schedule, so a difference is a race the checker accepted
  hash            run --hash, against FNV-1a 64 of the reference's printed values
  jit             run --engine jit, once it stops exiting 64
  render          render --main, compiled with $CC -std=c11 -O2 -pthread ... -lm
  cuda-emu        render-cuda --main, compiled with $CXX -std=c++17 -O2 -pthread
                  -ffp-contract=off -include runtime/uir_cuda_emu.h (kernel-form programs)

A mismatch or a crash (exit 70, a signal, a hang past --timeout) is shrunk by delta
debugging over statements and expressions and saved under --save (default
SRCROOT/tests/programs/gen) with directives that make it a regression test; every failure,
shrunk and original, also goes to --out (default /tmp/uir-difftest) for review. The last
line printed is `N passed, N failed`; the exit status is 1 when any seed failed.
Python 3 standard library only.
"""

import argparse
import copy
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)

import uirast as A  # noqa: E402
import uirgen as G  # noqa: E402
import uirmut as M  # noqa: E402

# ---------------------------------------------------------------- processes


class Res:
    """A finished command: rc (negative: killed by that signal; None: timed out), out, err."""

    def __init__(self, rc, out, err):
        self.rc = rc
        self.out = out
        self.err = err

    def crashed(self):
        return self.rc is None or self.rc < 0 or self.rc == 70

    def what(self):
        if self.rc is None:
            return 'timed out'
        if self.rc < 0:
            return 'killed by signal %d' % -self.rc
        return 'exit %d' % self.rc

    def first_err(self):
        lines = self.err.decode('utf-8', 'replace').split('\n')
        errs = [ln for ln in lines if 'error' in ln]  # a compiler's first error, not its context
        for ln in errs[:1] or lines:
            if ln.strip():
                return re.sub(r'/\S*/uirdt-[^/]*/', '', ln.strip())[:300]
        return ''


def run(cmd, timeout, cwd=None):
    """Run cmd (a list) with stdin from /dev/null, in its own process group; kill the group
    on timeout."""
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
    except OSError as e:
        return Res(127, b'', str(e).encode())
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
        out, err = p.communicate()
        return Res(None, out, err)
    return Res(p.returncode, out, err)


def first_code(res):
    """The EXXXX of the first diagnostic, or None."""
    t = res.err.decode('utf-8', 'replace')
    i = t.find('error[E')
    return t[i + 6:i + 11] if i >= 0 else None


# ---------------------------------------------------------------- back ends

PROBE = """buffer x f32 8 = iota
buffer y f32 8
loop g 2 global {
  loop t 4 local {
    store y (add (mul g 4) t) (add (load x (add (mul g 4) t)) 1.0)
  }
}
"""


class Config:
    def __init__(self, args):
        self.uir = os.path.abspath(args.uir)
        self.srcroot = os.path.abspath(args.srcroot)
        self.timeout = args.timeout
        self.mutants = args.mutants
        self.shrink = not args.no_shrink
        self.save = args.save
        self.out = args.out
        self.avoid = args.avoid or []
        self.casts = None if args.casts is None else args.casts == 'all'
        self.backends = []
        self.cc = os.environ.get('CC', 'cc').split()
        self.cxx = os.environ.get('CXX', 'c++').split()
        self.emu_header = os.path.join(self.srcroot, 'runtime', 'uir_cuda_emu.h')
        self.verbose = args.verbose
        self.shrink_time = args.shrink_time
        self.seen = None  # failure signature -> times shrunk (shared by the workers)


def detect(cfg):
    """Which back ends this uir has: always interp-threads, auto, serial, hash; jit, render
    and cuda-emu when their commands exist (do not exit 64) and their compiler is there."""
    have = ['interp-threads', 'auto', 'serial', 'hash']
    d = tempfile.mkdtemp(prefix='uirdt-probe-')
    try:
        f = os.path.join(d, 'probe.uir')
        with open(f, 'w') as fh:
            fh.write(PROBE)
        r = run([cfg.uir, 'run', '--engine', 'jit', f], 30)
        if r.rc != 64:
            have.append('jit')
        r = run([cfg.uir, 'render', '--main', f], 30)
        if r.rc != 64 and shutil.which(cfg.cc[0]):
            have.append('render')
        r = run([cfg.uir, 'render-cuda', '--main', f], 30)
        # the probe is in kernel form: exit 2 there means "not implemented yet"
        if r.rc not in (64, 2) and shutil.which(cfg.cxx[0]) and os.path.exists(cfg.emu_header):
            have.append('cuda-emu')
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return have


# ---------------------------------------------------------------- output checks

INT_SIGNED = {'i8': (1, True), 'u8': (1, False), 'i32': (4, True), 'u32': (4, False),
              'i64': (8, True), 'u64': (8, False)}


def value_bytes(ty, text):
    """The little-endian bytes of one printed value (NaNs canonical, docs/language.md 2.4.2)."""
    if ty == 'bool':
        return bytes([int(text)])
    if ty in INT_SIGNED:
        n, signed = INT_SIGNED[ty]
        return int(text).to_bytes(n, 'little', signed=signed)
    if ty == 'f32':
        if text == 'nan':
            return struct.pack('<I', 0x7FC00000)
        return struct.pack('<f', float(text))
    if text == 'nan':
        return struct.pack('<Q', 0x7FF8000000000000)
    return struct.pack('<d', float(text))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def expected_hashes(prog, out):
    """NAME: HASH lines computed from run's printed buffers."""
    types = {s.name: s.mtype for s in prog.stmts if s.kind == 'decl' and not s.is_alloc}
    lines = []
    for ln in out.decode().split('\n'):
        if not ln:
            continue
        name, vals = ln.split(':', 1)
        data = b''.join(value_bytes(types[name], v) for v in vals.split())
        lines.append('%s: %016x' % (name, fnv1a64(data)))
    return '\n'.join(lines)


# ---------------------------------------------------------------- the serial variant


def all_names(prog):
    names = set()
    for s in A.walk_stmts(prog.stmts):
        if s.name:
            names.add(s.name)
    return names


def serialize(prog, seed, permute=True):
    """A copy of prog with every thread/global/local loop made plain, its iterations in a
    permuted order (permute) or in order, and every alloc zeroed where an iteration of its
    home starts (docs/language.md 5.2.2); unroll loops become plain. Same result for a race-free
    program."""
    p = copy.deepcopy(prog)
    rng = random.Random(seed)
    homes = A.alloc_homes(p)
    decl = {s.name: s for s in p.stmts if s.kind == 'decl'}
    names = all_names(p)
    count = [0]

    def fresh(base):
        while True:
            count[0] += 1
            n = '%s%d' % (base, count[0])
            if n not in names:
                names.add(n)
                return n

    def zero(alloc):
        d = decl[alloc]
        z = fresh('zz')
        v = 'false' if d.mtype == 'bool' else '0'
        return A.Stmt('loop', name=z, bound=A.atom(str(d.size)), body=[
            A.Stmt('store', op='store', args=[A.atom(alloc), A.atom(z), A.atom(v)])])

    def lit_bound(e):
        if e.op is not None:
            return None
        try:
            return int(e.text, 10)
        except ValueError:
            return None

    def tr(stmts):
        out = []
        for s in stmts:
            if s.kind == 'loop':
                body = tr(s.body)
                if s.axis in ('thread', 'global', 'local'):
                    q = fresh('zq')
                    n = lit_bound(s.bound)
                    pre = []
                    if n is not None and n >= 1:
                        bound = s.bound
                        if permute and n > 1:
                            a = rng.choice([x for x in range(1, n) if math.gcd(x, n) == 1])
                            b = rng.randrange(n)
                            perm = A.op('mod', A.op('add', A.op('mul', q, str(a)), str(b)), str(n))
                        else:
                            perm = A.atom(q)
                    else:
                        nb = fresh('zn')
                        pre = [A.Stmt('let', name=nb, expr=s.bound)]
                        bound = A.atom(nb)
                        perm = A.op('sub', A.op('sub', nb, '1'), q) if permute else A.atom(q)
                    zs = [zero(a) for a, h in homes.items() if h is s]
                    body = [A.Stmt('let', name=s.name, expr=perm)] + zs + body
                    out += pre + [A.Stmt('loop', name=q, bound=bound, axis=None, body=body)]
                else:
                    s.body = body
                    if s.axis == 'unroll':
                        s.axis = None
                    out.append(s)
            elif s.kind == 'if':
                s.body = tr(s.body)
                if s.els is not None:
                    s.els = tr(s.els)
                out.append(s)
            else:
                out.append(s)
        return out

    p.stmts = tr(p.stmts)
    return p


def fault_variant(prog, info, seed):
    """A copy of prog that certainly faults at run time but not at check time: a load of a
    const buffer at an offset past its end that comes from a load, at the end of the program
    (general mode) or in a new last phase of the last kernel (kernel form, where every kernel
    stands at the top level with a literal grid of at least one block). None when prog has
    no const integer buffer."""
    rng = random.Random(seed)
    consts = [m for m in info.mems if m.const and m.ty in G.INTS and not m.is_alloc]
    if not consts:
        return None
    m = rng.choice(consts)
    k = rng.randrange(m.size)
    idx = A.op('load', m.name, str(k))
    if m.ty != 'i32':
        idx = A.op('cast', 'i32', A.op('and', idx, '7:' + m.ty if m.ty != 'i32' else '7'))
    else:
        idx = A.op('and', idx, '7')
    off = A.op('add', idx, str(m.size))
    p = copy.deepcopy(prog)
    names = all_names(p)
    n = 0
    while 'zfault%d' % n in names:
        n += 1
    st = A.Stmt('let', name='zfault%d' % n, expr=A.op('load', m.name, off))
    if info.mode == 'kernel' and info.kernels:
        gl, bsize = info.kernels[-1][0], info.kernels[-1][1]
        node = A.find_nid(p, gl.nid)
        if node is None:
            return None
        node[0].body.append(A.Stmt('loop', name='t', bound=A.atom(str(bsize)), axis='local', body=[st]))
    else:
        p.stmts.append(st)
    return p


# ---------------------------------------------------------------- one program, every back end


class Work:
    """A scratch folder for one seed's files."""

    def __init__(self, cfg, tag):
        self.cfg = cfg
        self.dir = tempfile.mkdtemp(prefix='uirdt-%s-' % tag)
        self.n = 0

    def file(self, text, name=None):
        self.n += 1
        f = os.path.join(self.dir, name or 'p%d.uir' % self.n)
        with open(f, 'w') as fh:
            fh.write(text)
        return f

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_backend(cfg, work, be, prog, f, seed, kernel_mode):
    """Run back end `be` on program file f; returns (Res, note) with Res.out the printed
    buffers, or (None, reason) when the back end does not apply to this program."""
    uir = cfg.uir
    t = cfg.timeout
    if be == 'interp':
        return run([uir, 'run', '--engine', 'interp', '--threads', '1', f], t), ''
    if be == 'interp-threads':
        return run([uir, 'run', '--engine', 'interp', '--threads', '4', f], t), ''
    if be == 'auto':
        return run([uir, 'run', f], t), ''
    if be == 'jit':
        return run([uir, 'run', '--engine', 'jit', f], t), ''
    if be == 'serial':
        v = work.file(serialize(prog, seed).text())
        r = run([uir, 'run', '--engine', 'interp', '--threads', '1', v], t)
        if r.rc == 1:
            return r, 'the serial variant: ' + r.first_err()
        return r, ''
    if be == 'hash':
        return run([uir, 'run', '--engine', 'interp', '--threads', '1', '--hash', f], t), ''
    if be == 'render':
        r = run([uir, 'render', '--main', f], t)
        if r.rc != 0:
            return r, 'render: ' + r.first_err()
        c = os.path.join(work.dir, 'prog.c')
        with open(c, 'wb') as fh:
            fh.write(r.out)
        exe = os.path.join(work.dir, 'prog_c')
        r = run(cfg.cc + ['-std=c11', '-O2', '-pthread', '-o', exe, c, '-lm'], 120)
        if r.rc != 0:
            return Res(70 if r.rc is not None else None, b'', r.err), 'cc: ' + r.first_err()
        return run([exe], t), ''
    if be == 'cuda-emu':
        r = run([uir, 'render-cuda', '--main', f], t)
        if r.rc == 2 and not kernel_mode:
            return None, 'not kernel form'
        if r.rc != 0:
            return r, 'render-cuda: ' + r.first_err()
        c = os.path.join(work.dir, 'prog.cu')
        with open(c, 'wb') as fh:
            fh.write(r.out)
        exe = os.path.join(work.dir, 'prog_cu')
        r = run(cfg.cxx + ['-std=c++17', '-O2', '-pthread', '-ffp-contract=off', '-include',
                           cfg.emu_header, '-o', exe, '-x', 'c++', c], 180)
        if r.rc != 0:
            return Res(70 if r.rc is not None else None, b'', r.err), 'c++: ' + r.first_err()
        return run([exe], t), ''
    raise ValueError(be)


def compare(be, prog, ref, r):
    """None when back end be agrees with the reference, else a one-line reason."""
    if be == 'hash':
        if r.rc != 0:
            return 'run --hash %s' % r.what()
        want = expected_hashes(prog, ref.out)
        got = r.out.decode('utf-8', 'replace').strip()
        if want.lower() != got.lower():
            return 'hashes differ: expected %r, got %r' % (want[:200], got[:200])
        return None
    if r.rc != ref.rc:
        return '%s %s, the reference exit %s' % (be, r.what(), ref.rc)
    if r.out != ref.out:
        a = ref.out.decode('utf-8', 'replace').split('\n')
        b = r.out.decode('utf-8', 'replace').split('\n')
        for x, y in zip(a, b):
            if x != y:
                return 'output differs: reference %r, %s %r' % (x[:150], be, y[:150])
        return 'output differs in length'
    return None


# ---------------------------------------------------------------- shrinking


def stmt_lists(prog):
    """(owner nid or None, 'body' or 'els') of every statement list."""
    out = [(None, 'top')]
    for s in A.walk_stmts(prog.stmts):
        if s.kind == 'loop':
            out.append((s.nid, 'body'))
        elif s.kind == 'if':
            out.append((s.nid, 'body'))
            if s.els is not None:
                out.append((s.nid, 'els'))
    return out


def get_list(prog, owner, which):
    if owner is None:
        return prog.stmts
    n = A.find_nid(prog, owner)
    if n is None:
        return None
    return n[0].els if which == 'els' else n[0].body


def candidates(prog, deletions_only=False):
    """Smaller variants of prog, biggest cuts first (each a fresh deep copy). With
    deletions_only, only statements are deleted and declarations simplified: a valid program
    stays valid (fewer accesses mean fewer race-rule constraints), so a rejection that
    survives is still a wrong rejection."""
    A.number_nodes(prog)
    lists = stmt_lists(prog)
    # 1. delete chunks of statements (declarations last)
    for owner, which in lists:
        lst = get_list(prog, owner, which)
        n = len(lst)
        size = n
        while size >= 1:
            for start in range(0, n, size):
                p = copy.deepcopy(prog)
                l2 = get_list(p, owner, which)
                cut = l2[start:start + size]
                if owner is None and all(s.kind == 'decl' for s in cut) and size > 1:
                    continue
                del l2[start:start + size]
                yield p
            size //= 2
    # 2. unwrap ifs and loops (the index becomes 0), drop axes, shrink bounds
    for s in ([] if deletions_only else list(A.walk_stmts(prog.stmts))):
        if s.kind == 'if':
            for part in ('body', 'els'):
                if part == 'els' and s.els is None:
                    continue
                p = copy.deepcopy(prog)
                node, _, lst = A.find_nid(p, s.nid)
                i = lst.index(node)
                lst[i:i + 1] = node.body if part == 'body' else node.els
                yield p
        if s.kind == 'loop':
            p = copy.deepcopy(prog)
            node, _, lst = A.find_nid(p, s.nid)
            i = lst.index(node)
            body = [copy.deepcopy(x) for x in node.body]
            lst[i:i + 1] = [subst_stmt(x, node.name, '0') for x in body]
            yield p
            if s.axis:
                p = copy.deepcopy(prog)
                A.find_nid(p, s.nid)[0].axis = None
                yield p
            if s.bound.op is None:
                try:
                    n = int(s.bound.text)
                except ValueError:
                    n = None
                if n is not None and n > 1:
                    for m in sorted({1, n // 2}):
                        p = copy.deepcopy(prog)
                        A.find_nid(p, s.nid)[0].bound = A.atom(str(m))
                        yield p
    # 3. expressions: an op becomes one of its operands, or a literal
    for s in ([] if deletions_only else list(A.walk_stmts(prog.stmts))):
        for e0 in A.stmt_exprs(s):
            for e in list(A.walk_expr(e0)):
                if e.op is None:
                    continue
                reps = []
                skip = 1 if e.op in ('cast', 'bitcast') else 0
                args = e.args[skip:]
                if e.op == 'lane':
                    args = e.args[:1]
                for a in args:
                    reps.append(a)
                reps += [A.atom('0'), A.atom('1'), A.atom('0.5'), A.atom('false')]
                for r in reps:
                    p = copy.deepcopy(prog)
                    node, parent, _ = A.find_nid(p, e.nid)
                    A.replace_expr(parent, node, copy.deepcopy(r))
                    yield p
    # 4. declarations: default INIT, smaller sizes
    for s in prog.stmts:
        if s.kind != 'decl':
            continue
        if ' = ' in s.text:
            p = copy.deepcopy(prog)
            d = A.find_nid(p, s.nid)[0]
            d.text = d.text.split(' = ')[0]
            yield p
        elif s.size and s.size > 1 and not deletions_only:
            for m in sorted({1, s.size // 2}):
                p = copy.deepcopy(prog)
                d = A.find_nid(p, s.nid)[0]
                parts = d.text.split(' ')
                parts[3] = str(m)
                d.text = ' '.join(parts)
                d.size = m
                yield p


def subst_stmt(s, name, repl):
    """Statement s with atom `name` replaced by repl in all its expressions (deeply)."""
    for x in A.walk_stmts([s]):
        if x.kind == 'let':
            x.expr = M.subst(x.expr, name, repl)
        elif x.kind in ('store', 'atomic'):
            x.args = [M.subst(a, name, repl) for a in x.args]
        elif x.kind == 'loop':
            x.bound = M.subst(x.bound, name, repl)
        elif x.kind == 'if':
            x.cond = M.subst(x.cond, name, repl)
    return s


def size_of(prog):
    return len(prog.text())


def shrink(prog, pred, deadline, max_calls=1500, deletions_only=False):
    """Greedy delta debugging: keep the first smaller candidate for which pred holds, until
    none does, the deadline passes or max_calls predicates have run."""
    best = prog
    calls = 0
    progress = True
    while progress and time.time() < deadline and calls < max_calls:
        progress = False
        cur = size_of(best)
        for cand in candidates(best, deletions_only):
            if time.time() > deadline or calls >= max_calls:
                break
            if size_of(cand) >= cur:
                continue
            calls += 1
            if pred(cand):
                best = cand
                progress = True
                break
    return best


# ---------------------------------------------------------------- failures


class Failure:
    def __init__(self, kind, backend, reason, prog):
        self.kind = kind  # 'mismatch', 'crash', 'reject', 'strict-accepts', 'strict-rejects',
        #                   'fault', 'mutant', 'check-crash'
        self.backend = backend
        self.reason = reason
        self.prog = prog
        self.shrunk = None
        self.saved = None
        self.code = None


def check_prog(cfg, work, prog, strict=False, no_exact=False):
    """`uir check` of PROG; NO_EXACT: the rules without the exact analysis (a mutant breaks a
    rule, and may still be race-free for the program's sizes, which the exact analysis
    would accept)."""
    f = work.file(prog.text())
    opts = (['--strict'] if strict else []) + (['--no-exact'] if no_exact else [])
    return run([cfg.uir, 'check'] + opts + [f], cfg.timeout), f


def make_pred(cfg, work, seed, kernel_mode, fail, ref_rc):
    """The predicate that says whether a candidate still shows failure `fail`."""
    kind = fail.kind
    be = fail.backend

    def pred(p):
        r, f = check_prog(cfg, work, p)
        if kind == 'check-crash':
            return r.crashed()
        if kind == 'strict-accepts':
            if r.rc != 1:
                return False
            r2, _ = check_prog(cfg, work, p, strict=True)
            if r2.rc != 0:
                return False
            # and it runs (sequentially) without a fault, so that it can be a run test
            v = work.file(serialize(p, seed, permute=False).text())
            return run([cfg.uir, 'run', '--engine', 'interp', v], cfg.timeout).rc == 0
        if kind == 'reject':
            return r.rc == 1 and first_code(r) == fail.code
        if r.rc != 0:
            return False
        ref = run_backend(cfg, work, 'interp', p, f, seed, kernel_mode)[0]
        if kind == 'crash' and be == 'interp':
            return ref.crashed()
        if ref.crashed() or ref.rc != ref_rc:
            return False
        if kind == 'fault':
            return ref.rc == 1
        got, note = run_backend(cfg, work, be, p, f, seed, kernel_mode)
        if got is None:
            return False
        if kind == 'crash':
            return got.crashed()
        return compare(be, p, ref, got) is not None and not got.crashed()

    return pred


def directives_for(cfg, work, fail, prog, seed):
    """Header lines that make prog a regression test for fail."""
    lines = []
    f = work.file(prog.text())
    if fail.kind == 'strict-accepts':
        v = work.file(serialize(prog, seed, permute=False).text())
        ref = run([cfg.uir, 'run', '--engine', 'interp', '--threads', '1', v], cfg.timeout)
    else:
        ref = run([cfg.uir, 'run', '--engine', 'interp', '--threads', '1', f], cfg.timeout)
    if ref.rc == 0 and fail.kind not in ('check-crash',) and len(ref.out) < 4000:
        for ln in ref.out.decode().split('\n'):
            if ln:
                lines.append('# expect ' + ln)
    elif fail.kind != 'fault':
        lines.append('# run')
    if fail.backend == 'render':
        lines.append('# render')
    if fail.backend == 'cuda-emu':
        lines.append('# cuda')
    return lines


def save_failure(cfg, work, fail, seed):
    """Write the failure to --out (always) and, when it makes a regression test, to --save."""
    os.makedirs(cfg.out, exist_ok=True)
    tag = '%s_%s_s%d' % (fail.kind, (fail.backend or 'check').replace('-', '_'), seed)
    prose = '# found by tests/gen/difftest.py, seed %d: %s' % (seed, fail.reason[:300])
    final = fail.shrunk or fail.prog
    with open(os.path.join(cfg.out, tag + '.orig.uir'), 'w') as fh:
        fh.write(fail.prog.text())
    body = copy.deepcopy(final)
    body.header = []
    text = body.text()
    with open(os.path.join(cfg.out, tag + '.uir'), 'w') as fh:
        fh.write(prose + '\n' + text)
    if fail.kind in ('mismatch', 'crash', 'strict-accepts', 'check-crash') and \
            fail.backend != 'serial' and cfg.save:
        os.makedirs(cfg.save, exist_ok=True)
        hdr = directives_for(cfg, work, fail, final, seed)
        path = os.path.join(cfg.save, tag + '.uir')
        with open(path, 'w') as fh:
            fh.write('\n'.join(hdr + [prose]) + '\n' + text)
        fail.saved = path


def signature(fl):
    """What makes two failures probably the same bug: kind, back end, code, and the message
    with names and numbers blanked."""
    msg = fl.reason
    i = msg.find('error[')
    if i >= 0:
        msg = msg[i:]
        j = msg.find(': ', 14)
        if j > 0:
            msg = msg[:j]
    msg = re.sub(r'\b[A-Za-z_]*[0-9][A-Za-z0-9_]*\b|\b\d+\b', '#', msg)
    if fl.kind in ('mismatch', 'crash'):
        msg = msg[:20]
    return '%s|%s|%s' % (fl.kind, fl.backend, msg[:70])


def test_seed(cfg, seed):
    """Everything for one seed; returns a summary dict."""
    t0 = time.time()
    prog, info = G.generate(seed, casts=cfg.casts)
    kernel_mode = info.mode == 'kernel'
    work = Work(cfg, 's%d' % seed)
    fails = []
    ran = []
    try:
        r, f = check_prog(cfg, work, prog)
        if r.crashed():
            fails.append(Failure('check-crash', None, 'check ' + r.what() + ': ' + r.first_err(), prog))
        elif r.rc != 0:
            r2, _ = check_prog(cfg, work, prog, strict=True)
            if r2.rc == 0:
                fl = Failure('strict-accepts', None, 'check --strict accepts, check rejects: ' + r.first_err(), prog)
            else:
                fl = Failure('reject', None, 'check rejects a generated program: ' + r.first_err(), prog)
            fl.code = first_code(r)
            fails.append(fl)
        else:
            if info.strict or not info.extensions:
                r2, _ = check_prog(cfg, work, prog, strict=True)
                if r2.rc != 0:
                    fl = Failure('strict-rejects', None, 'check --strict rejects a program without extensions: ' + r2.first_err(), prog)
                    fl.code = first_code(r2)
                    fails.append(fl)
            ref = run_backend(cfg, work, 'interp', prog, f, seed, kernel_mode)[0]
            if ref.crashed():
                fails.append(Failure('crash', 'interp', 'run --engine interp ' + ref.what() + ': ' + ref.first_err(), prog))
            elif ref.rc != 0:
                fails.append(Failure('fault', 'interp', 'a generated program faults: ' + ref.first_err(), prog))
            else:
                for be in cfg.backends:
                    got, note = run_backend(cfg, work, be, prog, f, seed, kernel_mode)
                    if got is None:
                        continue
                    ran.append(be)
                    if got.crashed():
                        fails.append(Failure('crash', be, '%s %s: %s %s' % (be, got.what(), note, got.first_err()), prog))
                        continue
                    why = compare(be, prog, ref, got)
                    if why:
                        fails.append(Failure('mismatch', be, (note + ' ' if note else '') + why, prog))
            # a run-time fault: every engine must stop with E0601 and print nothing
            fv = fault_variant(prog, info, seed) if seed % 4 == 0 else None
            if fv is not None and not fails:
                ff = work.file(fv.text())
                fref = run_backend(cfg, work, 'interp', fv, ff, seed, kernel_mode)[0]
                if fref.crashed() or fref.rc != 1 or first_code(fref) != 'E0601' or fref.out:
                    fails.append(Failure('crash' if fref.crashed() else 'mismatch', 'interp',
                                         'fault variant: run %s, expected E0601: %s' % (fref.what(), fref.first_err()), fv))
                else:
                    for be in [b for b in cfg.backends if b in ('interp-threads', 'auto', 'jit')]:
                        got, _ = run_backend(cfg, work, be, fv, ff, seed, kernel_mode)
                        ran.append(be + '-fault')
                        if got.crashed() or got.rc != 1 or got.out or first_code(got) != 'E0601':
                            fails.append(Failure('crash' if got.crashed() else 'mismatch', be,
                                                 'fault variant: %s %s, %d bytes out, expected E0601: %s' % (
                                                     be, got.what(), len(got.out), got.first_err()), fv))
            # mutants
            rng = random.Random(seed * 7919 + 1)
            for name, mp, code in M.mutants(prog, info, rng, cfg.mutants):
                r, _ = check_prog(cfg, work, mp, no_exact=True)
                got = first_code(r) if r.rc == 1 else None
                if r.crashed():
                    fl = Failure('check-crash', None, 'mutant %s: check %s: %s' % (name, r.what(), r.first_err()), mp)
                    fails.append(fl)
                elif got != code:
                    fl = Failure('mutant', name, 'mutant %s: expected %s, check gave %s: %s' % (
                        name, code, got or r.what(), r.first_err()), mp)
                    fails.append(fl)
        # shrink and save
        deadline_each = cfg.shrink_time
        for fl in fails[:3]:
            sig = signature(fl)
            again = cfg.seen is not None and cfg.seen.get(sig, 0) >= 2
            if cfg.seen is not None:
                cfg.seen[sig] = cfg.seen.get(sig, 0) + 1
            if again:
                fl.reason += ' (not shrunk: seen before)'
            if cfg.shrink and not again and \
                    fl.kind in ('mismatch', 'crash', 'check-crash', 'strict-accepts', 'fault', 'reject'):
                pred = make_pred(cfg, work, seed, kernel_mode, fl, 0 if fl.kind != 'fault' else 1)
                try:
                    if pred(fl.prog):
                        fl.shrunk = shrink(fl.prog, pred, time.time() + deadline_each,
                                           deletions_only=(fl.kind == 'reject'))
                except Exception as e:  # a shrinker bug must not lose the failure
                    fl.reason += ' (shrinking failed: %r)' % e
            save_failure(cfg, work, fl, seed)
    finally:
        work.close()
    return {'seed': seed, 'mode': info.mode, 'secs': time.time() - t0, 'ran': ran,
            'fails': [{'kind': f.kind, 'backend': f.backend, 'reason': f.reason,
                       'saved': f.saved, 'lines': (f.shrunk or f.prog).text().count('\n')}
                      for f in fails]}


# ---------------------------------------------------------------- driver

_CFG = None


def _init(cfg):
    global _CFG
    _CFG = cfg
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool ends its workers with SIGTERM
    for k in cfg.avoid:
        G.KNOBS[k] = False


def _job(seed):
    try:
        return test_seed(_CFG, seed)
    except Exception as e:  # a bug of this script: report it as a failure, keep going
        import traceback
        return {'seed': seed, 'mode': '?', 'secs': 0, 'ran': [],
                'fails': [{'kind': 'difftest-error', 'backend': None,
                           'reason': traceback.format_exc()[-600:], 'saved': None, 'lines': 0}]}


def parse_seeds(text):
    if '..' in text:
        a, b = text.split('..', 1)
        return int(a or 0), (int(b) if b else None)
    n = int(text)
    return n, n


def main(argv):
    ap = argparse.ArgumentParser(description='differential testing of uir on generated programs')
    ap.add_argument('--uir', default=None, help='the uir binary (default: SRCROOT/build/src/uir)')
    ap.add_argument('--srcroot', default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument('--seeds', default='0..', help='A..B (inclusive), or A.. to run until --time')
    ap.add_argument('--time', type=float, default=None, help='stop starting seeds after SECONDS')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--mutants', type=int, default=3, help='mutants checked per program')
    ap.add_argument('--save', default=None, help='where regression tests go (default SRCROOT/tests/programs/gen)')
    ap.add_argument('--out', default='/tmp/uir-difftest', help='where every failure goes')
    ap.add_argument('--avoid', action='append', help='turn off generator feature KNOB (%s)' % ', '.join(G.KNOBS))
    ap.add_argument('--no-shrink', action='store_true')
    ap.add_argument('--shrink-time', type=float, default=120, help='seconds per failure')
    ap.add_argument('--timeout', type=float, default=20, help='seconds per command')
    ap.add_argument('--log', default=None, help='append one JSON line per seed to this file')
    ap.add_argument('--casts', choices=['all', 'none'], default=None,
                    help="the generator's cast runs in every seed or in none (default: as uirgen draws them)")
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args(argv[1:])
    if args.uir is None:
        args.uir = os.path.join(args.srcroot, 'build', 'src', 'uir')
    if args.save is None:
        args.save = os.path.join(args.srcroot, 'tests', 'programs', 'gen')
    for k in args.avoid or []:
        if k not in G.KNOBS:
            ap.error('unknown knob %r (have %s)' % (k, ', '.join(G.KNOBS)))
    if not os.access(args.uir, os.X_OK):
        ap.error('no uir binary at %s' % args.uir)
    a, b = parse_seeds(args.seeds)
    if b is None and args.time is None:
        args.time = 60.0
    cfg = Config(args)
    cfg.backends = detect(cfg)
    print('back ends: interp (reference), %s' % ', '.join(cfg.backends), flush=True)
    t0 = time.time()
    kinds = {}
    logf = open(args.log, 'a') if args.log else None
    ctx = multiprocessing.get_context('fork')
    manager = ctx.Manager()
    cfg.seen = manager.dict()

    def on_term(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    try:
        passed, failed, seed = drive(args, cfg, ctx, a, b, t0, kinds, logf)
    except KeyboardInterrupt:
        print('interrupted')
        return 130
    finally:
        manager.shutdown()
    el = time.time() - t0
    if kinds:
        print('failures by kind: ' + ', '.join('%s %d' % kv for kv in sorted(kinds.items())))
    print('%.0f s, seeds %d..%d' % (el, a, seed - 1))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def drive(args, cfg, ctx, a, b, t0, kinds, logf):
    """Feed seeds to the worker pool until the range or the time is used up; print each
    failure. Returns (passed, failed, next seed)."""
    passed = failed = 0
    with ctx.Pool(args.jobs, initializer=_init, initargs=(cfg,)) as pool:
        pending = []
        seed = a
        while True:
            more = (b is None or seed <= b) and (args.time is None or time.time() - t0 < args.time)
            while more and len(pending) < 2 * args.jobs:
                pending.append(pool.apply_async(_job, (seed,)))
                seed += 1
                more = (b is None or seed <= b) and (args.time is None or time.time() - t0 < args.time)
            if not pending:
                break
            done = [p for p in pending if p.ready()]
            if not done:
                time.sleep(0.01)
                continue
            for p in done:
                pending.remove(p)
                res = p.get()
                if logf:
                    logf.write(json.dumps(res) + '\n')
                    logf.flush()
                if res['fails']:
                    failed += 1
                    for fl in res['fails']:
                        kinds[fl['kind']] = kinds.get(fl['kind'], 0) + 1
                        print('FAIL seed %d: %s%s: %s%s' % (
                            res['seed'], fl['kind'], ' (%s)' % fl['backend'] if fl['backend'] else '',
                            fl['reason'].replace('\n', ' ')[:400],
                            ' -> ' + fl['saved'] if fl['saved'] else ''), flush=True)
                else:
                    passed += 1
                    if args.verbose:
                        print('PASS seed %d (%s, %.2fs)' % (res['seed'], res['mode'], res['secs']), flush=True)
    return passed, failed, seed


if __name__ == '__main__':
    sys.exit(main(sys.argv))
