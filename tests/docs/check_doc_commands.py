#!/usr/bin/python3
"""The doc test: runs every command that README.md and docs/*.md show, as
written, and fails naming FILE:LINE of the first that fails.

A command is a line of a ```sh (or ```bash) block (comments and blank lines aside; a
trailing backslash continues it), or a line starting with "$ " in any other
block but yaml and cmake. The commands of one file run in order in one bash
shell, in a fresh folder that holds links to the repository's build/,
inputs/, scripts/, perf/ and tests/ (their outputs land there, not in the
repository), with HOME pointing into it; scripts/mpirun-env is sourced first,
as the README asks a user to do once per shell.

What is not run, and why, is printed:
  * a block after a line `<!-- doc-test: skip REASON -->` (scripts/test runs
    this test; scripts/quickstart would rebuild the tree the tests run from);
  * the Slurm commands (sbatch, srun, salloc) when scripts/slurm/local-cluster
    cannot start a one-node cluster here. When it can, they run on it; an
    sbatch command is given --wait, so that its status is the job's.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SLURM = re.compile(r"(^|\s)(sbatch|srun|salloc)\s")


def commands(path):
    """(line number, command, skip reason or None) for each command of a doc."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    in_block, lang, skip, pending = False, "", None, None
    for no, line in enumerate(lines, 1):
        fence = line.strip().startswith("```")
        if fence and not in_block:
            in_block, lang = True, line.strip()[3:].strip()
            prev = lines[no - 2].strip() if no >= 2 else ""
            m = re.match(r"<!-- doc-test: skip (.*) -->", prev)
            skip = m.group(1) if m else None
            continue
        if fence and in_block:
            in_block = False
            continue
        if not in_block or lang in ("yaml", "cmake"):
            continue
        text = line.strip()
        if lang not in ("sh", "bash"):
            if not text.startswith("$ "):
                continue
            text = text[2:]
        if not text or text.startswith("#"):
            continue
        if pending:
            pending = (pending[0], pending[1] + " " + text.rstrip("\\").strip(), skip)
        else:
            pending = (no, text.rstrip("\\").strip(), skip)
        if not text.endswith("\\"):
            out.append(pending)
            pending = None
    return out


def start_slurm(root):
    """Whether a local one-node Slurm runs (started here if need be), and
    whether this test started it."""
    if subprocess.run(["bash", "-c", "command -v sinfo >/dev/null && sinfo -h -o %T | grep -qv down"], capture_output=True).returncode == 0:
        return True, False
    run = subprocess.run([os.path.join(root, "scripts", "slurm", "local-cluster"), "start"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"doc test: no Slurm here (scripts/slurm/local-cluster start failed: {(run.stderr or run.stdout).strip()[-300:]})")
        return False, False
    return True, True


def run_file(root, build, doc, cmds, slurm, timeout):
    """Runs the doc's commands in one shell; returns a list of problems."""
    folder = tempfile.mkdtemp(prefix="tra-doc-test.")
    try:
        os.symlink(build, os.path.join(folder, "build"))
        for name in ("inputs", "scripts", "perf", "tests"):
            os.symlink(os.path.join(root, name), os.path.join(folder, name))
        os.makedirs(os.path.join(folder, "home"))
        script = ["set -u -o pipefail", f'export HOME="{folder}/home"', "source scripts/mpirun-env"]
        ran = 0
        for no, cmd, skip in cmds:
            where = f"{os.path.relpath(doc, root)}:{no}"
            if skip:
                print(f"skip {where}: {cmd}   ({skip})")
                continue
            if SLURM.search(cmd) and not slurm:
                print(f"skip {where}: {cmd}   (no Slurm here)")
                continue
            cmd = re.sub(r"(^|\s)sbatch\s", r"\1sbatch --wait ", cmd, count=1)
            ran += 1
            script.append(f'echo "doc-test: running {where}" >&2')
            # The status is checked on a line of its own: a command may end in a comment.
            script.append(cmd)
            script.append(f'rc=$?; if [ $rc -ne 0 ]; then echo "doc-test: FAILED {where} (exit $rc)" >&2; exit 1; fi')
        if not ran:
            return []
        # A command that ended the shell early with status 0 (an exit in a
        # sourced script) must not pass for all of them.
        script.append('echo "doc-test: all ran" >&2')
        run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=folder, capture_output=True, text=True, timeout=timeout)
        if run.returncode == 0 and "doc-test: all ran" not in run.stderr:
            return [f"{doc}: the shell ended before its last command, with status 0"]
        if run.returncode != 0:
            failed = [l for l in run.stderr.splitlines() if l.startswith("doc-test: FAILED")]
            return [(failed[-1] if failed else f"{doc}: the shell exited {run.returncode}") + "\n---- last lines ----\n" +
                    "\n".join((run.stdout + run.stderr).splitlines()[-25:])]
        for _, cmd, skip in cmds:
            if not skip and (slurm or not SLURM.search(cmd)):
                print(f"ok   {os.path.relpath(doc, root)}: {cmd}")
        return []
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--build", help="the build folder the docs' build/ stands for (default: ROOT/build)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds for one doc's commands")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    build = os.path.abspath(args.build or os.path.join(root, "build"))
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    found = {d: commands(d) for d in docs}
    slurm, started = False, False
    if any(SLURM.search(c) and not s for cmds in found.values() for _, c, s in cmds):
        slurm, started = start_slurm(root)
    problems = []
    try:
        for doc, cmds in found.items():
            if cmds:
                problems += run_file(root, build, doc, cmds, slurm, args.timeout)
    finally:
        if started:
            subprocess.run([os.path.join(root, "scripts", "slurm", "local-cluster"), "stop"], capture_output=True)
    total = sum(len(c) for c in found.values())
    for p in problems:
        print("FAIL " + p)
    print(f"doc test: {total} commands in {sum(1 for c in found.values() if c)} files; {len(problems)} file(s) failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
