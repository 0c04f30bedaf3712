#!/usr/bin/python3
"""Imports every ONNX backend test case made of supported ops with bwc-opt
and counts the results per folder.

Graph inputs that feed shape operands (Reshape's shape, Slice's starts,
Resize's scales, ...) are bound to their test-data values with
--input-value, as a static compiler must (TensorRT's shape tensors).
A case passes when bwc-opt exits 0 with no warning (a warning means bwc's
shape rules disagree with ONNX shape inference). With --expect FILE, the
run fails when a case outside FILE fails, and lists the cases in FILE that
now pass. FILE holds `case-path-suffix  # reason` lines.

Usage: import_conformance.py BWC_OPT [--expect FILE] [--markdown FILE] [-j N]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend_cases  # noqa: E402


def run_case(bwc_opt, case):
    binds = [f"--input-value={n}={f}"
             for n, f in backend_cases.shape_inputs(case)]
    try:
        p = subprocess.run([bwc_opt, os.path.join(case, "model.onnx")] + binds,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=120, text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return case, False, "timeout"
    if p.returncode != 0:
        msg = next((l for l in p.stderr.splitlines() if "error" in l),
                   p.stderr.strip()[:200] or f"exit {p.returncode}")
        return case, False, msg
    warn = next((l for l in p.stderr.splitlines() if "warning" in l and
                 "ONNX checker" not in l), None)
    if warn:
        return case, False, warn
    return case, True, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bwc_opt")
    ap.add_argument("--root", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--expect")
    ap.add_argument("--markdown")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()

    cases = backend_cases.list_cases(args.root)
    with concurrent.futures.ThreadPoolExecutor(args.j) as ex:
        results = list(ex.map(lambda c: run_case(args.bwc_opt, c), cases))

    expected = backend_cases.read_expected(args.expect)

    folders = {}
    for case, ok, _ in results:
        f = backend_cases.key(case).split("/")[0]
        folders.setdefault(f, [0, 0])[0 if ok else 1] += 1
    passed = sum(v[0] for v in folders.values())
    failed = sum(v[1] for v in folders.values())
    for f, (p, fl) in sorted(folders.items()):
        print(f"{f:20s} imported {p:4d}  failed {fl:4d}")

    unexpected = [(c, m) for c, ok, m in results
                  if not ok and backend_cases.key(c) not in expected]
    now_pass = [backend_cases.key(c) for c, ok, _ in results if ok and backend_cases.key(c) in expected]
    for c, m in unexpected:
        print(f"UNEXPECTED FAILURE {backend_cases.key(c)}: {m}")
    for c in now_pass:
        print(f"now imports (remove from the expected list): {c}")
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write("| folder | cases | imported | failed |\n|---|---|---|---|\n")
            for f, (p, fl) in sorted(folders.items()):
                out.write(f"| {f} | {p + fl} | {p} | {fl} |\n")
            out.write(f"| **all** | {passed + failed} | {passed} | {failed} |\n\n")
            out.write("Failures:\n\n")
            for c, ok, m in results:
                if not ok:
                    out.write(f"- `{backend_cases.key(c)}`: {expected.get(backend_cases.key(c), m)}\n")
    print(f"import: {passed} of {len(results)} cases imported")
    if args.expect and unexpected:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
