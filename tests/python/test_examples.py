"""Every shared example (tests/programs/spec, the copies of the spec's examples) run through
the module and compared with `uir run`'s output on every engine, bit for bit; and every
program of tests/programs/errors: the module's uir.Error is `uir run`'s diagnostics."""
import numpy as np
import pytest

import uir

from conftest import PROGRAMS, need, same_bits

SPEC = sorted((PROGRAMS / 'spec').rglob('*.uir'))
ERRORS = sorted((PROGRAMS / 'errors').glob('*.uir'))


def rel(path):
    return path.relative_to(PROGRAMS).as_posix()


@pytest.mark.parametrize('engine', ['auto', 'interp', 'jit'])
@pytest.mark.parametrize('path', SPEC, ids=rel)
def test_spec_example(cli, tmp_path, path, engine):
    need(engine)
    rc, err, want = cli.dump(path, tmp_path, '--engine', engine)
    p = uir.load(path)
    if rc != 0:
        with pytest.raises(uir.Error) as info:
            p.run(engine=engine)
        e = info.value
        assert e.status == rc and str(e) == err.rstrip('\n')
        assert err.startswith('%s:%d:%d: error[%s]: %s\n' % (path, e.line, e.col, e.code, e.message))
        return
    out = p.run(engine=engine, threads=2)
    assert list(out) == list(want)
    for name, a in out.items():
        assert same_bits(a, want[name]), name
    if engine != 'auto':
        return
    # and what `uir run` prints (--hash: every bit), from the module's arrays
    rc, text, _ = cli.run('run', '--engine', engine, '--hash', path)
    assert rc == 0
    assert text.decode() == ''.join('%s: %016x\n' % (k, fnv1a(a)) for k, a in out.items())


def fnv1a(a):
    """--hash: FNV-1a 64 of the little-endian bytes, NaNs canonical (docs/commands.md)."""
    from conftest import canonical
    h = 0xcbf29ce484222325
    for byte in canonical(a.astype(a.dtype.newbyteorder('<'))):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


@pytest.mark.parametrize('path', ERRORS, ids=rel)
def test_error_program(cli, path):
    rc, out, err = cli.run('run', path)
    try:
        p = uir.load(path)
        got = p.run()
    except uir.Error as e:
        assert rc == e.status and out == b''
        assert str(e) == err.rstrip('\n')
        if e.code:
            head = '%s:%d:%d: error[%s]: ' % (path, e.line or 1, e.col or 1, e.code)
            assert err.startswith(head + e.message + '\n')
        return
    assert rc == 0, err
    assert out.decode().count('\n') == len(got)
