#!/usr/bin/env bash
# Every host allocation failure of the runtime in turn, under AddressSanitizer
# and LeakSanitizer (docs/reliability.md "Out of memory"): compiles
# Inputs/oom-chain.mlir for the CPU and for CUDA with the main build, then
# runs the ASan build's bwc-oom-check on each (cpu, cuda-sim).
# Usage: oom-lsan.sh BIN_DIR ASAN_BIN_DIR
set -euo pipefail
bin=$1 asan=$2
here=$(dirname "$0")
if [ ! -x "$asan/bwc-oom-check" ]; then
  echo "missing $asan/bwc-oom-check: build it with scripts/test.sh (ASan build in build-fuzz-compiler/)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 BWC_PTXAS=none
"$bin/bwc-compile" "$here/Inputs/oom-chain.mlir" --fusion=none -o "$tmp/cpu.bwc"
"$bin/bwc-compile" "$here/Inputs/oom-chain.mlir" --fusion=none --target=cuda \
  -o "$tmp/cuda.bwc"
echo -n "cpu: "; "$asan/bwc-oom-check" "$tmp/cpu.bwc" cpu
echo -n "cuda-sim: "; "$asan/bwc-oom-check" "$tmp/cuda.bwc" cuda-sim
