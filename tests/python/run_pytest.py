#!/usr/bin/env python3
"""run_pytest.py - the Meson test `python`: the pytest suite of the Python module `uir`
(tests/python/test_*.py, docs/python.md) against the build tree's module and `uir`.

    run_pytest.py BUILD/python BUILD/src/uir [PYTEST ARGS...]

Exits 77 (Meson's skip) with a message when numpy or pytest is missing (Debian:
python3-numpy, python3-pytest; .ci/install-deps installs them).
"""
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    missing = []
    for mod in ('numpy', 'pytest'):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        print('skipped: the Python tests need %s (Debian: %s)' % (
            ' and '.join(missing), ' '.join('python3-' + m for m in missing)))
        sys.exit(77)
    import pytest
    pydir, uir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ['UIR_EXE'] = uir
    os.environ['UIR_BUILD_DIR'] = os.path.dirname(pydir)
    os.environ['PYTHONPATH'] = pydir + os.pathsep + os.environ.get('PYTHONPATH', '')
    os.environ['PYTHONDONTWRITEBYTECODE'] = '1'
    sys.dont_write_bytecode = True
    sys.path.insert(0, pydir)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--rootdir', here, here] + sys.argv[3:]))


if __name__ == '__main__':
    main()
