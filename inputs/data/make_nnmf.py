#!/usr/bin/python3
"""Writes data/nnmf.h5 (seeded) for nnmf.yaml: a non-negative 96 x 80 matrix
of rank 6 (a known teacher W_t H_t with non-negative factors) plus a little
non-negative noise, and the student's non-negative initial factors.

  /V   [96, 80]  the data
  /W0  [96, 6]   initial left factor, uniform(0, 0.5)
  /H0  [6, 80]   initial right factor, uniform(0, 0.5)
"""
import os

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2029)
w_t = rng.random((96, 6)) * (rng.random((96, 6)) < 0.4)  # sparse factors: the fit presses entries below 0
h_t = rng.random((6, 80)) * (rng.random((6, 80)) < 0.4)
v = w_t @ h_t + 0.01 * rng.random((96, 80))
with h5py.File(os.path.join(here, "nnmf.h5"), "w") as f:
    f["V"] = v
    f["W0"] = 0.5 * rng.random((96, 6))
    f["H0"] = 0.5 * rng.random((6, 80))
