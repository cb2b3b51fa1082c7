#!/usr/bin/python3
"""check_times.py - the CPU time of `uir check` on every .uir under the given folders.

    bench/check_times.py [--uir build/src/uir] [--repeat N] [DIR ...]   (default: tests/programs)

Each program is checked N times (default 3) and its least CPU time (user + system, from
os.wait4, so a busy machine's waiting does not count) kept. Prints the distribution
(median, 90th and 99th percentile, maximum), how many programs took over 10 ms and over one
second, and the five slowest.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_time(argv):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--uir', default=os.path.join(HERE, '..', 'build', 'src', 'uir'))
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('dirs', nargs='*', default=[os.path.join(HERE, '..', 'tests', 'programs')])
    a = ap.parse_args()
    files = sorted(os.path.join(r, f) for d in a.dirs for r, _, fs in os.walk(d) for f in fs if f.endswith('.uir'))
    if not files:
        sys.exit('check_times.py: no .uir files')
    t = []
    for f in files:
        t.append((min(cpu_time([a.uir, 'check', f]) for _ in range(a.repeat)), f))
    t.sort()
    v = [x for x, _ in t]

    def pct(q):
        return v[min(len(v) - 1, int(q * len(v)))] * 1000

    print('%d programs: median %.1f ms, 90th percentile %.1f ms, 99th %.1f ms, max %.1f ms' %
          (len(v), pct(0.5), pct(0.9), pct(0.99), v[-1] * 1000))
    print('over 10 ms: %d; over 1 s: %d' % (sum(x > 0.01 for x in v), sum(x > 1 for x in v)))
    for x, f in t[-5:][::-1]:
        print('  %7.1f ms  %s' % (x * 1000, os.path.relpath(f)))


if __name__ == '__main__':
    main()
