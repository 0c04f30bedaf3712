#!/usr/bin/python3
"""Bar chart of DRAM bytes per kernel before and after fusion.

Usage: plot_report.py REPORT.json OUT.png [--title TEXT]
       plot_report.py UNFUSED.json FUSED.json OUT.png [--title TEXT]

REPORT.json is what `bwc-compile --report-json` writes: the compiled
program's kernels at the top level and the unfused baseline under
"unfused". With two files, the first's program is the "before" side and
the second's the "after" side.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402


def kernels(report):
    return [k["bytes_read"] + k["bytes_written"] for k in report["kernels"]]


def main(argv):
    title = None
    if "--title" in argv:
        i = argv.index("--title")
        title = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) == 2:
        report = json.load(open(argv[0]))
        before, after, out = kernels(report["unfused"]), kernels(report), argv[1]
    elif len(argv) == 3:
        before = kernels(json.load(open(argv[0])))
        after = kernels(json.load(open(argv[1])))
        out = argv[2]
    else:
        sys.exit(__doc__)

    fig, axes = plt.subplots(2, 1, figsize=(12, 6), sharey=True)
    for ax, data, label, color in ((axes[0], before, "unfused", "#c44e52"),
                                   (axes[1], after, "fused", "#4c72b0")):
        ax.bar(range(len(data)), [b / 1e6 for b in data], color=color,
               width=1.0 if len(data) > 100 else 0.8)
        ax.set_ylabel("MB moved")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{label}: {len(data)} kernels, "
                     f"{sum(data) / 1e6:.1f} MB DRAM traffic")
    axes[1].set_xlabel("kernel (launch order)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out}: {len(before)} -> {len(after)} kernels, "
          f"{sum(before) / 1e6:.1f} -> {sum(after) / 1e6:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
