#!/usr/bin/python3
"""The PyTorch side of perf/graph/run: the two-layer GCN of inputs/gcn.yaml
(Â·relu(Â·X·W1 + b1)·W2 + b2, softmax cross-entropy over every node, Adam),
full graph, from the same data file and initial weights, with Â a
torch.sparse COO tensor built from the file's coordinate lists and
multiplied by torch.sparse.mm, in --dtype, in one process with --threads
threads. The data is read once, before the first iteration (as tra-run
keeps it after its first read). Prints one line per iteration, `iteration
I loss L seconds S`, then `peak_rss_bytes B`."""
import argparse
import resource
import time

import h5py
import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.set_num_threads(args.threads)
    np_dtype = np.dtype(args.dtype)
    with h5py.File(args.data, "r") as f:
        # Stored in float64, rounded to the run's type once as HDF5 reads
        # them (as tra-run reads), with no float64 copy held: the peak
        # memory is the training's, not a careless load's.
        x, t = (torch.from_numpy(f[n].astype(np_dtype)[...]) for n in ("X", "T"))
        params = {n: torch.from_numpy(f[n].astype(np_dtype)[...]).requires_grad_(True) for n in ("W1", "b1", "W2", "b2")}
        nodes = x.shape[0]
        index = torch.from_numpy(np.stack([f["adj/rows"][...], f["adj/cols"][...]]))
        a = torch.sparse_coo_tensor(index, torch.from_numpy(f["adj/values"].astype(np_dtype)[...]), (nodes, nodes)).coalesce()
        del index
    opt = torch.optim.Adam(list(params.values()), lr=args.lr)
    for it in range(args.iterations):
        start = time.perf_counter()
        opt.zero_grad()
        h = torch.relu(torch.sparse.mm(a, x @ params["W1"]) + params["b1"])
        s = torch.sparse.mm(a, h @ params["W2"]) + params["b2"]
        loss = (-t * torch.log_softmax(s, dim=1)).sum() / nodes
        loss.backward()
        opt.step()
        print(f"iteration {it} loss {loss.item()!r} seconds {time.perf_counter() - start}", flush=True)
    print(f"peak_rss_bytes {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}")


if __name__ == "__main__":
    main()
