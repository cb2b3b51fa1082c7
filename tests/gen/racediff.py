#!/usr/bin/python3
"""racediff.py - soundness evidence for `uir check`'s race rules and exact analysis.

    racediff.py [--uir UIR] [--seeds A..B | --seeds A.. --time S] [--keep DIR]
                [--cuda-every N] [--shape NAME] [--log FILE.jsonl] [--isl 1|only] [-v]

For every seed, racegen.py's program is given to `uir check` (static) and to
`uir run --racecheck --engine interp` (dynamic: E0504 names a real pair when two iterations
race in this run), and racegen's own oracle (an independent sequential model with race
records, written from docs/language.md) gives a third verdict. Each program is classified:

  good        accepted and no race; rejected and a race found
  imprecise   rejected and no race in this run (counted apart when the exact analysis said it
              could not decide, when the rejection is about atomics, and when it named a pair)
  SOUNDNESS   accepted and a race found (by racecheck or by the oracle): the program is saved
              under --keep and reported; exit status 1
  fault       the run stops with E0601 (counted apart; a fault after an accepted check while
              the oracle sees in-bounds races is reported as a soundness suspect)
  mismatch    racecheck and the oracle disagree (race or not, or the printed buffers)
  invalid     check gives a code other than E0501-E0503 (a generator bug), or a tool crashes

One in --cuda-every accepted kernels in kernel form (default 20; 0: none) is also run through
`uir test` with `# cuda` and the oracle's `# expect` lines prepended (the CUDA emulator
without a GPU): the emulator must agree with the interpreter and the oracle.
Prints totals per shape, the imprecise rejections grouped by their note, and exits 1 on any
soundness bug, mismatch, invalid program or failed emulator test.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import racegen as R  # noqa: E402

RACE_CODES = ('E0501', 'E0502', 'E0503')


def run(cmd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired:
        return 124, '', 'timeout', time.time() - t0


def first_code(err):
    m = re.search(r'error\[(E\d{4})\]', err)
    return m.group(1) if m else None


def note_of(err):
    """the exact analysis's note of a rejection, with names, lines and numbers taken out."""
    notes = [ln.strip()[2:] for ln in err.splitlines() if ln.strip().startswith('= ')]
    notes = [n for n in notes if not n.startswith('usual rewrite')]
    text = notes[0] if notes else '(no note)'
    text = text.split('; usual rewrite')[0]
    text = re.sub(r'\b[A-Za-z_]+\d+\b', 'NAME', text)
    text = re.sub(r'-?\d+', 'N', text)
    return text[:200]


def parse_seeds(s):
    a, _, b = s.partition('..')
    return int(a), (int(b) if b else None)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--uir', default=os.path.join(HERE, '..', '..', 'build-me', 'src', 'uir'))
    ap.add_argument('--seeds', default='0..199')
    ap.add_argument('--time', type=float, default=None, help='stop starting seeds after this many seconds')
    ap.add_argument('--keep', default='/tmp/racediff', help='folder for soundness bugs and other failures')
    ap.add_argument('--cuda-every', type=int, default=20)
    ap.add_argument('--shape', choices=sorted(R.SHAPES))
    ap.add_argument('--timeout', type=float, default=30)
    ap.add_argument('--log', help='one JSON line per seed')
    ap.add_argument('--keep-imprecise', action='store_true', help='also save the imprecise rejections')
    ap.add_argument("--isl", choices=("1", "only"),
                    help='1: the exact analysis asks ISL first at every size, not only past enumeration; only: ISL alone (UIR_EXACT_ISL)')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args(argv)
    if a.isl:
        os.environ["UIR_EXACT_ISL"] = a.isl
    uir = os.path.abspath(a.uir)
    first, last = parse_seeds(a.seeds)
    if last is None and a.time is None:
        a.time = 60
    os.makedirs(a.keep, exist_ok=True)
    log = open(a.log, 'w') if a.log else None
    have_cxx = any(os.path.exists(os.path.join(d, c)) for d in os.environ.get('PATH', '').split(':')
                   for c in ('g++', 'clang++', 'c++'))

    per = collections.defaultdict(collections.Counter)   # shape -> counters
    tot = collections.Counter()
    notes = collections.Counter()
    notes_example = {}
    failures = []
    kernels_seen = 0
    t0 = time.time()
    seed = first
    tmp = tempfile.mkdtemp(prefix='racediff.')
    path = os.path.join(tmp, 'p.uir')

    def save(kind, text, why):
        d = os.path.join(a.keep, kind)
        os.makedirs(d, exist_ok=True)
        f = os.path.join(d, 'seed%d.uir' % seed)
        with open(f, 'w') as fh:
            fh.write(text)
        failures.append('%s seed %d: %s -> %s' % (kind.upper(), seed, why, f))
        print(failures[-1], flush=True)
        return f

    while (last is None or seed <= last) and (a.time is None or time.time() - t0 < a.time):
        tg = time.time()
        P, meta, res = R.generate(seed, a.shape)
        tg = time.time() - tg
        text = P.text(R.header(meta, res))
        with open(path, 'w') as f:
            f.write(text)
        shape = meta['shape']
        c = per[shape]
        c['programs'] += 1
        mutant = meta.get('mutation') not in (None, 'random')
        if mutant:
            c['mutants'] += 1
        o_race = res['race'] is not None
        o_fault = res['fault'] is not None
        if o_race:
            c['oracle racy'] += 1

        crc, _, cerr, ct = run([uir, 'check', path], a.timeout)
        code = first_code(cerr)
        if crc == 0:
            chk = 'accept'
        elif crc == 1 and code in RACE_CODES:
            chk = 'reject'
        elif crc == 1:
            chk = 'invalid'
        else:
            chk = 'crash'
        if chk == 'accept':
            src, _, serr, _ = run([uir, 'check', '--strict', path], a.timeout)
            if src != 0:
                c['accept, strict rejects'] += 1
        rrc, rout, rerr, rt = run([uir, 'run', '--racecheck', '--engine', 'interp', path], a.timeout)
        if rrc == 0:
            dyn = 'clean'
        elif rrc == 1 and 'error[E0504]' in rerr:
            dyn = 'race'
        elif rrc == 1 and 'error[E0601]' in rerr:
            dyn = 'fault'
        elif chk == 'invalid' and rrc == 1:
            dyn = 'not run'
        else:
            dyn = 'error'
        rec = {'seed': seed, 'shape': shape, 'ctx': meta.get('ctx'), 'variant': meta.get('variant'),
               'mutation': meta.get('mutation'), 'check': chk, 'code': code, 'dyn': dyn,
               'oracle_race': res['race'], 'oracle_fault': res['fault'], 'oracle_first': res['first'],
               't_gen': round(tg, 3), 't_check': round(ct, 3), 't_run': round(rt, 3)}
        if chk == 'invalid' and code == 'E0301' and (meta.get('shrunk') or o_fault):
            chk = 'fault-static'
        c[chk] += 1
        if mutant and chk == 'reject':
            c['mutants rejected'] += 1
        if mutant and dyn == 'race':
            c['mutants racecheck race'] += 1
        undecided = 'cannot decide' in cerr

        verdict = None
        if chk == 'fault-static':
            verdict = 'fault'      # a memory made one element too small: a certain fault
            c['fault'] += 1
            c['fault, E0301 (static)'] += 1
        elif chk in ('invalid', 'crash') or dyn == 'error':
            verdict = 'invalid'
            save('invalid', text, 'check %s (exit %d, %s), racecheck exit %d: %s' % (
                chk, crc, code, rrc, (cerr or rerr).strip().splitlines()[:1]))
        elif chk == 'accept' and (dyn == 'race' or (o_race and res['first'] == 'race')):
            verdict = 'SOUNDNESS'
            save('soundness', text, 'check accepts; racecheck %s; oracle race %s' % (dyn, res['race']))
        elif dyn == 'fault':
            verdict = 'fault'
            c['fault'] += 1
            if chk == 'accept' and o_race:
                c['fault, accepted, oracle sees a race'] += 1
                save('fault-race', text, 'check accepts, run faults (%s), the oracle sees an in-bounds race %s' % (
                    res['fault'], res['race']))
            if meta.get('shrunk'):
                c['fault, shrunk memory (E0601)'] += 1
            elif not o_fault:
                verdict = 'mismatch'
                save('mismatch', text, 'racecheck faults, the oracle does not: %s' % rerr.strip().splitlines()[:1])
        elif dyn == 'race':
            if meta.get('shrunk') and chk == 'accept':
                verdict = 'SOUNDNESS'
                save('soundness', text, 'check accepts; racecheck finds a race (a shrunk memory)')
            elif not o_race:
                verdict = 'mismatch'
                save('mismatch', text, 'racecheck finds a race the oracle does not: %s' % rerr.strip().splitlines()[:1])
            elif res['first'] == 'fault':
                verdict = 'mismatch'
                save('mismatch', text, 'racecheck finds a race, the oracle a fault first (%s)' % res['fault'])
            else:
                verdict = 'good'   # rejected and a race found
                c['good: rejected, race'] += 1
        else:   # clean
            exp = R.expected_output(P, res)
            if meta.get('shrunk') and not o_race:
                verdict = 'mismatch'
                save('mismatch', text, 'a memory one element too small, yet racecheck runs clean')
            elif o_race or o_fault:
                verdict = 'mismatch'
                save('mismatch', text, 'racecheck clean, the oracle: race %s, fault %s' % (res['race'], res['fault']))
            elif rout != exp:
                verdict = 'mismatch'
                save('mismatch', text, 'racecheck prints other buffers than the oracle')
            elif chk == 'accept':
                verdict = 'good'
                c['good: accepted, clean'] += 1
            else:
                verdict = 'imprecise'
                c['imprecise'] += 1
                if undecided:
                    c['imprecise, undecided'] += 1
                elif 'atomic' in cerr.split('\n= ', 1)[-1] or 'atomic' in note_of(cerr):
                    c['imprecise, atomics'] += 1
                else:
                    c['imprecise, decided (names a pair)'] += 1
                    save('imprecise-decided', text, 'check names a pair, racecheck and the oracle see no race: %s'
                         % note_of(cerr))
                n = '%s: %s' % (code, note_of(cerr))
                notes[n] += 1
                notes_example.setdefault(n, seed)
                if a.keep_imprecise:
                    d = os.path.join(a.keep, 'imprecise')
                    os.makedirs(d, exist_ok=True)
                    with open(os.path.join(d, 'seed%d.uir' % seed), 'w') as fh:
                        fh.write(text)
        rec['verdict'] = verdict

        # the emulator on a sample of accepted kernels
        if verdict == 'good' and chk == 'accept' and meta['kernel_form'] and a.cuda_every > 0:
            kernels_seen += 1
            if kernels_seen % a.cuda_every == 1 or a.cuda_every == 1:
                c['cuda sampled'] += 1
                if not have_cxx:
                    c['cuda skipped'] += 1
                else:
                    cpath = os.path.join(tmp, 'cuda_seed%d.uir' % seed)
                    exp = R.expected_output(P, res)
                    with open(cpath, 'w') as f:
                        f.write('# cuda\n' + ''.join('# expect %s\n' % ln for ln in exp.splitlines()) + text)
                    trc, tout, terr, tt = run([uir, 'test', '-j', '1', '--uir', uir, cpath], max(a.timeout, 120))
                    rec['cuda'] = trc
                    if trc == 0 and ' 1 passed' in tout or tout.strip().endswith('1 passed, 0 failed, 0 skipped'):
                        c['cuda passed'] += 1
                    elif trc == 0 and 'skipped' in tout:
                        c['cuda skipped'] += 1
                    else:
                        c['cuda failed'] += 1
                        save('cuda', open(cpath).read(), 'uir test (# cuda) fails: %s' % tout.strip().splitlines()[-2:])
                    os.unlink(cpath)
        if log:
            log.write(json.dumps(rec) + '\n')
        if a.verbose:
            print('seed %d %s/%s mut=%s: check %s (%s), racecheck %s, oracle %s -> %s' % (
                seed, shape, meta.get('ctx'), meta.get('mutation'), chk, code, dyn,
                'race' if o_race else ('fault' if o_fault else 'clean'), verdict), flush=True)
        seed += 1

    # totals
    cols = ['programs', 'accept', 'accept, strict rejects', 'reject', 'mutants', 'mutants rejected', 'mutants racecheck race',
            'oracle racy', 'good: accepted, clean', 'good: rejected, race', 'imprecise', 'imprecise, undecided',
            'imprecise, atomics', 'imprecise, decided (names a pair)', 'fault', 'cuda sampled', 'cuda passed',
            'cuda failed']
    short = ['progs', 'acc', '!strict', 'rej', 'mut', 'mut rej', 'mut race', 'racy', 'ok acc', 'ok rej', 'impr',
             'undec', 'atom', 'pair', 'fault', 'cuda', 'c ok', 'c bad']
    for sh in per:
        for k, v in per[sh].items():
            tot[k] += v
    el = time.time() - t0
    print('racediff: seeds %d..%d, %d programs in %.0f s (%s)' % (first, seed - 1, tot['programs'], el, uir))
    w = max([len(s) for s in per] + [8])
    print('%-*s ' % (w, 'shape') + ' '.join('%7s' % s for s in short))
    for sh in sorted(per) + ['total']:
        cc = tot if sh == 'total' else per[sh]
        print('%-*s ' % (w, sh) + ' '.join('%7d' % cc[k] for k in cols))
    extra = [k for k in tot if k not in cols]
    for k in sorted(extra):
        print('  %s: %d' % (k, tot[k]))
    if notes:
        print('imprecise rejections (race-free in this run, rejected by check), by note:')
        for n, k in notes.most_common():
            print('  %5d  %s   (e.g. seed %d)' % (k, n, notes_example[n]))
    sound = sum(1 for f in failures if f.startswith('SOUNDNESS'))
    print('soundness bugs (accepted, racy): %d' % sound)
    bad = [f for f in failures if not f.startswith('IMPRECISE-DECIDED') and not f.startswith('FAULT-RACE')]
    for f in failures:
        print('  ' + f)
    print('%d failed' % len(bad) if bad else 'no soundness bug, mismatch or invalid program')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
