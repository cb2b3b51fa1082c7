#!/usr/bin/env python3
"""racecheck_gen.py - `uir run --racecheck` on generated programs (tests/gen).

    tests/racecheck/racecheck_gen.py UIR [FIRST..LAST]      (default seeds 0..199)

For each seed: the valid program of uirgen.py (check must accept it) must run under
--racecheck with no race, exiting and printing exactly as `run --engine interp`; then the
race mutants of uirmut.py (E0501, E0502, E0503: check must reject them with that code) are
run under --racecheck, which must end with exit 0 (no race for these sizes: the rule was
conservative) or 1 (E0504, or E0601), never anything else; the counts are printed.
Exits 1 on any failure.
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'gen'))
import uirgen as G  # noqa: E402
import uirmut as M  # noqa: E402

RACE_CODES = ('E0501', 'E0502', 'E0503')


def run(uir, args, path):
    try:
        p = subprocess.run([uir] + args + [path], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 124, '', 'timeout'
    return p.returncode, p.stdout, p.stderr


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 64
    uir = argv[1]
    first, last = 0, 199
    if len(argv) > 2:
        a, _, b = argv[2].partition('..')
        first, last = int(a), int(b)
    fails = 0
    valid = mutants = mut_race = mut_clean = mut_fault = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'p.uir')
        for seed in range(first, last + 1):
            prog, info = G.generate(seed)
            with open(path, 'w') as f:
                f.write(prog.text())
            rc, _, err = run(uir, ['check'], path)
            if rc != 0:
                print('FAIL seed %d: check rejects the generated program: %s' % (seed, err.splitlines()[:1]))
                fails += 1
                continue
            valid += 1
            rrc, rout, rerr = run(uir, ['run', '--racecheck'], path)
            prc, pout, _ = run(uir, ['run', '--engine', 'interp'], path)
            if 'E0504' in rerr:
                print('FAIL seed %d: check accepts it, --racecheck finds a race: %s' % (seed, rerr.splitlines()[:1]))
                fails += 1
            elif (rrc, rout) != (prc, pout):
                print('FAIL seed %d: --racecheck (exit %d) differs from interp (exit %d)' % (seed, rrc, prc))
                fails += 1
            names = ['shift_offset', 'drop_digit', 'overlap', 'one_ne', 'atomic_ops']  # E05 mutations
            for name, mp, code in M.mutants(prog, info, random.Random(seed), 3, names):
                if code not in RACE_CODES:
                    continue
                with open(path, 'w') as f:
                    f.write(mp.text())
                rc, _, err = run(uir, ['check'], path)
                if rc != 1 or ('error[%s]' % code) not in err.split('\n', 1)[0]:
                    continue  # the mutator's own test reports this
                mutants += 1
                rrc, rout, rerr = run(uir, ['run', '--racecheck'], path)
                if rrc == 1 and 'error[E0504]' in rerr:
                    mut_race += 1
                elif rrc == 1 and 'error[E0601]' in rerr:
                    mut_fault += 1
                elif rrc == 0:
                    mut_clean += 1
                else:
                    print('FAIL seed %d mutant %s: --racecheck exit %d: %s' % (seed, name, rrc, rerr[-300:]))
                    fails += 1
    print('seeds %d..%d: %d valid programs, no race reported unless FAIL above' % (first, last, valid))
    print('race mutants (E0501-E0503) rejected by check: %d; --racecheck: %d race (E0504), %d no race, '
          '%d fault (E0601)' % (mutants, mut_race, mut_clean, mut_fault))
    print('%d failed' % fails if fails else 'all passed')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
