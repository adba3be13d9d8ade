"""What the Python benchmarks under perf/ share: the MPI environment every
script uses, scaled copies of the example decks, and running tra-run under
mpirun with its timings read from its JSON run report (--report). Imported
by perf/plans/run, perf/eindecomp/run and perf/train/run."""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NUM = r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"


def die(prog, msg, status=1):
    print(f"{prog}: error: {msg}", file=sys.stderr)
    sys.exit(status)


def mpi_env():
    """The environment after `source scripts/mpirun-env`, as every script uses."""
    out = subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/mpirun-env" && env -0'],
                         check=True, capture_output=True).stdout
    env = {}
    for item in out.split(b"\0"):
        if b"=" in item:
            k, v = item.split(b"=", 1)
            env[k.decode()] = v.decode()
    return env


def check_tools(prog, tra_run, mpirun):
    """Exit 2 with a hint when tra-run is not built or mpirun is missing."""
    if not os.access(tra_run, os.X_OK):
        print(f"{prog}: tra-run not found at {tra_run}\n"
              "  build the engine first (scripts/build, or cmake -S . -B build && cmake --build build),\n"
              "  or give its path with --tra-run PATH.", file=sys.stderr)
        sys.exit(2)
    if shutil.which(mpirun.split()[0]) is None:
        die(prog, f"{mpirun} not found", 2)


def mpirun_words(mpirun):
    """--mpirun's command as words, its program made absolute where it is a
    relative path (scripts/cluster/mpirun): a script that runs tra-run in its
    work folder would not find it there."""
    words = mpirun.split()
    if "/" in words[0] and not os.path.isabs(words[0]):
        words[0] = os.path.abspath(words[0])
    return words


def warn_if_loaded(prog):
    try:
        load = float(open("/proc/loadavg").read().split()[0])
        if load > 0.5:
            print(f"{prog}: warning: load average {load} before starting; other work will skew the timings", file=sys.stderr)
    except OSError:
        pass


def work_dir(prog, keep):
    """Where decks and logs go: --keep DIR, or a fresh temporary folder (in
    memory when /dev/shm exists, so writing results costs no disk time),
    removed when the script exits, however it exits but by a signal (it
    holds the data files: left behind, they would fill the machine's memory
    run after run)."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        return os.path.abspath(keep)
    tmp = tempfile.mkdtemp(prefix=prog.replace("/", "-") + ".", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return tmp


def scaled_deck(prog, case, tensors):
    """inputs/<case>.yaml with some tensor declarations replaced and only the
    outputs of computed tensors kept (writing the inputs would only cost time,
    and what is written decides what runs). `tensors` maps a name to its new
    shape, or to (shape, source) to replace the source too; None keeps the deck."""
    with open(os.path.join(ROOT, "inputs", case + ".yaml")) as f:
        text = f.read()
    declared = set(re.findall(r"\{name: (\w+), shape:", text))
    for name, new in (tensors or {}).items():
        shape, source = new if isinstance(new, tuple) and isinstance(new[0], tuple) else (new, None)
        shape_text = "[" + ", ".join(map(str, shape)) + "]"
        if source is None:
            pattern, repl = rf"(\{{name: {name}, shape: )\[[^\]]*\]", lambda m: m.group(1) + shape_text
        else:
            pattern, repl = rf"\{{name: {name}, shape: .*\}}\s*$", lambda m: f'{{name: {name}, shape: {shape_text}, source: "{source}"}}'
        text, n = re.subn(pattern, repl, text, flags=re.M)
        if n != 1:
            die(prog, f"inputs/{case}.yaml: no single declaration of tensor {name} to scale")
    # The copy lives elsewhere: input files named relative to inputs/ stay found.
    text = re.sub(r"(source: \{file: )([^,}\s]+)",
                  lambda m: m.group(1) + (m.group(2) if os.path.isabs(m.group(2)) else os.path.join(ROOT, "inputs", m.group(2))), text)
    out_re = re.compile(r"\s*- \{tensor: (\w+),")
    lines = [ln for ln in text.splitlines(keepends=True) if not (out_re.match(ln) and out_re.match(ln).group(1) in declared)]
    return "".join(lines)


class RunOutput(str):
    """A run's standard output, with its JSON run report (None for a dry run,
    which writes none) as `report`."""

    def __new__(cls, text, report):
        out = super().__new__(cls, text)
        out.report = report
        return out


class TraRun:
    """Runs tra-run under mpirun, keeps every run's output as a log and its
    JSON report in `tmp`, and exits 1 with the last lines of the output when a
    run fails."""

    def __init__(self, prog, tra_run, mpirun, env, tmp, extra=(), rates=None):
        self.prog, self.tra_run, self.mpirun, self.env, self.tmp = prog, tra_run, mpirun, env, tmp
        self.extra = list(extra)
        self.rates = rates or {}  # ranks -> calibration file (calibrate())
        self.log_no = 0

    def __call__(self, ranks, deck, args):
        self.log_no += 1
        report = os.path.join(self.tmp, f"run-{self.log_no:03d}.json")
        args = list(args) + self.extra + (["--calibration", self.rates[ranks]] if ranks in self.rates else [])
        dry = "--dry-run" in args or "--explain=dot" in args or any(a == "--explain" and b == "dot" for a, b in zip(args, args[1:]))
        cmd = self.mpirun.split() + ["--oversubscribe", "-n", str(ranks), self.tra_run, deck, "--output-dir", self.tmp] + args + \
            ([] if dry else ["--report", report])
        run = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        with open(os.path.join(self.tmp, f"run-{self.log_no:03d}.log"), "w") as f:
            f.write("+ " + " ".join(cmd) + "\n" + run.stdout + run.stderr)
        if run.returncode != 0:
            print(f"{self.prog}: command failed (exit {run.returncode}): {' '.join(cmd)}", file=sys.stderr)
            print("---- last lines of its output ----", file=sys.stderr)
            print("\n".join((run.stdout + run.stderr).splitlines()[-30:]), file=sys.stderr)
            sys.exit(1)
        if dry:
            return RunOutput(run.stdout, None)
        try:
            with open(report) as f:
                return RunOutput(run.stdout, json.load(f))
        except (OSError, ValueError) as e:
            die(self.prog, f"{' '.join(cmd)}: no readable JSON report {report}: {e}")

    def timings(self, out, what):
        """(wall, reading inputs, operators, planning) from a run's JSON report."""
        if getattr(out, "report", None) is None:
            die(self.prog, f"{what}: no JSON run report (a dry run?)")
        t = out.report["totals"]
        # A run that computed nothing (an empty plan) is fast, and a table of
        # such runs measures nothing: stop.
        if not out.report["operators"] or t["gflops"] <= 0:
            die(self.prog, f"{what}: the engine did no work ({t['gflop']} GFLOP at {t['gflops']} GFLOP/s, "
                           f"{len(out.report['operators'])} operators): its plan computes nothing")
        return t["wall_seconds"], t["reading_seconds"], t["operator_seconds"], t["planning_seconds"]

    def best_of(self, reps, ranks, deck, variants, args_of, key):
        """For each variant, the timings of its run with the least key(timings),
        over `reps` runs. The repetitions go round the variants (v1 v2 v3 v1 v2
        v3 ...), so that a change in the machine's load during the measurement
        falls on all of them alike."""
        best = {}
        for rep in range(reps):
            for v in variants:
                print(f"  {v}, run {rep + 1} of {reps}", file=sys.stderr, flush=True)
                row = self.timings(self(ranks, deck, args_of(v)), f"{deck} ({v}, {ranks} ranks)")
                if v not in best or key(row) < key(best[v]):
                    best[v] = row
        return best


CALIBRATION_HELP = ("machine rates for the cost model: 'measure' (default) runs tra-calibrate here first, at each rank "
                    "count, so that plans are chosen with this machine's rates; 'built-in' uses tra-run's built-in ones; "
                    "or a tra-calibrate file, passed to every tra-run")


def calibrate(prog, how, tra_run, mpirun, env, tmp, ranks):
    """The calibration file for each rank count: {} for 'built-in', the given
    file for every count, or with 'measure' tra-calibrate's rates measured
    here (under mpirun at that count, beside tra-run), as plans are meant to
    be chosen: with the rates of the machine they run on. Also the words that
    say so in a report."""
    if how == "built-in":
        return {}, "tra-run's built-in rates"
    if how != "measure":
        path = os.path.abspath(how)
        if not os.path.isfile(path):
            die(prog, f"--calibration {how}: no such file", 2)
        return {r: path for r in ranks}, f"the calibration file {path}"
    calibrate_bin = os.path.join(os.path.dirname(tra_run), "tra-calibrate")
    if not os.access(calibrate_bin, os.X_OK):
        die(prog, f"{calibrate_bin} not built (--calibration built-in runs without it)", 2)
    files = {}
    for r in sorted(set(ranks)):
        path = os.path.join(tmp, f"rates-{r}-ranks.yaml")
        print(f"measuring this machine's rates at {r} ranks (tra-calibrate)", file=sys.stderr, flush=True)
        cmd = mpirun.split() + ["--oversubscribe", "-n", str(r), calibrate_bin, "-o", path]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
        if run.returncode != 0:
            die(prog, f"{' '.join(cmd)} failed (exit {run.returncode}):\n" + "\n".join((run.stdout + run.stderr).splitlines()[-20:]))
        files[r] = path
    return files, "measured here by tra-calibrate at " + " and ".join(str(r) for r in sorted(files)) + " ranks, before the runs"



def loss_bounds(want, narrow=None, relative=1e-9, terms=1):
    """Per iteration, how far a run's loss may be from the float64 reference
    losses `want`: `relative` of each in float64; in float32 (`narrow`: the
    reference's own float32 losses) 4 times the reference float32's largest
    distance from float64 up to that iteration (rounding carries forward),
    plus 8 float32 ulps (as tests/regression's references.trained), or
    sqrt(terms) ulps where the loss sums more than 64 terms: two float32
    runs that sum a loss of `terms` terms in other orders differ by about
    that much (rounding errors add like a random walk), however close one of
    them happens to land to float64 (PyTorch's full-graph GCN loss on
    ogbn-arxiv's size lands within 0.6 ulps of it)."""
    if narrow is None:
        return [relative * abs(w) for w in want]
    bounds, noise = [], 0.0
    for w, n in zip(want, narrow):
        noise = max(noise, abs(n - w))
        bounds.append(4 * noise + max(8.0, terms**0.5) * 2.0**-23 * abs(w))
    return bounds


def parse_bytes(text):
    """"3 GiB", "500 KiB", "1.5 GB", "4096" as tra-run reads memory sizes: bytes."""
    units = {"": 1, "b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}
    number = text.strip().rstrip("BbIiKkMmGgTt ")
    unit = text.strip()[len(number):].strip().lower()
    if unit not in units:
        raise ValueError(f"not a memory size: {text!r}")
    return int(float(number) * units[unit])


def write_json(path, data):
    """`data` as JSON into `path`, written under a temporary name and renamed
    into place (a reader never sees half a file)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
