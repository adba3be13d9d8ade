#!/usr/bin/env python3
"""A job on the emulated cluster (scripts/cluster/emulate), end to end: two
nodes with links shaped to 200 Mbit/s; tra-calibrate there measures a network
no faster than the links; inputs/matmul.yaml on one rank per node gives the
result one rank gives on its own, and the bytes its shuffles move really
cross the nodes' links (the links' byte counters grow by at least the floats
the run measured, and not by much more). Then the same under Slurm on the
same nodes (scripts/cluster/slurm): `srun` puts its two tasks on the two
nodes, scripts/slurm/tra-run.sbatch runs the deck there, the bytes cross the
links and the result is the one-rank one; `slurm stop` ends its daemons,
and so does stopping the cluster after a second start. Skipped (exit 77) where network namespaces cannot be made: not root,
or a container without the rights; the Slurm part where slurm-wlm is not
installed (scripts/setup --tests installs it), saying so.

usage: check_emulated_job.py --tra-run PATH --tra-calibrate PATH --root SOURCE_DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

SKIP = 77
NAME = "tratest"  # its own cluster name and subnet: a user's cluster is left alone
SUBNET = "10.78.0"
MBIT = 200


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def sent_bytes(node):
    """Bytes the node's link has sent out of it (its tc counter)."""
    out = run(["ip", "netns", "exec", f"{NAME}-node{node}", "tc", "-s", "qdisc", "show", "dev", "eth0"]).stdout
    m = re.search(r"Sent (\d+) bytes", out)
    if not m:
        sys.exit(f"FAIL: no byte counter on node{node}'s link:\n{out}")
    return int(m.group(1))


def crossed_links(before, moved, what):
    """Every float that moved crossed a link, and little else did (the
    daemons' launch messages, TCP's headers, a job's output on its way to
    its log)."""
    crossed = sum(sent_bytes(i) - before[i] for i in range(2))
    print(f"{what}: floats moved {moved} ({8 * moved} bytes); the links carried {crossed} bytes")
    if moved <= 0:
        sys.exit(f"FAIL: {what}: the job moved nothing between the nodes")
    if not 8 * moved <= crossed <= 8 * moved * 1.2 + 2e6:
        sys.exit(f"FAIL: {what}: {crossed} bytes crossed the links for {8 * moved} bytes of floats")


def datasets(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return sorted(names)


def same_as_one_rank(path, one_rank_path, what):
    a, b = h5py.File(path, "r"), h5py.File(one_rank_path, "r")
    names = datasets(a)
    if not names or names != datasets(b):
        sys.exit(f"FAIL: {what}: datasets {names}, the one-rank run wrote {datasets(b)}")
    for n in names:
        x, y = a[n][()], b[n][()]
        # The same sums, blocked differently: K-long reductions within K eps of their magnitudes.
        k = 400
        bound = k * np.finfo(np.float64).eps * max(1.0, float(np.max(np.abs(y))))
        err = float(np.max(np.abs(x - y)))
        print(f"{what}: {n}: max |cluster - one rank| = {err:.3g} (bound {bound:.3g})")
        if err > bound:
            sys.exit(f"FAIL: {what}: {n} differs from the one-rank run by {err:.3g}")


def slurm_daemons():
    """slurmd and slurmctld processes in the test cluster's nodes (pid, name)."""
    found = []
    for node in (0, 1):
        for pid in run(["ip", "netns", "pids", f"{NAME}-node{node}"]).stdout.split():
            try:
                comm = open(f"/proc/{pid}/comm").read().strip()
            except OSError:
                continue
            if comm in ("slurmd", "slurmctld"):
                found.append((int(pid), comm))
    return found


def running(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def slurm_job(args, deck, one_rank):
    """The deck as a Slurm batch job on the same two nodes; returns the
    daemons' pids, which stopping the cluster must end."""
    slurm = os.path.join(args.root, "scripts/cluster/slurm")
    if not shutil.which("slurmd"):
        print("SKIP (the Slurm part): slurm-wlm is not installed (scripts/setup --tests installs it)")
        return []
    def not_running(when):
        b = run([slurm, "--name", NAME, "sinfo"])
        if b.returncode != 2 or "Slurm is not running on" not in b.stdout:
            sys.exit(f"FAIL: cluster/slurm sinfo {when}: exit {b.returncode}, said:\n{b.stdout}")

    def start(when):
        s = run([slurm, "start", "--name", NAME], timeout=60)
        if s.returncode != 0:
            sys.exit(f"FAIL: cluster/slurm start {when}:\n" + s.stdout)

    not_running("before start")
    start("")
    daemons = slurm_daemons()
    if sorted(name for _, name in daemons) != ["slurmctld", "slurmd", "slurmd"]:
        sys.exit(f"FAIL: cluster/slurm start: daemons in the nodes {daemons}, expected slurmctld and two slurmd")
    one_each = ["--nodes=2", "--ntasks-per-node=1"]
    hosts = run([slurm, "--name", NAME, "srun"] + one_each + ["hostname"], timeout=30)
    if sorted(hosts.stdout.split()) != ["node0", "node1"]:
        sys.exit(f"FAIL: srun --nodes=2 --ntasks-per-node=1 hostname on the emulated cluster said:\n{hosts.stdout}")
    # The job's folder must be one every node sees: a node's /tmp is its own.
    with tempfile.TemporaryDirectory(dir=os.getcwd()) as tmp:
        report, log = os.path.join(tmp, "run.json"), os.path.join(tmp, "job.out")
        env = dict(os.environ, TRA_RUN=args.tra_run, TRA_OUTPUT_DIR=os.path.join(tmp, "out"))
        before = [sent_bytes(0), sent_bytes(1)]
        batch = os.path.join(args.root, "scripts/slurm/tra-run.sbatch")
        r = run([slurm, "--name", NAME, "sbatch"] + one_each + ["--wait", "--chdir", tmp, "--output", log, batch, deck, "--report", report],
                env=env, timeout=90)
        out = open(log).read() if os.path.exists(log) else "(no job log)"
        if r.returncode != 0:
            sys.exit(f"FAIL: sbatch tra-run.sbatch on the emulated cluster: exit {r.returncode}\n{r.stdout}\n{out}")
        crossed_links(before, json.load(open(report))["totals"]["moved_floats"], "Slurm job")
        same_as_one_rank(os.path.join(tmp, "out", "matmul.h5"), one_rank, "Slurm job")
    stop = run([slurm, "stop", "--name", NAME], timeout=60)
    if stop.returncode != 0 or any(running(pid) for pid, _ in daemons):
        sys.exit(f"FAIL: cluster/slurm stop: exit {stop.returncode}, daemons still running: {[d for d in daemons if running(d[0])]}\n{stop.stdout}")
    not_running("after stop")
    start("after a stop")  # and emulate stop ends it
    return [pid for pid, _ in slurm_daemons()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--tra-calibrate", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    emulate = os.path.join(args.root, "scripts/cluster/emulate")
    mpirun = os.path.join(args.root, "scripts/cluster/mpirun")
    # Bad usage: one message naming the option, exit 2, nothing made.
    for cmd, said in (([emulate, "start", "--nodes", "0"], "--nodes 0"), ([emulate, "begin"], "unknown command 'begin'"),
                      ([emulate, "start", "--subnet", "8.8.8"], "--subnet 8.8.8"), ([mpirun, "--name", "nosuch", "-np", "2", "true"], "no emulated cluster 'nosuch'")):
        b = run(cmd)
        if b.returncode != 2 or said not in b.stdout:
            sys.exit(f"FAIL: {' '.join(cmd[1:])}: exit {b.returncode}, said:\n{b.stdout}")
    if os.geteuid() != 0:
        print("SKIP: the emulated cluster needs root (network namespaces, tc)")
        return SKIP
    # One CPU a node, on any machine: then two tasks are one per node.
    start = run([emulate, "start", "--name", NAME, "--subnet", SUBNET, "--nodes", "2", "--cpus-per-node", "1", "--bandwidth", f"{MBIT}mbit"])
    if start.returncode != 0:
        if re.search(r"Operation not permitted|Permission denied|cannot create namespace|RTNETLINK|is missing|Unknown device type|qdisc kind is unknown|not supported", start.stdout):
            print("SKIP: network namespaces cannot be made here:\n" + start.stdout)
            return SKIP
        sys.exit("FAIL: emulate start:\n" + start.stdout)
    daemons = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            job = [mpirun, "--name", NAME, "-np", "2"]
            # The network the cost model would see there: the links' rate, not memory's.
            cal = os.path.join(tmp, "cluster.yaml")
            c = run(job + [args.tra_calibrate, "-o", cal], timeout=150)
            if c.returncode != 0:
                sys.exit("FAIL: tra-calibrate on the emulated cluster:\n" + c.stdout)
            rates = dict(re.findall(r"^\s*(shuffle_bytes|bcast_bytes):\s*([0-9.e+-]+)", open(cal).read(), re.M))
            link = MBIT * 1e6 / 8
            for what, rate in rates.items():
                rate = float(rate)
                print(f"{what}: {rate:.3g} B/s on links of {link:.3g} B/s")
                if not link / 5 < rate < link * 1.15:
                    sys.exit(f"FAIL: {what} {rate:.3g} B/s measured through links shaped to {link:.3g} B/s")
            deck = os.path.join(args.root, "inputs/matmul.yaml")
            for d in ("cluster", "local"):
                os.mkdir(os.path.join(tmp, d))
            before = [sent_bytes(0), sent_bytes(1)]
            report = os.path.join(tmp, "run.json")
            r = run(job + [args.tra_run, deck, "--output-dir", os.path.join(tmp, "cluster"), "--report", report], timeout=60)
            if r.returncode != 0:
                sys.exit("FAIL: tra-run on the emulated cluster:\n" + r.stdout)
            crossed_links(before, json.load(open(report))["totals"]["moved_floats"], "mpirun job")
            local = run([args.tra_run, deck, "--output-dir", os.path.join(tmp, "local")], timeout=60)
            if local.returncode != 0:
                sys.exit("FAIL: tra-run on one rank:\n" + local.stdout)
            one_rank = os.path.join(tmp, "local", "matmul.h5")
            same_as_one_rank(os.path.join(tmp, "cluster", "matmul.h5"), one_rank, "mpirun job")
            daemons = slurm_job(args, deck, one_rank)
    finally:
        stop = run([emulate, "stop", "--name", NAME])
        if stop.returncode != 0:
            print("emulate stop failed:\n" + stop.stdout)
    if any(running(pid) for pid in daemons):
        sys.exit("FAIL: emulate stop left Slurm's daemons running")
    print("check_emulated_job: a 2-node job on shaped links, bytes across them, same result" + (", under mpirun and under Slurm" if daemons else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
