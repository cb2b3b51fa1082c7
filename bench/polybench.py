#!/usr/bin/python3
"""PolyBench/C kernels written as a user writes them in .uir (bench/polybench/NAME.uir, the
loops of PolyBench's kernel in its order, LARGE sizes, f64) against PolyBench's own C built
with gcc -O3 (PolyBench's reference flags: no -march, one thread).

    bench/polybench.py [--uir build/src/uir] [--polybench DIR] [--runs 3] [KERNEL ...]

DIR is an unpacked PolyBench/C 4.2.1 tree (default $POLYBENCH; the release tarball, or the
PolyBenchC-4.2.1 repository on GitHub); each .uir names its
kernel's folder and output arrays on a line `# polybench: FOLDER ARRAY...`. An ARRAY may
end in `:lower` or `:upper` where PolyBench's print_array prints only that triangle of a
square array, the diagonal included (cholesky's A, nussinov's table): the .uir buffer is
the whole array, and only that triangle is compared. Arrays of PolyBench's `int` kernels
(floyd-warshall, nussinov) are `i32` buffers, compared by value.

For each kernel: PolyBench's C is built twice, once with -DPOLYBENCH_TIME (it prints the
kernel's seconds) and once with -DPOLYBENCH_DUMP_ARRAYS and bench/polybench/pb_fprintf.c,
which turns its dump into exact hex floats; `uir run --dump` at 1 thread and at the default
thread count must give every output array's bits (column bits). Then RUNS rounds, each
running PolyBench's C, `uir run --threads 1` and `uir run` (default threads) once,
interleaved. Columns, medians of the rounds, in ms: PolyBench's kernel time; uir's
`execution` (from --time; it includes the .uir's own initialisation loops, which
PolyBench leaves out of its time); the ratios uir / PolyBench at 1 and at N threads; and
the whole uir process (wall, `--hash` so that printing is not counted). The last line is
the geometric mean of each ratio column.
"""
import argparse
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def header(path):
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*polybench:\s*(\S+)\s+(.*)", line)
            if m:
                return m.group(1), m.group(2).split()
    sys.exit(f"{path}: no '# polybench: FOLDER ARRAY...' line")


def build(pb, folder, out, extra):
    name = os.path.basename(folder)
    src = os.path.join(pb, folder, name + ".c")
    cmd = ["gcc", "-O3", "-I", os.path.join(pb, "utilities"), "-I", os.path.join(pb, folder),
           os.path.join(pb, "utilities", "polybench.c"), src, "-o", out, "-lm"] + extra
    subprocess.run(cmd, check=True)


def pb_dump(binary):
    err = subprocess.run([binary], capture_output=True, text=True, check=True).stderr
    arrays = {}
    for m in re.finditer(r"begin dump: (\w+)(.*?)end   dump: \1", err, re.S):
        # "%d " of the int kernels prints decimal, pb_fprintf's "%a " hex floats
        arrays[m.group(1)] = [float.fromhex(t) if "x" in t or "n" in t else int(t) for t in m.group(2).split()]
    return arrays


def npy(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY"
    hlen = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if data[6] == 1 else 12) + hlen
    hdr = data[:start].decode("latin1")
    code = "d" if "'<f8'" in hdr else "i" if "'<i4'" in hdr else None
    assert code, hdr
    n = (len(data) - start) // struct.calcsize(code)
    return struct.unpack(f"<{n}{code}", data[start:])


def bits(vals):
    if all(isinstance(v, int) for v in vals):
        return struct.pack(f"<{len(vals)}q", *vals)
    return struct.pack(f"<{len(vals)}d", *vals)


def triangle(vals, part):
    """The elements of a square array that PolyBench prints, in its order."""
    if not part:
        return vals
    n = math.isqrt(len(vals))
    assert n * n == len(vals)
    if part == "lower":
        return [vals[i * n + j] for i in range(n) for j in range(i + 1)]
    assert part == "upper", part
    return [vals[i * n + j] for i in range(n) for j in range(i, n)]


def run_uir(uir, prog, threads, extra=()):
    t0 = time.monotonic()
    r = subprocess.run([uir, "run", "--time", "--hash"] + (["--threads", str(threads)] if threads else [])
                       + list(extra) + [prog], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode:
        sys.exit(f"uir run {prog}: exit {r.returncode}\n{r.stderr}")
    m = re.search(r"execution ([0-9.]+) ms", r.stderr)
    return float(m.group(1)), wall * 1000, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uir", default="build/src/uir")
    ap.add_argument("--polybench", default=os.environ.get("POLYBENCH"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    if not a.polybench or not os.path.isfile(os.path.join(a.polybench, "utilities", "polybench.c")):
        ap.error("no PolyBench/C 4.2.1 tree: give --polybench DIR or set POLYBENCH")
    uir = os.path.abspath(a.uir)
    kernels = a.kernels or sorted(f[:-4] for f in os.listdir(os.path.join(HERE, "polybench")) if f.endswith(".uir"))
    nt = os.cpu_count()
    tmp = tempfile.mkdtemp()
    print(f"| kernel | bits | PolyBench gcc -O3 ms | uir t1 ms | uir t{nt} ms | t1/pb | t{nt}/pb | uir t{nt} process ms |")
    print("|---|---|---|---|---|---|---|---|")
    r1s, rns = [], []
    for k in kernels:
        prog = os.path.join(HERE, "polybench", k + ".uir")
        folder, outs = header(prog)
        tbin, dbin = os.path.join(tmp, k + ".time"), os.path.join(tmp, k + ".dump")
        build(a.polybench, folder, tbin, ["-DPOLYBENCH_TIME"])
        build(a.polybench, folder, dbin, ["-DPOLYBENCH_DUMP_ARRAYS", "-Dfprintf=pb_fprintf",
                                          os.path.join(HERE, "polybench", "pb_fprintf.c")])
        want = pb_dump(dbin)
        ok = True
        for t in (1, None):
            d = os.path.join(tmp, f"{k}.{t}")
            os.makedirs(d, exist_ok=True)
            run_uir(uir, prog, t, ["--dump", d])
            for o in outs:
                name, _, part = o.partition(":")
                if bits(triangle(npy(os.path.join(d, name + ".npy")), part)) != bits(want[name]):
                    ok = False
        pbt, u1, un, up = [], [], [], []
        for _ in range(a.runs):
            out = subprocess.run([tbin], capture_output=True, text=True, check=True).stdout
            pbt.append(float(out.split()[0]) * 1000)
            u1.append(run_uir(uir, prog, 1)[0])
            e, w, _ = run_uir(uir, prog, None)
            un.append(e)
            up.append(w)
        p, x1, xn = statistics.median(pbt), statistics.median(u1), statistics.median(un)
        r1s.append(x1 / p)
        rns.append(xn / p)
        print(f"| {k} | {'OK' if ok else 'DIFF'} | {p:.1f} | {x1:.1f} | {xn:.1f} | {x1 / p:.2f} | {xn / p:.2f} | {statistics.median(up):.0f} |", flush=True)
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f"| geometric mean | | | | | {g(r1s):.2f} | {g(rns):.2f} | |")


if __name__ == "__main__":
    main()
