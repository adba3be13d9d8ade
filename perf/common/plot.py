"""A benchmark's table drawn as grouped bars, as SVG for docs/ (the perf/
scripts' --plot FILE.svg). matplotlib from Debian (python3-matplotlib);
the drawing is the same for the same numbers (no date, fixed ids), so a
rerun changes the file only where the measurements changed.

Also a command for shell scripts (perf/matmul/run):
  plot.py OUT.svg TITLE YLABEL SERIES1,SERIES2,... < rows
where each row of stdin is "GROUP VALUE1 VALUE2 ..."."""
import sys
import textwrap


def lines(path, title, xlabel, ylabel, panels):
    """panels: [(panel title, {series name: (xs, ys)})], drawn side by side
    as lines with markers (perf/ist/run's accuracy against seconds)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "tra-perf"
    plt.rcParams["svg.fonttype"] = "none"
    cols = min(2, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.0 * cols, 3.4 * rows), squeeze=False)
    for k, (name, series) in enumerate(panels):
        ax = axes[k // cols][k % cols]
        for label, (xs, ys) in series.items():
            ax.plot(xs, ys, marker=".", linewidth=1.0, label=label)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(linewidth=0.3)
        ax.legend(fontsize=7)
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("\n".join(textwrap.wrap(title, 110)), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def bars(path, title, ylabel, groups, series, log=False, reference=None):
    """groups: the x labels; series: {name: [value per group, None where not
    measured]}; reference: a y value drawn as a dashed line (a target)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "tra-perf"
    plt.rcParams["svg.fonttype"] = "none"  # text stays text
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(1, len(series)) * 0.5 + 2), 4.0))
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups)) if values[g] is not None]
        ys = [v for v in values if v is not None]
        ax.bar(xs, ys, width, label=name)
    if reference is not None:
        ax.axhline(reference[0], color="black", linestyle="--", linewidth=0.8, label=reference[1])
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20 if max(len(g) for g in groups) > 10 else 0, ha="right" if max(len(g) for g in groups) > 10 else "center")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", linewidth=0.3)
    fig.tight_layout()
    if path.endswith(".svg"):
        fig.savefig(path, format="svg", metadata={"Date": None})
    else:
        fig.savefig(path, dpi=80)
    plt.close(fig)
    print(f"plot written to {path}", file=sys.stderr)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: plot.py OUT.svg TITLE YLABEL SERIES1,SERIES2,... < rows of 'GROUP VALUE ...'")
    out, title, ylabel, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    groups, series = [], {n: [] for n in names}
    for line in sys.stdin:
        cells = line.split()
        if not cells:
            continue
        if len(cells) != len(names) + 1:
            sys.exit(f"plot.py: row '{line.strip()}' has {len(cells) - 1} values, expected {len(names)}")
        groups.append(cells[0])
        for n, v in zip(names, cells[1:]):
            series[n].append(float(v))
    if not groups:
        sys.exit("plot.py: no rows to draw")
    bars(out, title, ylabel, groups, series)


if __name__ == "__main__":
    main()
