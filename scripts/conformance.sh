#!/usr/bin/env bash
# Compiles and checks every ONNX backend test case made of the supported
# operators on the CPU backend, prints passed/failed/unsupported per folder
# and rewrites docs/conformance.md. Extra arguments go to the runner (e.g.
# --only test_conv). Expects a built tree (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BWC_BUILD_DIR:-build}
/usr/bin/python3 python/conformance.py "$B/bin/bwc-compile" "$B/bin/bwc-run" \
  --expect test/e2e/conformance-expected-failures.txt \
  --markdown docs/conformance.md "$@"
