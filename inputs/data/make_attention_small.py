#!/usr/bin/python3
"""Writes data/attention_small.h5 (Q 64x16, K 48x16, seeded) for hdf5_input.yaml."""
import os
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)
with h5py.File(os.path.join(here, "attention_small.h5"), "w") as f:
    f["Q"] = rng.standard_normal((64, 16))
    f["K"] = rng.standard_normal((48, 16))
