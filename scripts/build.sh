#!/usr/bin/env bash
# Configures (Ninja, ccache, Debian's MLIR 22) and builds bwc into build/.
# Extra arguments go to ninja (e.g. a target name).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BWC_BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    ${BWC_CMAKE_ARGS:-}
fi
ninja -C "$BUILD_DIR" "$@"
