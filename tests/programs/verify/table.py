#!/usr/bin/python3
"""Print the verify suite's table (docs/verify-suite.md) from the files and uir.

    tests/programs/verify/table.py [--uir PATH]

For every kernel under tests/programs/verify/ (rejected/ included) and tests/verify-unsound/:
its origin (read from the file's prose), the expected verdict (ok_* race-free, racy_* racy),
the original suite's verdict, and what `uir check`, `uir check --strict` and
`uir run --racecheck` say. Then the totals: precision (race-free kernels accepted / race-free
kernels) and soundness (racy kernels rejected / racy kernels), default and strict.
`repro_*` files under tests/verify-unsound/ are minimal reproductions of a soundness bug,
listed apart and not counted.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
UNSOUND = os.path.join(ROOT, "tests", "verify-unsound")

# The original suite's verdict for each kernel: GPUVerify `//pass` or `//xfail`, Faial's
# drf-*/racy-* naming. "variant" where the kernel changes the original's verdict on purpose.
ORIGINAL = {
    "ok_add_neighbour_barrier": "GPUVerify: verified",
    "ok_arraycopy_ragged": "GPUVerify: pass",
    "ok_atomic_histogram": "GPUVerify: pass",
    "ok_bitonic_xor_exchange": "GPUVerify: pass",
    "ok_blelloch_upsweep": "GPUVerify: pass",
    "ok_blockwise_ragged": "GPUVerify: pass",
    "ok_cav21_rounds": "Faial: drf",
    "ok_ctimesgid": "GPUVerify: pass",
    "ok_even_odd_fields": "GPUVerify: pass",
    "ok_first_block_only": "GPUVerify: pass",
    "ok_global_shift_in_block": "GPUVerify: pass",
    "ok_grid_stride_three_arrays": "GPUVerify: pass",
    "ok_induction_stride": "GPUVerify: pass",
    "ok_one_thread_write": "GPUVerify: pass",
    "ok_pairwise_even_add": "GPUVerify: pass",
    "ok_read_prefix": "Faial: drf",
    "ok_read_shifted_next_phase": "GPUVerify: pass",
    "ok_rotate_after_loops": "GPUVerify: pass",
    "ok_rotate_store": "GPUVerify: pass (warp-sync)",
    "ok_rows_guarded": "GPUVerify: pass",
    "ok_saxpy_guard": "Faial: drf",
    "ok_shift_write_next_phase": "GPUVerify: pass",
    "ok_transpose_tile": "Faial: pass (bank conflicts)",
    "ok_transposed_global_id": "Faial: drf",
    "ok_tree_reduce_halving": "GPUVerify: pass",
    "ok_triangle_strength_reduced": "GPUVerify: pass",
    "ok_warp_reduce_split": "Faial: drf",
    "ok_add_far_param": "GPUVerify: pass",
    "ok_const_table_guard": "GPUVerify: pass",
    "ok_guard_mod4_param": "Faial: drf",
    "ok_param_value_apart": "variant of an xfail",
    "ok_permutation_scatter": "GPUVerify: pass",
    "ok_transitive_closure": "GPUVerify: pass",
    "racy_add_near_param": "GPUVerify: xfail",
    "racy_atomic_and_read": "GPUVerify: xfail",
    "racy_block_ignores_grid": "GPUVerify: xfail; Faial: racy",
    "racy_cav21_missing_barrier": "Faial: racy",
    "racy_global_shift_unguarded": "GPUVerify: xfail",
    "racy_loop_index_guard": "GPUVerify: xfail",
    "racy_mutation_flag": "Faial: racy",
    "racy_param_value_collision": "GPUVerify: xfail",
    "racy_read_neighbour": "GPUVerify: xfail",
    "racy_read_prefix_overlap": "Faial: racy",
    "racy_shared_scalar": "GPUVerify: xfail; Faial: racy",
    "racy_shift_without_barrier": "GPUVerify: xfail",
    "racy_stride3_neighbour": "Faial: racy",
    "racy_tile_self_transpose": "GPUVerify: pass only with --warp-sync",
    "racy_warp_reduce_no_split": "Faial: racy",
    "racy_write_same_value": "GPUVerify: pass (benign race)",
    "racy_guard_under_block_bound": "variant of a pass",
}


def kernels():
    found = []
    for base, sub in ((HERE, True), (UNSOUND, False)):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(".uir"):
                    found.append(os.path.join(dirpath, f))
    return found


def origin(path):
    prose = []
    for line in open(path):
        if not line.startswith("#"):
            break
        prose.append(line[1:].strip())
    text = " ".join(prose)
    if "Minimal form" in text or "The same in" in text:
        return "reduction of racy_guard_under_block_bound"
    out, suite = [], None
    for m in re.finditer(r"\b(GPUVerify|Faial)\b|\b((?:testsuite|examples|Documentation|tutorial)/[\w./-]+)", text):
        if m.group(1):
            suite = m.group(1)
            continue
        ref = "%s %s" % (suite, m.group(2).rstrip(".,:"))
        if suite and ref not in out:
            out.append(ref)
    return "; ".join(out)


def check(uir, path, strict):
    cmd = [uir, "check"] + (["--strict"] if strict else []) + [path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0:
        return "accepts"
    m = re.search(r"error\[(E\d{4})\]", r.stderr)
    code = m.group(1) if m else "exit %d" % r.returncode
    if strict:
        return code
    first = r.stderr.split("error[", 2)
    first = first[1] if len(first) > 1 else r.stderr
    if "cannot decide" in first:
        return code + " (undecided)"
    if re.search(r"= (threads|thread|blocks|block|iterations|iteration) [a-z0-9_]+=", first):
        return code + " (pair)"
    return code


def racecheck(uir, path):
    r = subprocess.run([uir, "run", "--racecheck", path], capture_output=True, text=True)
    m = re.search(r"error\[E0504\]: race: (.*?), in one", r.stderr)
    if m:
        return "E0504: " + m.group(1)
    if r.returncode == 0:
        return "no race"
    m = re.search(r"error\[(E\d{4})\]", r.stderr)
    return m.group(1) if m else "exit %d" % r.returncode


def main():
    uir = os.path.join(ROOT, "build-me", "src", "uir")
    if "--uir" in sys.argv:
        uir = sys.argv[sys.argv.index("--uir") + 1]
    rows, repros = [], []
    for path in kernels():
        name = os.path.basename(path)[:-4]
        rel = os.path.relpath(path, ROOT)
        row = {
            "file": rel, "name": name, "origin": origin(path),
            "expected": "race-free" if name.startswith("ok_") else "racy",
            "original": ORIGINAL.get(name, ""),
            "check": check(uir, path, False), "strict": check(uir, path, True),
            "racecheck": racecheck(uir, path),
        }
        (repros if name.startswith("repro_") else rows).append(row)

    def table(rs, with_original=True):
        head = ["file", "origin", "expected"] + (["original"] if with_original else []) + \
               ["`check`", "`check --strict`", "`run --racecheck`"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rs:
            cells = ["`%s`" % r["file"].replace("tests/programs/verify/", "verify/")
                     .replace("tests/verify-unsound/", "verify-unsound/"),
                     r["origin"], r["expected"]] + ([r["original"]] if with_original else []) + \
                    [r["check"], r["strict"], r["racecheck"]]
            print("| " + " | ".join(cells) + " |")

    table(rows)
    free = [r for r in rows if r["expected"] == "race-free"]
    racy = [r for r in rows if r["expected"] == "racy"]
    acc = lambda rs, k: sum(1 for r in rs if r[k] == "accepts")
    print()
    print("| mode | precision (race-free accepted) | soundness (racy rejected) |")
    print("|---|---|---|")
    for label, k in (("default", "check"), ("`--strict`", "strict")):
        print("| %s | %d / %d | %d / %d |" % (label, acc(free, k), len(free),
                                              len(racy) - acc(racy, k), len(racy)))
    dyn_free = sum(1 for r in free if r["racecheck"] == "no race")
    dyn_racy = sum(1 for r in racy if r["racecheck"].startswith("E0504"))
    print("| `run --racecheck` | %d / %d (no race reported) | %d / %d (race reported) |"
          % (dyn_free, len(free), dyn_racy, len(racy)))
    if repros:
        print()
        print("Minimal reproductions of the soundness bug (not counted above):")
        print()
        table(repros, with_original=False)


if __name__ == "__main__":
    main()
