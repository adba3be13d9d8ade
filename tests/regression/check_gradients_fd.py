#!/usr/bin/python3
"""The engine's gradients through sparse tensors (and index lists: an
embedding lookup's scatter-add) against central finite
differences of the engine's own loss (issue 30: every new RJP against finite
differences). Each case is a deck from inputs/: tra-run computes a
parameter's gradient once (a training deck runs one iteration: its log holds
the loss at the initial weights and its output the gradient there); then, for
a seeded sample of the parameter's elements, the deck runs twice more with
that one element moved by ±h in a copy of its HDF5 file (--set
tensors/P/source/file=...), and the difference quotient of the two losses
must equal the gradient's element.

Unlike the PyTorch references in references.py, nothing here is written a
second time: the derivative is taken from the forward computation alone, so
a wrong rule for the sparse product's transpose fails it even where a
reference would share the mistake.

Central differences err by about h²·|L'''| + eps·|L|/h: with h = 1e-6 and
losses of order 1, about 1e-10, far below the 1e-6 relative (of the
gradient's largest element) allowed. A relu kink between the two points
would break that; at h = 1e-6 the sampled elements (a fixed seed) cross
none."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

# deck, the values it is run with, parameter, its dataset in data/, the
# gradient's output (file, dataset) and where the loss is read (a log column
# or an output dataset).
ONE_STEP = ["train/iterations=1"]
CASES = [
    ("sparse_gcn_layer.yaml", [], "W", "graph_small.h5", "/W1", ("sparse_gcn_layer.h5", "/grad/W"), ("sparse_gcn_layer.h5", "/L")),
    ("gcn.yaml", ONE_STEP, "W1", "graph_small.h5", "/W1", ("gcn.h5", "/W1.grad"), ("gcn.csv", "loss")),
    ("transe.yaml", ONE_STEP, "E", "kg_small.h5", "/E", ("transe.h5", "/E.grad"), ("transe.csv", "loss")),
]
SAMPLE = 12
H = 1e-6


def loss_of(folder, where):
    name, key = where
    path = os.path.join(folder, name)
    if name.endswith(".csv"):
        with open(path) as f:
            header = f.readline().strip().split(",")
            return float(f.readline().strip().split(",")[header.index(key)])
    with h5py.File(path, "r") as f:
        return float(np.asarray(f[key][...]).reshape(-1)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--inputs", required=True)
    args = ap.parse_args()
    failed = 0
    for deck, sets, param, data, dataset, grad_at, loss_at in CASES:
        with tempfile.TemporaryDirectory() as tmp:

            def run(out, *more):
                os.makedirs(out, exist_ok=True)
                cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.ranks), os.path.abspath(args.tra_run),
                       os.path.join(args.inputs, deck), "--output-dir", out]
                for s in sets + list(more):
                    cmd += ["--set", s]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"FAIL {deck}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")

            run(os.path.join(tmp, "at"))
            with h5py.File(os.path.join(tmp, "at", grad_at[0]), "r") as f:
                grad = np.asarray(f[grad_at[1]][...])
            with h5py.File(os.path.join(args.inputs, "data", data), "r") as f:
                w0 = np.asarray(f[dataset][...])
            # Mostly elements with a gradient; a lookup's rows that no index
            # names have none, and a few of them check that it is zero.
            rng = np.random.default_rng(7)
            moving, still = np.flatnonzero(grad.reshape(-1) != 0), np.flatnonzero(grad.reshape(-1) == 0)
            zeros = min(3, still.size)
            picks = np.concatenate([rng.choice(moving, size=min(SAMPLE - zeros, moving.size), replace=False),
                                    rng.choice(still, size=zeros, replace=False)])
            worst, wrong = 0.0, 0
            for e in picks:
                losses = []
                for sign in (1, -1):
                    copy = os.path.join(tmp, f"moved{sign}.h5")
                    shutil.copyfile(os.path.join(args.inputs, "data", data), copy)
                    with h5py.File(copy, "r+") as f:
                        w = w0.copy().reshape(-1)
                        w[e] += sign * H
                        f[dataset][...] = w.reshape(w0.shape)
                    out = os.path.join(tmp, f"run{sign}")
                    run(out, f"tensors/{param}/source/file={copy}")
                    losses.append(loss_of(out, loss_at))
                fd = (losses[0] - losses[1]) / (2 * H)
                err = abs(grad.reshape(-1)[e] - fd) / max(np.abs(grad).max(), 1e-300)
                worst = max(worst, err)
                if err > 1e-6:
                    wrong += 1
                    print(f"FAIL {deck}: {param}.grad element {e} is {grad.reshape(-1)[e]!r}, finite differences give {fd!r}")
            failed += wrong
            print(f"{'FAIL' if wrong else 'ok  '} {deck} (np={args.ranks}): {len(picks)} elements of {param}.grad, largest difference {worst:.1e} of its largest element")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
