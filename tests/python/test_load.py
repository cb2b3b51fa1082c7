"""uir.load, uir.loads, Program's buffers, close, and the errors of loading (E0001, E01xx,
E02xx), each against what `uir check` prints for the same file."""
import os

import numpy as np
import pytest

import uir

VALID = 'buffer x f32 4 = iota\nbuffer y i32 3\nloop i 4 {\n  store x i (add (load x i) 1.0)\n}\n'


def test_load_and_buffers(programs):
    p = uir.load(programs / 'spec' / 'vector_add.uir')
    assert p.name == str(programs / 'spec' / 'vector_add.uir')
    assert list(p.buffers) == ['a', 'b', 'c']
    b = p.buffers['c']
    assert (b.name, b.dtype, b.size) == ('c', np.dtype(np.float32), 65536)
    assert repr(p) == "<uir.Program %r: a float32[65536], b float32[65536], c float32[65536]>" % p.name
    p.close()
    p.close()  # twice is fine


def test_loads_str_and_bytes():
    for text in (VALID, VALID.encode()):
        with uir.loads(text) as p:
            assert p.name == '<string>'
            assert [(b.name, b.dtype.name, b.size) for b in p.buffers.values()] == [
                ('x', 'float32', 4), ('y', 'int32', 3)]


def test_closed_program():
    p = uir.loads(VALID)
    p.close()
    for call in (p.check, p.render, p.render_cuda, p.run):
        with pytest.raises(ValueError, match='closed'):
            call()


def test_file_init_relative_to_name(tmp_path):
    np.save(tmp_path / 'v.npy', np.arange(3, dtype=np.int32))
    text = 'buffer v i32 3 = file "v.npy"\nbuffer w i32 3\nloop i 3 {\n  store w i (mul (load v i) 2)\n}\n'
    p = uir.loads(text, name=str(tmp_path / 'prog.uir'))
    assert p.run()['w'].tolist() == [0, 2, 4]
    (tmp_path / 'prog.uir').write_text(text)
    assert uir.load(tmp_path / 'prog.uir').run()['w'].tolist() == [0, 2, 4]
    # relative to the current directory for the default name
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert uir.loads(text).run()['w'].tolist() == [0, 2, 4]
    finally:
        os.chdir(cwd)


def load_error(path):
    with pytest.raises(uir.Error) as info:
        uir.load(path)
    return info.value


def test_missing_file(cli, tmp_path):
    path = tmp_path / 'missing.uir'
    e = load_error(path)
    rc, _, err = cli.run('check', path)
    assert (type(e), e.code, e.line, e.col, e.status) == (uir.Error, 'E0001', None, None, rc)
    assert e.message == 'cannot read the file: No such file or directory'
    assert str(e) == err.rstrip('\n')
    assert e.text == err


def test_directory_and_fifo(cli, tmp_path):
    e = load_error(tmp_path)
    assert e.code == 'E0001' and 'Is a directory' in e.message
    fifo = tmp_path / 'f.uir'
    os.mkfifo(fifo)
    e = load_error(fifo)  # refused, not opened (an open would wait for a writer)
    assert e.code == 'E0001' and e.message == 'cannot read the file: it is a FIFO, not a regular file'
    assert str(e) == cli.run('check', fifo)[2].rstrip('\n')


@pytest.mark.parametrize('text, code, line, col', [
    ('buffer x f33 4\n', 'E0101', 1, 10),
    ('buffer x f32 4\nloop i 4 {\n  store y i 1.0\n}\n', 'E0102', 3, 9),
    ('buffer x f32 4\nbuffer x f32 4\n', 'E0103', 2, 8),
    ('buffer x i32 4\nbuffer y f32 4\nloop i 4 {\n  store x i (load y i)\n}\n', 'E0201', 4, 14),
    ('buffer x f32 2 = [1 2 3]\n', 'E0203', 1, 18),
    ('buffer x f32 4\n\0\n', 'E0101', 2, 1),
])
def test_load_errors(cli, tmp_path, text, code, line, col):
    path = tmp_path / 'bad.uir'
    path.write_bytes(text.encode())
    e = load_error(path)
    rc, _, err = cli.run('check', path)
    assert (e.code, e.line, e.col, e.status) == (code, line, col, rc)
    assert str(e) == err.rstrip('\n')
    assert err.startswith('%s:%d:%d: error[%s]: %s\n' % (path, line, col, code, e.message))
    # the same from text, under the same name
    with pytest.raises(uir.Error) as info:
        uir.loads(text, name=str(path))
    assert str(info.value) == str(e) and info.value.code == code


def test_control_bytes_shown_as_question_marks(cli, tmp_path):
    path = tmp_path / 'esc\x1b[2J.uir'
    path.write_text('buffer x f33 4\n')
    e = load_error(path)
    assert '\x1b' not in str(e) and 'esc?[2J.uir:1:10: error[E0101]' in str(e)
    assert str(e) == cli.run('check', path)[2].rstrip('\n')
