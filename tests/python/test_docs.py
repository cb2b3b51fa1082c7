"""The grader of docs/python.md ("A grader"), run as a script on four students' kernels: a
right one, one whose threads race, one off by one, one that computes something else."""
import os
import re
import subprocess
import sys

import uir

from conftest import PROGRAMS, ROOT

GOOD = (PROGRAMS / 'spec' / 'vector_add.uir').read_text()


def grader():
    text = (ROOT / 'docs' / 'python.md').read_text()
    section = text[text.index('## A grader'):]
    return re.search(r'```python\n(.*?)```', section, re.S).group(1)


def test_grader(tmp_path):
    script = tmp_path / 'grade.py'
    script.write_text(grader())
    kernels = {
        'good.uir': GOOD,
        'race.uir': (PROGRAMS / 'spec' / 'race_neighbour.uir').read_text(),
        'past.uir': GOOD.replace('loop t 256 local', 'loop t 257 local'),
        'sub.uir': GOOD.replace('(add (load a i) (load b i))', '(sub (load a i) (load b i))'),
    }
    for name, text in kernels.items():
        (tmp_path / name).write_text(text)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(uir.__file__)))
    r = subprocess.run([sys.executable, str(script)] + list(kernels), capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == 'good.uir: 10: c = a + b'
    assert lines[1].startswith('race.uir: 0: E0503 at line 10: tile is accessed at two different offsets')
    assert lines[2] == ('past.uir: 0: E0301 at line 10: store of c[65536] is always out of bounds '
                        'when every loop index is at its largest: c has 65536 elements')
    assert re.match(r'sub\.uir: 5: runs, but c\[0\] is \S+, not \S+ \(\d+ wrong\)$', lines[3]), lines[3]
