#!/usr/bin/python3
"""A training run under bad input, as a user and a cluster operator meet it
(issue 25): NaN and infinities in the data, the loss or a checkpoint; ranks
that read different checkpoints or different copies of the data (MPMD runs
emulate node-local files); a batch file replaced mid-run; the output folder
removed mid-run; special files (a device node, a FIFO, a link to standard
output) where a result would be renamed into place; filesystem errors on
--resume; and what a correct run must say: optimizer state written after
the last update (against PyTorch), a resume under another plan said plainly,
the report's two scopes, iterations counted from 1, any 64-bit order seed.

Each case must end within the time limit (never hang) with the expected exit
status and its message printed once, leave an existing output untouched and
no temporary file behind, or, where the run is fine, write the right result.

usage: check_training_faults.py --tra-run PATH [--mpiexec mpirun]
exit: 0 all passed, 1 a case failed."""
import argparse
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_faults import LIMIT, OLD, Case, tra  # noqa: E402
from references import epoch_order  # noqa: E402

ROWS, FEATURES, BATCH = 16, 4, 4  # 4 batches per epoch


def write_data(path, y_nan_row=None, scale=1.0):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (ROWS, FEATURES))
    y = x @ np.array([0.5, -1.0, 2.0, 0.25]) * scale
    if y_nan_row is not None:
        y[y_nan_row] = np.nan
    with h5py.File(path, "w") as f:
        f["X"], f["y"], f["W0"] = x, y, np.zeros(FEATURES)


def deck(iterations=8, loss="sum_b sq(Z[b] - y[b]) / 4", optimizer="{kind: momentum, lr: 0.05, beta: 0.9}", every=2,
         order="sequential", outputs=("W", "W.momentum"), extra=""):
    text = ("tensors:\n"
            f"  - {{name: X, shape: [{ROWS}, {FEATURES}], source: {{file: data.h5, dataset: X}}, batch: {{dim: 0, size: {BATCH}}}}}\n"
            f"  - {{name: y, shape: [{ROWS}], source: {{file: data.h5, dataset: y}}, batch: {{dim: 0, size: {BATCH}}}}}\n"
            f"  - {{name: W, shape: [{FEATURES}], source: {{file: data.h5, dataset: W0}}, param: true}}\n"
            "graph:\n"
            "  - \"Z[b] = sum_f X[b,f] * W[f]\"\n"
            f"  - \"L = {loss}\"\n"
            "train:\n"
            "  loss: L\n"
            f"  optimizer: {optimizer}\n"
            f"  iterations: {iterations}\n"
            f"  order: {order}\n"
            "  log: {file: loss.csv}\n"
            f"  checkpoint: {{file: ck.h5, every: {every}}}\n" + extra +
            "outputs:\n")
    return text + "".join(f"  - {{tensor: {t}, file: out.h5}}\n" for t in outputs)


def at(text, needle, offset=0):
    """'line:column' of the first `needle` in `text`, `offset` characters in."""
    i = text.index(needle) + offset
    line = text.count("\n", 0, i) + 1
    return f"{line}:{i - (text.rfind(chr(10), 0, i) + 1) + 1}"


def prepared(c, text=None, **data):
    c.write("d.yaml", text if text is not None else deck())
    write_data(os.path.join(c.folder, "data.h5"), **data)
    c.old_output()


def checkpoint_after(c, iterations, name, *options):
    """A checkpoint of the deck after `iterations` (run with `options`), kept as `name`."""
    prepared(c, deck(iterations=iterations, every=iterations))
    c.run(tra(c.args, 2, "d.yaml", *options))
    c.expect(0)
    os.rename(os.path.join(c.folder, "ck.h5"), os.path.join(c.folder, name))


def expect_stop(c, text, message, no_checkpoint):
    """The deck `text` stops with exit 2 and `message`, the old output kept,
    no checkpoint written (`no_checkpoint` says why there must be none)."""
    prepared(c, text)
    c.run(tra(c.args, 2, "d.yaml"))
    c.expect(2, message)
    c.expect_untouched()
    if os.path.exists(os.path.join(c.folder, "ck.h5")):
        c.problems.append(no_checkpoint)


def done_in(path):
    with h5py.File(path, "r") as f:
        return int(f.attrs["tra_checkpoint_iterations_done"].decode() if isinstance(f.attrs["tra_checkpoint_iterations_done"], bytes)
                   else f.attrs["tra_checkpoint_iterations_done"])


def log_rows(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def run_watching(c, cmd, line, action):
    """Runs `cmd` under mpirun, calls action() once stderr shows `line`; returns (status, stderr)."""
    p = subprocess.Popen([c.args.mpiexec, "--oversubscribe"] + cmd, cwd=c.folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    err, acted, t0 = [], False, time.time()
    while True:
        if time.time() - t0 > LIMIT:
            os.killpg(p.pid, signal.SIGKILL)
            c.problems.append(f"still running after {LIMIT} s: a hang")
            break
        text = p.stderr.readline()
        if not text:
            break
        err.append(text)
        if not acted and line in text:
            action()
            acted = True
    p.wait()
    if not acted:
        c.problems.append(f"the run never printed '{line}'")
    c.out, c.err, c.status = p.stdout.read(), "".join(err), p.returncode
    return c.status


def cases(args):
    out = []

    def case(fn):
        out.append(fn)
        return fn

    # --- Non-finite numbers: stop at the first, name it, keep the last good checkpoint.
    @case
    def nan_in_the_data(c):
        text = deck()
        prepared(c, text, y_nan_row=9)  # batch 2 (rows 8-11): the third iteration
        c.run(tra(args, 2, "d.yaml"))
        c.expect(2, rf"d\.yaml:{at(text, 'loss: L', 6)}: iteration 3: the loss L is NaN; training stopped there and wrote no outputs .*"
                    r"The checkpoint ck\.h5 holds the state after iteration 2\. The log up to iteration 3 is loss\.csv\.")
        c.expect_untouched()
        if done_in(os.path.join(c.folder, "ck.h5")) != 2:
            c.problems.append("the checkpoint is not the last good one (after iteration 2)")
        rows = log_rows(os.path.join(c.folder, "loss.csv"))
        if list(rows[:, 0]) != [1, 2, 3] or not np.isnan(rows[2, 2]) or not np.isfinite(rows[:2, 2]).all():
            c.problems.append(f"the log should hold iterations 1-3, the last with loss NaN: {rows[:, :3]}")

    @case
    def loss_divided_by_zero(c):
        expect_stop(c, deck(loss="sum_b sq(Z[b] - y[b]) / 0"),
                    r"iteration 1: the loss L is \+inf; training stopped there .* No checkpoint was written by this run\.",
                    "a checkpoint was written for a run that never had a finite loss")

    @case
    def infinite_gradient_with_a_finite_loss(c):
        # d sqrt(w)/dw at w = 0 is +inf: the loss (0) is fine, the update is not.
        # Checked where it is saved: at a checkpoint (every 1) ...
        expect_stop(c, deck(loss="sum_{b,f} Z[b] * 0 + sqrt(W[f])", outputs=("W",), every=1),
                    r"iteration 1: the update left \d+ NaN or infinite value\(s\) in W(\.momentum)? \(a gradient or a step was not finite\)",
                    "a checkpoint holding -inf was written")
        # ... between checkpoints, in the next iteration's loss: sqrt(-inf).
        c.write("d.yaml", deck(loss="sum_{b,f} Z[b] * 0 + sqrt(W[f])", outputs=("W",), every=4))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(2, r"iteration 2: the loss L is NaN")
        c.expect_untouched()

    @case
    def checkpoint_holding_nan(c):
        checkpoint_after(c, 2, "resume.h5")
        with h5py.File(os.path.join(c.folder, "resume.h5"), "r+") as f:
            f["W"][1] = np.nan
        c.write("d.yaml", deck())
        c.old_output()
        c.run(tra(args, 2, "d.yaml", "--resume", "resume.h5"))
        c.expect(2, r"--resume resume\.h5: dataset /W holds 1 NaN or infinite value\(s\); training never checkpoints such a state")
        c.expect_untouched()

    # --- Ranks that disagree (an MPMD launch: each rank its own arguments or folder).
    @case
    def ranks_resuming_from_different_checkpoints(c):
        for n, name in ((2, "a.h5"), (4, "b.h5")):
            checkpoint_after(c, n, name)
        shutil.copy(os.path.join(c.folder, "a.h5"), os.path.join(c.folder, "a2.h5"))
        with h5py.File(os.path.join(c.folder, "a2.h5"), "r+") as f:
            f["W"][0] += 1e-12  # the same iteration, other values
        c.write("d.yaml", deck())
        for other in ("b.h5", "a2.h5"):
            c.old_output()
            c.run(tra(args, 1, "d.yaml", "--resume", "a.h5") + [":"] + tra(args, 1, "d.yaml", "--resume", other))
            c.expect(2, r"--resume .*: this rank read another checkpoint than rank 0 .* every rank must resume from the same file .*\(on rank 1\)$")
            c.expect_untouched()

    @case
    def ranks_given_other_options(c):
        checkpoint_after(c, 2, "a.h5")
        c.write("d.yaml", deck())
        c.old_output()
        c.run(tra(args, 1, "d.yaml") + [":"] + tra(args, 1, "d.yaml", "--resume", "a.h5"))
        c.expect(2, r"the ranks were given different options \(rank 0: none of; this rank: --resume --explain, --dry-run, --resume, --report\); "
                    r"every rank must run the same command \(on rank 1\)$")
        c.run(tra(args, 1, "d.yaml", "--partitioner", "data-parallel") + [":"] + tra(args, 1, "d.yaml", "--partitioner", "model-parallel"))
        c.expect(2, r"this rank planned another IA plan than rank 0 .*; every rank must plan alike \(on rank 1\)$")
        c.expect_untouched()

    @case
    def batch_file_with_other_values_on_one_rank(c):
        for folder, scale in (("a", 1.0), ("b", 1.5)):
            os.mkdir(os.path.join(c.folder, folder))
            with open(os.path.join(c.folder, folder, "d.yaml"), "w") as f:
                f.write(deck())
            write_data(os.path.join(c.folder, folder, "data.h5"), scale=scale)
        c.old_output()
        c.run(tra(args, 1, "a/d.yaml", "--output-dir", ".") + [":"] + tra(args, 1, "b/d.yaml", "--output-dir", "."))
        c.expect(2, r"tensor 'y': dataset 'y' of 'b/data\.h5' holds other values here than on rank 0; every rank must read the same file .*\(on rank 1\)$")
        c.expect_untouched()

    def truncated_mid_run(c, message, extra="", whole=False):
        """After iteration 10 of 4000, data.h5 is replaced by its first half:
        the run stops with exit 2 and `message`, the old output kept. With
        whole, X and y have no batch: every iteration reads all of them."""
        text = deck(iterations=4000, every=4000, extra=extra)
        if whole:
            text = text.replace(f", batch: {{dim: 0, size: {BATCH}}}", "")
            assert "batch:" not in text, "the whole-data deck still has batches"
        prepared(c, text)
        data = os.path.join(c.folder, "data.h5")

        def truncate():
            with open(data, "rb") as f:
                head = f.read(os.path.getsize(data) // 2)
            with open(data + ".new", "wb") as f:
                f.write(head)
            os.replace(data + ".new", data)
        run_watching(c, tra(args, 2, "d.yaml"), "iteration 10/4000", truncate)
        c.expect(2, message)
        if "HDF5-DIAG" in c.err or "internal error" in c.err:
            c.problems.append("HDF5 error stacks or an internal error printed")
        c.expect_untouched()

    @case
    def batch_file_truncated_mid_run(c):
        # Its batches fit: the run keeps them and finds the change at the next epoch.
        truncated_mid_run(c, r"d\.yaml:\d+:\d+: tensor '[Xy]': HDF5 file 'data\.h5' changed since the run began: the run kept its data")

    @case
    def whole_data_file_truncated_mid_run(c):
        # Data read whole (full-graph training's shape) is kept after the
        # first iteration too, and its file checked at every iteration.
        truncated_mid_run(c, r"d\.yaml:\d+:\d+: tensor '[Xy]': HDF5 file 'data\.h5' changed since the run began: the run kept its data",
                          whole=True)
        if "data inputs: kept after their first read" not in c.err:
            c.problems.append("the data was not kept: the case does not test the kept data's check")

    @case
    def batch_file_truncated_mid_run_read_each_iteration(c):
        # A memory bound that leaves no room to keep the batches: each
        # iteration reads its batch, and the read of the changed file stops it.
        truncated_mid_run(c, r"d\.yaml:\d+:\d+: tensor '[Xy]': cannot open HDF5 file 'data\.h5' \(changed since the run began\?\)",
                          extra="run: {memory_per_rank: 300}\n")
        if "data inputs: read every iteration" not in c.err:
            c.problems.append("the batches were kept: the case does not test a read of the changed file")

    # --- Where the run writes, checked as it goes.
    @case
    def output_folder_removed_mid_run(c):
        prepared(c, deck(iterations=4000, every=4000))
        os.mkdir(os.path.join(c.folder, "out"))
        t0 = time.time()
        def remove():  # (the run's own probe files may come and go meanwhile)
            while os.path.exists(os.path.join(c.folder, "out")):
                shutil.rmtree(os.path.join(c.folder, "out"), ignore_errors=True)
        run_watching(c, tra(args, 2, "d.yaml", "--output-dir", "out"), "iteration 10/4000", remove)
        # (which check sees it first, and on which rank, is a race: each says so)
        c.expect(2, r"output folder 'out' \(for out/[^)]*\) (does not exist|cannot be written: No such file or directory)")
        if "iteration 4000/4000" in c.err:
            c.problems.append(f"the removed folder was found only after the last iteration ({time.time() - t0:.1f} s)")
        c.expect_untouched()

    # --- Special files are never replaced; links to regular files are written through.
    @case
    def special_files_are_not_replaced(c):
        prepared(c)
        specials = {"fifo": "a FIFO \\(named pipe\\)"}  # (names YAML reads as text: not null)
        os.mkfifo(os.path.join(c.folder, "fifo"))
        try:  # a copy of /dev/null: needs root (CI runs as root)
            os.mknod(os.path.join(c.folder, "devnull"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
            specials["devnull"] = "a character device"
        except PermissionError:
            print("  (not root: no device node made; the FIFO and the link stand for it)")
        os.symlink("/proc/self/fd/1", os.path.join(c.folder, "stdout"))
        # A rank's standard output: a pipe, a socket or a terminal, as mpirun makes it.
        specials["stdout"] = "a symbolic link to (a FIFO \\(named pipe\\)|a socket|a character device)"
        for name, kind in specials.items():
            for what, cmd in (("--report", ["d.yaml", "--report", name]),
                              ("the training log", None), ("the checkpoint", None), ("output file", None)):
                text = deck()
                if what == "the training log":
                    text = text.replace("file: loss.csv", f"file: {name}")
                elif what == "the checkpoint":
                    text = text.replace("file: ck.h5", f"file: {name}")
                elif what == "output file":
                    text = text.replace("file: out.h5", f"file: {name}")
                c.write("d.yaml", text)
                c.run(tra(args, 2, *(cmd or ["d.yaml"])))
                c.expect(2, rf"{what} {name}: is {kind}; results are written under a temporary name and renamed into place, which would replace it")
            path = os.path.join(c.folder, name)
            mode = os.lstat(path).st_mode
            if (name == "stdout" and not stat.S_ISLNK(mode)) or (name == "fifo" and not stat.S_ISFIFO(mode)) or (name == "devnull" and not stat.S_ISCHR(mode)):
                c.problems.append(f"{name} was replaced")
        c.expect_untouched()
        # A link to a regular file: the file is replaced, the link stays.
        os.mkdir(os.path.join(c.folder, "real"))
        shutil.copy(os.path.join(c.folder, "out.h5"), os.path.join(c.folder, "real", "target.h5"))
        os.remove(os.path.join(c.folder, "out.h5"))
        os.symlink("real/target.h5", os.path.join(c.folder, "out.h5"))
        c.write("d.yaml", deck(iterations=2))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        if not os.path.islink(os.path.join(c.folder, "out.h5")):
            c.problems.append("the link out.h5 was replaced by a file")
        else:
            with h5py.File(os.path.join(c.folder, "real", "target.h5"), "r") as f:
                if f["W"].shape != (FEATURES,):
                    c.problems.append("the link's target does not hold the result")
        c.expect_untouched_temporaries(os.path.join(c.folder, "real"))

    @case
    def log_name_at_the_folders_limit(c):
        # The name fits its folder (255 characters); its temporary must too.
        name = "l" * 251 + ".csv"
        prepared(c, deck(iterations=2).replace("file: loss.csv", f"file: {name}"))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        if len(log_rows(os.path.join(c.folder, name))) != 2:
            c.problems.append("the log with a 255-character name was not written")

    @case
    def resume_filesystem_errors(c):
        prepared(c)
        os.symlink("loop", os.path.join(c.folder, "loop"))
        c.run(tra(args, 2, "d.yaml", "--resume", "loop"))
        c.expect(2, r"--resume loop: 'loop': Too many levels of symbolic links$")
        long_name = "x" * 300 + ".h5"
        c.run(tra(args, 2, "d.yaml", "--resume", long_name))
        c.expect(2, rf"--resume {long_name}: '{long_name}': File name too long$")
        if "internal error" in c.err:
            c.problems.append("an internal error was printed")
        c.expect_untouched()

    # --- Resume: located mismatches, and the bit-for-bit promise said plainly.
    @case
    def resume_mismatch_is_located(c):
        prepared(c, deck(iterations=2))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        text = deck(optimizer="{kind: momentum, lr: 0.3, beta: 0.9}")
        c.write("d.yaml", text)
        c.old_output()
        c.run(tra(args, 2, "d.yaml", "--resume", "ck.h5"))
        c.expect(2, rf"d\.yaml:{at(text, '{kind: momentum')}: --resume ck\.h5: the checkpoint was written by a run training with "
                    r"'momentum lr 0\.05 beta 0\.9', but the deck trains with 'momentum lr 0\.3 beta 0\.9'$")
        text = deck()
        c.write("d.yaml", text)
        shutil.copy(os.path.join(c.folder, "ck.h5"), os.path.join(c.folder, "short.h5"))
        with h5py.File(os.path.join(c.folder, "short.h5"), "r+") as f:
            del f["W.momentum"]
            f["W.momentum"] = np.zeros(2)
        c.run(tra(args, 2, "d.yaml", "--resume", "short.h5"))
        c.expect(2, rf"d\.yaml:{at(text, '{name: W,')}: --resume short\.h5: dataset /W\.momentum has shape \[2\], but the deck's W\.momentum has shape \[4\]")
        text = deck(iterations=2)
        c.write("d.yaml", text)
        c.run(tra(args, 2, "d.yaml", "--resume", "ck.h5"))
        c.expect(2, rf"d\.yaml:{at(text, 'iterations: 2', 12)}: --resume ck\.h5: the checkpoint is after iteration 2, but the deck runs 2")
        c.expect_untouched()

    @case
    def resume_under_another_plan_is_said(c):
        checkpoint_after(c, 2, "mp.h5", "--partitioner", "model-parallel")
        c.write("d.yaml", deck())
        for partitioner, warned in (("model-parallel", False), ("data-parallel", True)):
            c.run(tra(args, 2, "d.yaml", "--partitioner", partitioner, "--resume", "mp.h5"))
            c.expect(0)
            n = len(re.findall(r"--resume mp\.h5: the checkpoint was written under another IA plan \(partitioner model-parallel, now data-parallel",
                               c.err))
            if n != (1 if warned else 0):
                c.problems.append(f"--partitioner {partitioner}: the other-plan warning printed {n} times: {c.err[-600:]}")

    # --- What a correct run says.
    @case
    def optimizer_state_after_the_last_update(c):
        import torch
        prepared(c, deck(iterations=6, every=3))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        with h5py.File(os.path.join(c.folder, "data.h5"), "r") as f:
            x, y = torch.tensor(f["X"][...]), torch.tensor(f["y"][...])
        w = torch.zeros(FEATURES, dtype=torch.float64, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.05, momentum=0.9)
        for it in range(6):
            b = it % (ROWS // BATCH)
            xb, yb = x[b * BATCH:(b + 1) * BATCH], y[b * BATCH:(b + 1) * BATCH]
            opt.zero_grad()
            loss = ((xb @ w - yb) ** 2).sum() / 4
            loss.backward()
            opt.step()
        want = {"W": w.detach().numpy(), "W.momentum": opt.state[w]["momentum_buffer"].numpy()}
        with h5py.File(os.path.join(c.folder, "out.h5"), "r") as out, h5py.File(os.path.join(c.folder, "ck.h5"), "r") as ck:
            for name, value in want.items():
                scale = np.abs(value).max()
                if not np.allclose(out[name][...], value, rtol=0, atol=1e-14 * scale):
                    c.problems.append(f"out.h5:{name} {out[name][...]} differs from PyTorch's after the last step {value}")
                if not np.array_equal(out[name][...], ck[name][...]):
                    c.problems.append(f"out.h5:{name} differs from the checkpoint's")

    @case
    def report_scopes_and_iterations_from_one(c):
        prepared(c, deck(iterations=8))
        c.run(tra(args, 2, "d.yaml", "--report", "r.json"))
        c.expect(0)
        rows = log_rows(os.path.join(c.folder, "loss.csv"))
        if list(rows[:, 0]) != list(range(1, 9)):
            c.problems.append(f"the log's iterations are {list(rows[:, 0])}, expected 1-8")
        if not re.search(r"iteration 1/8: loss", c.err) or re.search(r"iteration 0/8", c.err):
            c.problems.append("the progress lines do not count from 1")
        with open(os.path.join(c.folder, "r.json")) as f:
            r = json.load(f)
        t, per = r["totals"], r.get("per_iteration", {})
        last = per.get("last", {})
        if r.get("operators_scope") != "last iteration" or t.get("iterations_run") != 8:
            c.problems.append(f"the report does not say its operators are the last iteration's: {r.get('operators_scope')}, {t}")
        elif last.get("wall_seconds") != rows[-1, 3] or last.get("reading_seconds") != rows[-1, 4]:
            c.problems.append(f"per_iteration.last {last} is not the log's last row {rows[-1]}")
        elif not np.isclose(t["reading_seconds"], rows[:, 4].sum(), rtol=1e-12):
            c.problems.append(f"totals.reading_seconds {t['reading_seconds']} is not the sum over the iterations {rows[:, 4].sum()}")
        elif not np.isclose(t["gflop"], 8 * last["gflop"], rtol=1e-12) or t["moved_floats"] != 8 * last["moved_floats"]:
            c.problems.append(f"totals are not 8 iterations' sums: {t} against {last}")
        elif not np.isclose(per["median"]["wall_seconds"], np.median(rows[:, 3]), rtol=1e-15):
            c.problems.append(f"per_iteration.median {per['median']} is not the log's median")
        for line in ("per IA operator, the last of 8 iteration(s) run:", "floats moved in the last iteration:", "per iteration: median wall",
                     "whole run, 8 iteration(s): wall", "(the whole run)"):
            if line not in c.out:
                c.problems.append(f"the text report lacks '{line}'")

    @case
    def any_64_bit_order_seed(c):
        seed = 2 ** 63 + 5
        prepared(c, deck(iterations=8, order=f"{{kind: shuffled, seed: {seed}}}"))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        want = epoch_order(4, seed, 0) + epoch_order(4, seed, 1)
        got = [int(b) for b in log_rows(os.path.join(c.folder, "loss.csv"))[:, 1]]
        if got != want:
            c.problems.append(f"seed 2^63 + 5: batches {got}, expected {want}")

    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--only", help="run the cases whose name holds this")
    args = ap.parse_args()
    args.tra_run = os.path.abspath(args.tra_run)
    import tempfile
    failed = ran = 0
    for fn in cases(args):
        if args.only and args.only not in fn.__name__:
            continue
        ran += 1
        with tempfile.TemporaryDirectory() as folder:
            c = Case(folder, args)
            try:
                fn(c)
            except Exception as e:  # a broken case is a failed case, not a crashed test run
                c.problems.append(f"{type(e).__name__}: {e}")
            c.expect_untouched_temporaries()
        if c.problems:
            failed += 1
            print(f"FAIL {fn.__name__}")
            for p in c.problems:
                print("  " + p)
        else:
            print(f"ok   {fn.__name__}")
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
