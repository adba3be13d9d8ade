#!/usr/bin/python3
"""Synthetic training data for the FFNN decks, from a known teacher network
(seeded), so that the loss visibly falls:

  speech  Google-speech-like: features N(0, 1); one label of `classes` per
          row, the argmax of a small relu teacher's logits; targets one-hot.
  xml     Amazon-XML-like multi-label: sparse non-negative features (10% of
          entries non-zero); labels 1 where a low-rank teacher's score is in
          its top 5% per label; several labels per row.

Each file holds the data (/X and /T) and the student's initial weights
(/W1 [features, hidden] He-scaled, /b1 zeros, /W2 [hidden, classes], /b2
zeros; with --layers 3, /W2 [hidden, hidden] He-scaled, /b2 zeros, /W3
[hidden, classes], /b3 zeros). With no arguments it writes the small files
the decks in inputs/ read; perf/train/run calls it with the papers' sizes,
perf/ist/run with IST's.

  make_ffnn_training.py [--kind speech|xml --rows N --features F --hidden H --classes C --layers 2|3 --out FILE]
"""
import argparse
import os

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def make(kind, rows, features, hidden, classes, out, seed=2028, layers=2):
    rng = np.random.default_rng(seed)
    if kind == "speech":
        x = rng.standard_normal((rows, features))
        a = rng.standard_normal((features, 32)) / np.sqrt(features)
        b = rng.standard_normal((32, classes))
        logits = np.maximum(x @ a, 0) @ b + 0.1 * rng.standard_normal((rows, classes))
        t = np.zeros((rows, classes))
        t[np.arange(rows), logits.argmax(axis=1)] = 1.0
    else:
        x = rng.random((rows, features)) * (rng.random((rows, features)) < 0.1)
        a = rng.standard_normal((features, 16))
        b = rng.standard_normal((16, classes))
        score = (x @ a) @ b
        t = (score > np.quantile(score, 0.95, axis=0, keepdims=True)).astype(np.float64)
    with h5py.File(out, "w") as f:
        f["X"] = x
        f["T"] = t
        f["W1"] = rng.standard_normal((features, hidden)) * np.sqrt(2.0 / features)
        f["b1"] = np.zeros(hidden)
        if layers == 3:
            f["W2"] = rng.standard_normal((hidden, hidden)) * np.sqrt(2.0 / hidden)
            f["b2"] = np.zeros(hidden)
        last = "3" if layers == 3 else "2"
        f["W" + last] = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
        f["b" + last] = np.zeros(classes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", choices=("speech", "xml"))
    ap.add_argument("--rows", type=int)
    ap.add_argument("--features", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--classes", type=int)
    ap.add_argument("--layers", type=int, choices=(2, 3), default=2)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.kind:
        make(args.kind, args.rows, args.features, args.hidden, args.classes, args.out, layers=args.layers)
        return
    make("speech", 400, 160, 256, 16, os.path.join(here, "speech_small.h5"))
    make("xml", 128, 512, 128, 256, os.path.join(here, "xml_small.h5"))


if __name__ == "__main__":
    main()
