#!/usr/bin/env python3
"""Lower layers never include higher ones (design.md): every #include
"tra/<folder>/..." in src/tra/<folder>/ must name its own folder or a folder of
a lower layer. Exits 1 naming each offending file:line, 0 when none.

  0 common
  1 core, einsum
  2 model (the workflow a deck describes), kernels, comm
  3 io (reads decks and data into the model), decomp, autodiff (the gradient pass, model to model)
  4 logical
  5 physical
  6 exec
  7 app
"""
import os
import re
import sys

LAYERS = {
    "common": 0,
    "core": 1, "einsum": 1,
    "model": 2, "kernels": 2, "comm": 2,
    "io": 3, "decomp": 3, "autodiff": 3,
    "logical": 4,
    "physical": 5,
    "exec": 6,
    "app": 7,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"tra/([a-z_]+)/')


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "tra")
    problems, files = [], 0
    for folder in sorted(os.listdir(src)):
        if folder not in LAYERS:
            problems.append(f"src/tra/{folder}/: a folder with no layer (add it to tests/layers/check_layers.py)")
            continue
        for root, _, names in os.walk(os.path.join(src, folder)):
            for name in sorted(names):
                if not name.endswith((".hpp", ".cpp")):
                    continue
                files += 1
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.path.join(src, "..", ".."))
                with open(path) as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder:
                            continue
                        target = m.group(1)
                        if target not in LAYERS or LAYERS[target] >= LAYERS[folder]:
                            problems.append(f"{rel}:{line_no}: {folder} (layer {LAYERS[folder]}) includes {target} "
                                            f"(layer {LAYERS.get(target, '?')})")
    for p in problems:
        print(p)
    print(f"{files - len(problems) if files >= len(problems) else 0} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
