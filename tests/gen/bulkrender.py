#!/usr/bin/env python3
"""bulkrender.py - bulk differential runs of generated programs through the code generators
(tests/gen/README.md): `render` (C) compiled by cc, `render-cuda` in the CUDA emulator, and `ptx` under
ptxas, each against the reference interpreter.

    bulkrender.py --uir PATH --seeds A..B [--jobs N] [--batch K] [--time S] [--log FILE]
                  [--keep DIR] [--timeout S] [--cc CC] [--cxx CXX] [--ptxas PATH]
                  [--strict-merge] [--opt LEVELS] [--casts all|none]

uir-bulkdiff (bulk.py) checks the interpreter and the JIT in one process; the code
generators need a compiler run per program, and that is what costs (gcc -O2 on a generated
program: about 0.35 s, as long for a trivial one; the emulator's C++ about 0.85 s, 0.35 s
of it the emulator header).
This script shares what can be shared, a batch of K programs (default 40) at a time:

  reference  `uir run --engine interp --threads 1 FILE`: standard output and exit status
  c          `uir render --main`; the batch's programs merged into ONE translation unit
             by cbatch.py (the runtime support they share compiled once, each program's
             own names renamed), compiled with CC -std=c11 -O2 -pthread; a program that
             does not merge, or a unit that does not compile, is compiled alone with
             -Dmain=uir_main_N -Dkernel=uir_kernel_N (render's only external names)
  cuda-emu   `uir render-cuda --main` for every program in kernel form (exit 2 otherwise):
             the batch's programs in ONE C++ translation unit, each inside its own
             namespace (`namespace uir_pN { #include "kN.cu" }`), compiled with
             CXX -std=c++17 -O2 -pthread -ffp-contract=off -include runtime/uir_cuda_emu.h,
             so the emulator header is compiled once a batch; when that unit does not
             compile, each program alone, to name the culprits
  ptxas      `uir ptx` (kernel form), which ptxas -arch=sm_90 must assemble

--opt 0,2 takes the C and C++ compiles through -O0 and -O2 in turn, a batch at a time
(0,0,2: two batches at -O0 for one at -O2); the default is -O2 alone. Exactness must
hold at every level: -O2 is where the optimizer would exploit undefined behaviour in the
rendered code, -O0 costs about half as much and still runs the code as written.

Every fourth seed also gets difftest.py's fault variant (a load past the end of a const
buffer at an offset that comes from a load), taken through the same back ends: each must
stop as run does (exit 1, nothing printed, the same E0601 diagnostic).

Every C and C++ object of a batch is linked into one driver, which runs each program in a
child process of its own (fork; standard output and error to files; an alarm after
--timeout seconds), so an exit, a fault or a crash ends that program alone. A program
passes when each back end that applies gives the reference's exit status, standard output
(run's format: every buffer, every value) and standard error byte for byte, and ptxas
accepts its PTX. A failing program is copied to --keep (default /tmp/uir-bulkrender) as
seedN.uir (seedN.fault.uir) and printed as `FAIL seed N: BACKEND: why`; shrink it with
`difftest.py --seeds N..N` (same generator). Progress every ~500 seeds; the last line is
`bulkrender: N programs (...), D fault variants (...), F failed, T s`. Exit 1 when any
failed.
Standard library only.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import cbatch  # noqa: E402
import difftest  # noqa: E402
import uirgen  # noqa: E402
from bulk import run_batches, run_jobs, seed_args, seed_range  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
STD_HEADERS = ['math.h', 'pthread.h', 'stdint.h', 'stdio.h', 'stdlib.h', 'string.h', 'unistd.h']

DRIVER = r'''
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
%(decls)s
static const struct { const char *name; int (*fn)(void); } progs[] = {
%(table)s
};
/* driver DIR TIMEOUT: runs every program in a child; prints "NAME STATUS" (a negative
 * status: killed by that signal), the program's standard output in DIR/NAME.out, its
 * standard error in DIR/NAME.err */
int main(int argc, char **argv)
{
	if (argc != 3)
		return 64;
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%%s/%%s.out", argv[1], progs[i].name);
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 70;
		if (pid == 0) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			snprintf(path, sizeof path, "%%s/%%s.err", argv[1], progs[i].name);
			int efd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || efd < 0)
				_exit(70);
			dup2(fd, 1);
			dup2(efd, 2);
			close(fd);
			close(efd);
			alarm((unsigned)atoi(argv[2]));
			exit(progs[i].fn());
		}
		int st = 0;
		waitpid(pid, &st, 0);
		printf("%%s %%d\n", progs[i].name, WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	}
	return 0;
}
'''


def run(cmd, timeout, cwd=None):
    """difftest.run (its process group killed on a timeout) as (rc, stdout bytes, stderr
    text); rc None when it timed out."""
    r = difftest.run(cmd, timeout, cwd)
    err = r.err.decode(errors='replace')
    return r.rc, r.out, err if r.rc is not None else 'timed out after %d s' % timeout


def c_flags(cfg):
    """The C compiler's flags for the batch's optimization level cfg['opt']."""
    return ['-std=c11', '-O' + cfg['opt'], '-pthread']


def opt_level(cfg, batch):
    """The optimization level of BATCH: --opt's levels in turn, batch by batch of a job."""
    k = (batch[0] - cfg['a']) // cfg['batch'] // cfg['jobs']
    return cfg['opts'][k % len(cfg['opts'])]


def first_line(err):
    for line in err.splitlines():
        if 'error' in line:
            return line.strip()[:300]
    return (err.strip().splitlines() or [''])[0][:300]


def status_text(rc):
    return difftest.Res(rc, b'', b'').what()


def cuda_unit(work, seeds):
    """The C++ translation unit holding the CUDA programs of SEEDS, each in its namespace."""
    lines = ['#include <%s>' % h for h in STD_HEADERS]
    for s in seeds:
        lines += ['namespace uir_p%s {' % s, '#include "%s"' % os.path.join(work, 'k%s.cu' % s), '}',
                  'extern "C" int uir_entry_%s(void) { return uir_p%s::main(); }' % (s, s)]
    return '\n'.join(lines) + '\n'


def compile_cuda(cfg, work, seeds, fails):
    """Compiles the CUDA programs of SEEDS (one unit, or one each to find a bad one).
    Returns (objects, seeds compiled); failures go to FAILS {seed: why}."""
    cxx = cfg['cxx'] + ['-std=c++17', '-O' + cfg['opt'], '-pthread', '-ffp-contract=off', '-include', cfg['emu'], '-c']
    if not seeds:
        return [], []
    src = os.path.join(work, 'cuda_all.cc')
    with open(src, 'w') as fh:
        fh.write(cuda_unit(work, seeds))
    obj = os.path.join(work, 'cuda_all.o')
    rc, _, err = run(cxx + ['-o', obj, src], 600)
    if rc == 0:
        return [obj], list(seeds)
    objs, ok = [], []
    for s in seeds:
        one = os.path.join(work, 'cuda_%s.cc' % s)
        with open(one, 'w') as fh:
            fh.write(cuda_unit(work, [s]))
        o = one[:-3] + '.o'
        rc, _, err = run(cxx + ['-o', o, one], 300)
        if rc == 0:
            objs.append(o)
            ok.append(s)
        else:
            fails[s] = 'cuda-emu: c++: ' + first_line(err)
    return objs, ok


def compile_c_alone(cfg, work, u):
    """Unit U's C as a translation unit of its own; (object or None, error)."""
    c = os.path.join(work, 'c%s.c' % u)
    o = c[:-2] + '.o'
    rc, _, err = run(cfg['cc'] + c_flags(cfg) + ['-Dmain=uir_main_' + u, '-Dkernel=uir_kernel_' + u,
                                            '-c', '-o', o, c], 300)
    return (o if rc == 0 else None), err


def c_alone(cfg, work, u, ref):
    """Says whether unit U's C, built alone as render prints it, gives REF (rc, out, err):
    a difference seen only in a merged unit would be cbatch's, not render's."""
    c = os.path.join(work, 'c%s.c' % u)
    exe = c[:-2] + '.alone'
    rc, _, err = run(cfg['cc'] + c_flags(cfg) + ['-o', exe, c, '-lm'], 300)
    if rc != 0:
        return 'alone: cc: ' + first_line(err)
    rc, out, err = run([exe], cfg['timeout'], cwd=os.path.join(work, 's' + u))
    if (rc, out, err.encode()) == ref:
        return 'built alone it agrees: a cbatch problem'
    return 'the same built alone'


def compile_c(cfg, work, seeds, fails):
    """Compiles the C programs of SEEDS: one unit made by cbatch.Merger, or, when a program
    does not merge or the unit does not compile, a unit a program. Returns (objects, seeds
    compiled); failures go to FAILS {seed: why}."""
    m = cbatch.Merger()
    merged, alone = [], []
    for s in seeds:
        with open(os.path.join(work, 'c%s.c' % s)) as fh:
            text = fh.read()
        try:
            m.add(text, s)
            merged.append(s)
        except ValueError as e:
            if cfg['strict_merge']:
                fails[s] = 'c: cbatch: ' + str(e)
                continue
            alone.append(s)
    objs, ok = [], []
    if merged:
        src = os.path.join(work, 'c_all.c')
        with open(src, 'w') as fh:
            fh.write(m.text())
        rc, _, err = run(cfg['cc'] + c_flags(cfg) + ['-c', '-o', src[:-2] + '.o', src], 900)
        if rc == 0:
            objs.append(src[:-2] + '.o')
            ok += merged
        elif cfg['strict_merge']:
            for s in merged:
                fails[s] = 'c: the merged unit does not compile: ' + first_line(err)
        else:
            alone = merged + alone
    for s in sorted(alone):
        o, err = compile_c_alone(cfg, work, s)
        if o:
            objs.append(o)
            ok.append(s)
        else:
            fails[s] = 'c: cc: ' + first_line(err)
    return objs, ok


def prepare(cfg, work, u, text, fails, has):
    """Writes unit U (a program) as WORK/sU/prog.uir, runs the reference and renders it.
    Returns (reference (rc, out, err) or None, has C, has CUDA); a failure goes to FAILS."""
    uir, t = cfg['uir'], cfg['timeout']
    # each program as prog.uir in a directory of its own, named so in the commands: the
    # file name render writes into its messages is then the same in every program
    d = os.path.join(work, 's' + u)
    os.makedirs(d)
    f = 'prog.uir'
    with open(os.path.join(d, f), 'w') as fh:
        fh.write(text)
    rc, out, err = run([uir, 'run', '--engine', 'interp', '--threads', '1', f], t, cwd=d)
    if rc is None or rc < 0 or rc == 70:
        fails[u] = 'reference (interp) ' + status_text(rc) + ': ' + first_line(err)
        return None, False, False
    ref = (rc, out, err.encode())
    rc, _, err = run([uir, 'render', '--main', '-o', os.path.join(work, 'c%s.c' % u), f], t, cwd=d)
    if rc != 0:
        fails[u] = 'render %s: %s' % (status_text(rc), first_line(err))
        return ref, False, False
    rc, _, err = run([uir, 'render-cuda', '--main', '-o', os.path.join(work, 'k%s.cu' % u), f], t, cwd=d)
    if rc == 2:
        return ref, True, False  # not in kernel form
    if rc != 0:
        fails[u] = 'render-cuda %s: %s' % (status_text(rc), first_line(err))
        return ref, True, False
    ptx = os.path.join(work, 'k%s.ptx' % u)
    rc, _, err = run([uir, 'ptx', '-o', ptx, f], t, cwd=d)
    if rc == 64:
        return ref, True, True  # a uir built without the LLVM back end: no `ptx`
    if rc != 0:
        fails[u] = 'ptx %s: %s' % (status_text(rc), first_line(err))
    elif cfg['ptxas']:
        rc, _, err = run([cfg['ptxas'], '-arch=sm_90', '-o', ptx + '.cubin', ptx], t)
        if rc != 0:
            fails[u] = 'ptxas %s: %s' % (status_text(rc), first_line(err))
        else:
            has[u].append('ptxas')
    return ref, True, True


def drive(cfg, work, objs, entries, fails):
    """Links OBJS with a driver for ENTRIES [(name, function, unit)] and runs it. Returns
    {name: exit status}."""
    t = cfg['timeout']
    drv = os.path.join(work, 'driver.c')
    with open(drv, 'w') as fh:
        fh.write(DRIVER % {'decls': '\n'.join('int %s(void);' % fn for _, fn, _ in entries),
                           'table': '\n'.join('\t{"%s", %s},' % (n, fn) for n, fn, _ in entries)})
    exe = os.path.join(work, 'driver')
    rc, _, err = run(cfg['cc'] + ['-std=c11', '-O2', '-c', '-o', drv + '.o', drv], 120)
    if rc == 0:
        rc, _, err = run(cfg['cxx'] + ['-pthread', '-o', exe, drv + '.o'] + objs + ['-lm'], 300)
    if rc != 0:
        for _, _, u in entries:
            fails.setdefault(u, 'driver: ' + first_line(err))
        return {}
    outdir = os.path.join(work, 'out')
    os.makedirs(outdir)
    _, out, _ = run([exe, outdir, str(t)], t * len(entries) + 60)
    results = {}
    for line in out.decode(errors='replace').splitlines():
        name, _, st = line.partition(' ')
        results[name] = int(st)
    return results


def differs(ref, got):
    """None when GOT (rc, out, err) is REF, else a short reason."""
    if got[0] != ref[0]:
        return '%s, the reference exit %d' % (status_text(got[0]), ref[0])
    for what, x, y in (('output', ref[1], got[1]), ('standard error', ref[2], got[2])):
        if x != y:
            a, b = x.decode(errors='replace').split('\n'), y.decode(errors='replace').split('\n')
            d = next(((p, q) for p, q in zip(a, b) if p != q), None)
            return '%s differs: %s' % (what, 'reference %r, got %r' % (d[0][:150], d[1][:150]) if d else 'in length')
    return None


def run_batch(cfg, work, batch, counts):
    """Generates, renders, compiles and runs the seeds of BATCH, and for every fourth seed
    a fault variant (difftest.fault_variant: a load past the end of a const buffer at an
    offset that comes from a load, which every back end must report as run does: exit 1,
    E0601 on standard error, nothing printed). Returns (failures [(seed, why)], log
    records)."""
    cfg = dict(cfg, opt=opt_level(cfg, batch))
    for f in os.listdir(work):
        p = os.path.join(work, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
    fails, modes, ref, has, units = {}, {}, {}, {}, []
    c_units, cu_units = [], []
    for s in batch:
        prog, info = uirgen.generate(s, casts=cfg.get('casts'))
        modes[s] = info.mode
        todo = [(str(s), prog)]
        fv = difftest.fault_variant(prog, info, s) if s % 4 == 0 else None
        if fv is not None:
            todo.append(('%df' % s, fv))
        for u, p in todo:
            units.append((u, s))
            has[u] = []
            r, c, k = prepare(cfg, work, u, p.text(), fails, has)
            if r is not None:
                ref[u] = r
            if c and u not in fails:
                c_units.append(u)
            if k and u not in fails:
                cu_units.append(u)
    objs, c_ok = compile_c(cfg, work, [u for u in c_units if u not in fails], fails)
    entries = [('c' + u, 'uir_main_' + u, u) for u in c_ok]
    cu_objs, cu_ok = compile_cuda(cfg, work, [u for u in cu_units if u not in fails], fails)
    objs += cu_objs
    entries += [('k' + u, 'uir_entry_' + u, u) for u in cu_ok if u not in fails]
    results = drive(cfg, work, objs, entries, fails) if entries else {}
    for name, _, u in entries:
        if u in fails:
            continue
        be = 'c' if name[0] == 'c' else 'cuda-emu'
        if name not in results:
            fails[u] = '%s: no result from the driver' % be
            continue
        got = [results[name]]
        for ext in ('.out', '.err'):
            with open(os.path.join(work, 'out', name + ext), 'rb') as fh:
                got.append(fh.read())
        why = differs(ref[u], tuple(got))
        if why is None:
            has[u].append(be)
            continue
        fails[u] = '%s %s' % (be, why)
        if be == 'c':
            fails[u] += ' (%s)' % c_alone(cfg, work, u, ref[u])
    logs, out = [], []
    for s in batch:
        counts[modes[s]] += 1
        counts['O' + cfg['opt']] += 1
        mine = [u for u, x in units if x == s]
        for u in mine:
            for be in has[u]:
                counts[be if u == str(s) else 'fault-' + be] += 1
            counts['fault'] += u != str(s)
            if u in fails:
                name = 'seed%s.uir' % s if u == str(s) else 'seed%s.fault.uir' % s
                os.makedirs(cfg['keep'], exist_ok=True)
                shutil.copy(os.path.join(work, 's' + u, 'prog.uir'), os.path.join(cfg['keep'], name))
                out.append((s, fails[u] if u == str(s) else 'fault variant: ' + fails[u]))
        bad = [fails[u] for u in mine if u in fails]
        logs.append({'seed': s, 'mode': modes[s], 'ok': not bad, 'why': bad[0] if bad else '',
                     'backends': sorted(has[str(s)]), 'fault': len(mine) > 1, 'opt': cfg['opt']})
    return out, logs


def job(args):
    """One job of run_batch batches; counts programs by mode and by back end passed."""
    counts = {k: 0 for k in ('general', 'kernel', 'c', 'cuda-emu', 'ptxas', 'fault', 'fault-c',
                             'fault-cuda-emu', 'fault-ptxas')}
    counts.update({'O' + x: 0 for x in args[0]['opts']})
    return run_batches(args, run_batch, counts, 'uir-bulkrender-')


def main(argv):
    ap = argparse.ArgumentParser(description='bulk differential runs of the code generators')
    ap.add_argument('--uir', required=True)
    seed_args(ap, 40, '/tmp/uir-bulkrender')
    ap.add_argument('--timeout', type=int, default=60, help='seconds a program may run (60)')
    ap.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    ap.add_argument('--cxx', default=os.environ.get('CXX', 'c++'))
    ap.add_argument('--ptxas', default=os.environ.get('PTXAS', '/usr/local/cuda/bin/ptxas'))
    ap.add_argument('--strict-merge', action='store_true',
                    help='a C program that cbatch cannot merge, or a merged unit that does not '
                         'compile, fails (instead of being compiled alone)')
    ap.add_argument('--opt', default='2',
                    help='optimization levels of the C and C++ compiles, comma-separated, taken '
                         'in turn batch by batch (2; e.g. 0,2)')
    ap.add_argument('--casts', choices=['all', 'none'], default=None,
                    help="the generator's cast runs in every seed or in none (default: as uirgen draws them)")
    o = ap.parse_args(argv)
    a, b = seed_range(ap, o)
    opts = o.opt.split(',')
    if not all(x in ('0', '1', '2', '3', 's') for x in opts):
        ap.error('--opt takes levels 0 1 2 3 s, comma-separated')
    ptxas = o.ptxas if o.ptxas and os.access(o.ptxas, os.X_OK) else shutil.which(o.ptxas or 'ptxas')
    if not ptxas:
        print('bulkrender: no ptxas (set --ptxas): the PTX step stops at `uir ptx`', flush=True)
    t0 = time.time()
    deadline = t0 + o.time if o.time is not None else float('inf')
    cfg = {'uir': os.path.abspath(o.uir), 'batch': o.batch, 'keep': o.keep, 'timeout': o.timeout,
           'cc': o.cc.split(), 'cxx': o.cxx.split(), 'ptxas': ptxas, 'strict_merge': o.strict_merge,
           'emu': os.path.join(ROOT, 'runtime', 'uir_cuda_emu.h'), 'a': a, 'b': b, 'jobs': o.jobs,
           'opts': opts, 'casts': None if o.casts is None else o.casts == 'all'}
    results = run_jobs(job, cfg, deadline, b - a + 1 if b is not None else None, t0, o.log,
                       'bulkrender', 500)
    tot = {k: sum(c[k] for c, _ in results) for k in results[0][0]}
    nfail = sum(len(f) for _, f in results)
    print('bulkrender: %d programs (general %d, kernel form %d; c %d, cuda-emu %d, ptxas %d), '
          '%d fault variants (c %d, cuda-emu %d, ptxas %d), %d failed, %.0f s%s' %
          (tot['general'] + tot['kernel'], tot['general'], tot['kernel'], tot['c'], tot['cuda-emu'],
           tot['ptxas'], tot['fault'], tot['fault-c'], tot['fault-cuda-emu'], tot['fault-ptxas'],
           nfail, time.time() - t0,
           '' if len(opts) == 1 else '; by level: ' + ', '.join('-O%s %d' % (x, tot['O' + x]) for x in sorted(set(opts)))))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
