#!/usr/bin/python3
"""Bad input must fail cleanly: for each deck in bad/, tra-run on 2 ranks must
exit with status 2, print the expected file:line:column message exactly once
(rank 0 only), and leave an existing output file byte-for-byte untouched with
no temporary file behind. Each deck's first line says `# expect: <regex>`."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def prepare(folder):
    with h5py.File(os.path.join(folder, "data.h5"), "w") as f:
        f["M"] = np.arange(16.0).reshape(4, 4)
        f["V"] = np.arange(4.0)
        f["Big"] = np.array([0, 1, 2**24 + 1, 3], dtype=np.int64)  # 2^24 + 1: no float holds it
        # Coordinate lists of a 4 x 4 sparse tensor: entries 1 and 3 both at (0, 2); /far: (1, 4) outside.
        f["sr"], f["sc"], f["sv"] = np.array([0, 0, 2, 0]), np.array([1, 2, 3, 2]), np.arange(4.0)
        f["far"] = np.array([1, 4, 0, 2])
        f["short"] = np.arange(3.0)
    sentinel = b"an earlier good result that must survive\n"
    with open(os.path.join(folder, "out.h5"), "wb") as f:
        f.write(sentinel)
    return sentinel


def check(cmd, folder, pattern, sentinel):
    run = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    problems = []
    if run.returncode != 2:
        problems.append(f"exit status {run.returncode}, expected 2")
    lines = [l for l in run.stderr.splitlines() if re.search(pattern, l)]
    if len(lines) != 1:
        problems.append(f"expected message /{pattern}/ printed {len(lines)} times; stderr was:\n{run.stderr[-1500:]}")
    with open(os.path.join(folder, "out.h5"), "rb") as f:
        if f.read() != sentinel:
            problems.append("the existing output file was changed")
    leftovers = [n for n in os.listdir(folder) if ".tmp-" in n]
    if leftovers:
        problems.append(f"temporary files left behind: {leftovers}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tra-run", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--cases", required=True)
    args = ap.parse_args()
    mpi = [args.mpiexec, "--oversubscribe", "-n", "2", os.path.abspath(args.tra_run)]

    cases = []
    for deck in sorted(glob.glob(os.path.join(args.cases, "*.yaml"))):
        with open(deck) as f:
            m = re.match(r"# expect: (.*)", f.readline())
        if not m:
            print(f"FAIL {deck}: first line must be '# expect: <regex>'")
            return 1
        cases.append((os.path.basename(deck), deck, m.group(1).strip()))
    # Decks too large to keep as files: deep nesting a recursive parser
    # would follow into a stack overflow, and a tensor no rank can hold.
    body = ("tensors:\n  - {name: A, shape: [4, 4], source: \"ones\"}\ngraph:\n  - %s\n"
            "outputs:\n  - {tensor: C, file: out.h5}\n")
    n = 200000
    generated = {
        "nested_statement.yaml": (r"nested_statement\.yaml:4:115: expression nested too deeply \(more than 100 levels",
                                  body % ('"C[i,j] = ' + "(" * n + "A[i,j]" + ")" * n + '"')),
        "unary_minus_chain.yaml": (r"unary_minus_chain\.yaml:4:114: expression nested too deeply",
                                   body % ('"C[i,j] = ' + "-" * 1000000 + 'A[i,j]"')),
        "nested_filter.yaml": (r"nested_filter\.yaml:4:136: expression nested too deeply \(more than 100 levels of parentheses or signs\)",
                               body % ('{op: filter, input: A, where: "' + "(" * n + "k0 == 0" + ")" * n + '", output: C}')),
        "nested_kernel.yaml": (r"nested_kernel\.yaml:4:140: expression nested too deeply",
                               body % ('{op: transform, input: A, kernel: "' + "(" * n + "x" + ")" * n + '", output: C}')),
        "nested_yaml.yaml": (r"nested_yaml\.yaml:1:\d+: YAML nested too deeply", "tensors: " + "[" * n + "]" * n + "\n"),
        "tensor_over_memory.yaml": (r"tensor_over_memory\.yaml: the plan needs an estimated \d+ GiB on its fullest rank, over the memory of a rank's share of its node"
                                    r".*\(run: memory_per_rank: in the deck\)",
                                    body.replace("[4, 4]", "[200000, 200000]") % '"C[i,j] = relu(A[i,j])"'),
    }
    for name, (pattern, text) in generated.items():
        cases.append((name, text, pattern))
    # Option and path errors, with no deck problem at all: quickstart.yaml
    # run with these options.
    options = {
        "unknown option": (["--bogus"], r"--bogus"),
        "unknown --disable": (["--disable", "R0-0"], r"--disable R0-0: unknown rule or strategy 'R0-0'"),
        "unknown --strategy": (["--strategy", "best"], r"--strategy best: unknown strategy 'best'; expected auto, bmm, cmm, rmm, 2d or mixed"),
        "unknown --partitioner": (["--partitioner", "best"], r"--partitioner best: unknown partitioner 'best'; expected eindecomp, sqrt, data-parallel, model-parallel or manual"),
        "bad --overdecomposition": (["--overdecomposition", "3"], r"--overdecomposition 3: overdecomposition is a power of two from 1 to 1024 \(kernel calls per rank\), found 3"),
        "non-number --overdecomposition": (["--overdecomposition", "many"], r"--overdecomposition many: "),
        "unknown --explain mode": (["--explain=why"], r"--explain=why: expected --explain, --explain=plan, --explain=analyze or --explain=dot"),
        "empty --strategy": (["--strategy", ""], r"--strategy was given an empty value"),
        "empty --partitioner": (["--partitioner", ""], r"--partitioner was given an empty value"),
        "--report over an output": (["--report", "quickstart.h5"], r"--report quickstart\.h5 is an output of the deck; give it a file of its own"),
        "--report over the deck": (["--report", "quickstart.yaml"], r"--report quickstart\.yaml is the deck itself"),
        "--set of no tensor": (["--set", "tensors/Q/shape=[1]"], r"--set tensors/Q/shape=\[1\]: 'tensors' has no element named 'Q' \(it has X, W\)"),
        "--set of a bad value": (["--set", "tensors/W/shape=[0,4]"], r"--set tensors/W/shape=\[0,4\]: each extent of shape must be at least 1, found 0"),
        "--set of an unknown key": (["--set", "run/partitionr=sqrt"], r"--set run/partitionr=sqrt: unknown key 'partitionr' in run"),
        "--set without a value": (["--set", "run"], r"--set run: expected PATH=VALUE"),
        "--set of no parameter": (["--set", "params/n=3"], r"--set params/n=3: the deck declares no parameter .n. \(it has no params: block\)"),
    }
    # Aliases of aliases: a few hundred bytes standing for 10^8 values.
    bomb = "[&a0 [0,0,0,0,0,0,0,0,0,0]" + "".join(f", &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)) + "]"
    options.update({
        "empty --explain mode": (["--explain="], r"--explain=: expected --explain, --explain=plan, --explain=analyze or --explain=dot"),
        "--set alias bomb": (["--set", "tensors/X/shape=" + bomb], r"--set tensors/X/shape=.*: the value stands for more than 100000 values \(aliases of aliases\?\)"),
    })
    cases.append(("missing deck", None, r"cannot open deck 'no_such_deck\.yaml'"))
    for name, (_, pattern) in options.items():
        cases.append((name, None, pattern))

    passed = failed = 0
    for name, deck, pattern in cases:
        with tempfile.TemporaryDirectory() as folder:
            sentinel = prepare(folder)
            if deck and name in generated:
                with open(os.path.join(folder, name), "w") as f:
                    f.write(deck)
                cmd = mpi + [name]
            elif deck:
                shutil.copy(deck, os.path.join(folder, name))
                cmd = mpi + [name]
            elif name in options:
                shutil.copy(os.path.join(args.cases, "..", "..", "..", "inputs", "quickstart.yaml"), folder)
                cmd = mpi + ["quickstart.yaml"] + options[name][0]
            else:
                cmd = mpi + ["no_such_deck.yaml"]
            problems = check(cmd, folder, pattern, sentinel)
        if problems:
            failed += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
