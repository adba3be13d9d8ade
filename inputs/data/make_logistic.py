#!/usr/bin/python3
"""Writes data/logistic.h5 (seeded) for logistic_sgd.yaml: 256 samples of 32
features, labels from a known teacher, and the initial weights.

  /X        [256, 32]  features, N(0, 1)
  /y        [256]      labels 1 where X w_teacher + noise > 0, else 0
  /w_teacher [32]      the teacher's weights
  /W0       [32]       initial weights of the model, N(0, 0.01)
"""
import os
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2027)
x = rng.standard_normal((256, 32))
w_teacher = rng.standard_normal(32)
y = (x @ w_teacher + 0.5 * rng.standard_normal(256) > 0).astype(np.float64)
with h5py.File(os.path.join(here, "logistic.h5"), "w") as f:
    f["X"] = x
    f["y"] = y
    f["w_teacher"] = w_teacher
    f["W0"] = 0.01 * rng.standard_normal(32)
