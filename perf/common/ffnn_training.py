"""The two FFNN training decks of TRA §6.3 (Google-speech-like and
Amazon-XML-like) at the papers' sizes and small, as perf/train/run and
perf/threads/run build them over data from inputs/data/make_ffnn_training.py."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# rows (a multiple of the batch), features, hidden, classes, batch, lr
SHAPES = {
    "speech": dict(rows=4000, features=1600, hidden=10240, classes=16, batch=1000, lr=0.001),
    "xml": dict(rows=512, features=65536, hidden=1024, classes=2048, batch=256, lr=0.05),
}
QUICK = {
    "speech": dict(rows=400, features=160, hidden=1024, classes=16, batch=100, lr=0.01),
    "xml": dict(rows=128, features=2048, hidden=128, classes=256, batch=32, lr=0.05),
}


def deck(kind, data, s, iterations, dtype="float64"):
    loss = ("  - \"P[b,l] = log_softmax_l(S[b,l])\"\n"
            f"  - \"L = sum_{{b,l}} -T[b,l] * P[b,l] / {s['batch']}\"\n") if kind == "speech" else \
           f"  - \"L = sum_{{b,l}} (softplus(S[b,l]) - T[b,l] * S[b,l]) / {s['batch'] * s['classes']}\"\n"
    src = lambda n: f"source: {{file: {data}, dataset: /{n}}}"
    return (
        "tensors:\n"
        f"  - {{name: X, shape: [{s['rows']}, {s['features']}], {src('X')}, batch: {{dim: 0, size: {s['batch']}}}}}\n"
        f"  - {{name: T, shape: [{s['rows']}, {s['classes']}], {src('T')}, batch: {{dim: 0, size: {s['batch']}}}}}\n"
        f"  - {{name: W1, shape: [{s['features']}, {s['hidden']}], {src('W1')}, param: true}}\n"
        f"  - {{name: b1, shape: [{s['hidden']}], {src('b1')}, param: true}}\n"
        f"  - {{name: W2, shape: [{s['hidden']}, {s['classes']}], {src('W2')}, param: true}}\n"
        f"  - {{name: b2, shape: [{s['classes']}], {src('b2')}, param: true}}\n"
        "graph:\n"
        "  - \"Z1[b,h] = sum_f X[b,f] * W1[f,h]\"\n"
        "  - \"H[b,h] = relu(Z1[b,h] + b1[h])\"\n"
        "  - \"Z2[b,l] = sum_h H[b,h] * W2[h,l]\"\n"
        "  - \"S[b,l] = Z2[b,l] + b2[l]\"\n"
        + loss +
        "train:\n"
        "  loss: L\n"
        f"  optimizer: {{kind: sgd, lr: {s['lr']}}}\n"
        f"  iterations: {iterations}\n"
        "  order: sequential\n"
        f"  log: {{file: {kind}.csv}}\n"
        + (f"run: {{dtype: {dtype}}}\n" if dtype != "float64" else ""))


def make_data(kind, s, out):
    """The data file of `kind` at shape `s` (one of SHAPES or QUICK), made by
    the python running the caller (it has numpy and h5py: on a GPU machine
    that is not /usr/bin/python3)."""
    subprocess.run([sys.executable, os.path.join(ROOT, "inputs", "data", "make_ffnn_training.py"), "--kind", kind,
                    "--rows", str(s["rows"]), "--features", str(s["features"]), "--hidden", str(s["hidden"]),
                    "--classes", str(s["classes"]), "--out", out], check=True)
