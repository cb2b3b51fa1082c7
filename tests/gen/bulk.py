#!/usr/bin/env python3
"""bulk.py - bulk differential runs of generated programs through uir-bulkdiff.

    bulk.py --bulkdiff PATH --seeds A..B [--jobs N] [--batch K] [--time S] [--log FILE]
            [--keep DIR] [--threads N] [--jit-threads N] [--mutants K] [--casts all|none]

Each job (one process) generates the programs of its seeds with uirgen.generate, K at a
time (default 200), writes them to a temporary directory and runs uir-bulkdiff once on
the batch: the interpreter with 1 thread against the interpreter with N threads and the
JIT, in one process (tests/gen/bulkdiff.c). Each seed also gets --mutants K mutants (3),
made as difftest.py makes them (uirmut.mutants with random.Random(seed * 7919 + 1)), written
as seedN.mI.uir in the same batch: uir-bulkdiff only checks a mutant, which must get the
first code the mutator expected. A failing program is kept in --keep (default
/tmp/uir-bulk) as seedN.uir (a mutant as seedN.mI.uir) and printed as `FAIL seed N: ...`
(`FAIL seed N: mutant NAME: expected CODE, check gave GOT: ...`); shrink it with
`difftest.py --seeds N..N`. A batch whose uir-bulkdiff crashes or hangs is rerun from the
first file it did not report, that file alone, to find the seed. Seeds `A..` (open) need
--time, which stops starting batches after S seconds. Progress every ~1000 seeds; the last
line is `bulk: N programs (general G, kernel form K, C with cast runs), M mutants, N failed, T s`. Exit 1 when any
failed, 77 (a skip) when uir-bulkdiff has no JIT back end. --casts all gives every seed
the generator's cast runs (uirgen.gen_castrun), none no seed (default: a quarter of the
seeds, as uirgen draws them). Standard library only.
"""
import argparse
import json
import multiprocessing
import copy
import os
import pickle
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uirgen  # noqa: E402
import uirmut  # noqa: E402


def copy_prog(prog):
    """uirmut.copy_prog (copy.deepcopy) through pickle: the same object graph, 4 to 5 times
    as fast (the deep copy was most of a mutant's cost). The mutants are the same: seeds
    0..499 give byte-identical mutant texts and codes both ways."""
    try:
        return pickle.loads(pickle.dumps(prog, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(prog)


uirmut.copy_prog = copy_prog

# Seconds uir-bulkdiff may go without printing a line before it counts as hung (one file:
# the JIT's O3 pipeline on a large generated program takes a few seconds at most).
STALL_S = 30


def parse_seeds(s):
    a, sep, b = s.partition('..')
    if not sep:
        return int(s), int(s)
    return int(a), (int(b) if b else None)


def read_lines(p, stall):
    """The lines P prints on stdout, until it exits or prints nothing for STALL seconds
    (then it is killed). Returns (lines, hung)."""
    buf, hung = b'', False
    fd = p.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], stall)
        if not ready:
            p.kill()
            hung = True
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
    p.wait()
    return buf.decode(errors='replace').splitlines(), hung


def run_bulkdiff(cfg, files):
    """Runs uir-bulkdiff on FILES. Returns (results {file: (ok, why)}, abnormal, rc, err)."""
    cmd = [cfg['bulkdiff'], '--threads', str(cfg['threads']), '--jit-threads', str(cfg['jit_threads']), '-']
    with tempfile.TemporaryFile() as names, tempfile.TemporaryFile() as errf:
        names.write(('\n'.join(files) + '\n').encode())
        names.seek(0)
        p = subprocess.Popen(cmd, stdin=names, stdout=subprocess.PIPE, stderr=errf)
        lines, hung = read_lines(p, STALL_S)
        p.stdout.close()
        errf.seek(0)
        err = errf.read().decode(errors='replace')
    rc = None if hung else p.returncode
    if hung:
        err = 'printed nothing for %d s (killed)' % STALL_S
    res = {}
    for line in lines:
        if line.startswith('ok '):
            res[line[3:]] = (True, '')
        elif line.startswith('FAIL '):
            f, _, why = line[5:].partition(': ')
            res[f] = (False, why)
    abnormal = rc is None or rc < 0 or rc not in (0, 1)
    return res, abnormal, rc, err


def describe(rc, err):
    if rc is None:
        return 'uir-bulkdiff ' + err
    if rc < 0:
        return 'uir-bulkdiff crashed (signal %d)' % -rc
    return 'uir-bulkdiff exit %d: %s' % (rc, (err.strip().splitlines() or [''])[0])


def check_batch(cfg, files):
    """All FILES through uir-bulkdiff, isolating a crash or hang. Returns {file: (ok, why)}."""
    results = {}
    todo = list(files)
    while todo:
        res, abnormal, rc, err = run_bulkdiff(cfg, todo)
        if rc == 64:
            raise RuntimeError(describe(rc, err))
        results.update(res)
        rest = [f for f in todo if f not in res]
        if not abnormal or not rest:
            for f in rest:
                results[f] = (False, 'no result line (' + describe(rc, err) + ')')
            break
        # the first file without a line is the suspect: alone, then the others again
        one, ab1, rc1, err1 = run_bulkdiff(cfg, rest[:1])
        results[rest[0]] = one.get(rest[0]) if not ab1 and rest[0] in one else (False, describe(rc1, err1))
        todo = rest[1:]
    return results


def run_one_batch(cfg, work, batch, counts):
    """Generates and checks the seeds of BATCH. Returns [(seed, why)] of the failures and
    the log records."""
    files, modes, nmut, mnames, casts = {}, {}, {}, {}, {}
    for s in batch:
        prog, info = uirgen.generate(s, casts=cfg.get('casts'))
        f = os.path.join(work, 'seed%d.uir' % s)
        with open(f, 'w') as fh:
            fh.write(prog.text())
        files[f], modes[s] = s, info.mode
        counts[info.mode] += 1
        counts['casts'] = counts.get('casts', 0) + (1 if info.casts else 0)
        casts[s] = info.casts
        # the mutants difftest.py checks for this seed: the same rng, so the same mutants
        rng = random.Random(s * 7919 + 1)
        ms = uirmut.mutants(prog, info, rng, cfg['mutants']) if cfg['mutants'] > 0 else []
        for i, (name, mp, _) in enumerate(ms):
            mf = os.path.join(work, 'seed%d.m%d.uir' % (s, i))
            with open(mf, 'w') as fh:
                fh.write(mp.text())
            files[mf], mnames[mf] = s, name
        nmut[s] = len(ms)
        counts['mutants'] += len(ms)
    res = check_batch(cfg, list(files))
    fails, logs = [], []
    seed_fails = {s: [] for s in batch}
    for f, s in files.items():
        ok, why = res.get(f, (False, 'no result'))
        why = why.replace(work + os.sep, '')
        if not ok and f in mnames and not why.startswith('mutant '):  # a crash or a hang
            why = 'mutant %s (%s): %s' % (mnames[f], os.path.basename(f), why)
        if not ok:
            os.makedirs(cfg['keep'], exist_ok=True)
            shutil.copy(f, os.path.join(cfg['keep'], os.path.basename(f)))
            fails.append((s, why))
            seed_fails[s].append(why)
        os.unlink(f)
    for s in batch:
        sf = seed_fails[s]
        logs.append({'seed': s, 'mode': modes[s], 'casts': casts[s], 'ok': not sf,
                     'why': sf[0] if sf else '', 'mutants': nmut[s], 'failed': len(sf)})
    return fails, logs


def run_batches(args, one_batch, counts, prefix):
    """One job's loop: ARGS = (cfg, k, deadline); ONE_BATCH(cfg, work, seeds, COUNTS) on job
    K's seeds, a batch at a time, until they or the time run out, in a temporary directory
    named PREFIX...; each batch's (seeds, failures, log records) goes on cfg['queue'].
    Returns (COUNTS, failures [(seed, why)])."""
    cfg, k, deadline = args
    fails = []
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        it = job_seeds(cfg['a'], cfg['b'], k, cfg['jobs'], cfg['batch'])
        while time.time() < deadline:
            batch = [s for _, s in zip(range(cfg['batch']), it)]
            if not batch:
                break
            bfails, logs = one_batch(cfg, work, batch, counts)
            fails += bfails
            cfg['queue'].put((len(batch), bfails, logs))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return counts, fails


def job(args):
    """One job of uir-bulkdiff batches; counts {'general': G, 'kernel': K, 'mutants': M}."""
    return run_batches(args, run_one_batch, {'general': 0, 'kernel': 0, 'mutants': 0}, 'uir-bulk-')


def job_seeds(a, b, k, jobs, batch):
    """Job K's seeds: batches of BATCH, dealt round robin (open when B is None)."""
    s = a + k * batch
    while b is None or s <= b:
        for x in range(s, s + batch):
            if b is not None and x > b:
                return
            yield x
        s += jobs * batch


def report(queue, njobs, total, t0, log, name='bulk', step=1000):
    """Prints failures as they come and progress every ~STEP seeds, until NJOBS Nones."""
    done = nfail = 0
    next_mark = step
    finished = 0
    while finished < njobs:
        item = queue.get()
        if item is None:
            finished += 1
            continue
        n, fails, logs = item
        done += n
        for s, why in fails:
            nfail += 1
            print('FAIL seed %d: %s' % (s, why), flush=True)
        if log:
            for r in logs:
                log.write(json.dumps(r) + '\n')
            log.flush()
        if done >= next_mark:
            dt = time.time() - t0
            print('%s: %d%s seeds done, %.2f programs/s, %d failed' %
                  (name, done, '/%d' % total if total else '', done / dt if dt else 0, nfail), flush=True)
            while next_mark <= done:
                next_mark += step


def worker(args):
    fn, cfg = args[0], args[1]
    try:
        return fn(args[1:])
    finally:
        cfg['queue'].put(None)


def run_jobs(fn, cfg, deadline, total, t0, log_path, name='bulk', step=1000):
    """Runs FN((CFG, K, DEADLINE)) for each job K < cfg['jobs'] in a pool of processes; a
    job puts (seeds done, [(seed, why)], [log record]) on cfg['queue'] after each batch,
    which report() prints (and writes to LOG_PATH, JSON lines) as they come. Returns the
    jobs' results in order."""
    cfg['queue'] = multiprocessing.Manager().Queue()
    log = open(log_path, 'a') if log_path else None
    try:
        with multiprocessing.Pool(cfg['jobs']) as pool:
            pending = pool.map_async(worker, [(fn, cfg, k, deadline) for k in range(cfg['jobs'])])
            report(cfg['queue'], cfg['jobs'], total, t0, log, name, step)
            return pending.get()
    finally:
        if log:
            log.close()


def seed_args(ap, batch, keep):
    """The options of a bulk run: --seeds --jobs --batch (default BATCH) --time --log --keep
    (default KEEP)."""
    ap.add_argument('--seeds', required=True, help='A..B inclusive, or A.. with --time')
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--batch', type=int, default=batch)
    ap.add_argument('--time', type=float, default=None)
    ap.add_argument('--log')
    ap.add_argument('--keep', default=keep)


def seed_range(ap, o):
    """(A, B) of --seeds (B None: open), after checking the options of seed_args."""
    a, b = parse_seeds(o.seeds)
    if b is None and o.time is None:
        ap.error('open seeds A.. need --time')
    if o.jobs < 1 or o.batch < 1:
        ap.error('--jobs and --batch are at least 1')
    return a, b


def main(argv):
    ap = argparse.ArgumentParser(description='bulk differential runs through uir-bulkdiff')
    ap.add_argument('--bulkdiff', required=True)
    seed_args(ap, 200, '/tmp/uir-bulk')
    ap.add_argument('--threads', type=int, default=4)
    ap.add_argument('--jit-threads', type=int, default=2)
    ap.add_argument('--mutants', type=int, default=3, help='mutants checked per seed (3; 0: none)')
    ap.add_argument('--casts', choices=['all', 'none'], default=None,
                    help='cast runs in every seed or in none (default: as uirgen draws them)')
    o = ap.parse_args(argv)
    a, b = seed_range(ap, o)
    probe = subprocess.run([o.bulkdiff, '-'], input='', capture_output=True, text=True)
    if probe.returncode == 64:
        print('bulk: skipped: ' + (probe.stderr.strip().splitlines() or ['uir-bulkdiff exit 64'])[0])
        return 77
    t0 = time.time()
    deadline = t0 + o.time if o.time is not None else float('inf')
    cfg = {'bulkdiff': os.path.abspath(o.bulkdiff), 'batch': o.batch, 'keep': o.keep,
           'threads': o.threads, 'jit_threads': o.jit_threads,
           'a': a, 'b': b, 'jobs': o.jobs, 'mutants': o.mutants,
           'casts': None if o.casts is None else o.casts == 'all'}
    total = b - a + 1 if b is not None else None
    results = run_jobs(job, cfg, deadline, total, t0, o.log)
    gen = sum(c['general'] for c, _ in results)
    ker = sum(c['kernel'] for c, _ in results)
    nmut = sum(c['mutants'] for c, _ in results)
    nfail = sum(len(f) for _, f in results)
    ncast = sum(c.get('casts', 0) for c, _ in results)
    print('bulk: %d programs (general %d, kernel form %d, %d with cast runs), %d mutants, %d failed, %.0f s' %
          (gen + ker, gen, ker, ncast, nmut, nfail, time.time() - t0))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
