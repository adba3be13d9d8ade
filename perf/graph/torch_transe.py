#!/usr/bin/python3
"""The PyTorch side of perf/graph/run's TransE: TransE-L2 as inputs/transe.yaml
writes it (DGL-KE's batched L2 distance against each batch's shared
negative tails, margin --margin, mean over the pairs, SGD), embeddings
looked up by index_select (backward: index_add_ into a dense gradient, as
torch.optim.SGD's dense update expects), from the same data file and
initial embeddings, in --dtype, in one process with --threads threads.
The triples are read once, before the first iteration. Prints one line per
iteration, `iteration I loss L seconds S`, then `peak_rss_bytes B`."""
import argparse
import resource
import time

import h5py
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--negatives", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--margin", type=float, required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.set_num_threads(args.threads)
    with h5py.File(args.data, "r") as f:
        head, rel, tail, negs = (torch.from_numpy(f[k][...]) for k in ("head", "relation", "tail", "negatives"))
        e, r = (torch.from_numpy(f[k][...]).to(dtype).requires_grad_(True) for k in ("E", "R"))
    opt = torch.optim.SGD([e, r], lr=args.lr)
    b, k = args.batch, args.negatives
    batches = head.shape[0] // b
    for it in range(args.iterations):
        start = time.perf_counter()
        opt.zero_grad()
        at = it % batches  # tra-run's sequential order: epoch after epoch
        rows, neg_rows = slice(at * b, (at + 1) * b), slice(at * k, (at + 1) * k)
        p = e.index_select(0, head[rows]) + r.index_select(0, rel[rows])
        pos = ((p - e.index_select(0, tail[rows])) ** 2).sum(dim=1)
        en = e.index_select(0, negs[neg_rows])
        neg = (p * p).sum(dim=1)[:, None] - 2 * (p @ en.T) + (en * en).sum(dim=1)[None, :]
        loss = torch.relu(args.margin + pos.sqrt()[:, None] - neg.clamp_min(1e-30).sqrt()).sum() / (b * k)
        loss.backward()
        opt.step()
        print(f"iteration {it} loss {loss.item()!r} seconds {time.perf_counter() - start}", flush=True)
    print(f"peak_rss_bytes {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}")


if __name__ == "__main__":
    main()
