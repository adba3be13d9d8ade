#!/usr/bin/python3
"""Writes data/transformer_small.h5 (seeded, about 110 KB) for attention.yaml and
llama_block.yaml: a batch of 2 sequences of 16 tokens, model dimension 32,
4 heads of 8, feed-forward dimension 64.

  /X           [2, 16, 32]  the layer's input, N(0, 1)
  /Wq /Wk /Wv  [32, 4, 8]   projections: the usual [32, 32] matrix W, split into
                            heads: W.reshape(32, 4, 8), column h*8 + e -> [h, e]
  /Wo          [4, 8, 32]   output projection: the [32, 32] matrix reshaped
                            (4, 8, 32), row h*8 + e -> [h, e], so that
                            concat(heads) @ Wo = sum_{h,e} O[h,e] Wo[h,e,:]
  /g_attn /g_ffn [32]       RMSNorm gains before attention and feed-forward
  /W1 /W3      [32, 64]     SwiGLU: (silu(x W1) * (x W3)) W2
  /W2          [64, 32]
  /rope        [16, 8, 8]   rotary position embedding as a matrix per position:
                            q_rot[s, :] = q[s, :] @ rope[s] rotates each pair
                            (2i, 2i+1) by the angle s * 10000^(-2i/8) (LLaMA)
  /mask        [16, 16]     causal mask added to the scores: 0 where key t <= query s,
                            -inf above the diagonal
"""
import os

import h5py
import numpy as np

B, S, D, H, E, F = 2, 16, 32, 4, 8, 64

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20250611)

x = rng.standard_normal((B, S, D))
wq, wk, wv, wo = (rng.standard_normal((D, D)) / np.sqrt(D) for _ in range(4))
g_attn = 1.0 + 0.1 * rng.standard_normal(D)
g_ffn = 1.0 + 0.1 * rng.standard_normal(D)
w1 = rng.standard_normal((D, F)) / np.sqrt(D)
w3 = rng.standard_normal((D, F)) / np.sqrt(D)
w2 = rng.standard_normal((F, D)) / np.sqrt(F)

angle = np.arange(S)[:, None] * 10000.0 ** (-np.arange(0, E, 2) / E)[None, :]  # [s, i]
rope = np.zeros((S, E, E))
for i in range(E // 2):
    c, s = np.cos(angle[:, i]), np.sin(angle[:, i])
    # out[2i] = x[2i] c - x[2i+1] s,  out[2i+1] = x[2i] s + x[2i+1] c
    rope[:, 2 * i, 2 * i] = c
    rope[:, 2 * i + 1, 2 * i] = -s
    rope[:, 2 * i, 2 * i + 1] = s
    rope[:, 2 * i + 1, 2 * i + 1] = c

mask = np.where(np.arange(S)[None, :] > np.arange(S)[:, None], -np.inf, 0.0)

with h5py.File(os.path.join(here, "transformer_small.h5"), "w") as f:
    f["X"] = x
    f["Wq"] = wq.reshape(D, H, E)
    f["Wk"] = wk.reshape(D, H, E)
    f["Wv"] = wv.reshape(D, H, E)
    f["Wo"] = wo.reshape(H, E, D)
    f["g_attn"] = g_attn
    f["g_ffn"] = g_ffn
    f["W1"] = w1
    f["W3"] = w3
    f["W2"] = w2
    f["rope"] = rope
    f["mask"] = mask
