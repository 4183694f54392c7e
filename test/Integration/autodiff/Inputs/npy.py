"""Small .npy helper for the autodiff tests; needs no numpy.

  npy.py OUT.npy DTYPE SHAPE VALUES
      Writes OUT.npy. DTYPE is f32 or f64, SHAPE is like 2x3 (or "scalar"
      for rank 0), VALUES a comma-separated list in row-major order
      (anything float() accepts: 1, -0.5, -0.0, inf, nan); a single value
      is repeated to fill the shape.

  npy.py compare DIR_A DIR_B RTOL ATOL
      Compares DIR_A/out*.npy with DIR_B/out*.npy (as written by kiln-run
      --output-dir): same files, dtypes and shapes, and |a - b| <= ATOL +
      RTOL * |b| elementwise (NaN matches NaN). Prints one line per file;
      exits 1 on the first mismatch.
"""

import ast
import math
import os
import struct
import sys

FORMATS = {"<f4": ("f", 4), "<f8": ("d", 8), "<f2": ("e", 2), "|b1": ("?", 1)}


def write(path, dtype, shape_text, values_text):
    shape = [] if shape_text == "scalar" else [int(d) for d in shape_text.split("x")]
    count = math.prod(shape)
    values = [float(v) for v in values_text.split(",")]
    if len(values) == 1:
        values = values * count
    if len(values) != count:
        sys.exit(f"npy.py: {len(values)} values for shape {shape_text}")
    descr = {"f32": "<f4", "f64": "<f8"}[dtype]
    shape_repr = repr(tuple(shape))
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_repr}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<" + FORMATS[descr][0] * count, *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"npy.py: {path} is not a .npy file")
    if data[6] == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["descr"] == "<u2":
        sys.exit(f"npy.py: {path}: bf16 is not supported")
    code, size = FORMATS[header["descr"]]
    shape = tuple(header["shape"])
    count = math.prod(shape)
    body = data[start + length:start + length + count * size]
    return header["descr"], shape, struct.unpack("<" + code * count, body)


def compare(dir_a, dir_b, rtol, atol):
    names_a = sorted(n for n in os.listdir(dir_a) if n.endswith(".npy"))
    names_b = sorted(n for n in os.listdir(dir_b) if n.endswith(".npy"))
    if names_a != names_b or not names_a:
        sys.exit(f"npy.py: outputs differ: {names_a} vs {names_b}")
    for name in names_a:
        da, sa, a = read(os.path.join(dir_a, name))
        db, sb, b = read(os.path.join(dir_b, name))
        if (da, sa) != (db, sb):
            sys.exit(f"npy.py: {name}: {da} {sa} vs {db} {sb}")
        worst = 0.0
        for i, (x, y) in enumerate(zip(a, b)):
            if math.isnan(x) and math.isnan(y):
                continue
            err = abs(x - y)
            if not err <= atol + rtol * abs(y):
                sys.exit(f"npy.py: {name} differs at element {i}: {x!r} vs {y!r}")
            worst = max(worst, err)
        print(f"npy: {name} {da} {'x'.join(map(str, sa))} matches, max abs error {worst:.3g}")


def main():
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    else:
        write(*sys.argv[1:5])


if __name__ == "__main__":
    main()
