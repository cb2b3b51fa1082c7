"""Fixtures of the Python module's tests: the `uir` executable to compare with, the test
programs, and the library module itself (run_pytest.py puts the build tree's on sys.path)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / 'tests' / 'programs'
UIR = os.environ.get('UIR_EXE', str(ROOT / 'build' / 'src' / 'uir'))
# the LLVM back end next to the executable (it is optional: meson.build)
JIT = os.path.exists(os.path.join(os.path.dirname(UIR), 'llvm', 'uir-llvm.so'))


def need(engine):
    """Skips a test of ENGINE when it is the JIT and the build has none."""
    if engine == 'jit' and not JIT:
        pytest.skip('no LLVM back end in this build')


class Cli:
    """`uir` as a command: run(args) -> (exit status, stdout bytes, stderr str)."""

    exe = UIR

    def run(self, *args, cwd=None, env=None):
        r = subprocess.run([self.exe, *map(str, args)], capture_output=True, cwd=cwd, env=env,
                           timeout=120)
        return r.returncode, r.stdout, r.stderr.decode('utf-8', 'replace')

    def dump(self, path, tmp, *args):
        """`uir run --dump` of PATH: (status, stderr, {name: array}) in declaration order."""
        out = pathlib.Path(tmp) / 'dump'
        rc, _, err = self.run('run', '--dump', out, *args, path)
        arrays = {}
        if rc == 0:
            for name in names_of(path):
                arrays[name] = np.load(out / (name + '.npy'))
        return rc, err, arrays


def names_of(path):
    import uir
    with uir.load(path) as p:
        return list(p.buffers)


def canonical(a):
    """A's bytes with every NaN canonical, as --dump and --hash write them (language.md 2.4.2)."""
    a = np.array(a)
    if a.dtype.kind == 'f':
        a[np.isnan(a)] = np.nan  # numpy's nan is the canonical pattern
    return a.tobytes()


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and canonical(a) == canonical(b)


@pytest.fixture
def cli():
    return Cli()


@pytest.fixture(scope='session')
def programs():
    return PROGRAMS
