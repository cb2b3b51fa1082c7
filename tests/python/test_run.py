"""Program.run: every dtype in and out, the inputs as `--input` takes them, the options, every
error of a run, timeouts, Ctrl-C, the GIL and threads; compared with `uir run` throughout."""
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import uir

from conftest import PROGRAMS, need, same_bits

TYPES = {  # .uir type: numpy dtype, an op on it, input values (edges of the type)
    'bool': (np.bool_, 'not (load a_bool i)', [True, False, True, True]),
    'i8': (np.int8, 'add (load a_i8 i) 1', [-128, -1, 0, 127]),
    'u8': (np.uint8, 'add (load a_u8 i) 1', [0, 1, 254, 255]),
    'i32': (np.int32, 'mul (load a_i32 i) 3', [-2**31, -1, 7, 2**31 - 1]),
    'u32': (np.uint32, 'sub (load a_u32 i) 1', [0, 1, 2**31, 2**32 - 1]),
    'i64': (np.int64, 'add (load a_i64 i) 1', [-2**63, -1, 0, 2**63 - 1]),
    'u64': (np.uint64, 'add (load a_u64 i) 1', [0, 1, 2**63, 2**64 - 1]),
    'f32': (np.float32, 'div 1 (load a_f32 i)', [-0.0, 0.1, np.inf, 3e38]),
    'f64': (np.float64, 'div 1 (load a_f64 i)', [0.0, -0.1, -np.inf, 5e-324]),
}
TYPED = ''.join('buffer a_%s %s 4\nbuffer o_%s %s 4\n' % (t, t, t, t) for t in TYPES)
TYPED += 'loop i 4 {\n' + ''.join('  store o_%s i (%s)\n' % (t, v[1]) for t, v in TYPES.items()) + '}\n'
LONG = 'buffer s i64 1\nloop i 2000000000 {\n  store s 0 (add (load s 0) 1)\n}\n'
FAULT = 'buffer n i32 1 = [2]\nbuffer x f32 4\nlet k = load n 0\nstore x k 1.0\n'
EXACT = PROGRAMS / 'verify' / 'ok_param_value_apart.uir'


def typed_inputs():
    return {'a_' + t: np.array(v[2], dtype=v[0]) for t, v in TYPES.items()}


@pytest.fixture
def typed(tmp_path):
    path = tmp_path / 'typed.uir'
    path.write_text(TYPED)
    return path


def npy_args(tmp, inputs):
    args = []
    for name, a in inputs.items():
        np.save(pathlib.Path(tmp) / (name + '.npy'), a)
        args += ['--input', '%s=%s' % (name, pathlib.Path(tmp) / (name + '.npy'))]
    return args


@pytest.mark.parametrize('engine', ['interp', 'jit', 'auto'])
def test_every_dtype(cli, typed, tmp_path, engine):
    need(engine)
    inputs = typed_inputs()
    out = uir.load(typed).run(inputs=inputs, engine=engine)
    rc, err, want = cli.dump(typed, tmp_path, '--engine', engine, *npy_args(tmp_path, inputs))
    assert rc == 0, err
    assert list(out) == list(want)
    for name, a in out.items():
        t = name[2:]
        assert a.dtype == np.dtype(TYPES[t][0]) and a.shape == (4,)
        assert same_bits(a, want[name]), name
        assert a.flags.owndata and a.flags.writeable
    assert out['o_u64'].tolist() == [1, 2, 2**63 + 1, 0]
    assert out['o_bool'].tolist() == [False, True, False, False]


def test_outputs_from_init(programs, cli, tmp_path):
    path = programs / 'spec' / 'stencil_1d.uir'
    rc, err, want = cli.dump(path, tmp_path)
    out = uir.load(path).run()
    assert rc == 0 and all(same_bits(out[k], want[k]) for k in want)


def test_input_shapes_and_views(programs):
    p = uir.loads('buffer m i32 6\nbuffer s i32 1\nloop i 6 {\n  store s 0 (add (load s 0) (mul (load m i) (add i 1)))\n}\n')
    flat = np.arange(6, dtype=np.int32)
    want = p.run(inputs={'m': flat})['s'][0]
    assert want == sum(v * (i + 1) for i, v in enumerate(range(6)))
    assert p.run(inputs={'m': flat.reshape(2, 3)})['s'][0] == want  # any shape, C order
    assert p.run(inputs={'m': np.arange(12, dtype=np.int32)[::2] // 2})['s'][0] == want  # a view
    one = uir.loads('buffer v f64 1\nbuffer w f64 1\nstore w 0 (mul (load v 0) 2)\n')
    assert one.run(inputs={'v': np.float64(4)})['w'][0] == 8  # 0-d
    assert one.run(inputs={'v': [2.5]})['w'][0] == 5  # a list: numpy's float64
    a = np.array([1.5])
    one.run(inputs={'v': a})
    assert a[0] == 1.5  # the caller's array is not written


def input_error(p, **kw):
    with pytest.raises(uir.Error) as info:
        p.run(**kw)
    return info.value


@pytest.mark.parametrize('value, why', [
    (np.zeros(4, np.float64), "dtype '<f8' does not match i32 buffer (needs '<i4')"),
    (np.zeros(4, '>i4'), "dtype '>i4' does not match i32 buffer (needs '<i4')"),
    (np.zeros(5, np.int32), '5 elements, buffer has 6'),
    (np.zeros((3, 2), np.int32, order='F'), 'fortran_order is True (needs C order)'),
    ([1, 2, 3, 4, 5, 6], "dtype '<i8' does not match i32 buffer (needs '<i4')"),
    (np.array(['a'] * 6, dtype=object), "dtype '|O' does not match i32 buffer (needs '<i4')"),
])
def test_input_refused_as_input_file(cli, tmp_path, value, why):
    path = tmp_path / 'm.uir'
    path.write_text('buffer m i32 6\nbuffer s i32 1\nstore s 0 (load m 5)\n')
    e = input_error(uir.load(path), inputs={'m': value})
    assert (type(e), e.status, e.code, e.line, e.col) == (uir.Error, 1, 'E0203', 1, 8)
    assert e.message == 'input m: ' + why
    # `uir run --input` of the file numpy.save writes for it: the same reason
    a = np.asarray(value)
    if a.dtype != object:
        np.save(tmp_path / 'm.npy', a)
        rc, out, err = cli.run('run', '--input', 'm=%s' % (tmp_path / 'm.npy'), path)
        assert rc == 1 and out == b''
        assert str(e) == err.rstrip('\n').replace('--input m=%s' % (tmp_path / 'm.npy'), 'input m')


def test_input_name_errors(cli, programs):
    path = programs / 'spec' / 'vector_add.uir'
    p = uir.load(path)
    e = input_error(p, inputs={'zz': [1]})
    assert (type(e), e.status, e.code) == (uir.UsageError, 64, None)
    assert isinstance(e, ValueError)
    assert e.message == "uir run: input zz: %s has no buffer called 'zz'" % path
    assert str(e) == cli.run('run', '--input', 'zz=x.npy', path)[2].rstrip('\n').replace('--input', 'input')
    with pytest.raises(TypeError):
        p.run(inputs={1: [1]})


@pytest.mark.parametrize('kw, opt', [({'engine': 'gpu'}, ['--engine', 'gpu']),
                                     ({'threads': 5000}, ['--threads', '5000']),
                                     ({'threads': -3}, ['--threads', '-3']),
                                     ({'engine': 'jit', 'racecheck': True}, ['--engine', 'jit', '--racecheck'])])
def test_usage_errors(cli, programs, kw, opt):
    path = programs / 'spec' / 'vector_add.uir'
    e = input_error(uir.load(path), **kw)
    rc, _, err = cli.run('run', *opt, path)
    assert (type(e), e.status, e.code) == (uir.UsageError, rc, None)
    assert str(e) == err.rstrip('\n') and e.message == str(e)


def test_argument_types(programs):
    p = uir.load(programs / 'spec' / 'vector_add.uir')
    for kw in ({'engine': 3}, {'threads': 2.0}, {'threads': True}, {'threads': '2'}):
        with pytest.raises(TypeError):
            p.run(**kw)


@pytest.mark.parametrize('engine', ['interp', 'jit'])
def test_fault_at_run_time(cli, tmp_path, engine):
    need(engine)
    path = tmp_path / 'fault.uir'
    path.write_text(FAULT)
    p = uir.load(path)
    assert p.run(engine=engine)['x'].tolist() == [0, 0, 1, 0]
    n9 = {'n': np.array([9], np.int32)}
    e = input_error(p, inputs=n9, engine=engine)
    rc, out, err = cli.run('run', '--engine', engine, *npy_args(tmp_path, n9), path)
    assert (rc, out) == (1, b'')
    assert (type(e), e.status, e.code, e.line, e.col) == (uir.Error, 1, 'E0601', 4, 1)
    assert str(e) == err.rstrip('\n')
    assert e.message == 'store to x[9] is out of bounds: x has 4 elements'
    # without the bounds checks the JIT may not report it; the checked run still does
    p.run(inputs={'n': np.array([1], np.int32)}, engine=engine, bounds_check=False)


def test_exact_analysis_input(cli, tmp_path):
    """an input that changes what the exact analysis read: checked again, E0503 and the note"""
    p = uir.load(EXACT)
    ok = {'xs': np.array([184], np.int32)}
    assert 'A' in p.run(inputs=ok)
    bad = {'xs': np.array([185], np.int32)}
    e = input_error(p, inputs=bad)
    rc, _, err = cli.run('run', *npy_args(tmp_path, bad), EXACT)
    assert rc == 1 and (e.code, e.status) == ('E0503', 1)
    assert str(e) == err.rstrip('\n').replace('--input xs', 'input xs')
    assert e.text.endswith('with the values of input xs two iterations race (above), so nothing ran\n')


def test_racecheck(cli, programs):
    path = programs / 'spec' / 'race_neighbour.uir'
    p = uir.load(path)
    e = input_error(p)
    assert e.code == 'E0503' and str(e) == cli.run('run', path)[2].rstrip('\n')
    e = input_error(p, racecheck=True)
    rc, _, err = cli.run('run', '--racecheck', path)
    assert (rc, e.status, e.code) == (1, 1, 'E0504')
    assert str(e) == err.rstrip('\n')
    # a program that races in no run: the buffers, as --racecheck prints them
    ok = programs / 'spec' / 'block_sum.uir'
    out = uir.load(ok).run(racecheck=True)
    assert all(same_bits(out[k], v) for k, v in uir.load(ok).run().items())


@pytest.mark.parametrize('kw', [{'threads': 1}, {'threads': 3}, {'opt': False}, {'cache': False},
                                {'bounds_check': False}, {'engine': 'interp'}])
def test_options_same_result(programs, kw):
    need('jit')
    p = uir.load(programs / 'spec' / 'saxpy_threads.uir')
    want = p.run(engine='jit')
    got = p.run(**{'engine': 'jit', **kw})
    assert list(got) == list(want) and all(same_bits(got[k], want[k]) for k in want)


def test_uir_threads_environment(programs, monkeypatch):
    p = uir.load(programs / 'spec' / 'vector_add.uir')
    monkeypatch.setenv('UIR_THREADS', 'many')
    e = input_error(p)
    assert type(e) is uir.UsageError
    assert e.message == "uir run: UIR_THREADS needs an integer from 1 to 1024, found 'many'"
    p.run(threads=2)  # --threads wins over UIR_THREADS, as in `uir run`
    monkeypatch.setenv('UIR_THREADS', '2')
    p.run()


def test_timeout_ends_the_run():
    p = uir.loads(LONG)
    t0 = time.monotonic()
    with pytest.raises(uir.Timeout) as info:
        p.run(engine='interp', timeout=0.3)
    assert time.monotonic() - t0 < 5
    assert isinstance(info.value, TimeoutError) and isinstance(info.value, uir.Error)
    assert not children(), 'the run was not ended'


@pytest.mark.parametrize('bad,exc', [(0, ValueError), (-1, ValueError), (float('nan'), ValueError),
                                     ('1', TypeError), (True, TypeError)])
def test_timeout_must_be_positive(bad, exc):
    with pytest.raises(exc):
        uir.loads('buffer x i32 1\n').run(timeout=bad)


def test_short_timeout_is_kept():
    """a timeout under the 50 ms slice ends the run after it, not after a slice"""
    p = uir.loads(LONG)
    t0 = time.monotonic()
    with pytest.raises(uir.Timeout):
        p.run(engine='interp', timeout=0.01)
    assert time.monotonic() - t0 < 5
    assert not children()


def test_timeout_after_output():
    """the run printed something (the note of racecheck) and goes on: the wait keeps to its
    slices all the same"""
    p = uir.loads(LONG + 'buffer r i32 1\nloop t 2 thread {\n  store r 0 t\n}\n')
    with pytest.raises(uir.Error) as info:
        p.check()
    assert info.value.code == 'E0502'
    t0 = time.monotonic()
    with pytest.raises(uir.Timeout):
        p.run(racecheck=True, timeout=0.3)
    assert time.monotonic() - t0 < 5
    assert not children()


def children():
    """The live child processes of this process (zombies included, until reaped)."""
    pids = []
    for task in pathlib.Path('/proc/self/task').iterdir():
        try:
            pids += [int(x) for x in (task / 'children').read_text().split()]
        except OSError:
            pass
    return pids


def test_gil_released_and_signal_death():
    """the caller's other threads run while a run runs; a run whose process a signal ends is
    an InternalError naming the signal"""
    p = uir.loads(LONG)
    result = {}

    def run():
        try:
            p.run(engine='interp')
        except uir.Error as e:
            result['e'] = e

    before = set(children())
    t = threading.Thread(target=run)
    t.start()
    count, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < 0.5:
        count += 1
    assert count > 10000
    new = set(children()) - before
    assert len(new) == 1
    os.kill(new.pop(), signal.SIGTERM)
    t.join(10)
    assert not t.is_alive()
    e = result['e']
    assert (type(e), e.status, e.signal, e.code) == (uir.InternalError, 70, signal.SIGTERM, None)
    assert e.message == "uir run: the run's process ended on signal 15 (Terminated)"


def test_threads_at_once(programs):
    need('jit')
    p = uir.load(programs / 'spec' / 'vector_add.uir')
    results = [None] * 6

    def run(k):
        a = np.full(65536, k, np.float32)
        results[k] = p.run(inputs={'a': a, 'b': a}, engine='jit' if k % 2 else 'interp')['c']

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for k, c in enumerate(results):
        assert c is not None and (c == 2 * k).all()


CTRL_C = r'''
import sys, time, uir
p = uir.loads(%r)
print('start', flush=True)
t0 = time.monotonic()
try:
    p.run(engine='interp')
    print('finished', flush=True)
except KeyboardInterrupt:
    print('interrupted %%.1f' %% (time.monotonic() - t0), flush=True)
import pathlib
kids = [x for t in pathlib.Path('/proc/self/task').iterdir() for x in (t / 'children').read_text().split()]
print('children', len(kids), flush=True)
''' % LONG


@pytest.mark.parametrize('group', [False, True], ids=['process', 'process-group'])
def test_ctrl_c(group):
    """SIGINT to the Python process (kill -INT) or to its whole group (Ctrl-C in a
    terminal): KeyboardInterrupt within a fraction of a second, and the run's process gone"""
    proc = subprocess.Popen([sys.executable, '-c', CTRL_C], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env=dict(os.environ))
    try:
        assert proc.stdout.readline() == 'start\n'
        time.sleep(0.4)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = out.split('\n')
    assert lines[0].startswith('interrupted'), out
    assert float(lines[0].split()[1]) < 3
    assert lines[1] == 'children 0'


def test_jit_missing(cli, programs, tmp_path):
    path = programs / 'spec' / 'vector_add.uir'
    env = dict(os.environ, UIR_LLVM_MODULE=str(tmp_path / 'none.so'))
    code = ('import uir\ntry:\n    uir.load(%r).run(engine="jit")\nexcept uir.UsageError as e:\n'
            '    print(e.status, e)\nprint(len(uir.load(%r).run(engine="auto")))\n' % (str(path), str(path)))
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, timeout=60)
    rc, _, err = cli.run('run', '--engine', 'jit', path, env=env)
    assert r.stdout == '%d %s3\n' % (rc, err)
