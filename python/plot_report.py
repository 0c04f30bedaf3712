#!/usr/bin/python3
"""Before/after fusion chart of DRAM bytes per kernel, and a roofline when
measured (or estimated) kernel times exist.

Usage: plot_report.py REPORT.json OUT.png [--title TEXT] [--times FILE]
       plot_report.py UNFUSED.json FUSED.json OUT.png [--title TEXT]
                      [--times FILE]

REPORT.json is what `bwc-compile --report-json` writes: the compiled
program's kernels at the top level and the unfused baseline under
"unfused". With two files, the first's program is the "before" side and
the second's the "after" side.

Both sides share one MB scale. Each compiled kernel is labelled with the
ops it computes (the ops fusion put into it); the title carries the
totals and the ratios.

--times FILE adds a roofline panel: arithmetic intensity (flop/B, the cost
model's) against achieved GB/s per kernel, under the copy-bandwidth and
peak-flops ceilings. FILE is `bwc-run --bench N --json FILE` (measured
times; ceilings from --measure-peak/--peak-gbps and the device's peak) or
`bwc-run --device=cuda-sim --profile --json FILE` (cuda-sim's H200
estimates, labelled as estimates; ceilings 4282 GB/s and 66.9 TFLOP/s, the
H200 figures of DESIGN.md).
"""
import json
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

H200_COPY_GBPS = 4282.0
H200_FP32_GFLOPS = 66908.0


def kernels(report):
    return [{"bytes": k["bytes_read"] + k["bytes_written"],
             "flops": k.get("flops", 0), "ops": k.get("ops", ""),
             "name": k.get("name", "")} for k in report["kernels"]]


def short_ops(ops, limit=36):
    """'reduce,binary.sub,unary.exp' -> 'reduce+sub+exp' (cut at limit)."""
    parts = [p.split(".")[-1] for p in ops.split(",") if p]
    text = "+".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def bars(ax, data, color):
    """One bar per kernel in launch order. Up to 30 kernels each gets its
    ops as a tick label; beyond, the 10 largest are labelled above their
    bars."""
    xs = range(len(data))
    mb = [k["bytes"] / 1e6 for k in data]
    ax.bar(xs, mb, color=color, width=0.8)
    # Whole kernels on the axis, never a fractional range around one bar.
    ax.set_xlim(-0.6, len(data) - 0.4)
    if len(data) <= 4:
        # Few kernels: every op they compute, wrapped under the bar.
        ax.set_xticks(list(xs))
        ax.set_xticklabels([textwrap.fill(short_ops(k["ops"], 10 ** 6)
                                          .replace("+", " + "), 34)
                            for k in data], fontsize=7)
        return
    if len(data) <= 30:
        ax.set_xticks(list(xs))
        ax.set_xticklabels([short_ops(k["ops"]) for k in data], rotation=90,
                           fontsize=7)
        return
    ax.set_xlabel("kernel (launch order); the 10 largest labelled")
    for i in sorted(xs, key=lambda i: -mb[i])[:10]:
        ax.annotate(short_ops(data[i]["ops"], 28), (i, mb[i]),
                    xytext=(0, 3), textcoords="offset points", rotation=90,
                    ha="center", va="bottom", fontsize=6)


def roofline(ax, times):
    """Intensity against achieved GB/s, with the two ceilings."""
    estimate = "estimate" in times and times.get("device") == "cuda-sim"
    points = []
    for k in times["kernels"]:
        us = k.get("estimate_us") if estimate else k.get("time_us")
        if not us or us <= 0 or not k.get("bytes"):
            continue
        points.append((k.get("flops", 0) / k["bytes"], k["bytes"] / (us * 1e3)))
    if estimate:
        copy, peak = H200_COPY_GBPS, H200_FP32_GFLOPS
        what = "cuda-sim H200 estimate (not a measurement)"
    else:
        copy = times.get("copy_gbps") or 0
        peak = times.get("peak_gflops") or 0
        what = "measured on %s" % times.get("device", "?")
    xs = [max(p[0], 1e-3) for p in points]
    ys = [p[1] for p in points]
    ax.scatter(xs, ys, s=14, color="#4c72b0", zorder=3)
    lo = min(xs + [1e-2]) / 2
    hi = max(xs + [1e2]) * 2
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    if copy:
        ax.axhline(copy, color="#c44e52", lw=1,
                   label="copy bandwidth %.0f GB/s" % copy)
    if peak:
        grid = [lo * (hi / lo) ** (i / 50) for i in range(51)]
        ax.plot(grid, [peak / x for x in grid], color="#55a868", lw=1,
                label="peak %.0f GFLOP/s" % peak)
    if ys:
        top = max(ys + [copy or 0]) * 3
        ax.set_ylim(min(ys) / 3, top)
    ax.set_xlabel("arithmetic intensity (flop/B, cost model)")
    ax.set_ylabel("achieved GB/s")
    ax.set_title("roofline: %d kernels, %s" % (len(points), what), fontsize=9)
    if copy or peak:
        ax.legend(fontsize=7, loc="lower right")


def main(argv):
    title, times = None, None
    for flag in ("--title", "--times"):
        if flag in argv:
            i = argv.index(flag)
            value = argv[i + 1]
            argv = argv[:i] + argv[i + 2:]
            if flag == "--title":
                title = value
            else:
                times = json.load(open(value))
    if len(argv) == 2:
        report = json.load(open(argv[0]))
        before, after, out = kernels(report["unfused"]), kernels(report), argv[1]
    elif len(argv) == 3:
        before = kernels(json.load(open(argv[0])))
        after = kernels(json.load(open(argv[1])))
        out = argv[2]
    else:
        sys.exit(__doc__)

    panels = 3 if times else 2
    widths = [1, 1, 1.1][:panels]
    fig = plt.figure(figsize=(14 if times else 12, 6))
    grid = fig.add_gridspec(1, panels, width_ratios=widths)
    ax0 = fig.add_subplot(grid[0])
    ax1 = fig.add_subplot(grid[1], sharey=ax0)
    for ax, data, side, color in ((ax0, before, "unfused", "#c44e52"),
                                  (ax1, after, "fused", "#4c72b0")):
        bars(ax, data, color)
        ax.set_title("%s: %d kernels, %.1f MB" % (
            side, len(data), sum(k["bytes"] for k in data) / 1e6), fontsize=10)
    ax0.set_ylabel("MB moved (bytes read + written, cost model)")
    # Headroom for the labels above the bars.
    ax0.set_ylim(0, max(k["bytes"] for k in before + after) / 1e6 * 1.45)
    ax1.tick_params(labelleft=False)
    if times:
        roofline(fig.add_subplot(grid[2]), times)
    b, a = sum(k["bytes"] for k in before), sum(k["bytes"] for k in after)
    totals = "%d -> %d kernels (%.1fx fewer), %.1f -> %.1f MB DRAM (%.1fx " \
             "fewer)" % (len(before), len(after),
                         len(before) / max(1, len(after)), b / 1e6, a / 1e6,
                         b / max(1, a))
    fig.suptitle((title + ": " if title else "") + totals, fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print("wrote %s: %s" % (out, totals))


if __name__ == "__main__":
    main(sys.argv[1:])
