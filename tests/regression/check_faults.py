#!/usr/bin/python3
"""Faults a cluster user or operator meets, each checked the way they would
meet it: ranks that see different folders or files (MPMD runs emulate a
node-local path), an output folder that access() admits but no one can
write, a file-size limit, a full disk, a signal or a killed rank while the
output is being written, a long file name, a large deck, one output file
spelled two ways; and a silent wrong answer: NaN in max, min and relu. Each must end within the time limit (never hang) with the
expected exit status, print its message once, leave an existing output
untouched and no temporary file behind (or, where the run is fine, write
the right result).

usage: check_faults.py --tra-run PATH [--mpiexec mpirun]
exit: 0 all passed, 1 a case failed."""
import argparse
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

OLD = b"an earlier good result that must survive\n"
LIMIT = 60  # seconds: a hang fails the case, not the test run


def deck(x_shape=(512, 256), outputs=("Y",), padding=0):
    text = ("tensors:\n"
            f"  - {{name: X, shape: [{x_shape[0]}, {x_shape[1]}], source: \"uniform(-1, 1, 42)\"}}\n"
            f"  - {{name: W, shape: [{x_shape[1]}, 64], source: \"normal(0, 0.1, 7)\"}}\n"
            "graph:\n"
            "  - \"H[b,o] = sum_f X[b,f] * W[f,o]\"\n"
            "  - \"Y[b,o] = relu(H[b,o])\"\n"
            "outputs:\n")
    for t in outputs:
        text += f"  - {{tensor: {t}, file: out.h5, dataset: /{t}}}\n"
    return text + ("#" + "x" * padding + "\n" if padding else "")


class Case:
    def __init__(self, folder, args):
        self.folder, self.args, self.problems = folder, args, []

    def write(self, name, text):
        with open(os.path.join(self.folder, name), "w") as f:
            f.write(text)

    def old_output(self, name="out.h5"):
        with open(os.path.join(self.folder, name), "wb") as f:
            f.write(OLD)

    def run(self, cmd, prepare=None):
        """Runs `cmd` (after mpirun) in the folder, `prepare(popen)` while it runs."""
        p = subprocess.Popen([self.args.mpiexec, "--oversubscribe"] + cmd, cwd=self.folder, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        if prepare:
            prepare(p)
        try:
            out, err = p.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            self.problems.append(f"still running after {LIMIT} s: a hang")
        self.out, self.err, self.status = out, err, p.returncode
        return p.returncode

    def expect(self, status, message=None):
        if self.status != status:
            self.problems.append(f"exit status {self.status}, expected {status}")
        if message:
            n = len([l for l in self.err.splitlines() if re.search(message, l)])
            if n != 1:
                self.problems.append(f"message /{message}/ printed {n} times; stderr: {self.err[-800:]}")

    def expect_old_or_complete(self, dataset, shape):
        """After a job stopped while writing: the old output, or (the stop
        came after the rename) the complete new one; never a part."""
        path = os.path.join(self.folder, "out.h5")
        with open(path, "rb") as f:
            if f.read() == OLD:
                self.expect_untouched()
                return "old output kept"
        try:
            with h5py.File(path, "r") as f:
                if f[dataset].shape != shape:
                    self.problems.append(f"out.h5:{dataset} has shape {f[dataset].shape}")
        except OSError as e:
            self.problems.append(f"out.h5 is neither the old output nor a complete new one: {e}")
        self.expect_untouched_temporaries()
        return "the stop came after the rename: the new output is complete"

    def expect_untouched_temporaries(self, folder=None):
        left = glob.glob(os.path.join(folder or self.folder, ".tra.*")) + glob.glob(os.path.join(folder or self.folder, "*.tmp-*"))
        if left:
            self.problems.append(f"temporary files left behind: {left}")

    def expect_untouched(self, name="out.h5", folder=None):
        with open(os.path.join(folder or self.folder, name), "rb") as f:
            if f.read() != OLD:
                self.problems.append(f"the existing {name} was changed")
        self.expect_untouched_temporaries(folder)


def tra(args, n, *rest):
    return ["-n", str(n), args.tra_run] + list(rest)


def when_writing(action):
    """A prepare() that waits for the temporary output file, then acts."""
    def prepare(p):
        t0 = time.time()
        while time.time() - t0 < LIMIT and p.poll() is None:
            if glob.glob(os.path.join(prepare.folder, ".tra.tmp-*")):
                action(p)
                return
            time.sleep(0.005)
    return prepare


def cases(args):
    out = []

    def case(fn):
        out.append(fn)
        return fn

    for failing in (0, 1):
        def output_folder_missing_on_one_rank(c, failing=failing):
            c.write("d.yaml", deck())
            os.mkdir(os.path.join(c.folder, "out"))
            folders = ["out", "out"]
            folders[failing] = "missing"
            c.run(tra(args, 1, "d.yaml", "--output-dir", folders[0]) + [":"] + tra(args, 1, "d.yaml", "--output-dir", folders[1]))
            c.expect(2, r"output folder 'missing' .* does not exist" + (r" \(on rank 1\)$" if failing else "$"))
        output_folder_missing_on_one_rank.__name__ = f"output_folder_missing_on_rank_{failing}"
        out.append(output_folder_missing_on_one_rank)

    @case
    def calibration_missing_on_rank_1(c):
        c.write("d.yaml", deck())
        c.run(tra(args, 1, "d.yaml", "--dry-run") + [":"] + tra(args, 1, "d.yaml", "--dry-run", "--calibration", "nowhere.yaml"))
        c.expect(2, r"nowhere\.yaml.*\(on rank 1\)")

    # mpirun passes no variable to other nodes unless told (-x): one rank may
    # see a value the others do not. Every rank stops, once.
    for variable, refusal in (("TRA_GPU_AWARE_MPI", r"expected 1 .* or 0 "), ("TRA_ELEMENT_PROGRAMS", r"expected compiled .* or interpreted")):
        for failing in (0, 1):
            def variable_bad_on_one_rank(c, variable=variable, refusal=refusal, failing=failing):
                c.write("d.yaml", deck())
                runs = [tra(args, 1, "d.yaml", "--dry-run"), tra(args, 1, "d.yaml", "--dry-run")]
                runs[failing] = ["-n", "1", "env", variable + "=yes"] + runs[failing][2:]
                c.run(runs[0] + [":"] + runs[1])
                c.expect(2, variable + "=yes: " + refusal + (r".*\(on rank 1\)$" if failing else r".*unset$"))
            variable_bad_on_one_rank.__name__ = f"{variable[4:].lower()}_variable_bad_on_rank_{failing}"
            out.append(variable_bad_on_one_rank)

    @case
    def sparse_lists_with_other_values_on_one_rank(c):
        # Two copies of a sparse tensor's coordinate lists, one with an entry
        # moved: each rank reads its own (a stale copy on one node).
        for folder, col in (("a", 2), ("b", 3)):
            os.mkdir(os.path.join(c.folder, folder))
            with open(os.path.join(c.folder, folder, "d.yaml"), "w") as f:
                f.write("tensors:\n"
                        "  - {name: A, shape: [4, 4], source: {file: g.h5, rows: /r, cols: /c, values: /v}}\n"
                        "  - {name: H, shape: [4, 2], source: ones}\n"
                        "graph:\n  - \"M[v,h] = sum_u A[v,u] * H[u,h]\"\n"
                        "outputs:\n  - {tensor: M, file: out.h5}\n")
            with h5py.File(os.path.join(c.folder, folder, "g.h5"), "w") as f:
                f["r"], f["c"], f["v"] = np.array([0, 1, 3]), np.array([1, col, 0]), np.array([1.0, 2.0, 3.0])
        c.old_output()
        c.run(tra(args, 1, "a/d.yaml", "--output-dir", ".") + [":"] + tra(args, 1, "b/d.yaml", "--output-dir", "."))
        c.expect(2, r"b/d\.yaml:2:5: tensor 'A': the coordinate lists of 'b/g\.h5' hold other values here than on rank 0; "
                    r"every rank must read the same file .*\(on rank 1\)$")
        c.expect_untouched()

    @case
    def output_folder_proc(c):
        c.write("d.yaml", deck())
        c.run(tra(args, 2, "d.yaml", "--output-dir", "/proc"))
        c.expect(2, r"output folder '/proc' .* cannot be written")

    @case
    def file_size_limit(c):
        c.write("d.yaml", deck(x_shape=(4096, 512), outputs=("X",)))  # 16 MiB
        c.old_output()
        c.run(["-n", "2", "bash", "-c", f"ulimit -f 12000; exec {args.tra_run} d.yaml"])
        c.expect(2, r"writing out\.h5 needs about 1[6-9] MiB, over the file-size limit \(ulimit -f\) of 12 MiB")
        c.expect_untouched()

    @case
    def disk_full(c):
        small = os.path.join(c.folder, "small")
        os.mkdir(small)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", small], capture_output=True).returncode != 0:
            return "skipped: cannot mount a small tmpfs here (not root)"
        try:
            c.old_output("small/out.h5")
            # Fits the planner's check of the data, not the file with HDF5's own structures.
            c.write("d.yaml", deck(x_shape=(1856, 512), outputs=("X",)))
            c.run(tra(args, 2, "d.yaml", "--output-dir", "small"))
            c.expect(2, r"writing small/out\.h5 needs about 9 MiB: No space left on device")
            c.expect_untouched("out.h5", small)
            c.write("big.yaml", deck(x_shape=(4096, 512), outputs=("X",)))
            c.run(tra(args, 2, "big.yaml", "--output-dir", "small"))
            c.expect(2, r"the outputs need 17 MiB in folder 'small', which has 7 MiB free")
        finally:
            subprocess.run(["umount", small])

    for sig in ("SIGINT", "SIGTERM"):
        def signal_while_writing(c, sig=sig):
            c.write("d.yaml", deck(x_shape=(16384, 4096), outputs=("X",)))  # 512 MiB
            c.old_output()
            prepare = when_writing(lambda p: p.send_signal(getattr(signal, sig)))
            prepare.folder = c.folder
            c.run(tra(args, 2, "d.yaml"), prepare)
            if c.status == 0:
                c.problems.append("the run finished before the signal")
            return c.expect_old_or_complete("X", (16384, 4096))
        signal_while_writing.__name__ = f"{sig}_to_mpirun_while_writing"
        out.append(signal_while_writing)

    @case
    def rank_killed_while_writing(c):
        c.write("d.yaml", deck(x_shape=(16384, 4096), outputs=("X",)))
        c.old_output()

        def kill_rank(p):
            pids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
            if pids:
                os.kill(int(pids[-1]), signal.SIGKILL)
        prepare = when_writing(kill_rank)
        prepare.folder = c.folder
        t0 = time.time()
        c.run(tra(args, 2, "d.yaml"), prepare)
        if c.status == 0:
            c.problems.append("the run finished before the kill")
        kept = c.expect_old_or_complete("X", (16384, 4096))
        return f"ended {time.time() - t0:.1f} s after it started; {kept}"

    @case
    def output_folder_removed_while_computing(c):
        sub = os.path.join(c.folder, "sub")
        os.mkdir(sub)
        c.write("d.yaml", deck(x_shape=(16384, 4096)))

        def remove_when_executing(p):
            for line in p.stderr:
                if "executing" in line:
                    os.rmdir(sub)
                    return
        c.run(tra(args, 2, "d.yaml", "--output-dir", "sub"), remove_when_executing)
        c.expect(2, r"cannot create sub/\.tra\.tmp-[\w-]+ \(for sub/out\.h5\): No such file or directory")

    @case
    def long_file_name(c):
        name = "a" * 240 + ".h5"
        c.write("d.yaml", deck().replace("file: out.h5", f"file: {name}"))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(0)
        with h5py.File(os.path.join(c.folder, name), "r") as f:
            if f["Y"].shape != (512, 64):
                c.problems.append(f"Y has shape {f['Y'].shape}")

    @case
    def file_name_over_the_folder_limit(c):
        c.write("d.yaml", deck().replace("file: out.h5", "file: " + "a" * 300 + ".h5"))
        c.run(tra(args, 2, "d.yaml"))
        c.expect(2, r"has 303 characters; its folder allows at most 255")

    @case
    def provenance_of_a_deck_over_64_KiB(c):
        # Past HDF5's 64 KiB attribute limit the deck is kept whole, beside
        # the version, the command line as typed, the date and the host.
        text = deck(padding=70000)
        c.write("d.yaml", text)
        c.run(tra(args, 2, "d.yaml", "--strategy", "auto", "--report", "r.json"))
        c.expect(0)
        version = subprocess.run([args.tra_run, "--version"], capture_output=True, text=True).stdout.strip()
        with h5py.File(os.path.join(c.folder, "out.h5"), "r") as f:
            attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
        want = {"tra_deck": text, "tra_version": version, "tra_command_line": f"{args.tra_run} d.yaml --strategy auto --report r.json",
                "tra_host": socket.gethostname(), "tra_ranks": "2"}
        for key, value in want.items():
            if attrs.get(key) != value:
                c.problems.append(f"attribute {key} holds {attrs.get(key, '(none)')[:80]!r}, expected {value[:80]!r}")
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", attrs.get("tra_date", "")):
            c.problems.append(f"attribute tra_date holds {attrs.get('tra_date')!r}, not an ISO 8601 UTC time")
        # --report: the run report as JSON, the same as the file's attribute
        # but for the total and writing times (taken later); its totals add up.
        with open(os.path.join(c.folder, "r.json")) as f:
            report = json.load(f)
        inside = json.loads(attrs.get("tra_report_json", "{}"))
        if not report["totals"].get("writing_seconds", 0) > 0 or "writing_seconds" in inside["totals"]:
            c.problems.append("--report should hold writing_seconds > 0, the output's copy none (written before it is known)")
        for r in (report, inside):
            r["totals"].pop("total_seconds", None)
            r["totals"].pop("writing_seconds", None)
        if report != inside:
            c.problems.append("--report's JSON differs from the output's tra_report_json")
        ops = report["operators"]
        if not ops or report["totals"]["moved_floats"] != sum(o["moved_floats"] for o in ops) or report["version"] != version:
            c.problems.append(f"the JSON report's operators and totals disagree: {report['totals']}")
        if report["totals"]["moved_floats"] != report["totals"]["predicted_floats"] or report["totals"]["gflop"] <= 0:
            c.problems.append(f"the JSON report says the run moved other floats than predicted, or computed nothing: {report['totals']}")

    @case
    def one_output_spelled_two_ways(c):
        c.write("d.yaml", deck(outputs=("Y",)) + f"  - {{tensor: X, file: {c.folder}/out.h5, dataset: /Y}}\n")
        c.old_output()
        c.run(tra(args, 2, "d.yaml"))
        c.expect(2, r"dataset /Y of .*out\.h5 collides with dataset /Y written by the output at line 8 \(out\.h5, the same file\)")
        c.expect_untouched()

    def run_on_data(c, name, message):
        """A deck reading `name`'s dataset a, and after it a good file (whose
        collective open the rank that failed must still make): exit 2 with
        `message`, nothing written."""
        with h5py.File(os.path.join(c.folder, "good.h5"), "w") as f:
            f["b"] = np.ones((8, 8))
        c.write("d.yaml", f"""tensors:
  - {{name: A, shape: [8, 8], chunk: [4, 4], source: {{file: {name}, dataset: a}}}}
  - {{name: B, shape: [8, 8], chunk: [4, 4], source: {{file: good.h5, dataset: b}}}}
graph:
  - "C[i,j] = relu(A[i,j] + B[i,j])"
outputs:
  - {{tensor: C, file: out.h5}}
""")
        c.old_output()
        c.run(tra(args, 2, "d.yaml"))
        c.expect(2, message)
        c.expect_untouched()

    @case
    def dataset_with_a_missing_filter(c):
        with h5py.File(os.path.join(c.folder, "lzf.h5"), "w") as f:  # LZF is h5py's own filter, not the HDF5 library's
            f.create_dataset("a", data=np.arange(64.0).reshape(8, 8), chunks=(4, 4), compression="lzf")
        run_on_data(c, "lzf.h5", r"d\.yaml:2:5: tensor 'A': dataset 'a' in 'lzf\.h5' is compressed with filter 32000 \(lzf\), which this HDF5 library cannot decode")

    @case
    def corrupted_chunk_read_by_one_rank(c):
        path = os.path.join(c.folder, "bad.h5")
        with h5py.File(path, "w") as f:
            d = f.create_dataset("a", data=np.arange(64.0).reshape(8, 8), chunks=(4, 4), compression="gzip", fletcher32=True)
            info = d.id.get_chunk_info(3)  # the chunk at [4, 4], read by one rank only
        with open(path, "r+b") as f:
            f.seek(info.byte_offset + 4)
            f.write(b"\xff\xff\xff\xff")
        # Found when the ranks compare the inputs' values before planning (a
        # small dataset is read whole there), or by the one rank that reads it.
        run_on_data(c, "bad.h5", r"cannot read dataset 'a' of 'bad\.h5' (at \[4, 4\]|\(its values\)): data error detected by Fletcher32 checksum")

    @case
    def symlink_loops_and_long_paths(c):
        os.symlink("loop", os.path.join(c.folder, "loop"))
        c.write("d.yaml", deck())
        c.run(tra(args, 2, "loop"))
        c.expect(2, r"cannot open deck 'loop': Too many levels of symbolic links")
        c.run(tra(args, 2, "d.yaml", "--output-dir", "loop"))
        c.expect(2, r"output folder 'loop' \(for loop/out\.h5\): Too many levels of symbolic links")
        c.write("in.yaml", deck().replace('source: "uniform(-1, 1, 42)"', "source: {file: loop, dataset: a}"))
        c.run(tra(args, 2, "in.yaml"))
        c.expect(2, r"in\.yaml:2:5: tensor 'X': HDF5 file 'loop': Too many levels of symbolic links")
        c.run(tra(args, 2, "x/" * 3000 + "d.yaml"))
        c.expect(2, r"cannot open deck 'x/x/.*d\.yaml': File name too long")

    @case
    def nan_in_max_min_relu(c):
        # NumPy's meaning: max and min propagate NaN wherever it sits in the
        # row, and whichever rank or block holds it; so do relu and max(x, 1).
        a = np.array([[np.nan, 1, 2, 0], [1, 2, 0, np.nan], [5, np.nan, np.nan, 7], [1, 2, 3, 4]])
        with h5py.File(os.path.join(c.folder, "a.h5"), "w") as f:
            f["a"] = a
        c.write("d.yaml", """tensors:
  - {name: A, shape: [4, 4], chunk: [1, 1], source: {file: a.h5, dataset: a}}
graph:
  - "M[i] = max_j A[i,j]"
  - "N[i] = min_j A[i,j]"
  - "R[i,j] = relu(A[i,j] - 1)"
  - "Q[i,j] = max(A[i,j], 1)"
outputs:
  - {tensor: M, file: out.h5}
  - {tensor: N, file: out.h5}
  - {tensor: R, file: out.h5}
  - {tensor: Q, file: out.h5}
""")
        want = {"M": a.max(1), "N": a.min(1), "R": np.where(np.isnan(a), np.nan, np.maximum(a - 1, 0)), "Q": np.where(np.isnan(a), np.nan, np.maximum(a, 1))}
        for n in (1, 2, 4):
            for partitioner in ("eindecomp", "sqrt", "data-parallel", "model-parallel"):
                c.run(tra(args, n, "d.yaml", "--partitioner", partitioner))
                c.expect(0)
                with h5py.File(os.path.join(c.folder, "out.h5"), "r") as f:
                    for name, w in want.items():
                        if not np.array_equal(f[name][:], w, equal_nan=True):
                            c.problems.append(f"{name} on {n} ranks ({partitioner}): {f[name][:]}, numpy {w}")

    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--only", help="run the cases whose name holds this")
    args = ap.parse_args()
    args.tra_run = os.path.abspath(args.tra_run)
    failed = 0
    chosen = [fn for fn in cases(args) if not args.only or args.only in fn.__name__]
    for fn in chosen:
        with tempfile.TemporaryDirectory() as folder:
            c = Case(folder, args)
            t0 = time.time()
            note = fn(c)
            took = time.time() - t0
        if c.problems:
            failed += 1
            print(f"FAIL {fn.__name__} ({took:.1f} s): " + "; ".join(c.problems))
        else:
            print(f"ok   {fn.__name__} ({took:.1f} s)" + (f": {note}" if note else ""))
    print(f"{len(chosen) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
