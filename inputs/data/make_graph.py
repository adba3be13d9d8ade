#!/usr/bin/python3
"""Synthetic graphs with a known teacher, for sparse relations (issue 30):

  gcn  an undirected power-law graph (R-MAT, seeded), node features N(0, 1)
       and one label per node: the argmax of a two-layer GCN teacher with
       random weights over the same graph, so that a student GCN can learn
       the labels from the features and the edges.
  kg   a knowledge graph of (head, relation, tail) triples whose tails are
       the nearest entity, among a sample, to head + relation under a
       TransE teacher's embeddings, and negatives: for each batch of
       triples (rows b·B ... (b+1)·B − 1), K entities drawn uniformly with
       the seed, the corrupted tails every triple of the batch is scored
       against (DGL-KE's chunked negative sampling, one chunk per batch).

Sizes: `arxiv` (ogbn-arxiv's: 169,343 nodes, 1,166,243 undirected edges,
128 features, 40 classes), `products` (ogbn-products': 2,449,029 nodes
rounded down to 2,449,028, a multiple of 4, so that 2 and 4 ranks can split
them; 61,859,140 edges, 100 features, 47 classes; 11 GB), `fb15k` (FB15k's 14,951
entities and 1,345 relations, 483,000 triples: its 483,142 training
triples rounded down to whole batches of 1,000, with 200 negatives per
batch), and `small` ones for the tests (batches of 200, 16 negatives).

A gcn file holds /src and /dst (int64, every undirected edge in both
directions, no self-loops, sorted by (src, dst), no duplicates), the GCN's
normalized adjacency Â = D^-1/2 (A + I) D^-1/2 as coordinate lists
/adj/rows, /adj/cols, /adj/values (self-loops included, sorted by row then
column: a sparse tensor's source), the same for the mean aggregation
D^-1 (A + I) under /mean/, /X [nodes, features], /labels (int64) and
the same one-hot as /T [nodes, classes], and the student's initial weights
/W1 [features, hidden] and /W2 [hidden, classes] (Glorot uniform) and
biases /b1, /b2 (zero). A kg file
holds /head, /relation, /tail (int64), /negatives (int64, K per batch, batch
b's at b·K ... (b+1)·K − 1), and initial embeddings /E
[entities, dim] and /R [relations, dim] (uniform in ±6/sqrt(dim), as TransE's
paper initialises them).

Node ids are random (R-MAT's hubs would otherwise sit at low ids): placing
the blocks of a node dimension on ranks is then hashing. With
--metis-parts P the same graph's nodes are numbered part by part of a
METIS partition into P equal parts (gpmetis), so that the P blocks of the
node dimension are the parts.

  make_graph.py --kind gcn --size arxiv --out arxiv.h5 [--seed S --hidden H]
  make_graph.py --kind gcn --size arxiv128k --metis-parts 4 --out metis4.h5
  make_graph.py --kind kg --size fb15k --out fb15k.h5 [--seed S --dim D]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

# nodes, undirected edges, features, classes
GCN_SIZES = {
    "small": (1000, 6000, 16, 4),
    "arxiv": (169343, 1166243, 128, 40),
    # ogbn-products' 2,449,029 nodes rounded down to a multiple of 4: TRA's
    # blocks of a dimension are equal, so an odd node count is never split
    # between ranks, and a graph that must be split to fit is the point here.
    "products": (2449028, 61859140, 100, 47),
    # ogbn-arxiv's density (13.8 edges per node) on 2^17 nodes, which TRA's
    # equal blocks cut 2 to 64 ways: what perf/graph's traffic experiment
    # places by hashing and by METIS.
    "arxiv128k": (131072, 902656, 128, 40),
}
# entities, relations, triples, triples per batch, negatives per batch
KG_SIZES = {
    "small": (500, 20, 4000, 200, 16),
    "fb15k": (14951, 1345, 483000, 1000, 200),
}
RMAT = (0.57, 0.19, 0.19)  # a, b, c (d = 1 - a - b - c): Graph500's skew


def rmat_edges(rng, nodes, edges):
    """`edges` distinct undirected edges (u < v) of an R-MAT graph on `nodes`
    nodes, node ids permuted at random (R-MAT puts the hubs at low ids)."""
    scale = max(1, int(np.ceil(np.log2(nodes))))
    a, b, c = RMAT
    have = np.empty(0, dtype=np.int64)
    while have.size < edges:
        draw = int((edges - have.size) * 1.4) + 1024
        u = np.zeros(draw, dtype=np.int64)
        v = np.zeros(draw, dtype=np.int64)
        for level in range(scale):
            r = rng.random(draw)
            right = (r >= a) & (r < a + b) | (r >= a + b + c)  # quadrants b and d
            down = r >= a + b  # quadrants c and d
            u |= down.astype(np.int64) << level
            v |= right.astype(np.int64) << level
        keep = (u < nodes) & (v < nodes) & (u != v)
        u, v = u[keep], v[keep]
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        have = np.unique(np.concatenate([have, lo * nodes + hi]))
    have = rng.permutation(have)[:edges]
    perm = rng.permutation(nodes)
    return perm[have // nodes], perm[have % nodes]


def metis_order(src, dst, nodes, parts):
    """New node ids that put the nodes of each of `parts` METIS parts
    (gpmetis, Debian's metis package) together, parts of exactly
    nodes / parts nodes in order: then TRA's equal blocks of the node
    dimension, cut `parts` ways, are the parts, and an edge between two
    blocks is one the partition cut. METIS balances parts to within 0.1%
    (-ufactor=1); the nodes over a part's share move to parts under theirs,
    those with the fewest neighbours in their own part first."""
    if nodes % parts:
        sys.exit(f"make_graph.py: --parts {parts} does not divide {nodes} nodes")
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "graph")
        starts = np.searchsorted(src, np.arange(nodes + 1))  # src is sorted
        with open(graph, "w") as f:
            f.write(f"{nodes} {src.size // 2}\n")
            for v in range(nodes):
                f.write(" ".join(map(str, dst[starts[v]:starts[v + 1]] + 1)) + "\n")
        subprocess.run(["gpmetis", "-ufactor=1", "-seed=1", graph, str(parts)], check=True, stdout=subprocess.DEVNULL)
        part = np.loadtxt(f"{graph}.part.{parts}", dtype=np.int64)
    share = nodes // parts
    inside = np.bincount(src[part[src] == part[dst]], minlength=nodes)  # neighbours in the own part
    for p in range(parts):
        over = np.flatnonzero(part == p)
        if over.size <= share:
            continue
        movers = over[np.argsort(inside[over], kind="stable")[:over.size - share]]
        for v in movers:
            sizes = np.bincount(part, minlength=parts)
            part[v] = int(np.argmin(sizes))
    order = np.lexsort((np.arange(nodes), part))  # by part, then old id
    new_id = np.empty(nodes, dtype=np.int64)
    new_id[order] = np.arange(nodes)
    return new_id


def normalized_product(src, dst, nodes, h, chunk=1 << 22):
    """Â h with Â = D^-1/2 (A + I) D^-1/2 (Kipf and Welling's GCN), A given by
    its directed edges (src -> dst, both directions present, sorted by src),
    `chunk` edges at a time (products' 124 M edges by 32 columns would take
    32 GB at once)."""
    degree = np.bincount(src, minlength=nodes).astype(np.float64) + 1.0
    scale = 1.0 / np.sqrt(degree)
    out = h * (scale * scale)[:, None]  # the self-loop
    for lo in range(0, src.size, chunk):
        s, d = src[lo:lo + chunk], dst[lo:lo + chunk]
        contrib = h[d] * (scale[s] * scale[d])[:, None]
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # each row's first edge
        out[s[starts]] += np.add.reduceat(contrib, starts, axis=0)
    return out


def normalized_adjacency(src, dst, nodes, mean=False):
    """Â's entries (rows, cols, values), self-loops included, by row then
    column; with mean, the random-walk normalization D^-1 (A + I) instead
    (each row averages its neighbours: not symmetric, so a product by it and
    by its transpose differ)."""
    degree = np.bincount(src, minlength=nodes).astype(np.float64) + 1.0
    scale = 1.0 / np.sqrt(degree)
    loops = np.arange(nodes, dtype=np.int64)
    rows, cols = np.concatenate([src, loops]), np.concatenate([dst, loops])
    values = 1.0 / degree[rows] if mean else scale[rows] * scale[cols]
    order = np.lexsort((cols, rows))
    return rows[order], cols[order], values[order]


def make_gcn(size, out, seed, hidden, metis_parts=0):
    nodes, edges, features, classes = GCN_SIZES[size]
    rng = np.random.default_rng(seed)
    u, v = rmat_edges(rng, nodes, edges)
    src, dst = np.concatenate([u, v]), np.concatenate([v, u])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    x = rng.standard_normal((nodes, features))
    t1 = rng.standard_normal((features, 32)) / np.sqrt(features)
    t2 = rng.standard_normal((32, classes))
    logits = normalized_product(src, dst, nodes, np.maximum(normalized_product(src, dst, nodes, x @ t1), 0) @ t2)
    # Each class's logit standardized over the nodes: every class is some
    # node's argmax, not a few hubs' neighbourhoods all of one class.
    labels = ((logits - logits.mean(axis=0)) / logits.std(axis=0)).argmax(axis=1).astype(np.int64)
    if metis_parts:  # the same graph, features and labels, its nodes renumbered
        new_id = metis_order(src, dst, nodes, metis_parts)
        old_of = np.argsort(new_id)
        src, dst = new_id[src], new_id[dst]
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
        x, labels = x[old_of], labels[old_of]
    glorot = lambda fan_in, fan_out: rng.uniform(-1, 1, (fan_in, fan_out)) * np.sqrt(6.0 / (fan_in + fan_out))
    with h5py.File(out, "w") as f:
        f["src"], f["dst"] = src, dst
        f["adj/rows"], f["adj/cols"], f["adj/values"] = normalized_adjacency(src, dst, nodes)
        f["mean/rows"], f["mean/cols"], f["mean/values"] = normalized_adjacency(src, dst, nodes, mean=True)
        f["X"] = x
        f["labels"] = labels
        f["T"] = np.eye(classes)[labels]  # one-hot: a deck's cross-entropy target
        f["W1"] = glorot(features, hidden)
        f["W2"] = glorot(hidden, classes)
        f["b1"], f["b2"] = np.zeros(hidden), np.zeros(classes)  # biases start at zero, as Kipf's
    return nodes, src.size, np.bincount(labels, minlength=classes)


def make_kg(size, out, seed, dim):
    entities, relations, triples, batch, negatives = KG_SIZES[size]
    rng = np.random.default_rng(seed)
    e = rng.standard_normal((entities, dim))
    r = rng.standard_normal((relations, dim))
    # Heads and relations Zipf-like (a few frequent ones, as in FB15k).
    head = np.minimum(rng.zipf(1.3, triples) - 1, entities - 1)
    head = rng.permutation(entities)[head]
    relation = rng.permutation(relations)[np.minimum(rng.zipf(1.5, triples) - 1, relations - 1)]
    # Each tail: the nearest of 32 sampled entities to head + relation.
    candidates = rng.integers(0, entities, (triples, 32))
    tail = np.empty(triples, dtype=np.int64)
    for lo in range(0, triples, 8192):
        hi = min(triples, lo + 8192)
        target = e[head[lo:hi]] + r[relation[lo:hi]]
        dist = ((e[candidates[lo:hi]] - target[:, None, :]) ** 2).sum(axis=2)
        tail[lo:hi] = candidates[lo:hi][np.arange(hi - lo), dist.argmin(axis=1)]
    bound = 6.0 / np.sqrt(dim)
    with h5py.File(out, "w") as f:
        f["head"], f["relation"], f["tail"] = head.astype(np.int64), relation.astype(np.int64), tail
        f["negatives"] = rng.integers(0, entities, triples // batch * negatives)
        f["E"] = rng.uniform(-bound, bound, (entities, dim))
        f["R"] = rng.uniform(-bound, bound, (relations, dim))
    return triples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=("gcn", "kg"), required=True)
    ap.add_argument("--size", required=True, help="gcn: " + ", ".join(GCN_SIZES) + "; kg: " + ", ".join(KG_SIZES))
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=2030)
    ap.add_argument("--hidden", type=int, default=256, help="gcn: the student's hidden width (the paper's 256)")
    ap.add_argument("--dim", type=int, default=64, help="kg: the embedding width")
    ap.add_argument("--metis-parts", type=int, default=0,
                    help="gcn: number the nodes part by part of a METIS partition into this many equal parts (default: at random)")
    args = ap.parse_args()
    sizes = GCN_SIZES if args.kind == "gcn" else KG_SIZES
    if args.size not in sizes:
        ap.error(f"--size for --kind {args.kind} is one of: {', '.join(sizes)}")
    if args.kind == "gcn":
        nodes, directed, counts = make_gcn(args.size, args.out, args.seed, args.hidden, args.metis_parts)
        print(f"{args.out}: {nodes} nodes, {directed} directed edges, labels per class {counts.tolist()}")
    else:
        print(f"{args.out}: {make_kg(args.size, args.out, args.seed, args.dim)} triples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
