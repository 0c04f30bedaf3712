#!/usr/bin/env bash
# setup + build + every test suite. Ends with ctest's summary line
# ("100% tests passed, 0 tests failed out of N") and exits non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh all mlir-doc
# The importer's robustness test runs an AddressSanitizer build of its
# driver (only that target and what it links).
BWC_BUILD_DIR=build-asan BWC_CMAKE_ARGS="-DBWC_ENABLE_ASAN=ON" \
  bash scripts/build.sh bwc-import-robustness
# The libFuzzer targets: clang-22 with libFuzzer, ASan and UBSan, runtime
# only (scripts/fuzz.sh builds build-fuzz/; ctest runs them).
bash scripts/fuzz.sh artifact 0 test/fuzz/corpus/artifact/* > /dev/null
ctest --test-dir "${BWC_BUILD_DIR:-build}" --output-on-failure -j2
