"""The module from a build folder (PYTHONPATH=BUILD/python) and after `meson install`, each in
a fresh Python process started elsewhere, with the JIT found as it is installed."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import PROGRAMS, need

BUILD = pathlib.Path(os.environ.get('UIR_BUILD_DIR', pathlib.Path(__file__).resolve().parents[2] / 'build'))
PROBE = '''
import uir, numpy as np
p = uir.load(%r)
print(uir.__file__)
print(p.run(engine="jit")["c"][:2].tolist(), p.run(engine="interp")["c"][:2].tolist())
''' % str(PROGRAMS / 'spec' / 'vector_add.uir')


def probe(env, cwd):
    r = subprocess.run([sys.executable, '-c', PROBE], capture_output=True, text=True, env=env,
                       cwd=cwd, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split('\n')


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'UIR_LIBRARY', 'UIR_LLVM_MODULE')}
    env.update(extra)
    return env


def test_from_build_folder(tmp_path):
    need('jit')
    lines = probe(clean_env(PYTHONPATH=str(BUILD / 'python')), tmp_path)
    assert lines[0] == str(BUILD / 'python' / 'uir' / '__init__.py')
    jit, interp = lines[1].split('] [')
    assert jit + ']' == '[' + interp


def test_meson_install(tmp_path):
    need('jit')
    meson = shutil.which('meson')
    if not meson:
        pytest.skip('no meson')
    dest = tmp_path / 'dest'
    r = subprocess.run([meson, 'install', '-C', str(BUILD), '--no-rebuild', '--quiet', '--destdir', str(dest)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    installed = json.loads(subprocess.run([meson, 'introspect', str(BUILD), '--installed'],
                                          capture_output=True, text=True, check=True).stdout)
    where = {pathlib.Path(k).name: pathlib.Path(v) for k, v in installed.items()}
    init, libpath = where['__init__.py'], where['_libpath.py']
    assert init.parent == libpath.parent and init.parent.name == 'uir'
    lib = next(v for k, v in where.items() if k.startswith('libuir.so.'))
    module = where['uir-llvm.so']
    # the installed _libpath.py names the installed library (by its soname)
    text = (dest / libpath.relative_to('/')).read_text()
    assert "LIBRARY = '%s'" % (lib.parent / 'libuir.so.0') in text
    # run from the staged copy: its library (UIR_LIBRARY: it is not where _libpath.py says
    # yet) and its module (UIR_LLVM_MODULE: likewise)
    site = dest / init.parent.parent.relative_to('/')
    env = clean_env(PYTHONPATH=str(site), UIR_LIBRARY=str(dest / lib.parent.relative_to('/') / 'libuir.so.0'),
                    UIR_LLVM_MODULE=str(dest / module.relative_to('/')))
    lines = probe(env, tmp_path)
    assert lines[0] == str(site / 'uir' / '__init__.py')
    jit, interp = lines[1].split('] [')
    assert jit + ']' == '[' + interp
