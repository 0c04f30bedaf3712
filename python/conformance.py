#!/usr/bin/python3
"""Compiles every ONNX backend test case made of supported ops with
bwc-compile and checks it with `bwc-run --check` (the ONNX backend-test
tolerance), counting per folder: passed, failed, unsupported (the importer
refused the model with an error).

Inputs that feed shape operands are bound with --input-value (see
backend_cases.shape_inputs); bwc-run matches the remaining inputs by name.
With --expect FILE the run fails when a case off FILE does not pass, and
lists the cases on FILE that now pass. --markdown writes docs/conformance.md.
With --changed-only (needs --compile-flag=--precision=fp16|bf16) a case
runs only when bwc-mixed-precision gives it at least one fp16/bf16 value
(one bwc-opt run per case, the same graph passes as bwc-compile); the
others compute exactly as in fp32 (or the importer refuses them, as in the
plain suite) and count as skipped.

Usage: conformance.py BWC_COMPILE BWC_RUN [--expect FILE] [--markdown FILE]
                      [--compile-flag F]... [--run-flag F]...
                      [-j N] [--only SUBSTRING] [--changed-only]
                      [-- EXTRA_COMPILE_FLAGS...]
"""
import argparse
import concurrent.futures
import datetime
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend_cases  # noqa: E402


def first_error(text, fallback):
    for line in text.splitlines():
        if "error" in line:
            return line.split("error: ", 1)[-1][:300]
    return (text.strip().splitlines() or [fallback])[-1][:300]


def rewritten(compiler, case, binds, low):
    """True when bwc-mixed-precision gives `case` an f16/bf16 value."""
    passes = ("--pass-pipeline=builtin.module(canonicalize,cse,"
              f"bwc-mixed-precision{{precision={low}}})")
    r = subprocess.run([compiler.replace("bwc-compile", "bwc-opt"),
                        os.path.join(case, "model.onnx"), passes,
                        # Weights must stay readable for the range rules.
                        "--mlir-elide-resource-strings-if-larger=1000000000"]
                       + binds, capture_output=True, text=True,
                       errors="replace", timeout=120)
    # Cases the importer refuses are the plain suite's (unsupported there).
    return r.returncode == 0 and ("x" + low.replace("fp", "f") + ">") in r.stdout


def run_case(compiler, runner, case, extra, tmp, run_flags=(), low=None):
    name = backend_cases.key(case).replace("/", "__")
    artifact = os.path.join(tmp, name + ".bwc")
    binds = [f"--input-value={n}={f}"
             for n, f in backend_cases.shape_inputs(case)]
    if low and not rewritten(compiler, case, binds, low):
        return case, "skipped", ""
    try:
        c = subprocess.run([compiler, os.path.join(case, "model.onnx"), "-o",
                            artifact] + binds + extra, capture_output=True,
                           text=True, errors="replace", timeout=300)
    except subprocess.TimeoutExpired:
        return case, "failed", "compile timeout"
    if c.returncode != 0:
        # The importer's refusals are "unsupported"; anything later failing
        # (lowering, code generation) is a failure of the compiler.
        msg = first_error(c.stderr, f"bwc-compile exit {c.returncode}")
        imported = subprocess.run(
            [compiler.replace("bwc-compile", "bwc-opt"),
             os.path.join(case, "model.onnx")] + binds,
            capture_output=True, timeout=120).returncode == 0
        return case, ("failed" if imported else "unsupported"), msg
    try:
        r = subprocess.run([runner, artifact, "--check", case, "--quiet"]
                           + list(run_flags),
                           capture_output=True, text=True, errors="replace",
                           timeout=300)
    except subprocess.TimeoutExpired:
        return case, "failed", "run timeout"
    finally:
        if os.path.exists(artifact):
            os.unlink(artifact)
    if r.returncode != 0:
        out = r.stdout + r.stderr
        bad = [l for l in out.splitlines() if "FAIL" in l or "error" in l]
        return case, "failed", (bad[0] if bad else out.strip()[-300:])[:300]
    return case, "passed", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("compiler")
    ap.add_argument("runner")
    ap.add_argument("--root", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--expect")
    ap.add_argument("--markdown")
    ap.add_argument("--only")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--compile-flag", action="append", default=[],
                    help="extra bwc-compile flag (repeatable), e.g. "
                         "--compile-flag=--codegen=elemental")
    ap.add_argument("--run-flag", action="append", default=[],
                    help="extra bwc-run flag (repeatable), e.g. "
                         "--run-flag=--tolerance=1e-2 with --precision=fp16")
    ap.add_argument("--changed-only", action="store_true",
                    help="only the cases --precision gives an fp16/bf16 value")
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args()
    args.extra = args.extra + args.compile_flag
    low = None
    if args.changed_only:
        low = next((f.split("=", 1)[1] for f in args.extra
                    if f.startswith("--precision=")), None)
        if low not in ("fp16", "bf16"):
            ap.error("--changed-only expects --compile-flag=--precision=fp16 "
                     f"or bf16 but got {low}")

    cases = backend_cases.list_cases(args.root)
    if args.only:
        cases = [c for c in cases if args.only in c]
    with tempfile.TemporaryDirectory(prefix="bwc-conf-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(args.j) as ex:
            results = list(ex.map(
                lambda c: run_case(args.compiler, args.runner, c, args.extra,
                                   tmp, args.run_flag, low), cases))
    skipped = sum(1 for _, s, _ in results if s == "skipped")
    results = [r for r in results if r[1] != "skipped"]

    expected = backend_cases.read_expected(args.expect)
    folders = {}
    for case, state, _ in results:
        f = backend_cases.key(case).split("/")[0]
        folders.setdefault(f, {"passed": 0, "failed": 0, "unsupported": 0})
        folders[f][state] += 1
    for f, n in sorted(folders.items()):
        print(f"{f:20s} passed {n['passed']:4d}  failed {n['failed']:4d}  "
              f"unsupported {n['unsupported']:4d}")
    unexpected = [(c, s, m) for c, s, m in results
                  if s != "passed" and backend_cases.key(c) not in expected]
    now_pass = [backend_cases.key(c) for c, s, _ in results
                if s == "passed" and backend_cases.key(c) in expected]
    for c, s, m in unexpected:
        print(f"UNEXPECTED {s.upper()} {backend_cases.key(c)}: {m}")
    for c in now_pass:
        print(f"now passes (remove from the expected list): {c}")
    passed = sum(n["passed"] for n in folders.values())
    failed = len(results) - passed
    if args.markdown:
        write_markdown(args.markdown, folders, results, expected, passed,
                       len(results))
    if low:
        print(f"{skipped} cases skipped: {low} rewrites nothing in them")
    print(f"conformance: {passed} of {len(results)} cases pass")
    print(f"{passed} passed, {failed} failed")
    return 1 if (args.expect is not None and unexpected) else 0


RUNNER_BLOCK = ("<!-- BEGIN onnx-runner -->", "<!-- END onnx-runner -->")


def runner_block(path):
    """The section test/python/onnx_backend.py --markdown keeps in the same
    file (ONNX's own runner), carried over when this rewrites the file."""
    if not os.path.exists(path):
        return ""
    text = open(path).read()
    begin, end = text.find(RUNNER_BLOCK[0]), text.find(RUNNER_BLOCK[1])
    if begin < 0 or end < begin:
        return ""
    return text[begin:end + len(RUNNER_BLOCK[1])] + "\n\n"


def write_markdown(path, folders, results, expected, passed, total):
    today = datetime.date.today().isoformat()
    kept = runner_block(path)
    with open(path, "w") as out:
        out.write("# ONNX backend conformance (CPU backend)\n\n")
        out.write(kept)
        if kept:
            out.write("## bwc-compile and bwc-run over the supported-op "
                      "cases\n\n")
            out.write("Every case that passes here also passes through "
                      "`bwc.backend` above (checked by comparing the two "
                      "expected-failure lists); the runner's count adds "
                      "cases outside this suite's operator list.\n\n")
        out.write(f"Measured {today} with `bash scripts/conformance.sh` "
                  "(compiles each case with bwc-compile, checks it with "
                  "`bwc-run --check`, the ONNX backend-test rule "
                  "|out-ref| <= 1e-7 + 1e-3 |ref|).\n\n")
        out.write(f"**{passed} of {total}** cases made only of the supported "
                  "operators (python/backend_cases.py) pass.\n\n")
        out.write("The same suite through the CUDA kernels on cuda-sim "
                  "(ctest `e2e-conformance-cuda-sim`) is in "
                  "docs/targets/cuda-sim.md.\n\n")
        out.write("| folder | cases | passed | failed | unsupported |\n"
                  "|---|---|---|---|---|\n")
        for f, n in sorted(folders.items()):
            out.write(f"| {f} | {sum(n.values())} | {n['passed']} | "
                      f"{n['failed']} | {n['unsupported']} |\n")
        out.write("\n## Cases that do not pass\n\n"
                  "Reasons come from `test/e2e/conformance-expected-failures.txt` "
                  "where listed, else from the tool's message.\n\n")
        for c, s, m in results:
            if s != "passed":
                k = backend_cases.key(c)
                out.write(f"- `{k}` ({s}): {expected.get(k, m)}\n")


if __name__ == "__main__":
    sys.exit(main())
