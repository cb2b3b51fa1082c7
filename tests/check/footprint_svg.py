"""footprint_svg.py - reading the SVG of `uir check --footprint` (docs/commands.md), shared
by tests/check/footprint.py (its content) and tests/check/footprint_render.py (its pixels).

The picture's structure, as src/check/footprint.c writes it: the root <svg> carries
data-codes and data-collisions; each checked code is a <g class="code"> (data-kind, data-line,
data-p, data-iterations, data-collisions); each of its memories a <g class="mem"> placed by
transform="translate(X,Y)" (data-name, data-size, data-first, data-shown, data-cols,
data-cell, data-touched, data-drawn, data-written, data-read, data-sample); each touched
element drawn is a <use> with data-e (the element), data-w / data-r (the first iteration
that writes / reads it, flat numbers), and a collision's element has class "x" and
data-collision ("t=1 / t=0").
"""
import os
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def run_footprint(uir, prog, out=None, extra=()):
    """Runs `uir check --footprint OUT PROG`; returns (process, OUT path)."""
    if out is None:
        fd, out = tempfile.mkstemp(suffix='.svg')
        os.close(fd)
        os.unlink(out)
    p = subprocess.run([uir, 'check', *extra, '--footprint', out, prog], capture_output=True, timeout=120)
    return p, out


class Mem:
    def __init__(self, g, code):
        self.g = g
        self.code = code
        self.name = g.get('data-name')
        self.attrs = {k[5:]: v for k, v in g.attrib.items() if k.startswith('data-')}
        m = re.fullmatch(r'translate\((-?[\d.]+),(-?[\d.]+)\)', g.get('transform', 'translate(0,0)'))
        self.dx, self.dy = float(m.group(1)), float(m.group(2))
        self.cells = {}
        for u in g.iter(NS + 'use'):
            if u.get('data-e') is not None:
                e = int(u.get('data-e'))
                assert e not in self.cells, 'element %d drawn twice in %s' % (e, self.name)
                self.cells[e] = u

    def num(self, key):
        return int(self.attrs[key])

    def box(self, e):
        """The pixel box (x0, y0, x1, y1) of element E's cell in the picture."""
        u = self.cells[e]
        cs = self.num('cell')
        x, y = float(u.get('x')) + self.dx, float(u.get('y')) + self.dy
        return x, y, x + cs - 1, y + cs - 1

    def collisions(self):
        return {e: u for e, u in self.cells.items() if 'x' in u.get('class', '').split()}


class Code:
    def __init__(self, g):
        self.g = g
        self.kind = g.get('data-kind')
        self.line = int(g.get('data-line'))
        self.collisions = int(g.get('data-collisions'))
        self.mems = {}
        for m in g.findall(NS + 'g'):
            if 'mem' in m.get('class', '').split():
                mem = Mem(m, self)
                self.mems[mem.name] = mem
        self.skipped = []
        for t in g.iter(NS + 'text'):
            if t.get('data-skipped') is not None:
                self.skipped += t.get('data-skipped').split()


def parse(path):
    root = ET.parse(path).getroot()
    assert root.tag == NS + 'svg', root.tag
    codes = [Code(g) for g in root.findall(NS + 'g') if 'code' in g.get('class', '').split()]
    return root, codes


def code(codes, kind, line):
    found = [c for c in codes if c.kind == kind and c.line == line]
    assert len(found) == 1, 'want one %s at line %d, have %s' % (kind, line, [(c.kind, c.line) for c in codes])
    return found[0]


FAILURES = [0]  # the failed checks of the script that runs (footprint.py, footprint_render.py)


def check(ok, what):
    """Counts and prints WHAT when OK is false."""
    if not ok:
        FAILURES[0] += 1
        print('FAIL:', what)
