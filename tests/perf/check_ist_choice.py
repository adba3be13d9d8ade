#!/usr/bin/python3
"""perf/ist/run --lrs keeps, of one method's runs at several learning rates,
the one soonest to the target, or, where none reaches it, the one of best
accuracy. Checked on runs whose answer is worked out by hand."""
import importlib.machinery
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "perf", "common"))
loader = importlib.machinery.SourceFileLoader("ist_run", os.path.join(ROOT, "perf", "ist", "run"))
spec = importlib.util.spec_from_loader("ist_run", loader)
ist = importlib.util.module_from_spec(spec)
loader.exec_module(ist)


def run(lr, to_target, best):
    return {"lr": lr, "to_target": to_target, "best": best}


cases = [
    # The soonest to the target wins, though another rate reaches a better accuracy later.
    ([run(0.05, 9.0, 0.41), run(0.1, 4.0, 0.39), run(0.2, 6.0, 0.45)], 0.1),
    # A rate that reaches the target beats one that does not, whatever the latter's accuracy.
    ([run(0.05, None, 0.50), run(0.2, 30.0, 0.36)], 0.2),
    # None reaches it: the best accuracy.
    ([run(0.05, None, 0.25), run(0.1, None, 0.29), run(0.2, None, 0.27)], 0.1),
    # Equal times: the first rate given.
    ([run(0.1, 5.0, 0.40), run(0.2, 5.0, 0.42)], 0.1),
]
failed = 0
for runs, want in cases:
    got = ist.best_rate(runs)["lr"]
    if got != want:
        print(f"check_ist_choice: of {runs} kept lr {got}, expected {want}")
        failed += 1
print(f"check_ist_choice: {len(cases) - failed} of {len(cases)} cases right")
sys.exit(1 if failed else 0)
