#!/usr/bin/env bash
# setup + build + every test suite. Ends with ctest's summary line
# ("100% tests passed, 0 tests failed out of N") and exits non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh all mlir-doc
# The libFuzzer targets: clang-22 with libFuzzer, ASan and UBSan
# (scripts/fuzz.sh builds build-fuzz/, runtime only, for the artifact
# target and build-fuzz-compiler/, the whole compiler, for the others;
# ctest runs them). Building the instrumented compiler took 8 min 38 s
# on 2 cores without ccache (2026-12-07, docs/build.md), ~2 min with it.
bash scripts/fuzz.sh artifact 0 test/fuzz/corpus/artifact/* > /dev/null
for t in onnx modelproto mlir; do
  bash scripts/fuzz.sh $t 0 test/fuzz/regressions/$t/.keep > /dev/null
done
# The importer's robustness test and the runtime's out-of-memory checks
# (LeakSanitizer) run their drivers from the same instrumented build
# (ASan + UBSan, clang-22): one sanitizer build of the compiler, not two.
CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true ninja -C build-fuzz-compiler \
  bwc-import-robustness bwc-oom-check bwc-cuda-unittests > /dev/null
ctest --test-dir "${BWC_BUILD_DIR:-build}" --output-on-failure -j2
