"""Helpers the benchmarks share: the copy-bandwidth floor (stream.c, from
../shared/peers) and writing rows as JSON lines."""
import json
import os
import re
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))


def stream_copy_gbs(tmp):
    """stream.c's copy bandwidth on this machine, in GB/s (None if it
    printed none), built in `tmp`."""
    exe = os.path.join(tmp, "stream")
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp",
                    os.path.join(PEERS, "stream.c"), "-o", exe],
                   check=True, capture_output=True)
    out = subprocess.run([exe], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"copy ([0-9.]+) GB/s", out)
    return float(m.group(1)) if m else None


def write_jsonl(path, rows):
    """Writes `rows` to `path`, one JSON object per line."""
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def run_json(python, argv, path=(), extra_env=None):
    """The last line `python argv...` prints, as JSON, with `path` on its
    PYTHONPATH (and `extra_env` set); {"error": the end of its stderr} when
    it fails."""
    env = dict(os.environ, **(extra_env or {}))
    env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    out = subprocess.run([python, *argv], capture_output=True, text=True,
                         env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-600:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def peers_python():
    """The python of ../shared/peers/setup.sh (PyTorch and JAX)."""
    return subprocess.run(
        ["bash", os.path.join(PEERS, "setup.sh")], check=True,
        capture_output=True, text=True).stdout.strip().splitlines()[-1]
