#!/usr/bin/env python3
"""nestdiff.py - grids and blocks of 2 and 3 dimensions (docs/language.md 6.5) against the
1-D kernels they are made from.

Every valid program of the folders given (default tests/programs) that has 1-D kernels is
rewritten so that it means the same with nested loops: `loop g N global {` becomes two or
three nested global loops over a factorisation of N, `loop t M local {` likewise (one
factorisation per block size, so every phase of a kernel has one block), and the old index
becomes a let of the flat number, x fastest, first in the innermost body:

    loop g 8 global {             loop nz_g 2 global {
      loop t 256 local {            loop ny_g 2 global {
        ...                           loop nx_g 2 global {
                                        let g = add (mul (add (mul nz_g 2) ny_g) 2) nx_g
                                        loop ny_t 16 local {
                                          loop nx_t 16 local {
                                            let t = add (mul ny_t 16) nx_t
                                            ...

The rewritten program must pass `uir check` (a rejection by a race rule is counted, not a
failure: the one-thread rule no longer sees `t` itself; nor is E0401 for a fourth loop, an
original already nested three deep; any other rejection fails) and give the
original's `run --engine interp` output, exit status included, bit for bit: with the
interpreter, the JIT on 3 threads, and, where the original has `# render` / `# cuda`, the
rendered C (cc -O1) and the CUDA emulator (threads started in reverse), and ptxas on its
PTX when one is found.

    tests/gen/nestdiff.py --uir build/src/uir [--seeds 1..2] [--keep DIR] [DIR...]

Last line: "nestdiff: N programs, S same, R rejected (...), B failed"; exits 1
when any failed (the rewritten programs of the failures are kept in --keep)."""
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
LOOP = re.compile(r'^(\s*)loop ([A-Za-z_][A-Za-z0-9_]*) (\d+) (global|local) \{\s*$')


def factor(n, rng, dims):
    """N as a product of up to DIMS factors, x (the innermost) first."""
    fs = [n]
    for _ in range(dims - 1):
        ds = [d for d in range(2, fs[-1]) if fs[-1] % d == 0]
        if not ds:
            break
        d = rng.choice(ds)
        fs[-1] //= d
        fs.append(d)
    return fs


def nestify(text, rng):
    """TEXT with its 1-D kernels and phases as nests, and whether anything changed. Works on
    lines: a loop whose `{` ends its line, closed by a line of its own."""
    out, closes, split = [], [], {}
    depth, changed = 0, False
    for ln in text.split('\n'):
        code = ln.split('#', 1)[0]
        m = LOOP.match(ln)
        if m and int(m.group(3)) >= 1 and not m.group(2).startswith(('nx_', 'ny_', 'nz_')):
            ind, name, n, axis = m.group(1), m.group(2), int(m.group(3)), m.group(4)
            if axis == 'local':
                fs = split.setdefault(n, factor(n, rng, rng.choice([2, 2, 3])))
                if len(fs) == 3 and fs[2] > 64:
                    fs = [n]
            else:
                fs = factor(n, rng, rng.choice([2, 2, 3]))
                if any(f > 65535 for f in fs[1:]):
                    fs = [n]
            if len(fs) > 1:
                changed = True
                names = ['n%s_%s' % ('xyz'[i], name) for i in range(len(fs))]
                for i in reversed(range(len(fs))):
                    out.append('%sloop %s %d %s {' % (ind, names[i], fs[i], axis))
                e = names[-1]
                for i in reversed(range(len(fs) - 1)):
                    e = '(add (mul %s %d) %s)' % (e, fs[i], names[i])
                out.append('%s  let %s = %s' % (ind, name, e[1:-1] if e.startswith('(') else e))
                closes.append((depth, len(fs) - 1))
                depth += 1
                continue
        shuts = code.count('}')
        depth += code.count('{') - shuts
        out.append(ln)
        while closes and shuts and depth <= closes[-1][0]:
            out.append('}' * closes.pop()[1])
    return '\n'.join(out), changed


def run(cmd, env=None, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return 'timeout', b''


def directives(text):
    d = []
    for ln in text.split('\n'):
        if not ln.startswith('#'):
            break
        d.append(ln.rstrip())
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--uir', default=os.path.join(ROOT, 'build', 'src', 'uir'))
    ap.add_argument('--seeds', default='1..2')
    ap.add_argument('--keep', default=None)
    ap.add_argument('dirs', nargs='*')
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition('..')
    seeds = range(int(lo), int(hi or lo) + 1)
    dirs = a.dirs or [os.path.join(ROOT, 'tests', 'programs')]
    files = sorted(os.path.join(dp, f) for d in dirs for dp, _, fs in os.walk(d) for f in fs if f.endswith('.uir'))
    emu = os.path.join(ROOT, 'runtime', 'uir_cuda_emu.h')
    cc = shutil.which(os.environ.get('CC', 'cc'))
    cxx = shutil.which(os.environ.get('CXX', 'c++'))
    ptxas = shutil.which('ptxas') or ('/usr/local/cuda/bin/ptxas' if os.path.exists('/usr/local/cuda/bin/ptxas') else None)
    tmp = tempfile.mkdtemp(prefix='nestdiff.')
    n = same = rej = bad = 0
    try:
        for seed in seeds:
            for f in files:
                text = open(f, encoding='utf-8', errors='replace').read()
                d = directives(text)
                if any(x.startswith('# error') for x in d):
                    continue
                new, changed = nestify(text, random.Random('%d:%s' % (seed, os.path.basename(f))))
                if not changed:
                    continue
                work = os.path.join(tmp, 'w')
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(os.path.dirname(f), work, ignore=shutil.ignore_patterns('*.uir', '*.cu', '*.py'))
                g = os.path.join(work, os.path.basename(f))
                open(g, 'w').write(new)
                rc, ref = run([a.uir, 'run', '--engine', 'interp', f])
                crc, _ = run([a.uir, 'check', g])
                if crc != 0:
                    err = subprocess.run([a.uir, 'check', g], capture_output=True).stderr.decode(errors='replace')
                    m = re.search(r'error\[(E\d+)\]', err)
                    # an original already nested three deep gets a fourth loop: E0401
                    if m and (m.group(1).startswith('E05') or (m.group(1) == 'E0401' and 'fourth nested' in err)):
                        rej += 1
                        continue
                n += 1
                fails = []
                if crc != 0:
                    fails.append('check: ' + err.split('\n')[0])
                else:
                    for what, cmd, env in [('interp', [a.uir, 'run', '--engine', 'interp', g], None),
                                           ('jit', [a.uir, 'run', '--engine', 'jit', '--threads', '3', g], None)]:
                        r = run(cmd, env)
                        if r != (rc, ref):
                            fails.append('%s: exit %s, %s' % (what, r[0], 'same output' if r[1] == ref else 'other output'))
                    if '# render' in d and cc:
                        c = os.path.join(work, 'p.c')
                        if run([a.uir, 'render', '--main', '-o', c, g])[0] != 0 or \
                           run([cc, '-std=c11', '-O1', '-pthread', '-o', c + '.exe', c, '-lm'], timeout=300)[0] != 0:
                            fails.append('render: does not build')
                        elif run([c + '.exe'], dict(os.environ, UIR_THREADS='3')) != (rc, ref):
                            fails.append('render: differs')
                    if '# cuda' in d and cxx:
                        cu = os.path.join(work, 'p.cu')
                        if run([a.uir, 'render-cuda', '--main', '-o', cu, g])[0] == 0:
                            if run([cxx, '-std=c++17', '-O1', '-pthread', '-ffp-contract=off', '-include', emu, '-x',
                                    'c++', cu, '-o', cu + '.exe'], timeout=300)[0] != 0:
                                fails.append('emulator: does not build')
                            elif run([cu + '.exe'], dict(os.environ, UIR_EMU_ORDER='reverse')) != (rc, ref):
                                fails.append('emulator: differs')
                            px = os.path.join(work, 'p.ptx')
                            if ptxas and (run([a.uir, 'ptx', '-o', px, g])[0] != 0 or
                                          run([ptxas, '-arch=sm_90', px, '-o', px + '.cubin'])[0] != 0):
                                fails.append('ptx/ptxas failed')
                if fails:
                    bad += 1
                    print('FAIL seed %d %s: %s' % (seed, os.path.relpath(f, ROOT), '; '.join(fails)), flush=True)
                    if a.keep:
                        os.makedirs(a.keep, exist_ok=True)
                        shutil.copy(g, os.path.join(a.keep, 'seed%d.%s' % (seed, os.path.basename(f))))
                else:
                    same += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('nestdiff: %d programs, %d same, %d rejected (a race rule, or a fourth nested loop), %d failed' % (n, same, rej, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
