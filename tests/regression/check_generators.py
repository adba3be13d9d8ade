#!/usr/bin/python3
"""Generated inputs are the documented values, bit for bit (docs/deck.md,
"Generators"): every generator of a deck, written out by tra-run at 1 and 2
ranks and in several chunkings, equals an independent Python version of the
formulas — splitmix64, U(seed, n), and normal()'s own log and cos
(src/tra/common/portable_math.hpp) — in every bit. Python's floats are IEEE
doubles rounded once per operation, as the engine's are on every backend
(no fused multiply-adds), so the same numbers must come out of a CPU and a
GPU build; the GPU check compares them there. The portable log and cos are
also checked against the C library's: within 2 ulp.

usage: check_generators.py --tra-run PATH [--mpiexec mpirun]
exit: 0 all equal, 1 otherwise."""
import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def unit(seed, counter):
    h = splitmix64(splitmix64(seed) ^ counter)
    return (float(h >> 11) + 0.5) * (1.0 / 9007199254740992.0)


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


H = float.fromhex


def log_(x):
    """ln x = k ln2 + 2 atanh((m - 1)/(m + 1)), m in [sqrt(1/2), sqrt(2))."""
    b = bits(x)
    k = ((b >> 52) & 0x7FF) - 1023
    m = from_bits((b & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000)
    if m > H("0x1.6a09e667f3bcdp+0"):
        m, k = m * 0.5, k + 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = 1.0 / 21
    for n in (19, 17, 15, 13, 11, 9, 7, 5, 3):
        p = p * s2 + 1.0 / n
    ln_m = (s + s) + (s + s) * (s2 * p)
    return k * H("0x1.62e42fee00000p-1") + (k * H("0x1.a39ef35793c76p-33") + ln_m)


def inv_factorial(n):
    return 1 / math.factorial(n)  # Python divides integers correctly rounded


def cos_(x):
    """cos x from the quadrant n nearest to x / (pi/2) and Taylor series of cos r, sin r."""
    n = int(x * H("0x1.45f306dc9c883p-1") + 0.5)
    r = (x - n * H("0x1.921fb54400000p+0")) - n * H("0x1.0b4611a626331p-34")
    r2 = r * r
    if n % 2 == 0:
        c = inv_factorial(20)
        for k in range(9, 0, -1):
            c = c * r2 + (-1) ** k * inv_factorial(2 * k)
        v = 1.0 + r2 * c
        return v if n & 2 == 0 else -v
    s = inv_factorial(21)
    for k in range(9, 0, -1):
        s = s * r2 + (-1) ** k * inv_factorial(2 * k + 1)
    v = r + r * (r2 * s)
    return -v if n & 2 == 0 else v


def generate(kind, args, shape):
    out = np.empty(int(np.prod(shape)))
    for n in range(out.size):
        if kind == "uniform":
            low, high, seed = args
            out[n] = low + (high - low) * unit(seed, n)
        elif kind == "normal":
            mean, sd, seed = args
            u1, u2 = unit(seed, 2 * n), unit(seed, 2 * n + 1)
            out[n] = mean + sd * math.sqrt(-2.0 * log_(u1)) * cos_(6.283185307179586 * u2)
        elif kind == "arange":
            start, step = args
            out[n] = start + step * float(n)
    if kind == "identity":
        idx = np.indices(shape).reshape(len(shape), -1)
        out = np.all(idx == idx[0], axis=0).astype(np.float64)
    return out.reshape(shape)


# name, shape, source, chunkings tried
TENSORS = [
    ("U", (7, 9), ("uniform", (-2.0, 3.0, 11)), (None, (7, 3))),
    ("Uw", (5, 6), ("uniform", (0.1, 0.30000000000000004, 2 ** 52 + 1)), (None,)),
    ("N", (12, 10), ("normal", (0.5, 2.0, 12345)), (None, (4, 5))),
    ("N1", (300,), ("normal", (0.0, 1.0, 0)), (None, (100,))),
    ("R", (6, 4), ("arange", (1.0, 0.1)), (None, (3, 2))),
    ("I", (5, 5, 5), ("identity", ()), (None,)),
]


def source_text(kind, args):
    if kind == "identity":
        return "identity"
    return f"{kind}({', '.join(repr(a) if isinstance(a, float) else str(a) for a in args)})"


def deck(chunked):
    lines = ["tensors:"]
    for name, shape, (kind, args), chunkings in TENSORS:
        chunk = chunkings[-1] if chunked else None
        lines.append(f"  - {{name: {name}, shape: {list(shape)}, source: \"{source_text(kind, args)}\""
                     + (f", chunk: {list(chunk)}" if chunk else "") + "}")
    lines += ["graph:", "  - \"S[i,j] = U[i,j] * 2\"", "outputs:"]
    lines += [f"  - {{tensor: {name}, file: gen.h5}}" for name, *_ in TENSORS]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    args = ap.parse_args()
    problems = []

    # The portable log and cos against the C library's, over their domains.
    rng = np.random.default_rng(3)
    worst_log = max(abs(log_(u) - math.log(u)) / math.ulp(math.log(u)) for u in rng.uniform(1e-300, 1, 20000) if u > 0)
    worst_log = max(worst_log, max(abs(log_(u) - math.log(u)) / math.ulp(math.log(u)) for u in rng.uniform(0.5, 1.5, 20000) if u != 1))
    worst_cos = max(abs(cos_(x) - math.cos(x)) / 2 ** -53 for x in rng.uniform(0, 2 * math.pi, 40000))
    print(f"portable log: worst {worst_log:.2f} ulp; portable cos: worst {worst_cos:.2f} x 2^-53 (absolute)")
    if worst_log > 2 or worst_cos > 2:
        problems.append("the Python log or cos strays from the C library's by more than 2 ulp")

    want = {name: generate(kind, a, shape) for name, shape, (kind, a), _ in TENSORS}
    for ranks in (1, 2):
        for chunked in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                with open(os.path.join(tmp, "gen.yaml"), "w") as f:
                    f.write(deck(chunked))
                run = subprocess.run([args.mpiexec, "--oversubscribe", "-n", str(ranks), os.path.abspath(args.tra_run), "gen.yaml"],
                                     cwd=tmp, capture_output=True, text=True)
                if run.returncode != 0:
                    problems.append(f"np={ranks} chunked={chunked}: exit {run.returncode}: {run.stderr[-800:]}")
                    continue
                with h5py.File(os.path.join(tmp, "gen.h5"), "r") as f:
                    for name, value in want.items():
                        got = f[name][...]
                        differ = np.count_nonzero(got.view(np.uint64) != value.view(np.uint64))
                        if differ:
                            i = np.flatnonzero(got.view(np.uint64) != value.view(np.uint64))[0]
                            problems.append(f"np={ranks} chunked={chunked}: {name}: {differ} of {value.size} values differ in their bits "
                                            f"(first at {i}: {got.flat[i]!r} against {value.flat[i]!r})")
            print(f"np={ranks} chunked={chunked}: {'ok' if not problems else 'FAIL'}")
    for p in problems:
        print("FAIL " + p)
    print("generated inputs equal the documented values in every bit" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
