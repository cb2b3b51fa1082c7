"""Program.footprint against `uir check --footprint`: the same picture, byte for byte, read
back with an XML parser (docs/footprint.md): the collision cells of a race, none for a
race-free program, and the errors when there is no picture."""
import pathlib
import xml.etree.ElementTree as ET

import pytest

import uir

from conftest import PROGRAMS

NS = '{http://www.w3.org/2000/svg}'
RACE = PROGRAMS / 'spec' / 'race_neighbour.uir'
NO_RACE = PROGRAMS / 'kernels' / 'matmul_tiled_small.uir'
EXACT = PROGRAMS / 'verify' / 'ok_param_value_apart.uir'
NESTED = 'buffer a f32 4\nloop i 4 thread {\n  loop j 4 thread { store a i 1.0 }\n}\n'
ATOMIC = 'buffer c i32 1\nloop t 4 thread {\n  atomic.add c 0 1\n}\n'


def collisions(svg):
    """(the root's data-collisions, {(memory, element): label} of the red cells)."""
    root = ET.fromstring(svg)
    assert root.tag == NS + 'svg'
    cells = {}
    for g in root.iter(NS + 'g'):
        if 'mem' in g.get('class', '').split():
            for u in g.iter(NS + 'use'):
                if 'x' in u.get('class', '').split():
                    cells[(g.get('data-name'), int(u.get('data-e')))] = u.get('data-collision')
    return int(root.get('data-collisions')), cells


def cli_svg(cli, tmp_path, path, *opts):
    out = tmp_path / 'cli.svg'
    rc, _, err = cli.run('check', *opts, '--footprint', out, path)
    return rc, err, out.read_text(encoding='utf-8')


def test_race_shows_the_collision(cli, tmp_path):
    prog = uir.load(RACE)
    svg = prog.footprint()  # a race does not raise: the picture shows it
    n, cells = collisions(svg)
    assert n == 1
    assert cells == {('tile', 1): 't=1 / t=0'}
    assert 'thread t=1 writes tile[1] (line 9), which thread t=0 reads (line 10)' in svg
    rc, _, text = cli_svg(cli, tmp_path, RACE)
    assert rc == 1 and svg == text
    with pytest.raises(uir.Error) as info:
        prog.check()
    assert info.value.code == 'E0503'


def test_race_free_shows_none(cli, tmp_path):
    prog = uir.load(NO_RACE)
    svg = prog.footprint()
    assert collisions(svg) == (0, {})
    root = ET.fromstring(svg)
    kinds = [g.get('data-kind') for g in root.iter(NS + 'g') if g.get('class') == 'code']
    assert kinds == ['kernel', 'phase', 'phase', 'phase']
    assert prog.check() is None
    rc, err, text = cli_svg(cli, tmp_path, NO_RACE)
    assert (rc, err) == (0, '') and svg == text


def test_written_to_path(tmp_path):
    prog = uir.load(RACE)
    out = tmp_path / 'f.svg'
    svg = prog.footprint(out)  # os.PathLike
    assert out.read_text(encoding='utf-8') == svg
    assert prog.footprint(str(tmp_path / 'g.svg')) == svg
    assert (tmp_path / 'g.svg').read_bytes() == out.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['f.svg', 'g.svg']  # nothing left over


@pytest.mark.parametrize('opts, kwargs', [((), {}), (('--strict',), {'strict': True}),
                                          (('--no-exact',), {'exact': False}),
                                          (('--strict', '--no-exact'), {'strict': True, 'exact': False})])
def test_flags(cli, tmp_path, opts, kwargs):
    """the picture of a program that only the exact analysis accepts, under each option: drawn
    (no raise) where the check rejects it, the command's picture"""
    rc, _, text = cli_svg(cli, tmp_path, EXACT, *opts)
    assert rc == (0 if not opts else 1)
    assert uir.load(EXACT).footprint(**kwargs) == text


def test_strict_atomics(cli, tmp_path):
    """under strict, iterations updating one element atomically are rejected (E0502): still a
    picture, with no red cell (the check names no colliding pair: atomics commute)"""
    path = tmp_path / 'atomic.uir'
    path.write_text(ATOMIC)
    prog = uir.load(path)
    assert prog.check() is None
    with pytest.raises(uir.Error) as info:
        prog.check(strict=True)
    assert info.value.code == 'E0502'
    svg = prog.footprint(strict=True)
    assert collisions(svg) == (0, {})
    assert svg == cli_svg(cli, tmp_path, path, '--strict')[2]


def test_no_picture_before_the_race_rules(cli, tmp_path):
    path = tmp_path / 'nested.uir'
    path.write_text(NESTED)
    prog = uir.load(path)
    with pytest.raises(uir.Error) as info:
        prog.footprint()
    e = info.value
    _, _, err = cli.run('check', path)
    assert (type(e), e.status, e.code, e.line, e.col) == (uir.Error, 1, 'E0401', 3, 12)
    assert str(e) == err.rstrip('\n')
    out = tmp_path / 'f.svg'
    with pytest.raises(uir.Error) as info:
        prog.footprint(out)
    rc, _, err = cli.run('check', '--footprint', out, path)
    assert rc == 1 and str(info.value) == err.rstrip('\n')
    assert 'no footprint written to %s: the check stops before the race rules' % out in err
    assert not out.exists()


def test_unwritable_path(cli, tmp_path):
    out = tmp_path / 'missing' / 'f.svg'
    with pytest.raises(uir.Error) as info:
        uir.load(RACE).footprint(out)
    e = info.value
    assert (type(e), e.status, e.code, e.line, e.col) == (uir.Error, 1, None, None, None)
    assert e.message == 'uir check: cannot write %s: No such file or directory' % out
    rc, _, err = cli.run('check', '--footprint', out, RACE)
    assert rc == 1 and str(e) == err.rstrip('\n')
    assert not out.parent.exists()


def test_closed():
    p = uir.loads(RACE.read_text())
    p.close()
    with pytest.raises(ValueError):
        p.footprint()
