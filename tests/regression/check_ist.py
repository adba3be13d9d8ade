#!/usr/bin/python3
"""Training by rounds (train: method: ist | local_sgd; app/local_rounds.hpp)
against an implementation written for this test from the thesis (ch. 2,
Algorithms 1-2) in PyTorch, float64, with the same data, initial weights,
neuron assignments and batches:

- IST on one rank is the synchronous run, bit for bit (weights and losses);
- IST on 2 and 4 ranks and local SGD on 2: the loss curve within 1e-9 and
  the weights within 1e-8 after 20 iterations (rounds of 3 steps, the last
  one cut short), with plain SGD and with momentum;
- the floats the sites assemble per round are the thesis' count (§2.1.5:
  N0*N1 + N_{t-1}*N_t + sum of the hidden-to-hidden N_{i-1}*N_i / n, and
  the hidden biases), and the floats that move between ranks are what this
  script's own bookkeeping of where each weight is current predicts;
- a run stopped after a checkpoint and resumed (--resume) ends with the
  uninterrupted run's weights and losses, bit for bit; a resume on another
  rank count is refused at `method:`;
- decks IST cannot run fail with exit 2 and a located message, printed once.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from references import epoch_order, fisher_yates  # noqa: E402

BATCH, ROWS, ITERATIONS, J, LR, BETA = 50, 400, 20, 3, 0.1, 0.9
EVERY = 4  # accuracy: every
HIDDEN = {1: [], 2: [64], 3: [64, 32]}  # hidden layer widths of the networks of 1, 2 and 3 weight layers


def deck(layers, method, optimizer="{kind: sgd, lr: 0.1}", extra="", held_out=0):
    """The deck of a network with `layers` weight layers on the test's data."""
    widths = [160] + HIDDEN[layers] + [16]
    names = ["W%d" % (i + 1) for i in range(layers)]
    lines = ["tensors:",
             "  - {name: X, shape: [%d, 160], source: {file: data.h5, dataset: /X}, batch: {dim: 0, size: %d}}" % (ROWS, BATCH),
             "  - {name: T, shape: [%d, 16], source: {file: data.h5, dataset: /T}, batch: {dim: 0, size: %d}}" % (ROWS, BATCH)]
    for i, w in enumerate(names):
        lines.append("  - {name: %s, shape: [%d, %d], source: {file: data.h5, dataset: /%s}, param: true}" % (w, widths[i], widths[i + 1], w))
        lines.append("  - {name: b%d, shape: [%d], source: {file: data.h5, dataset: /b%d}, param: true}" % (i + 1, widths[i + 1], i + 1))
    lines.append("graph:")
    labels = ["f"] + ["h%d" % (i + 1) for i in range(layers - 1)] + ["l"]
    prev = "X"
    for i in range(layers):
        a, b = labels[i], labels[i + 1]
        lines.append('  - "Z%d[b,%s] = sum_%s %s[b,%s] * W%d[%s,%s]"' % (i + 1, b, a, prev, a, i + 1, a, b))
        if i + 1 < layers:
            lines.append('  - "H%d[b,%s] = relu(Z%d[b,%s] + b%d[%s])"' % (i + 1, b, i + 1, b, i + 1, b))
            prev = "H%d" % (i + 1)
    lines += ['  - "S[b,l] = Z%d[b,l] + b%d[l]"' % (layers, layers),
              '  - "P[b,l] = log_softmax_l(S[b,l])"',
              '  - "L = sum_{b,l} -T[b,l] * P[b,l] / %d"' % BATCH,
              "train:", "  loss: L"]
    if method != "synchronous":
        lines += ["  method: %s" % method, "  local_steps: %d" % J]
        if method == "ist":
            lines.append("  seed: 11")
    lines += ["  optimizer: %s" % optimizer, "  iterations: %d" % ITERATIONS, "  order: {kind: shuffled, seed: 3}",
              "  log: {file: run.csv}"]
    if held_out:
        lines.append("  accuracy: {predictions: S, targets: T, held_out: %d, every: %d}" % (held_out, EVERY))
    lines.append("outputs:")
    for i in range(layers):
        for p in ("W%d" % (i + 1), "b%d" % (i + 1)):
            lines.append("  - {tensor: %s, file: out.h5, dataset: /%s}" % (p, p))
    return "\n".join(lines) + "\n" + extra


def make_data(folder, inputs):
    """The speech-like rows of inputs/data/speech_small.h5, and initial
    weights for both networks drawn here (numpy, seeded)."""
    rng = np.random.default_rng(5)
    with h5py.File(os.path.join(inputs, "data", "speech_small.h5")) as src, h5py.File(os.path.join(folder, "data.h5"), "w") as f:
        f["/X"], f["/T"] = src["/X"][()], src["/T"][()]
        widths = [160] + HIDDEN[3] + [16]
        for i in range(3):
            f["/W%d" % (i + 1)] = rng.normal(0, 1 / np.sqrt(widths[i]), (widths[i], widths[i + 1]))
            f["/b%d" % (i + 1)] = rng.normal(0, 0.1, widths[i + 1])
    # The two-layer network reads W1, b1 and a last layer of its own widths.
    with h5py.File(os.path.join(folder, "data2.h5"), "w") as f, h5py.File(os.path.join(folder, "data.h5")) as src:
        for k in ("X", "T", "W1", "b1"):
            f["/" + k] = src["/" + k][()]
        f["/W2"] = rng.normal(0, 1 / 8, (64, 16))
        f["/b2"] = rng.normal(0, 0.1, 16)
    # One layer (no hidden one), for a deck IST refuses.
    with h5py.File(os.path.join(folder, "data1.h5"), "w") as f, h5py.File(os.path.join(folder, "data.h5")) as src:
        f["/X"], f["/T"] = src["/X"][()], src["/T"][()]
        f["/W1"], f["/b1"] = np.zeros((160, 16)), np.zeros(16)


def deal(seed, rnd, layer, size, sites):
    """model/hidden_layers.hpp's deal_neurons, from its specification."""
    order = fisher_yates(size, seed ^ (rnd * 0xD1B54A32D192ED03) ^ ((layer + 1) * 0xA24BAED4963EE407))
    each = size // sites
    return [sorted(order[s * each:(s + 1) * each]) for s in range(sites)]


def forward(whole, layers, x):
    """The logits of the whole network."""
    h = x
    for i in range(layers):
        z = h @ whole["W%d" % (i + 1)] + whole["b%d" % (i + 1)]
        h = np.maximum(z, 0) if i + 1 < layers else z
    return h


def reference(data, layers, method, sites, momentum, held_out=0, local_steps=J):
    """The thesis' IST (Algorithm 1 with Algorithm 2's local SGD at each
    site) and local SGD, in PyTorch: the mean loss of every step, the
    trained weights, the floats the sites assemble and move per round, and
    the held-out accuracy at the end of each round holding an iteration
    that measures it (the last `held_out` rows, never trained on)."""
    import torch
    with h5py.File(data) as f:
        x, t = torch.tensor(f["/X"][()]), torch.tensor(f["/T"][()])
        whole = {}
        for i in range(layers):
            whole["W%d" % (i + 1)] = f["/W%d" % (i + 1)][()].copy()
            whole["b%d" % (i + 1)] = f["/b%d" % (i + 1)][()].copy()
    velocity = {k: np.zeros_like(v) for k, v in whole.items()}
    home = {k: np.full(v.shape, -1) for k, v in whole.items() if k != "b%d" % layers}  # where each entry is current
    nb = (ROWS - held_out) // BATCH
    hidden = HIDDEN[layers] if method == "ist" else []
    losses, assembled, moved, accuracy = [], [], 0, []

    def cut(name, dealt, s):
        """The index arrays of site s's entries of a tensor (None: whole)."""
        i = int(name[1:]) - 1  # layer number
        if name.startswith("b"):
            return (dealt[i][s],) if i < len(dealt) else None
        rows = dealt[i - 1][s] if i >= 1 else slice(None)
        cols = dealt[i][s] if i < len(dealt) else slice(None)
        return np.ix_(np.arange(whole[name].shape[0])[rows], np.arange(whole[name].shape[1])[cols])

    it = 0
    rnd = 0
    while it < ITERATIONS:
        steps = min(local_steps, ITERATIONS - it)
        dealt = [deal(11, rnd, k, w, sites) for k, w in enumerate(hidden)]
        site_params, site_velocity, step_losses = [], [], [[] for _ in range(steps)]
        count = 0
        for s in range(sites):
            params, vel = {}, {}
            for name in whole:
                idx = cut(name, dealt, s) if method == "ist" else None
                if idx is None:
                    params[name], vel[name] = whole[name].copy(), velocity[name].copy()
                    continue
                count += home[name][idx].size
                h = home[name][idx]
                moved += int(np.sum((h != -1) & (h != s)))
                home[name][idx] = s
                params[name], vel[name] = whole[name][idx].copy(), velocity[name][idx].copy()
            p = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
            v = {k: torch.tensor(a) for k, a in vel.items()}
            for j in range(steps):
                k = (it + j) * sites + s
                b = epoch_order(nb, 3, k // nb)[k % nb]
                h = x[b * BATCH:(b + 1) * BATCH]
                for i in range(layers):
                    z = h @ p["W%d" % (i + 1)] + p["b%d" % (i + 1)]
                    h = torch.relu(z) if i + 1 < layers else z
                loss = (-t[b * BATCH:(b + 1) * BATCH] * torch.log_softmax(h, dim=1)).sum() / BATCH
                for q in p.values():
                    q.grad = None
                loss.backward()
                step_losses[j].append(loss.item())
                with torch.no_grad():
                    for name, q in p.items():
                        if momentum:
                            v[name] = BETA * v[name] + q.grad
                            q -= LR * v[name]
                        else:
                            q -= LR * q.grad
            site_params.append({k: q.detach().numpy() for k, q in p.items()})
            site_velocity.append({k: a.numpy() for k, a in v.items()})
        for j in range(steps):
            total = step_losses[j][0]
            for l in step_losses[j][1:]:
                total += l
            losses.append(total / sites)
        # Put back: each site's entries where it trained them, the rest averaged in rank order.
        for name in whole:
            for store, per_site in ((whole, site_params), (velocity, site_velocity)):
                if method == "ist":
                    if cut(name, dealt, 0) is not None:
                        for s in range(sites):
                            store[name][cut(name, dealt, s)] = per_site[s][name]
                        continue
                total = per_site[0][name].copy()
                for s in range(1, sites):
                    total = total + per_site[s][name]
                store[name][...] = total / sites
                if store is whole:
                    moved += total.size * sites * (sites - 1)
        assembled.append(count)
        if held_out and any((k + 1) % EVERY == 0 or k + 1 == ITERATIONS for k in range(it, it + steps)):
            logits = forward(whole, layers, x[ROWS - held_out:].numpy())
            accuracy.append(np.mean(logits.argmax(1) == t[ROWS - held_out:].numpy().argmax(1)))
        it += steps
        rnd += 1
    return losses, whole, assembled, moved, accuracy


def thesis_count(layers, sites):
    """§2.1.5's floats per round (per step times J), with the hidden biases."""
    widths = [160] + HIDDEN[layers] + [16]
    n = widths
    t = layers
    count = n[0] * n[1] + n[t - 1] * n[t] + sum(n[i - 1] * n[i] for i in range(2, t)) // sites
    return count + sum(HIDDEN[layers])


def read_log(path):
    rows = np.genfromtxt(path, delimiter=",", names=True)
    accuracy = rows["accuracy"][~np.isnan(rows["accuracy"])] if "accuracy" in rows.dtype.names else None
    return rows["loss"], (rows["moved_floats"] if "moved_floats" in rows.dtype.names else None), accuracy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--inputs", required=True)
    args = ap.parse_args()
    tra = os.path.abspath(args.tra_run)
    problems = []

    def run(folder, text, ranks, name, extra=()):
        path = os.path.join(folder, name + ".yaml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(folder, name)
        os.makedirs(out, exist_ok=True)
        cmd = [args.mpiexec, "--oversubscribe", "-n", str(ranks), tra, path, "--output-dir", out] + list(extra)
        return subprocess.run(cmd, cwd=folder, capture_output=True, text=True), out

    with tempfile.TemporaryDirectory() as tmp:
        make_data(tmp, args.inputs)
        data = {3: os.path.join(tmp, "data.h5"), 2: os.path.join(tmp, "data2.h5")}
        two = lambda text: text.replace("file: data.h5", "file: data2.h5")
        text_of = lambda layers, method, **kw: (two if layers == 2 else (lambda s: s))(deck(layers, method, **kw))

        # One rank: IST is the synchronous run, bit for bit.
        for layers in (2, 3):
            runs = {}
            for method in ("synchronous", "ist"):
                r, out = run(tmp, text_of(layers, method), 1, "one_%d_%s" % (layers, method))
                if r.returncode != 0:
                    problems.append("%d layers, %s, 1 rank: exit %d: %s" % (layers, method, r.returncode, r.stderr[-1500:]))
                    continue
                runs[method] = out
            if len(runs) == 2:
                with h5py.File(os.path.join(runs["synchronous"], "out.h5")) as a, h5py.File(os.path.join(runs["ist"], "out.h5")) as b:
                    for k in a:
                        if not np.array_equal(a[k][()], b[k][()]):
                            problems.append("%d layers, 1 rank: IST's %s differs from the synchronous run's (max %g)" %
                                            (layers, k, np.abs(a[k][()] - b[k][()]).max()))
                la, lb = (read_log(os.path.join(runs[m], "run.csv"))[0] for m in ("synchronous", "ist"))
                if not np.array_equal(la, lb):
                    problems.append("%d layers, 1 rank: IST's losses differ from the synchronous run's" % layers)
                print("1 rank, %d layers: IST = synchronous, bit for bit" % layers)

        # Several ranks against the reference.
        # The held-out rows: the last 100 (of 400), measured every 4 iterations.
        cases = [(3, "ist", 2, False, 0), (3, "ist", 4, False, 0), (2, "ist", 2, False, 0), (3, "ist", 2, True, 0), (2, "local_sgd", 2, False, 0),
                 (2, "ist", 2, False, 100), (2, "synchronous", 1, False, 100)]
        for layers, method, ranks, momentum, held_out in cases:
            label = "%d layers, %s, %d ranks%s%s" % (layers, method, ranks, ", momentum" if momentum else "",
                                                     ", accuracy on %d held-out rows" % held_out if held_out else "")
            optimizer = "{kind: momentum, lr: %g, beta: %g}" % (LR, BETA) if momentum else "{kind: sgd, lr: %g}" % LR
            r, out = run(tmp, text_of(layers, method, optimizer=optimizer, held_out=held_out), ranks,
                         "r%d_%d_%s_%d_%d" % (ranks, layers, method, momentum, held_out))
            if r.returncode != 0:
                problems.append("%s: exit %d: %s" % (label, r.returncode, r.stderr[-1500:]))
                continue
            # Synchronous on one rank: IST on one rank in rounds of one step.
            synchronous = method == "synchronous"
            losses, weights, assembled, moved, accuracy = reference(data[layers], layers, "ist" if synchronous else method, ranks, momentum,
                                                                    held_out, 1 if synchronous else J)
            got_losses, got_moved, got_accuracy = read_log(os.path.join(out, "run.csv"))
            if held_out:
                if got_accuracy is None or len(got_accuracy) != len(accuracy) or np.any(got_accuracy != np.array(accuracy)):
                    problems.append("%s: held-out accuracy %s, the reference's %s" % (label, got_accuracy, accuracy))
                else:
                    print("%s: held-out accuracy %s, as the reference's" % (label, " ".join("%.2f" % a for a in accuracy)))
            if np.abs(got_losses - np.array(losses)).max() > 1e-9:
                problems.append("%s: loss curve off by %g (> 1e-9)" % (label, np.abs(got_losses - np.array(losses)).max()))
            worst = 0.0
            with h5py.File(os.path.join(out, "out.h5")) as f:
                for k, w in weights.items():
                    err = np.abs(f[k][()] - w).max()
                    worst = max(worst, err)
                    if err > 1e-8:
                        problems.append("%s: %s off by %g (> 1e-8)" % (label, k, err))
            m = re.search(r"per round the sites assembled (\d+) floats of subnetworks \(predicted (\d+) floats\)", r.stderr)
            # The velocity is cut, moved and averaged as its weights are.
            state = 2 if momentum else 1
            if method == "ist":
                count = thesis_count(layers, ranks)
                if assembled[0] != count:
                    problems.append("%s: the reference assembles %d floats a round, the thesis counts %d" % (label, assembled[0], count))
                if not m or int(m.group(1)) != count * state or int(m.group(2)) != count * state:
                    problems.append("%s: floats assembled per round: %s, expected %d" % (label, m.groups() if m else "no summary", count * state))
            expected_moved = moved * state
            if got_moved is not None and int(got_moved.sum()) != expected_moved:
                problems.append("%s: %d floats moved between ranks, the reference's bookkeeping says %d" % (label, got_moved.sum(), expected_moved))
            print("%s: loss within %.1e, weights within %.1e; %d floats moved (as predicted)" %
                  (label, np.abs(got_losses - np.array(losses)).max(), worst, got_moved.sum() if got_moved is not None else 0))

        # Stopped after the checkpoint of iteration 12 (4 rounds), resumed to 20.
        ck = two(deck(2, "ist")).replace("  log: {file: run.csv}\n", "  log: {file: run.csv}\n  checkpoint: {file: ck.h5, every: 6}\n")
        full, out_full = run(tmp, ck, 2, "ck_full")
        part, out_part = run(tmp, ck.replace("iterations: %d" % ITERATIONS, "iterations: 12"), 2, "ck_part")
        resumed, out_resumed = run(tmp, ck, 2, "ck_resumed", ["--resume", os.path.join(out_part, "ck.h5")])
        other, _ = run(tmp, ck, 1, "ck_other", ["--resume", os.path.join(out_part, "ck.h5")])
        if any(r.returncode != 0 for r in (full, part, resumed)):
            problems.append("checkpoint and resume: exit %s: %s" % ([r.returncode for r in (full, part, resumed)], resumed.stderr[-800:]))
        else:
            with h5py.File(os.path.join(out_full, "out.h5")) as a, h5py.File(os.path.join(out_resumed, "out.h5")) as b:
                same = all(np.array_equal(a[k][()], b[k][()]) for k in a)
            tail = read_log(os.path.join(out_full, "run.csv"))[0][12:]
            if not same or not np.array_equal(tail, read_log(os.path.join(out_resumed, "run.csv"))[0]):
                problems.append("resumed after iteration 12: weights or losses differ from the uninterrupted run's")
            else:
                print("checkpoint after iteration 12, resumed: the uninterrupted run's weights and losses, bit for bit")
        if other.returncode != 2 or not re.search(r"\.yaml:\d+:\d+: --resume .*on 2 rank\(s\)', but the deck trains with .*on 1 rank\(s\)'", other.stderr):
            problems.append("a resume on another rank count: exit %d: %s" % (other.returncode, other.stderr[-600:]))

        # Decks IST cannot run: exit 2, a located message, printed once.
        bad = [
            ("no hidden layer", deck(1, "ist").replace("file: data.h5", "file: data1.h5"), 1, r"\.yaml:\d+:\d+: method ist .*has none"),
            ("uneven", two(deck(2, "ist")), 3, r"\.yaml:\d+:\d+: .*deals the 64 hidden neurons of W1 dim 1 equally to the 3 ranks"),
            ("a loss written", two(deck(2, "ist", extra="  - {tensor: L, file: out.h5, dataset: /L}\n")), 1, r"\.yaml:\d+:\d+: .*'L' is computed by each site"),
            ("a seed, synchronous", two(deck(2, "synchronous")).replace("  loss: L\n", "  loss: L\n  seed: 4\n"), 1, r"\.yaml:\d+:\d+: 'seed' draws IST"),
        ]
        for label, text, ranks, pattern in bad:
            r, out = run(tmp, text, ranks, "bad_" + label.replace(" ", "_").replace(",", ""))
            printed = len(re.findall(pattern, r.stderr))
            if r.returncode != 2 or printed != 1 or os.listdir(out):
                problems.append("bad deck (%s): exit %d, message printed %d time(s), wrote %s: %s" %
                                (label, r.returncode, printed, os.listdir(out), r.stderr[-800:]))
            else:
                print("bad deck (%s): exit 2: %s" % (label, re.search(pattern, r.stderr).group(0)))

    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
