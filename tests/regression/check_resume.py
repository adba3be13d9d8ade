#!/usr/bin/python3
"""Checkpoints and --resume (docs/training.md): for every deck in inputs/
that writes a checkpoint, the run stopped after its first checkpoint and
resumed from it must end with the parameters and the losses of the
uninterrupted run, bit for bit, at the same rank count. A checkpoint that
does not match the deck, one with nothing left to run, and a missing one
must each fail with exit 2, its message, and no output written; so must a
checkpoint resumed in another element type (--dtype runs every step in that
type: float32 checkpoints hold float32 datasets and are refused in float64,
float64 ones in float32)."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def variant(deck_text, folder, name, **replace):
    """A copy of the deck in folder with keys' values replaced (regex -> text)."""
    for pattern, text in replace.items():
        deck_text, n = re.subn(pattern, text, deck_text)
        assert n == 1, pattern
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(deck_text)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"), help="the element type every run computes in")
    args = ap.parse_args()
    other = "float32" if args.dtype == "float64" else "float64"
    in_type = lambda dtype: ["--set", "run/dtype=" + dtype]
    mpi = [args.mpiexec, "--oversubscribe", "-n", str(args.ranks), os.path.abspath(args.tra_run)]
    typed = lambda cmd, dtype=args.dtype: cmd + in_type(dtype)
    problems, decks = [], []
    for deck in sorted(glob.glob(os.path.join(args.inputs, "*.yaml"))):
        text = open(deck).read()
        m = re.search(r"checkpoint: \{file: ([^,]+), every: (\d+)\}", text)
        if not m:
            continue
        decks.append(deck)
        ckpt, every = m.group(1), int(m.group(2))
        epochs = re.search(r"\n  epochs: (\d+)", text)
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.abspath(os.path.join(args.inputs, "data")), os.path.join(tmp, "data"))
            full, part, resumed = (os.path.join(tmp, d) for d in ("full", "part", "resumed"))
            for d in (full, part, resumed):
                os.mkdir(d)
            whole = variant(text, tmp, "whole.yaml")
            # Stopped after the first checkpoint: as many iterations as `every`.
            stop = variant(text, tmp, "stop.yaml", **({r"\n  epochs: \d+": "\n  iterations: %d" % every} if epochs
                                                      else {r"\n  iterations: \d+": "\n  iterations: %d" % every}))
            steps = [(typed(mpi + [whole, "--output-dir", full]), tmp), (typed(mpi + [stop, "--output-dir", part]), tmp),
                     (typed(mpi + [whole, "--output-dir", resumed, "--resume", os.path.join(part, ckpt)]), tmp)]
            for cmd, cwd in steps:
                r = run(cmd, cwd)
                if r.returncode != 0:
                    problems.append(f"{os.path.basename(deck)}: {' '.join(cmd[-4:])}: exit {r.returncode}: {r.stderr[-1500:]}")
            if problems:
                break
            # Parameters and optimizer state in the final checkpoints, and every output.
            for name in (ckpt,) + tuple(sorted(set(re.findall(r"file: ([\w.]+\.h5), dataset", text)))):
                with h5py.File(os.path.join(full, name)) as a, h5py.File(os.path.join(resumed, name)) as b:
                    for ds in a:
                        if name == ckpt and a[ds].dtype != np.dtype(args.dtype):
                            problems.append(f"{os.path.basename(deck)}: {name}:{ds} is stored as {a[ds].dtype}, the run computes in {args.dtype}")
                        if not np.array_equal(a[ds][...], b[ds][...]):
                            problems.append(f"{os.path.basename(deck)}: {name}:{ds} differs after --resume")
            log = re.search(r"log: \{file: ([^}]+)\}", text)
            if log:
                a = np.loadtxt(os.path.join(full, log.group(1)), delimiter=",", skiprows=1)
                b = np.loadtxt(os.path.join(resumed, log.group(1)), delimiter=",", skiprows=1)
                if not np.array_equal(a[every:, :3], b[:, :3]):
                    problems.append(f"{os.path.basename(deck)}: the resumed run's losses differ from the uninterrupted run's")
            # Bad resumes: exit 2, the message once, nothing written.
            changed = variant(text, tmp, "changed.yaml", **{r"lr: [0-9.e-]+": "lr: 0.125"})
            bad = [(changed, os.path.join(part, ckpt), args.dtype, r"was written by a run training with '.*', but the deck trains with"),
                   (whole, os.path.join(full, ckpt), args.dtype, r"nothing is left to run"),
                   (whole, os.path.join(tmp, "no_such.h5"), args.dtype, r"--resume .*no_such\.h5: '.*' does not exist"),
                   (whole, os.path.join(part, ckpt), other,
                    r"--set run/dtype=%s: --resume .*: the checkpoint holds %s values, but this run computes in %s" % (other, args.dtype, other))]
            for deck_path, resume, dtype, pattern in bad:
                out = tempfile.mkdtemp(dir=tmp)
                r = run(typed(mpi + [deck_path, "--output-dir", out, "--resume", resume], dtype), tmp)
                said = [l for l in r.stderr.splitlines() if re.search(pattern, l)]
                if r.returncode != 2 or len(said) != 1 or os.listdir(out):
                    problems.append(f"{os.path.basename(deck)}: --resume {os.path.basename(resume)} with {os.path.basename(deck_path)}: "
                                    f"exit {r.returncode}, /{pattern}/ printed {len(said)} times, wrote {os.listdir(out)}: {r.stderr[-800:]}")
        print(("FAIL " if problems else "ok   ") + os.path.basename(deck) + f" (np={args.ranks}, {args.dtype})")
    for p in problems:
        print("  " + p)
    if not decks:
        print("FAIL: no deck in inputs/ writes a checkpoint")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
