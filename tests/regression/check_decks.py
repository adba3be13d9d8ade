#!/usr/bin/python3
"""Runs every deck in inputs/ under mpirun and compares its HDF5 outputs with
the numpy references in references.py, and the floats the plan predicted to
move with those the executor moved. A deck without a reference fails the
check, so a new example deck cannot slip in untested.

With --dtype float32 every deck runs with run: dtype: float32: its outputs
must be float32 datasets, and the references' bounds are the same error
analysis with float32's epsilon, plus the output's own rounding to float32
(half an ulp); a training deck is held to PyTorch trained in float32 (see
references.trained)."""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import references  # noqa: E402
import references_transformer  # noqa: E402
from references import REFERENCES  # noqa: E402
from references_transformer import REFERENCES as TRANSFORMER_REFERENCES  # noqa: E402

REFERENCES.update(TRANSFORMER_REFERENCES)


def read_result(path, name):
    """A dataset of an HDF5 output, or a column of a CSV log (a training run's)."""
    if path.endswith(".csv"):
        with open(path) as f:
            header = f.readline().strip().split(",")
        return np.loadtxt(path, delimiter=",", skiprows=1, usecols=header.index(name), ndmin=1)
    return np.asarray(__import__("h5py").File(path, "r")[name][...])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--partitioner", default="", help="run every deck under this partitioner instead of the deck's")
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"), help="the element type every deck runs in")
    ap.add_argument("--disable", default="", help="run every deck with tra-run --disable=THIS (rules or phases, comma-separated)")
    ap.add_argument("--decks", nargs="+", help="only these decks of --inputs (file names)")
    args = ap.parse_args()
    narrow = args.dtype == "float32"
    if narrow:
        # The references' bounds are written with EPS: the same analysis, float32's unit.
        references.EPS = references_transformer.EPS = float(np.finfo(np.float32).eps)
        references.DTYPE = np.float32
        references_transformer.ULP_FN = 4 * references_transformer.EPS

    decks = sorted(glob.glob(os.path.join(args.inputs, "*.yaml")))
    if args.decks:
        decks = [d for d in decks if os.path.basename(d) in args.decks]
        if len(decks) != len(args.decks):
            print(f"--decks: not all of {args.decks} are in {args.inputs}")
            return 2
    passed = failed = 0
    for deck in decks:
        name = os.path.basename(deck)
        with tempfile.TemporaryDirectory() as out:
            # --explain=analyze also exercises the optimizer's EXPLAIN text on every deck.
            cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.ranks), os.path.abspath(args.tra_run), deck, "--output-dir", out,
                   "--explain=analyze"] + (["--partitioner", args.partitioner] if args.partitioner else []) + \
                ([f"--disable={args.disable}"] if args.disable else []) + \
                (["--set", "run/dtype=float32"] if narrow else [])
            run = subprocess.run(cmd, capture_output=True, text=True)
            problems = []
            if run.returncode != 0:
                problems.append(f"exit {run.returncode}: {run.stderr.strip()[-2000:]}")
            elif name not in REFERENCES:
                problems.append("no numpy reference in tests/regression/references.py")
            else:
                # Every relation of the plan (EXPLAIN's "f=[..] b=[..]" lines) holds the run's type.
                relations = re.findall(r"^.* f=\[[^]]*\] b=\[[^]]*\].*$", run.stdout, re.M)
                wide = [line.strip() for line in relations if (" float32" in line) != narrow]
                if not relations or wide:
                    problems.append(f"relations not in {args.dtype} in the plan: {wide[:2] or 'no relations printed'}")
                # The cost model's floats moved against the executor's count.
                if "(DIFFERENT)" in run.stdout or "(floats equal)" not in run.stdout or "(equal)" not in run.stdout:
                    problems.append("measured floats moved differ from the prediction")
                # A training run: the loop-carried tensors' floats between iterations too.
                carried = re.findall(r"loop-carried tensors moved (\d+) floats per iteration \(measured; predicted (\d+)\)", run.stdout + run.stderr)
                if any(measured != predicted for measured, predicted in carried):
                    problems.append(f"loop-carried floats measured and predicted differ: {carried}")
                for path, dataset, expected, tol in REFERENCES[name](out, args.inputs):
                    got = read_result(path, dataset)
                    if narrow and not path.endswith(".csv"):
                        if got.dtype != np.float32:
                            problems.append(f"{dataset}: stored as {got.dtype}, expected float32")
                        got = got.astype(np.float64)
                        tol = tol + np.abs(expected) * 2.0**-24  # the output's own rounding to float32
                    if got.shape != expected.shape:
                        problems.append(f"{dataset}: shape {got.shape}, expected {expected.shape}")
                        continue
                    err = np.abs(got - expected)
                    bad = err > tol
                    if bad.any():
                        i = np.unravel_index(np.argmax(err - tol), err.shape)
                        problems.append(f"{dataset}: {bad.sum()} elements off; worst at {i}: got {got[i]!r}, expected "
                                        f"{expected[i]!r}, tolerance {np.broadcast_to(tol, err.shape)[i]:.3g}")
        if problems:
            failed += 1
            print(f"FAIL {name} (np={args.ranks}{', ' + args.partitioner if args.partitioner else ''}{', float32' if narrow else ''}{', --disable=' + args.disable if args.disable else ''}): " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {name} (np={args.ranks}{', ' + args.partitioner if args.partitioner else ''}{', float32' if narrow else ''}{', --disable=' + args.disable if args.disable else ''})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not decks else 0


if __name__ == "__main__":
    sys.exit(main())
