#!/usr/bin/env python3
"""gen_npy_seeds.py - writes the seed corpus of the .npy fuzz target (tests/fuzz/fuzz_npy.c).

Usage: gen_npy_seeds.py DIR

Small valid files (every buffer dtype, versions 1.0/2.0/3.0, shapes (), (n,), (2, 3), keys
in other orders, Python 2 'L' suffixes, padding variants) and invalid ones (bad magic,
version 4.0, truncated header and data, fortran_order True, wrong dtype, big-endian,
shape overflow, repeated and unknown keys, text after the dictionary, huge header length).
No numpy needed: the files are written byte by byte, as numpy would write them.
"""
import os
import struct
import sys

DTYPES = {  # descr: (struct code, sample values)
    "|b1": ("B", [0, 1, 2, 255]),
    "|i1": ("b", [0, -1, 127, -128]),
    "|u1": ("B", [0, 1, 200, 255]),
    "<i4": ("<i", [0, -1, 2**31 - 1, -2**31]),
    "<u4": ("<I", [0, 1, 2**32 - 1, 7]),
    "<i8": ("<q", [0, -1, 2**63 - 1, -2**63]),
    "<u8": ("<Q", [0, 1, 2**64 - 1, 9]),
    "<f4": ("<f", [0.0, -0.0, float("inf"), float("nan")]),
    "<f8": ("<d", [1.5, -2.25, float("-inf"), float("nan")]),
}


def npy(header_dict, data=b"", version=1, pad=True, hlen=None):
    """A .npy file: magic, version, header length, header text, data."""
    text = header_dict.encode("latin-1")
    pre = 10 if version == 1 else 12
    if pad:
        total = pre + len(text) + 1
        text += b" " * ((64 - total % 64) % 64) + b"\n"
    n = len(text) if hlen is None else hlen
    if version == 1:
        head = b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", n & 0xFFFF)
    else:
        head = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", n)
    return head + text + data


def dict_text(descr, shape, fortran="False", order=("descr", "fortran_order", "shape")):
    parts = {
        "descr": "'descr': '%s'" % descr,
        "fortran_order": "'fortran_order': %s" % fortran,
        "shape": "'shape': %s" % shape,
    }
    return "{" + ", ".join(parts[k] for k in order) + ", }"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "npy_seeds"
    os.makedirs(out, exist_ok=True)
    files = {}
    for descr, (code, vals) in DTYPES.items():
        name = descr[1:]
        data = b"".join(struct.pack(code, v) for v in vals)
        files["ok_%s_4" % name] = npy(dict_text(descr, "(4,)"), data)
        files["ok_%s_2x2" % name] = npy(dict_text(descr, "(2, 2)"), data)
        files["ok_%s_scalar" % name] = npy(dict_text(descr, "()"), data[: len(data) // 4])
        files["ok_%s_v2" % name] = npy(dict_text(descr, "(4,)"), data, version=2)
        files["bad_%s_trunc" % name] = npy(dict_text(descr, "(4,)"), data[:-1])
        files["bad_%s_fortran" % name] = npy(dict_text(descr, "(2, 2)", "True"), data)
        if descr[0] == "<" and descr[2] != "1":
            files["bad_%s_big" % name] = npy(dict_text(">" + descr[1:], "(4,)"), data)
    files["ok_f4_empty"] = npy(dict_text("<f4", "(0,)"))
    files["ok_f4_2x3"] = npy(dict_text("<f4", "(2, 3)"), b"\0" * 24)
    files["ok_f4_2x3_comma"] = npy(dict_text("<f4", "(2, 3,)"), b"\0" * 24)
    files["ok_f4_long"] = npy(dict_text("<f4", "(3L,)"), b"\0" * 12)
    files["ok_f4_v3"] = npy(dict_text("<f4", "(1,)"), b"\0" * 4, version=3)
    files["ok_f4_order"] = npy(dict_text("<f4", "(1,)", order=("shape", "descr", "fortran_order")),
                               b"\0\0\x80\x3f")
    files["ok_f4_nopad"] = npy(dict_text("<f4", "(1,)").replace(", }", "}"), b"\0" * 4, pad=False)
    files["ok_u1_eq"] = npy(dict_text("=u1", "(2,)"), b"\1\2")
    files["ok_b1_big"] = npy(dict_text(">b1", "(2,)"), b"\1\0")
    files["ok_f8_trailing"] = npy(dict_text("<f8", "(1,)"), b"\0" * 8 + b"extra bytes")
    files["ok_dq"] = npy('{"descr": "<i4", "fortran_order": False, "shape": (1,)}', b"\1\0\0\0")
    files["bad_magic"] = b"\x93NUMPX\x01\x00\x10\x00{}" + b" " * 14
    files["bad_version4"] = npy(dict_text("<f4", "(1,)"), b"\0" * 4, version=4)
    files["bad_short"] = b"\x93NUMPY\x01"
    files["bad_empty"] = b""
    files["bad_hlen_huge"] = npy(dict_text("<f4", "(1,)"), b"\0" * 4, version=2, hlen=0xFFFFFFFF)
    files["bad_hlen_long"] = npy(dict_text("<f4", "(1,)"), b"", hlen=0xFFFF)
    files["bad_hlen_short"] = npy(dict_text("<f4", "(1,)"), b"\0" * 4, pad=False, hlen=20)
    files["bad_overflow"] = npy(dict_text("<f4", "(4611686018427387904, 4)"), b"\0" * 4)
    files["bad_bigdim"] = npy(dict_text("<f4", "(99999999999999999999999,)"), b"")
    files["bad_zero_big"] = npy(dict_text("<f4", "(0, 99999999999999999999999)"), b"")
    files["bad_int_not_tuple"] = npy(dict_text("<f4", "(3)"), b"\0" * 12)
    files["bad_neg"] = npy(dict_text("<f4", "(-3,)"), b"\0" * 12)
    files["bad_repeat"] = npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}")
    files["bad_unknown"] = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}")
    files["bad_missing"] = npy("{'descr': '<f4', 'shape': (1,)}", b"\0" * 4)
    files["bad_after"] = npy(dict_text("<f4", "(1,)") + " x", b"\0" * 4)
    files["bad_structured"] = npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}")
    files["bad_escape"] = npy("{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,)}")
    files["bad_unterminated"] = npy("{'descr': '<f4", pad=False)
    files["bad_longkey"] = npy("{'" + "k" * 40 + "': 1}")
    files["bad_longdescr"] = npy("{'descr': '" + "<" * 40 + "', 'fortran_order': False, 'shape': (1,)}")
    files["bad_nodict"] = npy("[1, 2]")
    files["bad_truefalse"] = npy("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}")
    for name, blob in sorted(files.items()):
        with open(os.path.join(out, name + ".npy"), "wb") as f:
            f.write(blob)
    print("%d seed files in %s" % (len(files), out))


if __name__ == "__main__":
    main()
