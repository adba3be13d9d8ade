"""Independent numpy references for the decks in inputs/.

Each function receives the folder the deck wrote into (and the inputs folder)
and returns (file, dataset, expected array, tolerance) rows. The decks write
their generated inputs next to their results, so numpy recomputes every result
from the very same inputs, without sharing any code with the engine.

Tolerances come from the problem: a K-long sum of products x*y is within
gamma_K * sum|x||y| of the exact value (gamma_K = K eps / (1 - K eps), Higham
§3.1); two different summation orders therefore differ by at most twice that.
Element-wise maps (exp, tanh, division) add a few ulps per operation.
"""
import os

import h5py
import numpy as np

from references_transformer import _matmul, _softmax

EPS = np.finfo(np.float64).eps
DTYPE = np.float64  # the element type the decks ran in (check_decks.py --dtype)


def dot_tol(a, b):
    """Element-wise bound for a @ b computed in another order."""
    k = a.shape[1]
    return 2.0 * k * EPS * (np.abs(a) @ np.abs(b)) + 1e-300


def read(path, name):
    """A dataset as float64 (a float32 run writes float32: numpy then computes
    the reference in float64 all the same)."""
    with h5py.File(path, "r") as f:
        return f[name][...].astype(np.float64)


def quickstart(out, inputs):
    p = os.path.join(out, "quickstart.h5")
    x, w = read(p, "/inputs/X"), read(p, "/inputs/W")
    return [(p, "/Y", np.maximum(x @ w, 0.0), dot_tol(x, w))]


def matrix_product(deck):
    """The reference of a deck that writes C = A B and its inputs /A, /B to <deck>.h5."""
    def reference(out, inputs):
        p = os.path.join(out, deck + ".h5")
        a, b = read(p, "/A"), read(p, "/B")
        return [(p, "/C", a @ b, dot_tol(a, b))]
    return reference


def chain(out, inputs):
    p = os.path.join(out, "chain.h5")
    x, w1, w2 = read(p, "/X"), read(p, "/W1"), read(p, "/W2")
    h = x @ w1
    r = np.tanh(h)
    # tanh is 1-Lipschitz: the error in H passes through, plus a few ulps.
    r_err = dot_tol(x, w1) + 4 * EPS * np.abs(r)
    y = r @ w2
    tol = dot_tol(r, w2) + r_err.max() * (np.abs(w2).sum(axis=0)[None, :])
    return [(p, "/Y", y, tol)]


def sqdist_max(out, inputs):
    p = os.path.join(out, "sqdist_max.h5")
    x, y = read(p, "/X"), read(p, "/Y")
    diff2 = (x[:, :, None] - y[None, :, :]) ** 2
    k = x.shape[1]
    # Max picks one of the values, in any order: computed in the run's own
    # type, each difference and square rounds as the engine's do.
    exact = ((x.astype(DTYPE)[:, :, None] - y.astype(DTYPE)[None, :, :]) ** 2).max(axis=1).astype(np.float64)
    return [
        (p, "/D", exact, np.zeros(1)),
        (p, "/L2", diff2.sum(axis=1), 2.0 * k * EPS * diff2.sum(axis=1) + 1e-300),
    ]


def diag(out, inputs):
    p = os.path.join(out, "diag.h5")
    x, y = read(p, "/X"), read(p, "/Y")
    return [(p, "/Z", np.diag(x + y), np.zeros(1))]  # one addition each: exact match expected


def hdf5_input(out, inputs):
    p = os.path.join(out, "hdf5_input.h5")
    src = os.path.join(inputs, "data", "attention_small.h5")
    q, k = read(src, "/Q"), read(src, "/K")
    logits = q @ k.T / 4.0
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    # Logit errors (dot_tol/4) change each probability relatively by at most
    # twice that error; exp, the sum and the division add a few ulps.
    rel = 2.0 * (dot_tol(q, k.T) / 4.0).max() + 16 * q.shape[1] * EPS
    return [(p, "/P", probs, rel * probs + 1e-300)]


def hdf5_select(out, inputs):
    src = os.path.join(inputs, "data", "attention_small.h5")
    q, k = read(src, "/Q")[16:48], read(src, "/K")
    path = os.path.join(out, "hdf5_select.h5")
    with h5py.File(path, "r") as f:
        stored = f["/L32"]
        assert (stored.dtype, stored.chunks, stored.compression, stored.compression_opts) == (np.float32, (8, 16), "gzip", 4), \
            f"/L32 stored as {stored.dtype}, chunks {stored.chunks}, {stored.compression} {stored.compression_opts}"
    logits = q @ k.T
    # float32 rounds each value to within half an ulp: 2^-24 relative.
    return [(path, "/L", logits, dot_tol(q, k.T)),
            (path, "/L32", logits, dot_tol(q, k.T) + np.abs(logits) * 2.0**-24)]


def reductions(out, inputs):
    p = os.path.join(out, "reductions.h5")
    x = read(p, "/X")
    n = x.size
    return [
        (p, "/colmax", x.max(axis=0), np.zeros(1)),  # max and min are exact in any order
        (p, "/rowmin", x.min(axis=1), np.zeros(1)),
        (p, "/total", np.array(x.sum()), np.array(2.0 * n * EPS * np.abs(x).sum())),
    ]


def nearest_neighbour(p):
    """dist[n] = (x_n - q) A (x_n - q)^T and its minimum, for nn_wide and nn_large."""
    x, q, a = read(p, "/X"), read(p, "/q"), read(p, "/A")
    diff = x - q[None, :]  # one correctly rounded subtraction: the engine's diff is the same
    proj = diff @ a
    dist = (proj * diff).sum(axis=1)
    # The error of proj (dot_tol) passes through the product with diff; the
    # product and the D-long row sum add their own rounding.
    d = diff.shape[1]
    tol = (dot_tol(diff, a) * np.abs(diff)).sum(axis=1) + 2.0 * (d + 2) * EPS * (np.abs(proj) * np.abs(diff)).sum(axis=1) + 1e-300
    # |min(u) - min(v)| <= max |u - v|.
    return [(p, "/dist", dist, tol), (p, "/best", np.array(dist.min()), np.array(tol.max()))]


def nn_wide(out, inputs):
    return nearest_neighbour(os.path.join(out, "nn_wide.h5"))


def nn_rows(out, inputs):
    return nearest_neighbour(os.path.join(out, "nn_rows.h5"))


def nn_large(out, inputs):
    return nearest_neighbour(os.path.join(out, "nn_large.h5"))


def matrix_chain(p):
    """Z = A B + C (D E) (EinDecomp §9, Experiment 1), in numpy's order."""
    a, b, c, d, e = (read(p, "/inputs/" + n) for n in "ABCDE")
    zero = lambda t: np.zeros_like(t)
    ab, e_ab = _matmul(a, zero(a), b, zero(b))
    de, e_de = _matmul(d, zero(d), e, zero(e))
    cde, e_cde = _matmul(c, zero(c), de, e_de)
    z = ab + cde
    # the sum's operands' bounds pass through, plus one rounding on each side
    return [(p, "/Z", z, e_ab + e_cde + 2 * EPS * np.abs(z) + 1e-300)]


def chain_square(out, inputs):
    return matrix_chain(os.path.join(out, "chain_square.h5"))


def chain_skewed(out, inputs):
    return matrix_chain(os.path.join(out, "chain_skewed.h5"))


def ffnn(out, inputs):
    """P = softmax(relu(X W1 + b1) W2 + b2) over the labels."""
    p = os.path.join(out, "ffnn.h5")
    x, w1, b1, w2, b2 = (read(p, "/inputs/" + n) for n in ("X", "W1", "b1", "W2", "b2"))
    z1, e_z1 = _matmul(x, np.zeros_like(x), w1, np.zeros_like(w1))
    pre = z1 + b1[None, :]
    h = np.maximum(pre, 0.0)
    # relu is 1-Lipschitz and exact; the bias addition rounds once on each side
    e_h = e_z1 + 2 * EPS * np.abs(pre)
    z2, e_z2 = _matmul(h, e_h, w2, np.zeros_like(w2))
    logits = z2 + b2[None, :]
    e_logits = e_z2 + 2 * EPS * np.abs(logits)
    probs, e_probs = _softmax(logits, e_logits)
    return [(p, "/P", probs, e_probs + 1e-300)]


def ffnn_gradients(out, inputs):
    """The loss and the parameters' gradients, by PyTorch's autograd in float64."""
    import torch
    p = os.path.join(out, "ffnn_gradients.h5")
    x, t, w1, b1, w2, b2 = (read(p, "/inputs/" + n) for n in ("X", "T", "W1", "b1", "W2", "b2"))
    batch = x.shape[0]
    as_t = lambda a, grad=False: torch.tensor(a, dtype=torch.float64, requires_grad=grad)
    W1, B1, W2, B2 = (as_t(a, True) for a in (w1, b1, w2, b2))
    h = torch.relu(as_t(x) @ W1 + B1)
    probs = torch.softmax(h @ W2 + B2, dim=1)
    loss = (-as_t(t) * torch.log(probs)).sum() / batch
    loss.backward()
    h, probs = h.detach().numpy(), probs.detach().numpy()
    # Every gradient is a chain of reductions over the batch, the hidden
    # units, the labels and the features; each rounds within (its length) eps
    # of the same products taken on magnitudes. The logits' gradient
    # P (P.grad - sum P.grad P) = (P - T) / batch cancels, so its magnitude is
    # that of its terms, (|T| + P sum|T|) / batch, not of its value.
    k = sum(x.shape) + sum(w1.shape) + w2.shape[1]
    ds = (np.abs(t) + probs * np.abs(t).sum(axis=1, keepdims=True)) / batch
    dh = ds @ np.abs(w2).T
    tol = lambda m: 4 * k * EPS * m + 1e-300
    return [
        (p, "/L", np.array(loss.item()), tol(np.abs(t * np.log(probs)).sum() / batch)),
        (p, "/grad/W2", W2.grad.numpy(), tol(h.T @ ds)),
        (p, "/grad/b2", B2.grad.numpy(), tol(ds.sum(axis=0))),
        (p, "/grad/W1", W1.grad.numpy(), tol(np.abs(x).T @ dh)),
        (p, "/grad/b1", B1.grad.numpy(), tol(dh.sum(axis=0))),
    ]


def trained(train):
    """A training reference in the element type the deck ran in.

    train(out, inputs, dtype) trains with PyTorch in `dtype` from the deck's
    data and returns (file, dataset, values, kind) rows, kind "exact" (the
    batch order), "curve" (the loss of every iteration) or "tensor" (a
    trained tensor, a last gradient).

    In float64 the bounds are the issue's: loss curves within 1e-9
    (relative), tensors within 1e-8 of their largest entry; each step rounds
    sums of at most a few hundred terms, and the trajectories contract.

    In float32 the expected values are still float64 PyTorch's, and the
    bound is measured on the same problem: the same PyTorch training in
    float32 is the float32 rounding noise of this very trajectory. TRA
    rounds in other orders (its own GEMM blocking and folds), so it is held
    to 4 times PyTorch float32's distance from float64 (along a curve, the
    largest distance up to that iteration: rounding carries forward), plus 8
    float32 ulps of the value for a point where the two happen to agree."""
    def reference(out, inputs):
        import torch
        wide = train(out, inputs, torch.float64)
        if DTYPE == np.float64:
            bound = {"exact": lambda v: 0.0, "curve": lambda v: 1e-9 * np.abs(v), "tensor": lambda v: 1e-8 * np.abs(v).max()}
            return [(path, name, v, bound[kind](v)) for path, name, v, kind in wide]
        narrow = train(out, inputs, torch.float32)
        rows = []
        for (path, name, v, kind), (_, _, v32, _) in zip(wide, narrow):
            noise = np.abs(np.asarray(v32, dtype=np.float64) - v)
            if kind == "exact":
                tol = 0.0
            elif kind == "curve":
                tol = 4 * np.maximum.accumulate(noise) + 8 * EPS * np.abs(v)
            else:
                tol = 4 * noise.max() + 8 * EPS * np.abs(v).max()
            rows.append((path, name, v, tol))
        return rows
    return reference


@trained
def logistic_sgd(out, inputs, dtype):
    """50 steps of torch.optim.SGD with momentum on the same data and initial
    weights: the loss of every iteration (from the run's log), the trained
    weights and the last iteration's gradient."""
    import torch
    src = os.path.join(inputs, "data", "logistic.h5")
    x, y, w0 = (torch.tensor(read(src, n), dtype=dtype) for n in ("/X", "/y", "/W0"))
    w = w0.clone().requires_grad_(True)
    opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
    losses = []
    for _ in range(50):
        opt.zero_grad()
        z = x @ w
        loss = (torch.nn.functional.softplus(z) - y * z).sum() / x.shape[0]
        loss.backward()
        losses.append(loss.item())
        grad = w.grad.detach().clone()
        opt.step()
    h5 = os.path.join(out, "logistic_sgd.h5")
    return [
        (os.path.join(out, "logistic_sgd.csv"), "loss", np.array(losses), "curve"),
        (h5, "/W", w.detach().double().numpy(), "tensor"),
        (h5, "/W.grad", grad.double().numpy(), "tensor"),
    ]


MASK64 = (1 << 64) - 1


def epoch_order(batches, seed, epoch):
    """train: order: shuffled — the batch order of one epoch, as
    docs/training.md specifies it: a Fisher-Yates shuffle driven by
    SplitMix64 seeded with seed XOR (epoch * 0xD1B54A32D192ED03)."""
    return fisher_yates(batches, seed ^ (epoch * 0xD1B54A32D192ED03))


def fisher_yates(n, state):
    """A permutation of range(n): a Fisher-Yates shuffle driven by SplitMix64
    from `state` (docs/training.md)."""
    state &= MASK64
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        j = z % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@trained
def logistic_adam(out, inputs, dtype):
    """100 steps of torch.optim.Adam on batches of 64 rows in the shuffled
    order of docs/training.md (25 epochs of 4 batches): the loss and batch of
    every iteration (from the run's log), the trained weights and the last
    iteration's gradient. Adam divides by sqrt(v) + eps, which for a
    coordinate whose gradients are near zero amplifies their rounding; with
    eps = 1e-8 and gradients of order 1e-3 here, the amplification stays far
    below the bounds."""
    import torch
    src = os.path.join(inputs, "data", "logistic.h5")
    x, y, w0 = (torch.tensor(read(src, n), dtype=dtype) for n in ("/X", "/y", "/W0"))
    w = w0.clone().requires_grad_(True)
    opt = torch.optim.Adam([w], lr=0.05, betas=(0.9, 0.999), eps=1e-8)
    losses, batches = [], []
    size = 64
    for epoch in range(25):
        for b in epoch_order(x.shape[0] // size, 7, epoch):
            xb, yb = x[b * size:(b + 1) * size], y[b * size:(b + 1) * size]
            opt.zero_grad()
            z = xb @ w
            loss = (torch.nn.functional.softplus(z) - yb * z).sum() / size
            loss.backward()
            losses.append(loss.item())
            batches.append(b)
            grad = w.grad.detach().clone()
            opt.step()
    h5 = os.path.join(out, "logistic_adam.h5")
    csv = os.path.join(out, "logistic_adam.csv")
    return [
        (csv, "batch", np.array(batches, dtype=np.float64), "exact"),
        (csv, "loss", np.array(losses), "curve"),
        (h5, "/W", w.detach().double().numpy(), "tensor"),
        (h5, "/W.grad", grad.double().numpy(), "tensor"),
    ]


def train_ffnn(out, inputs, dtype, name, data, batch, epochs, order_seed, loss_of, make_optimizer):
    """The FFNN decks (speech_ffnn, xml_ffnn) trained by PyTorch from the
    same data file, initial weights and batch order: the loss and batch of
    every iteration, the trained parameters and W1's last gradient."""
    import torch
    src = os.path.join(inputs, "data", data)
    x, t = (torch.tensor(read(src, n), dtype=dtype) for n in ("/X", "/T"))
    params = {n: torch.tensor(read(src, "/" + n), dtype=dtype, requires_grad=True) for n in ("W1", "b1", "W2", "b2")}
    opt = make_optimizer(list(params.values()))
    losses, batches = [], []
    nb = x.shape[0] // batch
    for epoch in range(epochs):
        for b in (epoch_order(nb, order_seed, epoch) if order_seed is not None else range(nb)):
            xb, tb = x[b * batch:(b + 1) * batch], t[b * batch:(b + 1) * batch]
            opt.zero_grad()
            h = torch.relu(xb @ params["W1"] + params["b1"])
            loss = loss_of(h @ params["W2"] + params["b2"], tb)
            loss.backward()
            losses.append(loss.item())
            batches.append(b)
            grad = params["W1"].grad.detach().clone().double().numpy()
            opt.step()
    h5 = os.path.join(out, name + ".h5")
    csv = os.path.join(out, name + ".csv")
    checks = [(csv, "batch", np.array(batches, dtype=np.float64), "exact"), (csv, "loss", np.array(losses), "curve")]
    for n, p in params.items():
        checks.append((h5, "/" + n, p.detach().double().numpy(), "tensor"))
    checks.append((h5, "/W1.grad", grad, "tensor"))
    return checks


@trained
def speech_ffnn(out, inputs, dtype):
    import torch
    return train_ffnn(out, inputs, dtype, "speech_ffnn", "speech_small.h5", 100, 5, 3,
                      lambda s, t: (-t * torch.log_softmax(s, dim=1)).sum() / 100,
                      lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9))


@trained
def xml_ffnn(out, inputs, dtype):
    import torch
    return train_ffnn(out, inputs, dtype, "xml_ffnn", "xml_small.h5", 32, 10, None,
                      lambda s, t: (torch.nn.functional.softplus(s) - t * s).sum() / 8192,
                      lambda ps: torch.optim.Adam(ps, lr=0.01))


@trained
def nnmf(out, inputs, dtype):
    """100 steps of torch.optim.Adam on W and H, each clamped to >= 0 after
    every step, from the same data and initial factors: the loss of every
    iteration and the trained factors."""
    import torch
    src = os.path.join(inputs, "data", "nnmf.h5")
    v = torch.tensor(read(src, "/V"), dtype=dtype)
    w, h = (torch.tensor(read(src, n), dtype=dtype, requires_grad=True) for n in ("/W0", "/H0"))
    opt = torch.optim.Adam([w, h], lr=0.05)
    losses = []
    for _ in range(100):
        opt.zero_grad()
        loss = ((v - w @ h) ** 2).sum() / 7680
        loss.backward()
        losses.append(loss.item())
        opt.step()
        with torch.no_grad():
            w.clamp_(min=0)
            h.clamp_(min=0)
    h5 = os.path.join(out, "nnmf.h5")
    wt, ht = w.detach().double().numpy(), h.detach().double().numpy()
    assert (wt == 0).sum() > 0 and (ht == 0).sum() > 0, "the projection must be active for the test to test it"
    return [
        (os.path.join(out, "nnmf.csv"), "loss", np.array(losses), "curve"),
        (h5, "/W", wt, "tensor"),
        (h5, "/H", ht, "tensor"),
    ]


def sparse_gcn_layer(out, inputs):
    """M = Â (X W), L = Σ M², W.grad = 2 Xᵀ Âᵀ M, with Â from its coordinate
    lists summed entry by entry (np.add.at: no sparse library). Each value is
    a chain of sums: a row of Â (at most its longest row's entries), the 16
    features, the 1000 nodes of Âᵀ and of Xᵀ; each rounds within its length
    of eps on the same chain taken on magnitudes."""
    src = os.path.join(inputs, "data", "graph_small.h5")
    x, w = read(src, "/X"), read(src, "/W1")
    with h5py.File(src, "r") as f:
        rows, cols, vals = f["mean/rows"][...], f["mean/cols"][...], f["mean/values"][...].astype(DTYPE).astype(np.float64)
    x, w = x.astype(DTYPE).astype(np.float64), w.astype(DTYPE).astype(np.float64)
    n = x.shape[0]

    def a_times(m, transposed=False):
        out = np.zeros((n, m.shape[1]))
        np.add.at(out, cols if transposed else rows, vals[:, None] * m[rows if transposed else cols])
        return out

    def abs_a_times(m, transposed=False):
        out = np.zeros((n, m.shape[1]))
        np.add.at(out, cols if transposed else rows, np.abs(vals)[:, None] * m[rows if transposed else cols])
        return out

    z = x @ w
    m = a_times(z)
    grad = x.T @ a_times(2 * m, transposed=True)
    longest = max(np.bincount(rows).max(), np.bincount(cols).max())
    k = longest + x.shape[1] + 2 * n
    m_abs = abs_a_times(np.abs(x) @ np.abs(w))
    tol = lambda mag: 4 * k * EPS * mag + 1e-300
    p = os.path.join(out, "sparse_gcn_layer.h5")
    return [
        (p, "/M", m, tol(m_abs)),
        (p, "/L", np.array((m * m).sum()), np.array(tol((m_abs * m_abs).sum()))),
        (p, "/grad/W", grad, tol(np.abs(x).T @ abs_a_times(2 * m_abs, transposed=True))),
    ]


@trained
def gcn(out, inputs, dtype):
    """20 steps of torch.optim.Adam on the two-layer GCN, full graph, with Â
    as a torch sparse COO tensor built from the same coordinate lists and
    multiplied by torch.sparse.mm (its backward: Âᵀ·G), the same data and
    initial weights: the loss of every iteration (from the run's log), the
    trained parameters and W1's last gradient."""
    import torch
    src = os.path.join(inputs, "data", "graph_small.h5")
    with h5py.File(src, "r") as f:
        rows, cols, vals = f["adj/rows"][...], f["adj/cols"][...], f["adj/values"][...]
    x, t = (torch.tensor(read(src, n), dtype=dtype) for n in ("/X", "/T"))
    n = x.shape[0]
    a = torch.sparse_coo_tensor(torch.tensor(np.stack([rows, cols])), torch.tensor(vals, dtype=dtype), (n, n)).coalesce()
    params = {k: torch.tensor(read(src, "/" + k), dtype=dtype, requires_grad=True) for k in ("W1", "b1", "W2", "b2")}
    opt = torch.optim.Adam(list(params.values()), lr=0.1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        h = torch.relu(torch.sparse.mm(a, x @ params["W1"]) + params["b1"])
        s = torch.sparse.mm(a, h @ params["W2"]) + params["b2"]
        loss = (-t * torch.log_softmax(s, dim=1)).sum() / n
        loss.backward()
        losses.append(loss.item())
        grad = params["W1"].grad.detach().clone().double().numpy()
        opt.step()
    h5 = os.path.join(out, "gcn.h5")
    checks = [(os.path.join(out, "gcn.csv"), "loss", np.array(losses), "curve")]
    for k, p in params.items():
        checks.append((h5, "/" + k, p.detach().double().numpy(), "tensor"))
    checks.append((h5, "/W1.grad", grad, "tensor"))
    return checks


@trained
def transe(out, inputs, dtype):
    """40 steps of torch.optim.SGD (lr 0.5) on TransE-L2's embeddings, two
    epochs of the 20 batches in the deck's shuffled order (seed 3), each
    batch of 200 triples looked up by index_select (its backward: index_add_
    into the rows read) and scored against the batch's 16 shared negative
    tails by DGL-KE's batched L2 distance (|p|² + |n|² − 2 p·n, clamped at
    1e-30), margin 2, mean over the pairs: the batch order, the loss of
    every iteration, the trained embeddings and E's last gradient."""
    import torch
    src = os.path.join(inputs, "data", "kg_small.h5")
    with h5py.File(src, "r") as f:
        head, rel, tail, negs = (torch.tensor(f[k][...]) for k in ("head", "relation", "tail", "negatives"))
    e, r = (torch.tensor(read(src, n), dtype=dtype, requires_grad=True) for n in ("/E", "/R"))
    opt = torch.optim.SGD([e, r], lr=0.5)
    losses, batch, k = [], 200, 16
    order = epoch_order(20, 3, 0) + epoch_order(20, 3, 1)
    for at in order:
        opt.zero_grad()
        rows, neg_rows = slice(at * batch, (at + 1) * batch), slice(at * k, (at + 1) * k)
        p = e.index_select(0, head[rows]) + r.index_select(0, rel[rows])
        pos = ((p - e.index_select(0, tail[rows])) ** 2).sum(dim=1)
        en = e.index_select(0, negs[neg_rows])
        neg = (p * p).sum(dim=1)[:, None] - 2 * (p @ en.T) + (en * en).sum(dim=1)[None, :]
        loss = torch.relu(2 + pos.sqrt()[:, None] - neg.clamp_min(1e-30).sqrt()).sum() / (batch * k)
        loss.backward()
        losses.append(loss.item())
        grad = e.grad.detach().clone().double().numpy()
        opt.step()
    h5 = os.path.join(out, "transe.h5")
    assert (grad == 0).all(axis=1).sum() > 0, "some rows of E must be untouched by the last batch, for the sparse update to be tested"
    return [
        (os.path.join(out, "transe.csv"), "batch", np.array(order), "exact"),
        (os.path.join(out, "transe.csv"), "loss", np.array(losses), "curve"),
        (h5, "/E", e.detach().double().numpy(), "tensor"),
        (h5, "/R", r.detach().double().numpy(), "tensor"),
        (h5, "/E.grad", grad, "tensor"),
    ]


REFERENCES = {
    "reductions.yaml": reductions,
    "quickstart.yaml": quickstart,
    "matmul.yaml": matrix_product("matmul"),
    "chain.yaml": chain,
    "sqdist_max.yaml": sqdist_max,
    "diag.yaml": diag,
    "hdf5_input.yaml": hdf5_input,
    "hdf5_select.yaml": hdf5_select,
    "matmul_general.yaml": matrix_product("matmul_general"),
    "matmul_common_dim.yaml": matrix_product("matmul_common_dim"),
    "matmul_two_large.yaml": matrix_product("matmul_two_large"),
    "nn_wide.yaml": nn_wide,
    "nn_large.yaml": nn_large,
    "nn_rows.yaml": nn_rows,
    "chain_square.yaml": chain_square,
    "chain_skewed.yaml": chain_skewed,
    "ffnn.yaml": ffnn,
    "ffnn_gradients.yaml": ffnn_gradients,
    "logistic_sgd.yaml": logistic_sgd,
    "logistic_adam.yaml": logistic_adam,
    "speech_ffnn.yaml": speech_ffnn,
    "xml_ffnn.yaml": xml_ffnn,
    "nnmf.yaml": nnmf,
    "sparse_gcn_layer.yaml": sparse_gcn_layer,
    "gcn.yaml": gcn,
    "transe.yaml": transe,
}
