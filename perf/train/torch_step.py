#!/usr/bin/python3
"""The PyTorch side of perf/train/run: the same FFNN, data file, initial
weights, loss, optimizer (SGD) and batch order as the tra-run deck, in
--dtype (float64 by default, or float32), in one process with --threads
threads. Each iteration reads its batch from
the HDF5 file (as tra-run does) and is timed whole; the read is timed apart.
Prints one line per iteration, `iteration I loss L seconds S reading R`,
then `peak_rss_bytes B`."""
import argparse
import resource
import time

import h5py
import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--kind", choices=("speech", "xml"), required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.set_num_threads(args.threads)
    f = h5py.File(args.data, "r")
    x_ds, t_ds = f["X"], f["T"]
    params = [torch.tensor(f[n][...], dtype=dtype, requires_grad=True) for n in ("W1", "b1", "W2", "b2")]
    w1, b1, w2, b2 = params
    opt = torch.optim.SGD(params, lr=args.lr)
    batches = x_ds.shape[0] // args.batch
    classes = t_ds.shape[1]
    for it in range(args.iterations):
        start = time.perf_counter()
        b = it % batches
        rows = slice(b * args.batch, (b + 1) * args.batch)
        # Read as stored (float64), rounded to the run's type once, as tra-run reads.
        xb = torch.from_numpy(x_ds[rows]).to(dtype)
        tb = torch.from_numpy(t_ds[rows]).to(dtype)
        reading = time.perf_counter() - start
        opt.zero_grad()
        s = torch.relu(xb @ w1 + b1) @ w2 + b2
        if args.kind == "speech":
            loss = (-tb * torch.log_softmax(s, dim=1)).sum() / args.batch
        else:
            loss = (torch.nn.functional.softplus(s) - tb * s).sum() / (args.batch * classes)
        loss.backward()
        opt.step()
        seconds = time.perf_counter() - start
        print(f"iteration {it} loss {loss.item()!r} seconds {seconds} reading {reading}", flush=True)
    print(f"peak_rss_bytes {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}")


if __name__ == "__main__":
    main()
