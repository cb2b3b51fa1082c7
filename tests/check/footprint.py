#!/usr/bin/env python3
"""footprint.py - the content of `uir check --footprint OUT.svg` (docs/commands.md), read
with an XML parser: the elements drawn and who touched them, the colliding cells, the
sample note of a large memory, and the option's exit statuses and errors.

    tests/check/footprint.py UIR SRCROOT
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from footprint_svg import FAILURES, NS, check, code, parse, run_footprint  # noqa: E402



def plain_svg(root, path):
    """No script, no external reference, no font: a plain picture."""
    text = open(path, encoding='utf-8').read()
    check(root.find('.//' + NS + 'script') is None, '%s has a <script>' % path)
    check('@font-face' not in text and '@import' not in text and 'url(' not in text, '%s names a font or url' % path)
    for el in root.iter():
        for k, v in el.attrib.items():
            if k in ('href', '{http://www.w3.org/1999/xlink}href'):
                check(v.startswith('#'), '%s refers outside itself: %s' % (path, v))
            check(not k.startswith('on'), '%s has an event attribute %s' % (path, k))


def same_as_check(uir, prog, p, extra=()):
    """--footprint changes neither check's messages nor its status, and prints nothing."""
    q = subprocess.run([uir, 'check', *extra, prog], capture_output=True, timeout=120)
    check(p.returncode == q.returncode, '%s: status %d with --footprint, %d without' % (prog, p.returncode, q.returncode))
    check(p.stderr == q.stderr, '%s: stderr differs with --footprint:\n%s\n---\n%s' % (prog, p.stderr, q.stderr))
    check(p.stdout == b'', '%s: --footprint printed on stdout: %r' % (prog, p.stdout[:200]))


def race_neighbour(uir, src):
    prog = os.path.join(src, 'tests/programs/spec/race_neighbour.uir')
    p, out = run_footprint(uir, prog)
    same_as_check(uir, prog, p)
    check(p.returncode == 1 and b'error[E0503]' in p.stderr, 'race_neighbour: want E0503 and exit 1')
    check(os.path.exists(out), 'race_neighbour: no picture written for a program that races')
    root, codes = parse(out)
    plain_svg(root, out)
    check(root.get('data-collisions') == '1', 'race_neighbour: want 1 collision, have %s' % root.get('data-collisions'))
    check(len(codes) == 2, 'race_neighbour: want 2 checked codes (a kernel, a phase), have %d' % len(codes))
    kernel = code(codes, 'kernel', 7)
    phase = code(codes, 'phase', 8)
    check(kernel.collisions == 0 and phase.collisions == 1, 'race_neighbour: the collision is the phase\'s')
    check(kernel.skipped == ['tile'], 'race_neighbour: the kernel skips its shared tile: %s' % kernel.skipped)
    # the kernel: 4 blocks of 256; block g reads in[256g + t] and writes out[256g + t]
    for name, attr in (('in', 'data-r'), ('out', 'data-w')):
        m = kernel.mems[name]
        check(m.num('shown') == 1024 and len(m.cells) == 1024 and m.num('drawn') == 1024,
              'kernel %s: want 1024 elements drawn, have %d' % (name, len(m.cells)))
        check(all(int(u.get(attr)) == e // 256 for e, u in m.cells.items()),
              'kernel %s: element e is touched by block e / 256' % name)
        check(not m.collisions(), 'kernel %s: no collision' % name)
    # the phase: thread t writes tile[t] and reads tile[t + 1]: 257 elements, one collision
    tile = phase.mems['tile']
    check(tile.num('size') == 257 and tile.num('shown') == 257, 'tile: want all 257 elements shown')
    check(len(tile.cells) == 257 and tile.num('drawn') == 257, 'tile: want 257 cells, have %d' % len(tile.cells))
    check(tile.num('written') == 256 and tile.num('read') == 256,
          'tile: want 256 written and 256 read, have %s and %s' % (tile.attrs['written'], tile.attrs['read']))
    for e, u in tile.cells.items():
        w, r = u.get('data-w'), u.get('data-r')
        check((w == str(e)) if e < 256 else w is None, 'tile[%d]: written by t=%d, have %s' % (e, e, w))
        check((r == str(e - 1)) if e >= 1 else r is None, 'tile[%d]: read by t=%d, have %s' % (e, e - 1, r))
    coll = tile.collisions()
    check(list(coll) == [1], 'tile: want the collision at tile[1] only, have %s' % sorted(coll))
    if 1 in coll:
        check(coll[1].get('data-collision') == 't=1 / t=0', 'tile[1]: label %r' % coll[1].get('data-collision'))
        title = coll[1].find(NS + 'title')
        check(title is not None and 'thread t=1 writes tile[1]' in title.text and 'thread t=0 reads' in title.text,
              'tile[1]: the checker\'s witness as its title')
    labels = [t for t in phase.g.iter(NS + 'text') if t.get('class') == 'xl']
    check(len(labels) == 1 and labels[0].text == 'tile[1]: t=1 / t=0', 'phase: one label "tile[1]: t=1 / t=0"')
    for name in ('in', 'out'):
        check(not phase.mems[name].collisions(), 'phase %s: no collision' % name)
    check(all(int(u.get('data-w')) == e % 256 for e, u in phase.mems['out'].cells.items()),
          'phase out: element e is written by thread e mod 256')
    os.unlink(out)


def matmul_small(uir, src):
    """A race-free tiled product: 16x16 matrices, 4x4 tiles on 16 blocks of 16 threads."""
    prog = os.path.join(src, 'tests/programs/kernels/matmul_tiled_small.uir')
    p, out = run_footprint(uir, prog)
    same_as_check(uir, prog, p)
    check(p.returncode == 0, 'matmul_tiled_small: want exit 0')
    root, codes = parse(out)
    plain_svg(root, out)
    check(root.get('data-collisions') == '0', 'matmul: want no collision')
    check(sorted((c.kind, c.line) for c in codes) == [('kernel', 13), ('phase', 15), ('phase', 21), ('phase', 29)],
          'matmul: the kernel and its three phases: %s' % [(c.kind, c.line) for c in codes])
    for c in codes:
        for m in c.mems.values():
            check(not m.collisions(), 'matmul %s line %d %s: a collision cell' % (c.kind, c.line, m.name))
    kernel = code(codes, 'kernel', 13)
    check(sorted(kernel.skipped) == ['As', 'Bs', 'acc'], 'matmul kernel skips As Bs acc: %s' % kernel.skipped)
    cm = kernel.mems['C']
    check(len(cm.cells) == 256 and cm.num('written') == 256 and cm.num('read') == 0, 'kernel C: 256 written')
    # block g writes the 4x4 tile (g / 4, g mod 4) of C; in the last phase thread t writes
    # element (ty, tx) = (t / 4, t mod 4) of its block's tile
    for e, u in cm.cells.items():
        row, col = divmod(e, 16)
        check(int(u.get('data-w')) == row // 4 * 4 + col // 4, 'kernel C[%d]: written by block %s' % (e, u.get('data-w')))
    last = code(codes, 'phase', 29)
    for e, u in last.mems['C'].cells.items():
        row, col = divmod(e, 16)
        check(int(u.get('data-w')) == row % 4 * 4 + col % 4, 'phase C[%d]: written by thread %s' % (e, u.get('data-w')))
    # A is read by every block of its row of tiles: four readers each
    am = kernel.mems['A']
    check(len(am.cells) == 256 and all(u.get('data-r2') is not None for u in am.cells.values()),
          'kernel A: every element read by more than one block')
    first = code(codes, 'phase', 15)
    for name in ('As', 'Bs'):
        m = first.mems[name]
        check(len(m.cells) == 16 and all(int(u.get('data-w')) == e for e, u in m.cells.items()),
              'phase %s: thread t writes element t' % name)
    acc = code(codes, 'phase', 21).mems['acc']
    check(all(u.get('data-w') == u.get('data-r') == str(e) for e, u in acc.cells.items()),
          'phase acc: thread t reads and writes acc[t]')
    os.unlink(out)


def matmul_large(uir, src):
    """128x128 matrices: 16384 elements, drawn as a sample of 4096."""
    prog = os.path.join(src, 'tests/programs/spec/matmul_tiled.uir')
    p, out = run_footprint(uir, prog)
    same_as_check(uir, prog, p)
    root, codes = parse(out)
    check(root.get('data-collisions') == '0', 'matmul_tiled: want no collision')
    c = code(codes, 'kernel', 11).mems['C']
    check(c.num('size') == 16384 and c.num('sample') == 1 and c.num('shown') == 4096 and c.num('cols') == 128,
          'matmul_tiled C: a sample of 4096 elements in rows of 128: %s' % c.attrs)
    check(len(c.cells) == 4096 and c.num('touched') == 16384, 'matmul_tiled C: 4096 of 16384 touched elements drawn')
    notes = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'note' and t.text and 'sample' in t.text]
    check(any('elements 0 to 4095 of 16384' in n for n in notes), 'matmul_tiled: the sample note: %s' % notes)
    os.unlink(out)


SHAPES = {
    # no parallel loop: a picture that says so
    'plain.uir': 'buffer out i32 16\nloop i 16 {\n  store out i i\n}\n',
    # same-op atomics commute: every h[k] updated by several iterations, no collision
    'atomic.uir': 'buffer h i32 8\nloop i 64 thread {\n  atomic.add h (mod i 8) 1\n}\n',
    # a 2-D grid of 2-D blocks: iterations are tuples
    'grid.uir': """buffer out i32 64
loop gy 2 global {
  loop gx 4 global {
    loop ty 2 local {
      loop tx 4 local {
        store out (add (mul (add (mul gy 2) ty) 16) (add (mul gx 4) tx)) 1
        store out (add (mul gy 32) gx) 2
      }
    }
  }
}
""",
    # 100,000 iterations: ISL finds the pair; the window of 60,000 elements is around it
    'isl.uir': 'buffer a i32 60000\nloop p 100000 thread {\n  store a (add (div p 2) 7000) p\n}\n',
}


def shapes(uir, src):
    tmp = tempfile.mkdtemp()
    for name, text in SHAPES.items():
        with open(os.path.join(tmp, name), 'w') as f:
            f.write(text)
    p, out = run_footprint(uir, os.path.join(tmp, 'plain.uir'))
    root, codes = parse(out)
    check(p.returncode == 0 and root.get('data-codes') == '0' and not codes, 'plain.uir: a picture of no code')
    os.unlink(out)
    p, out = run_footprint(uir, os.path.join(tmp, 'atomic.uir'))
    root, codes = parse(out)
    h = code(codes, 'thread loop', 2).mems['h']
    check(p.returncode == 0 and root.get('data-collisions') == '0', 'atomic.uir: no collision')
    check(sorted(h.cells) == list(range(8)) and all(int(u.get('data-w')) == e and int(u.get('data-w2')) == e + 8
                                                   for e, u in h.cells.items()),
          'atomic.uir: h[k] updated first by k, then by k + 8')
    os.unlink(out)
    p, out = run_footprint(uir, os.path.join(tmp, 'grid.uir'))
    same_as_check(uir, os.path.join(tmp, 'grid.uir'), p)
    root, codes = parse(out)
    kernel, phase = code(codes, 'kernel', 2), code(codes, 'phase', 4)
    check(kernel.g.get('data-p') == '(gy, gx)' and phase.g.get('data-p') == '(ty, tx)', 'grid.uir: tuple indices')
    kc, pc = kernel.mems['out'].collisions(), phase.mems['out'].collisions()
    check(list(kc) == [1] and kc[1].get('data-collision') == '(gy=0, gx=0) / (gy=0, gx=1)',
          'grid.uir: the kernel\'s pair of blocks: %s' % {e: u.get('data-collision') for e, u in kc.items()})
    check(list(pc) == [0] and pc[0].get('data-collision') == '(ty=0, tx=0) / (ty=0, tx=1)',
          'grid.uir: the phase\'s pair of threads: %s' % {e: u.get('data-collision') for e, u in pc.items()})
    os.unlink(out)
    p, out = run_footprint(uir, os.path.join(tmp, 'isl.uir'))
    same_as_check(uir, os.path.join(tmp, 'isl.uir'), p)
    root, codes = parse(out)
    a = code(codes, 'thread loop', 2).mems['a']
    first, shown = a.num('first'), a.num('shown')
    coll = a.collisions()
    check(a.num('sample') == 1 and first <= 31999 < first + shown and list(coll) == [31999],
          'isl.uir: the window holds the collision a[31999]: first %d, shown %d, %s' % (first, shown, sorted(coll)))
    if 31999 in coll:
        check(coll[31999].get('data-collision') == 'p=49998 / p=49999', 'isl.uir: the pair p=49998 / p=49999')
    os.unlink(out)
    for name in SHAPES:
        os.unlink(os.path.join(tmp, name))
    os.rmdir(tmp)


def docs_pictures(uir, src):
    """docs/footprint.md shows docs/pictures/*.svg: they are what uir draws today."""
    for prog, pic in (('tests/programs/spec/race_neighbour.uir', 'race_neighbour.svg'),
                      ('tests/programs/kernels/matmul_tiled_small.uir', 'matmul_tiled_small.svg')):
        fd, out = tempfile.mkstemp(suffix='.svg')
        os.close(fd)
        subprocess.run([os.path.abspath(uir), 'check', '--footprint', out, prog], cwd=src, capture_output=True)
        have = open(os.path.join(src, 'docs', 'pictures', pic), 'rb').read()
        check(open(out, 'rb').read() == have, 'docs/pictures/%s is not what uir draws today; from the repository '
              'root: build/src/uir check --footprint docs/pictures/%s %s' % (pic, pic, prog))
        os.unlink(out)


def errors(uir, src):
    prog = os.path.join(src, 'tests/programs/kernels/matmul_tiled_small.uir')
    tmp = tempfile.mkdtemp()
    # a missing value: usage, exit 64
    for args in (['check', prog, '--footprint'], ['check', '--footprint=', prog]):
        p = subprocess.run([uir, *args], capture_output=True)
        check(p.returncode == 64 and b'--footprint needs a value' in p.stderr, '%s: want 64, have %d %s' % (args, p.returncode, p.stderr))
    # a folder that does not exist, a folder, a full device: exit 1, check's own messages first
    for out, why in ((os.path.join(tmp, 'no', 'x.svg'), b'No such file or directory'), (tmp, b'Is a directory'),
                     ('/dev/full', b'No space left on device')):
        p, _ = run_footprint(uir, prog, out)
        check(p.returncode == 1 and (b'uir check: cannot write %s: %s' % (out.encode(), why)) in p.stderr,
              '%s: want exit 1 and "cannot write", have %d %s' % (out, p.returncode, p.stderr))
    # a write that fails half way (a file size limit): the old file stays as it was, no
    # temporary file is left behind
    out = os.path.join(tmp, 'old.svg')
    with open(out, 'w') as f:
        f.write('old')

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    p = subprocess.run([uir, 'check', '--footprint', out, prog], capture_output=True, preexec_fn=limit)
    check(p.returncode == 1 and b'uir check: cannot write' in p.stderr and b'File too large' in p.stderr,
          'a write past RLIMIT_FSIZE: want exit 1, have %d %s' % (p.returncode, p.stderr))
    check(open(out).read() == 'old', 'a failed write replaced the old picture')
    check(sorted(os.listdir(tmp)) == ['old.svg'], 'a failed write left %s' % sorted(os.listdir(tmp)))
    # a program that stops before the race rules: its diagnostics, no picture
    bad = os.path.join(tmp, 'bad.uir')
    with open(bad, 'w') as f:
        f.write('buffer a i32 4\nstore a 9 1\n')
    out = os.path.join(tmp, 'bad.svg')
    p, _ = run_footprint(uir, bad, out)
    check(p.returncode == 1 and b'error[E0301]' in p.stderr and b'no footprint written' in p.stderr and
          not os.path.exists(out), 'E0301: want its error, exit 1 and no picture: %d %s' % (p.returncode, p.stderr))
    # writing over an existing picture keeps its mode
    out = os.path.join(tmp, 'keep.svg')
    with open(out, 'w') as f:
        f.write('x')
    os.chmod(out, 0o640)
    p, _ = run_footprint(uir, prog, out)
    check(p.returncode == 0 and os.stat(out).st_mode & 0o777 == 0o640 and open(out).read().startswith('<?xml'),
          'an existing picture is replaced with its mode kept')
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


def main():
    if len(sys.argv) != 3:
        print('usage: footprint.py UIR SRCROOT', file=sys.stderr)
        return 64
    uir, src = sys.argv[1], sys.argv[2]
    for t in (race_neighbour, matmul_small, matmul_large, shapes, docs_pictures, errors):
        before = FAILURES[0]
        t(uir, src)
        print('%s: %s' % (t.__name__, 'ok' if FAILURES[0] == before else 'FAILED'))
    return 1 if FAILURES[0] else 0


if __name__ == '__main__':
    sys.exit(main())
