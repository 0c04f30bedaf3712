#!/usr/bin/python3
"""Tables from `bwc-run --bench --json` files (docs/runtime-cuda.md).

  bench_tables.py fusion UNFUSED.json FUSED.json
      both per-kernel tables, then the totals side by side (kernels, DRAM
      bytes, total kernel time, effective GB/s)
  bench_tables.py gpu-check OUTDIR
      the one table of scripts/gpu-check.sh from OUTDIR/manifest.tsv and
      OUTDIR/results/: case, check, bwc GB/s, % of copy, PyTorch eager and
      torch.compile GB/s; then "N passed, N failed"
"""
import json
import os
import sys
import tarfile


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def kernel_table(title, r):
    lines = ["== %s: %s, %d runs, median latency %s ms" %
             (title, r["device"], r["runs"], fmt(r["latency_ms"]["median"], "%.4f"))]
    lines.append("%4s  %-36s %10s %9s %13s %9s %7s" %
                 ("#", "kernel", "time(us)", "est(us)", "bytes", "GB/s",
                  "%copy"))
    for k in r["kernels"] + [dict(r["totals"], launch="", name="total")]:
        # est(us): the H200 estimate bwc-run prints (not a measurement);
        # absent from JSON written before 2026-12-04.
        lines.append("%4s  %-36s %10.2f %9s %13d %9s %7s" %
                     (k["launch"], k["name"][:36], k["time_us"],
                      fmt(k.get("estimate_us"), "%.2f"), k["bytes"],
                      fmt(k["gbps"], "%.1f"), fmt(k["pct_copy"], "%.1f%%")))
    return "\n".join(lines)


def fusion(unfused_path, fused_path, left="--fusion=none", right="fused"):
    """The two runs side by side; `left`/`right` label them (default: the
    fusion comparison; BENCH_LABELS="A,B" in compare-fusion.sh)."""
    a, b = load(unfused_path), load(fused_path)
    for path, r in ((unfused_path, a), (fused_path, b)):
        if r is None:
            sys.exit("bench_tables.py: cannot read a bench JSON from '%s'" % path)
    print(kernel_table(left, a))
    print()
    print(kernel_table(right + " (default)" if right == "fused" else right, b))
    print()
    ta, tb = a["totals"], b["totals"]

    def ratio(x, y):
        return "%.2fx" % (x / y) if x and y else "-"
    rows = [("kernels", ta["kernels"], tb["kernels"], "%d"),
            ("DRAM bytes", ta["bytes"], tb["bytes"], "%d"),
            ("total kernel time (us)", ta["time_us"], tb["time_us"], "%.2f"),
            ("effective GB/s", ta["gbps"], tb["gbps"], "%.1f"),
            ("% of copy bandwidth", ta["pct_copy"], tb["pct_copy"], "%.1f"),
            ("median latency (ms)", a["latency_ms"]["median"],
             b["latency_ms"]["median"], "%.4f")]
    print("%-24s %16s %16s %10s" % ("", left[:16], right[:16],
                                     "none/fused" if left == "--fusion=none" else "left/right"))
    for name, x, y, spec in rows:
        print("%-24s %16s %16s %10s" % (name, fmt(x, spec), fmt(y, spec), ratio(x, y)))
    # How the kernel times were taken (graph: event nodes, no host gaps;
    # stream: biased up by host submission, docs/runtime-cuda.md).
    print("%-24s %16s %16s" % ("kernel timing", a.get("kernel_timing", "-") or "-",
                                b.get("kernel_timing", "-") or "-"))


def peer_figures(path):
    """peers_torch.py's JSON -> ({case name: (eager GB/s, inductor GB/s)},
    copy GB/s)."""
    peers, copy = {}, None
    for r in load(path) or []:
        if r.get("name") == "copy":
            copy = r.get("bw")
        elif "min_bytes" in r:
            gbps = lambda ms: r["min_bytes"] / ms / 1e6 if ms else None
            peers[r["name"]] = (gbps(r.get("eager")), gbps(r.get("inductor")))
    return peers, copy


def bundled_metas(outdir):
    """{case name: meta.json} from prepare-gpu-check.sh's bundle.tgz (read
    once: the bundle is ~60 MB), {} without one."""
    bundle = os.path.join(outdir, "bundle.tgz")
    metas = {}
    if not os.path.exists(bundle):
        return metas
    with tarfile.open(bundle) as tar:
        for member in tar:
            # normpath: a bundle repacked with `tar -C DIR .` names ./cases/...
            parts = os.path.normpath(member.name).split("/")
            if len(parts) == 3 and parts[0] == "cases" and parts[2] == "meta.json":
                try:
                    metas[parts[1]] = json.load(tar.extractfile(member))
                except (AttributeError, ValueError):
                    pass
    return metas


def case_meta(outdir, name, bundled):
    """cases/NAME/meta.json of a gpu-check folder, unpacked (after
    gpu-check.sh) or still in the bundle (`bundled`); {} when there is none
    (real models)."""
    meta = load(os.path.join(outdir, "cases", name, "meta.json"))
    return meta or bundled.get(name) or {}


def gpu_check(outdir):
    results = os.path.join(outdir, "results")
    peers, torch_copy = peer_figures(os.path.join(results, "peers.json"))
    bundled = bundled_metas(outdir)
    # GFLOP/s: the static flops over the median latency (the matmul and
    # convolution cases are compute-bound; their GB/s says little).
    header = "%-28s %-6s %11s %9s %7s %9s %11s %11s" % (
        "case", "check", "median us", "bwc GB/s", "%copy", "GFLOP/s",
        "eager GB/s", "compile GB/s")
    lines = [header, "-" * len(header)]
    passed = failed = 0
    with open(os.path.join(outdir, "manifest.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            name, kind = fields[:2]
            # A variant (NAME.f32tiles) reads its case's meta.json.
            case = os.path.basename(fields[3]) if len(fields) > 3 and fields[3] != "-" else name
            status_file = os.path.join(results, name + ".check.status")
            status = open(status_file).read().strip() if os.path.exists(status_file) else "-"
            if status == "PASS":
                passed += 1
            elif status != "-":
                failed += 1
            bench = load(os.path.join(results, name + ".bench.json"))
            meta = case_meta(outdir, case, bundled)
            median_us = gbps = pct = gflops = None
            if bench:
                median_us = bench["latency_ms"]["median"] * 1e3
                # Microbenchmarks: the bytes peers_torch.py counts, so the
                # columns compare; real models: the static report's bytes.
                moved = meta.get("min_bytes", bench["totals"]["bytes"])
                gbps = moved / (median_us * 1e3) if median_us else None
                copy = bench.get("copy_gbps")
                pct = 100 * gbps / copy if gbps and copy else None
                flops = bench["totals"].get("flops")
                gflops = flops / (median_us * 1e3) if flops and median_us else None
            eager, compiled = peers.get(meta.get("peer_name"), (None, None))
            lines.append("%-28s %-6s %11s %9s %7s %9s %11s %11s" % (
                name[:28], status, fmt(median_us, "%.1f"), fmt(gbps), fmt(pct, "%.1f%%"),
                fmt(gflops, "%.0f"), fmt(eager), fmt(compiled)))
    if torch_copy:
        lines.append("(PyTorch copy: %.1f GB/s read+write)" % torch_copy)
    lines.append("%d passed, %d failed" % (passed, failed))
    print("\n".join(lines))
    return failed == 0


def main():
    if len(sys.argv) in (4, 6) and sys.argv[1] == "fusion":
        fusion(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "gpu-check":
        sys.exit(0 if gpu_check(sys.argv[2]) else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
