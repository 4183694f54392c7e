"""Writes malformed .npy files (and one good one) into the directory given,
without numpy: the header and data bytes by hand."""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def header(text, version=1):
    pad = 64 - (len(text) + 1 + (10 if version == 1 else 12)) % 64
    text = (text + " " * (pad % 64) + "\n").encode()
    length = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text


def write(name, data):
    with open(os.path.join(out, name + ".npy"), "wb") as f:
        f.write(data)


def f32(shape, descr="<f4", fortran=False):
    return header("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" %
                  (descr, fortran, shape))


four = struct.pack("<4f", 1, 2, 3, 4)
good = f32("(4,)") + four
write("good", good)
write("truncated", good[:-5])
write("truncated_header", good[:20])
write("bad_magic", b"\x93NUMPZ" + good[6:])
write("empty", b"")
write("int8", f32("(4,)", "|i1") + b"\x01" * 4)
write("complex", f32("(4,)", "<c8") + b"\x00" * 32)
write("big_endian", f32("(4,)", ">f4") + four)
write("fortran", f32("(2, 2)", fortran=True) + four)
write("huge_header", good[:8] + struct.pack("<H", 65535) + good[10:])
write("huge_header_v2",
      b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{'descr'")
write("overflow", f32("(4294967296, 4294967296, 16)"))
write("negative", f32("(-4,)"))
write("huge_dim", f32("(99999999999999999999999,)"))
write("unterminated", b"\x93NUMPY\x01\x00" + struct.pack("<H", 30) +
      b"{'descr': '<f4', 'fortran_ord")
