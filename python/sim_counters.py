#!/usr/bin/python3
"""cuda-sim's memory counters for the real models, beside the static
access model's coalescing estimate, kernel by kernel.

For each model of test/e2e/real-models.txt: bwc-compile --target=cuda
--report-json (the access model's `coalescing` per kernel), then bwc-run
--device=cuda-sim --profile --json on its test case (the counters, exact for
the sampled blocks). Prints per model the bytes-weighted sector
efficiency, the worst shared-memory conflict ways, the average bytes per
request of the contiguous kernels, and how many kernels the access model
gets within 0.05 of the counters' sector efficiency; with --kernels, every
kernel. The access model unions a warp's sectors over the steps it traces
(its L1 assumption) while the counters count each request's sectors, so the
two measure different things where a warp re-reads sectors
(docs/targets/cuda-sim.md, "Counters").

With --max-ways W the run fails (exit 1) when a kernel that uses shared
memory has more than W conflict ways (the M2.2 bound is 1.10). With
--agreement FILE it also fails when the access model's `coalescing`
(bwc-compile --report-json) and the counters' `sector_efficiency` differ
by more than 0.05 on a kernel FILE does not list, or when a kernel FILE
lists (`model kernel reason...` per line, # comments) agrees now: the
list of known disagreements cannot go stale. With --min-efficiency FILE
(`model minimum` per line) it fails when a model's bytes-weighted sector
efficiency falls below its minimum: the figures the kernels, the layout
and tiling decisions reached stay reached. With
--check the same run also checks the outputs against the model's
references at relative L2 1e-4 (real-models.txt's extra flags) under every
sanitizer, and fails on a mismatch: ctest's one cuda-sim run of the
default fp32 compile (the counted run costs the same either way).

With --micro, MODELS_DIR is python/make_microbenchmarks.py's output
(small --rows/--cols: cuda-sim runs every block): every case directory
in it, at its own shapes, checked at 1e-4 (fp32) or 3e-2 (bf16, the
meta.json dtype).

Usage: sim_counters.py BIN_DIR MODELS_DIR [--kernels] [--max-ways W]
                       [--agreement FILE] [--min-efficiency FILE] [--check]
                       [--micro] [-- COMPILE_FLAGS...]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    show = "--kernels" in args
    check = "--check" in args
    micro = "--micro" in args
    args = [a for a in args if a not in ("--kernels", "--check", "--micro")]
    max_ways = None
    if "--max-ways" in args:
        i = args.index("--max-ways")
        max_ways = float(args[i + 1])
        del args[i:i + 2]
    def listed(flag):
        """The fields of each line of FILE after `flag` (# comments)."""
        if flag not in args:
            return None
        i = args.index(flag)
        path = args[i + 1]
        del args[i:i + 2]
        return [l.split("#")[0].split() for l in open(path)
                if l.split("#")[0].split()]
    known = listed("--agreement")
    if known is not None:
        known = {(f[0], f[1]): " ".join(f[2:]) for f in known}
    floors = listed("--min-efficiency")
    if floors is not None:
        floors = {f[0]: float(f[1]) for f in floors}
    over = []
    if len(args) != 2:
        sys.exit(__doc__)
    bindir, models = args
    if micro:
        lines = []
        for d in sorted(os.listdir(models)):
            meta = os.path.join(models, d, "meta.json")
            if os.path.isfile(meta):
                bf16 = json.load(open(meta)).get("dtype") == "bf16"
                lines.append([d, None] + (["--tolerance=3e-2"] if bf16
                                          else []))
    elif not os.path.isdir(os.path.join(models, "ppocr_cls")):
        print(f"SKIPPED: {models} not found (../shared/models is for CI and "
              "developer machines)")
        return 77
    else:
        lines = [l.split() for l in open(os.path.join(
            HERE, "..", "test", "e2e", "real-models.txt")) if l.strip()
            and not l.startswith("#")]
    env = dict(os.environ, BWC_PTXAS="none")
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, *checkflags in lines:
            art = os.path.join(tmp, name + ".bwc")
            rep = os.path.join(tmp, name + ".report.json")
            prof = os.path.join(tmp, name + ".profile.json")
            subprocess.run([os.path.join(bindir, "bwc-compile"),
                            os.path.join(models, name, "model.onnx")] +
                           (["--input-shape=" + shape] if shape else []) +
                           ["--target=cuda", "-o",
                            art, "--report-json=" + rep] + extra, check=True,
                           env=env, capture_output=True)
            own = any(f.startswith("--tolerance=") for f in checkflags)
            checking = ((["--tolerance=1e-4"] if not own else []) +
                        ["--sanitize=all"] + checkflags
                        if check else ["--tolerance=1"])
            run = subprocess.run([os.path.join(bindir, "bwc-run"), art,
                                  "--device=cuda-sim", "--profile", "--check",
                                  os.path.join(models, name), "--json",
                                  prof] + checking, capture_output=True,
                                 text=True)
            if run.returncode != 0:
                print(f"FAILED: {name}\n{run.stdout[-2000:]}{run.stderr}")
                return 1
            # The report lists the kernels in launch order, as the profile.
            model = json.load(open(rep))["kernels"]
            p = json.load(open(prof))
            within = total = 0
            ways = 1.0
            bpr_bytes = bpr_req = 0
            for i, k in enumerate(p["kernels"]):
                c = k["counters"]
                m = model[i] if i < len(model) else {}
                est = m.get("coalescing") if m.get("ops") == k["ops"] else None
                if c["shared_requests"]:
                    ways = max(ways, c["shared_conflict_ways"])
                    if max_ways is not None and c["shared_conflict_ways"] > max_ways:
                        over.append(f"{name} {k['name']}: "
                                    f"{c['shared_conflict_ways']:.2f} ways")
                if c["sector_efficiency"] >= 0.9:
                    req = c["global_load_requests"] + c["global_store_requests"]
                    bpr_bytes += c["bytes_per_request"] * req
                    bpr_req += req
                if est is not None:
                    total += 1
                    agrees = abs(est - c["sector_efficiency"]) <= 0.05
                    within += agrees
                    if known is not None:
                        listed = (name, k["name"]) in known
                        if not agrees and not listed:
                            over.append(
                                f"{name} {k['name']}: access model "
                                f"{est:.3f}, counters "
                                f"{c['sector_efficiency']:.3f} (not in the "
                                "known disagreements)")
                        elif agrees and listed:
                            over.append(
                                f"{name} {k['name']}: agrees now (model "
                                f"{est:.3f}, counters "
                                f"{c['sector_efficiency']:.3f}); remove it "
                                "from the known disagreements")
                if show:
                    print(f"  {k['name'][:44]:44s} eff {c['sector_efficiency']:.3f}"
                          f" bytes {c['byte_efficiency']:.3f}"
                          f" model {est if est is None else round(est, 3)}"
                          f" ways {c['shared_conflict_ways']:.2f}"
                          f" B/req {c['bytes_per_request']:.1f}"
                          f" est {k['estimate_us']:.2f} us")
            eff = p["bytes_weighted_sector_efficiency"]
            if floors is not None and eff < floors.get(name, 0):
                over.append(f"{name}: bytes-weighted sector efficiency "
                            f"{eff:.3f} below its recorded minimum "
                            f"{floors[name]:.3f}")
            print(f"{name}: bytes-weighted sector efficiency "
                  f"{p['bytes_weighted_sector_efficiency']:.3f}, worst "
                  f"conflict ways {ways:.2f}, bytes/request of contiguous "
                  f"kernels {bpr_bytes / max(bpr_req, 1):.2f}, access model "
                  f"within 0.05 on {within} of {total} kernels, estimate "
                  f"{sum(k['estimate_us'] for k in p['kernels']):.1f} us")
    for o in over:
        print(f"FAILED: {o}" + (f" (more than {max_ways})"
                                if o.endswith("ways") else ""))
    if max_ways is not None or known is not None or floors is not None:
        print(f"{len(lines) - len({o.split()[0] for o in over})} passed, "
              f"{len({o.split()[0] for o in over})} failed")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
