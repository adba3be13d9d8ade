"""Independent numpy references for inputs/attention.yaml and inputs/llama_block.yaml.

The layers are written the way a numpy user writes them (matrix products on the
[batch*seq, 32] activations, heads by reshape and transpose, softmax along the
last axis, RoPE as a complex rotation of pairs, the causal mask by np.triu),
not by replaying the decks' EinSum statements. Weights come from the deck's
HDF5 file; the rotary angles and the mask are recomputed here, not read.

Tolerances come from the problem. Every quantity is carried with an
element-wise bound on how far the engine's value may be from numpy's (both are
double precision, but sums run in other orders and the engine's joins are other
code), built up statement by statement to first order:

* a K-long sum of products x*y computed in two orders differs by at most
  2 gamma_K sum|x||y| (gamma_K = K eps / (1 - K eps) ~ K eps, Higham §3.1);
  errors dx, dy of its operands add dx|y| + |x|dy summed the same way;
* x + y, x * y, x / y: the operands' errors pass through (|y|dx + |x|dy for a
  product, relatively for a quotient), plus one rounding on each side, 2 eps|z|;
* sqrt halves a relative error, 1/x keeps it; exp turns an absolute error of its
  argument into a relative one; silu(x) = x sigmoid(x) has |silu'(x)| <= 1.1;
  each libm call adds a few ulps (4 eps relative here, twice for two libms);
* softmax: logits off by at most delta (per row) change every probability
  relatively by at most expm1(2 delta) (shift invariance makes the row max
  cancel); rounding adds eps |s - max| in the exponent, and the n-long sum,
  exp and the division about (n + 4) eps relatively, twice for two
  implementations. Masked entries (-inf) are exactly 0 on both sides.

The bounds are worst-case (every rounding error of every term of every sum
assumed to point the same way), so they need no safety factor and sit far above
the observed differences: at most 3e-15 against bounds of about 1e-12 for the
attention layer and up to 1e-9 for the block's output, whose bound grows through
two RMSNorms, the attention and the feed-forward. A wrong mask, rotary
embedding, scale or eps moves the results by 1e-7 .. 1, far outside them.
Second-order terms (products of two errors) are below 1e-20 and are left out.
"""
import os

import h5py
import numpy as np

EPS = np.finfo(np.float64).eps
ULP_FN = 4 * EPS  # a libm call (exp, sqrt, sin, ...) on one side, relative


def _read(path, name):
    with h5py.File(path, "r") as f:
        return f[name][...].astype(np.float64)


def _weights(inputs):
    p = os.path.join(inputs, "data", "transformer_small.h5")
    names = ["X", "Wq", "Wk", "Wv", "Wo", "g_attn", "g_ffn", "W1", "W2", "W3"]
    return {n: _read(p, "/" + n) for n in names}


def _matmul(a, ea, b, eb):
    """a @ b and its bound, a: [..., K], b: [K, N]."""
    k = a.shape[-1]
    return a @ b, 2 * k * EPS * (np.abs(a) @ np.abs(b)) + ea @ np.abs(b) + np.abs(a) @ eb


def _bmm(a, ea, b, eb):
    """Batched a @ b (np.matmul) and its bound."""
    k = a.shape[-1]
    return a @ b, 2 * k * EPS * (np.abs(a) @ np.abs(b)) + ea @ np.abs(b) + np.abs(a) @ eb


def _rmsnorm(x, ex, g, eps_norm=1e-5):
    """x / sqrt(mean(x^2) + eps) * g along the last axis."""
    d = x.shape[-1]
    ms = np.mean(x * x, axis=-1, keepdims=True)
    # d squares (1 rounding each), a d-long sum of positive terms, /d exact (a power of two)
    ems = 2 * (d + 1) * EPS * ms + np.sum(2 * np.abs(x) * ex, axis=-1, keepdims=True) / d
    r = 1.0 / np.sqrt(ms + eps_norm)
    # + eps, sqrt, 1/: relative error of ms + eps halved by sqrt, plus three roundings per side
    er = np.abs(r) * (0.5 * ems / (ms + eps_norm) + 2 * (2 * EPS + ULP_FN))
    y = x * r * g
    ey = (ex * np.abs(r) + np.abs(x) * er) * np.abs(g) + 2 * 2 * EPS * np.abs(y)
    return y, ey


def _softmax(s, es):
    """Softmax over the last axis, and its bound; -inf entries give exactly 0."""
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / e.sum(axis=-1, keepdims=True)
    finite = np.isfinite(s)
    delta = np.where(finite, es, 0.0).max(axis=-1, keepdims=True)
    spread = np.where(finite, np.abs(s - m), 0.0).max(axis=-1, keepdims=True)
    n = s.shape[-1]
    rel = np.expm1(2 * delta) + 2 * (EPS * spread + (n + 4) * EPS + ULP_FN)
    return p, rel * p


def _heads(y, ey, h):
    """[b, s, h*e] -> [b, h, s, e]."""
    b, s, he = y.shape
    split = lambda t: t.reshape(b, s, h, he // h).transpose(0, 2, 1, 3)
    return split(y), split(ey)


def _attention(x, ex, w, causal, rope):
    """Multi-head attention of x [b, s, d]; returns (Y, eY, P, eP)."""
    h = w["Wq"].shape[1]
    d = x.shape[-1]
    zero = np.zeros((d, d))
    q, eq = _heads(*_matmul(x, ex, w["Wq"].reshape(d, d), zero), h)
    k, ek = _heads(*_matmul(x, ex, w["Wk"].reshape(d, d), zero), h)
    v, ev = _heads(*_matmul(x, ex, w["Wv"].reshape(d, d), zero), h)
    hd = q.shape[-1]
    if rope:
        q, eq = _rotary(q, eq)
        k, ek = _rotary(k, ek)
    s, es = _bmm(q, eq, k.transpose(0, 1, 3, 2), ek.transpose(0, 1, 3, 2))
    scale = np.sqrt(hd)
    s, es = s / scale, es / scale + 2 * (EPS + ULP_FN) * np.abs(s / scale)
    if causal:
        n = s.shape[-1]
        s = s + np.triu(np.full((n, n), -np.inf), k=1)  # adding 0 is exact: es unchanged
    p, ep = _softmax(s, es)
    o, eo = _bmm(p, ep, v, ev)
    b, _, n, _ = o.shape
    cat = o.transpose(0, 2, 1, 3).reshape(b, n, d)  # concatenate the heads
    ecat = eo.transpose(0, 2, 1, 3).reshape(b, n, d)
    y, ey = _matmul(cat, ecat, w["Wo"].reshape(d, d), zero)
    return y, ey, p, ep


def _rotary(t, et, theta=10000.0):
    """LLaMA's rotary embedding of t [b, h, s, e]: pairs (2i, 2i+1) as complex
    numbers, multiplied by exp(1j * s * theta^(-2i/e))."""
    n, e = t.shape[-2], t.shape[-1]
    freqs = 1.0 / theta ** (np.arange(0, e, 2) / e)
    rot = np.exp(1j * np.outer(np.arange(n), freqs))  # [s, e/2]
    z = (t[..., 0::2] + 1j * t[..., 1::2]) * rot
    out = np.empty_like(t)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    # Each output is x c -/+ y s: a 2-long dot product (the engine sums 8 terms,
    # 6 of them exact zeros) with |c|, |s| <= 1; cos and sin (and the angle
    # s * theta^(-2i/e), up to 15 rad) are off by at most 16 eps absolute.
    pair = np.abs(t[..., 0::2]) + np.abs(t[..., 1::2])
    epair = et[..., 0::2] + et[..., 1::2]
    bound = epair + (2 * 8 * EPS + 2 * 16 * EPS) * pair
    eout = np.empty_like(et)
    eout[..., 0::2], eout[..., 1::2] = bound, bound
    return out, eout


def attention(out, inputs):
    p = os.path.join(out, "attention.h5")
    w = _weights(inputs)
    x = w["X"]
    y, ey, probs, eprobs = _attention(x, np.zeros_like(x), w, causal=False, rope=False)
    return [(p, "/Y", y, ey + 1e-300), (p, "/P", probs, eprobs + 1e-300)]


def llama_block(out, inputs):
    p = os.path.join(out, "llama_block.h5")
    w = _weights(inputs)
    x = w["X"]
    xn, exn = _rmsnorm(x, np.zeros_like(x), w["g_attn"])
    a, ea, probs, eprobs = _attention(xn, exn, w, causal=True, rope=True)
    h = x + a
    eh = ea + 2 * EPS * np.abs(h)
    hn, ehn = _rmsnorm(h, eh, w["g_ffn"])
    f = w["W1"].shape[1]
    f1, ef1 = _matmul(hn, ehn, w["W1"], np.zeros_like(w["W1"]))
    f3, ef3 = _matmul(hn, ehn, w["W3"], np.zeros_like(w["W3"]))
    silu = f1 / (1.0 + np.exp(-f1))
    esilu = 1.1 * ef1 + 2 * (3 * EPS + ULP_FN) * np.abs(silu)
    g = silu * f3
    eg = esilu * np.abs(f3) + np.abs(silu) * ef3 + 2 * EPS * np.abs(g)
    f2, ef2 = _matmul(g, eg, w["W2"], np.zeros((f, x.shape[-1])))
    y = h + f2
    ey = eh + ef2 + 2 * EPS * np.abs(y)
    return [(p, "/Y", y, ey + 1e-300), (p, "/H", h, eh + 1e-300), (p, "/P", probs, eprobs + 1e-300)]


def llama_block_gradients(out, inputs):
    """The block's loss mean(Y^2) and its weights' gradients by PyTorch's
    autograd in float64, on the same data; the rotary matrix and the mask are
    read from the file as the deck reads them (llama_block checks them)."""
    import torch
    p = os.path.join(out, "llama_block_gradients.h5")
    src = os.path.join(inputs, "data", "transformer_small.h5")
    t = lambda name, grad=False: torch.tensor(_read(src, name), dtype=torch.float64, requires_grad=grad)
    params = ["g_attn", "Wq", "Wk", "Wv", "Wo", "g_ffn", "W1", "W3", "W2"]
    w = {n: t("/" + n, True) for n in params}
    x, rope, mask = t("/X"), t("/rope"), t("/mask")
    d = x.shape[-1]

    def rmsnorm(v, g):
        return v * (1.0 / torch.sqrt((v * v).sum(-1, keepdim=True) / d + 1e-5)) * g

    xn = rmsnorm(x, w["g_attn"])
    q0, k0, v = (torch.einsum("bsm,mhe->bhse", xn, w[n]) for n in ("Wq", "Wk", "Wv"))
    q, k = (torch.einsum("bhsc,sce->bhse", z, rope) for z in (q0, k0))
    scores = torch.einsum("bhse,bhte->bhst", q, k) / np.sqrt(q.shape[-1]) + mask
    o = torch.einsum("bhst,bhte->bhse", torch.softmax(scores, dim=-1), v)
    h = x + torch.einsum("bhse,hen->bsn", o, w["Wo"])
    hn = rmsnorm(h, w["g_ffn"])
    f1, f3 = hn @ w["W1"], hn @ w["W3"]
    y = h + (f1 * torch.sigmoid(f1) * f3) @ w["W2"]
    loss = (y * y).sum() / y.numel()
    loss.backward()
    # Normwise: every gradient is a chain of the block's reductions (over the
    # batch and positions, the model, head and feed-forward dimensions, the
    # keys), each within its length in eps of the largest term; the sum of
    # the lengths bounds the chain's, relative to the gradient's largest entry.
    k = sum(x.shape) + w["Wq"].shape[1] * w["Wq"].shape[2] + w["W1"].shape[1] + mask.shape[-1]
    rows = [(p, "/L", np.array(loss.item()), np.array(4 * k * EPS * loss.item()))]
    for n in params:
        g = w[n].grad.numpy()
        rows.append((p, "/grad/" + n, g, np.full(g.shape, 4 * k * EPS * np.abs(g).max())))
    return rows


REFERENCES = {
    "attention.yaml": attention,
    "llama_block.yaml": llama_block,
    "llama_block_gradients.yaml": llama_block_gradients,
}
