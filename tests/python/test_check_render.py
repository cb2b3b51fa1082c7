"""Program.check, Program.render, Program.render_cuda against `uir check`, `uir render` and
`uir render-cuda`: the same verdicts, the same text, byte for byte."""
import pytest

import uir

from conftest import PROGRAMS

SPEC = sorted((PROGRAMS / 'spec').rglob('*.uir'))
EXACT = PROGRAMS / 'verify' / 'ok_param_value_apart.uir'


def test_check_valid(programs):
    assert uir.load(programs / 'spec' / 'vector_add.uir').check() is None


@pytest.mark.parametrize('opts, kwargs', [((), {}), (('--strict',), {'strict': True}),
                                          (('--no-exact',), {'exact': False}),
                                          (('--strict', '--no-exact'), {'strict': True, 'exact': False})])
def test_check_flags(cli, opts, kwargs):
    rc, _, err = cli.run('check', *opts, EXACT)
    p = uir.load(EXACT)
    if rc == 0:
        p.check(**kwargs)
        return
    with pytest.raises(uir.Error) as info:
        p.check(**kwargs)
    e = info.value
    assert (type(e), e.status, e.code) == (uir.Error, rc, 'E0503')
    assert str(e) == err.rstrip('\n')


def test_check_flags_differ():
    """the exact analysis accepts what the rule alone rejects (the test above sees both)"""
    p = uir.load(EXACT)
    p.check()
    with pytest.raises(uir.Error):
        p.check(exact=False)
    with pytest.raises(uir.Error):
        p.check(strict=True)


def test_check_every_error_reported(cli, tmp_path):
    path = tmp_path / 'two.uir'
    path.write_text('buffer x f32 4\nloop t 8 thread {\n  store x 0 1.0\n}\n'
                    'loop u 8 thread {\n  store x 1 2.0\n}\n')
    rc, _, err = cli.run('check', path)
    with pytest.raises(uir.Error) as info:
        uir.load(path).check()
    e = info.value
    assert rc == 1 and err.count('error[') == 2
    assert str(e) == err.rstrip('\n')
    assert (e.code, e.line, e.col) == ('E0502', 3, 11)
    assert err.startswith('%s:3:11: error[E0502]: %s\n' % (path, e.message))


def test_check_twice_and_after_run(programs):
    p = uir.load(programs / 'spec' / 'stencil_1d.uir')
    p.check()
    p.run()
    p.check(strict=True)
    p.check()


@pytest.mark.parametrize('path', SPEC, ids=lambda p: p.relative_to(PROGRAMS).as_posix())
@pytest.mark.parametrize('cuda', [False, True], ids=['c', 'cuda'])
@pytest.mark.parametrize('main', [False, True], ids=['', 'main'])
def test_render_as_cli(cli, path, cuda, main):
    args = ['render-cuda' if cuda else 'render'] + (['--main'] if main else []) + [path]
    rc, out, err = cli.run(*args)
    p = uir.load(path)
    call = p.render_cuda if cuda else p.render
    if rc == 0:
        assert call(main=main) == out.decode()
        return
    with pytest.raises(uir.Error) as info:
        call(main=main)
    e = info.value
    assert e.status == rc
    assert str(e) == err.rstrip('\n')
    if rc == 2:
        assert type(e) is uir.NotKernelForm and e.code is None and (e.line, e.col) == (None, None)
        assert err == 'invalid: %s\n' % e.message
    else:
        assert type(e) is uir.Error and e.code.startswith('E0')


def test_not_kernel_form(cli, programs):
    path = programs / 'spec' / 'saxpy_threads.uir'
    rc, _, err = cli.run('render-cuda', path)
    assert rc == 2
    with pytest.raises(uir.NotKernelForm) as info:
        uir.load(path).render_cuda()
    assert str(info.value) == err.rstrip('\n')
    assert isinstance(info.value, uir.Error)
    uir.load(path).render()  # portable C takes every valid program
