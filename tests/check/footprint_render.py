#!/usr/bin/env python3
"""footprint_render.py - the picture of `uir check --footprint` rendered by a real SVG
renderer (librsvg's rsvg-convert, Debian's librsvg2-bin): the image is not blank, the
colliding cell of race_neighbour.uir is red where the SVG puts it (and its neighbours are
not), and the race-free tiled matrix product has no red but the legend's swatch. The PNG is
read by the small decoder below (zlib and the five PNG filters), so the test needs nothing
but python3 and rsvg-convert; without rsvg-convert it is skipped (exit 77).

    tests/check/footprint_render.py UIR SRCROOT
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from footprint_svg import FAILURES, NS, check, code, parse, run_footprint  # noqa: E402


def read_png(path):
    """(width, height, rows): rows[y] a bytes of RGB triples (8-bit RGB or RGBA, no interlace)."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG format %s' % (hdr,)
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else:
            assert f == 0, 'bad PNG filter %d' % f
        prev = line
        if bpp == 4:  # drop alpha (the picture paints a white background of its own)
            line = bytearray(line[i] for i in range(stride) if i % 4 != 3)
        rows.append(bytes(line))
    return w, h, rows


def pixel(rows, x, y):
    r = rows[y]
    return r[3 * x], r[3 * x + 1], r[3 * x + 2]


def red(px):
    return px[0] >= 220 and px[1] <= 40 and px[2] <= 40




def render(svg, png):
    p = subprocess.run(['rsvg-convert', '-o', png, svg], capture_output=True, timeout=120)
    check(p.returncode == 0, 'rsvg-convert %s: %s' % (svg, p.stderr.decode(errors='replace')))
    return read_png(png)


def not_blank(name, w, h, rows):
    colours = set()
    inked = 0
    for y in range(0, h, 3):
        for x in range(0, w, 3):
            px = pixel(rows, x, y)
            colours.add(px)
            inked += px != (255, 255, 255)
    total = len(range(0, h, 3)) * len(range(0, w, 3))
    check(len(colours) >= 12, '%s: only %d colours: a blank picture?' % (name, len(colours)))
    check(inked > total // 20, '%s: %d of %d pixels inked: a blank picture?' % (name, inked, total))


def main():
    if len(sys.argv) != 3:
        print('usage: footprint_render.py UIR SRCROOT', file=sys.stderr)
        return 64
    if not shutil.which('rsvg-convert'):
        print('skipped: rsvg-convert is not installed (Debian: librsvg2-bin, in .ci/install-deps)')
        return 77
    uir, src = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp()
    # race_neighbour: the collision at tile[1] in the phase
    svg, png = os.path.join(tmp, 'race.svg'), os.path.join(tmp, 'race.png')
    run_footprint(uir, os.path.join(src, 'tests/programs/spec/race_neighbour.uir'), svg)
    root, codes = parse(svg)
    w, h, rows = render(svg, png)
    check((w, h) == (int(root.get('width')), int(root.get('height'))),
          'race: a %dx%d PNG for a %sx%s picture' % (w, h, root.get('width'), root.get('height')))
    not_blank('race', w, h, rows)
    tile = code(codes, 'phase', 8).mems['tile']
    x0, y0, x1, y1 = (int(v) for v in tile.box(1))
    inside = [pixel(rows, x, y) for y in range(y0 + 2, y1 - 1) for x in range(x0 + 2, x1 - 1)]
    check(inside and all(red(px) for px in inside), 'race: tile[1] at (%d,%d)-(%d,%d) is not red: %s' %
          (x0, y0, x1, y1, sorted(set(inside))[:5]))
    for e in (0, 2, 33):
        a, b, c, d = (int(v) for v in tile.box(e))
        px = pixel(rows, (a + c) // 2, (b + d) // 2 - 1)
        check(not red(px), 'race: tile[%d] is red too: %s' % (e, px))
    # the tiled product: no red anywhere but the legend's swatch
    svg, png = os.path.join(tmp, 'mm.svg'), os.path.join(tmp, 'mm.png')
    run_footprint(uir, os.path.join(src, 'tests/programs/kernels/matmul_tiled_small.uir'), svg)
    root, codes = parse(svg)
    w, h, rows = render(svg, png)
    not_blank('matmul', w, h, rows)
    sw = [r for r in root.iter(NS + 'rect') if r.get('class') == 'lx']
    check(len(sw) == 1, 'matmul: one legend swatch for collisions')
    sx, sy = int(sw[0].get('x')), int(sw[0].get('y'))
    reds = [(x, y) for y in range(h) for x in range(w)
            if red(pixel(rows, x, y)) and not (sx - 1 <= x <= sx + 14 and sy - 1 <= y <= sy + 14)]
    check(not reds, 'matmul: %d red pixels outside the legend, first %s' % (len(reds), reds[:3]))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    print('render: %s' % ('ok' if not FAILURES[0] else 'FAILED'))
    return 1 if FAILURES[0] else 0


if __name__ == '__main__':
    sys.exit(main())
