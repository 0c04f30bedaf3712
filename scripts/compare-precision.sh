#!/usr/bin/env bash
# Compiles MODEL in fp32, fp16 and bf16 and prints the static totals (DRAM
# bytes, kernels, estimated time) side by side.
# Usage: scripts/compare-precision.sh MODEL.onnx [bwc-compile options]...
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BWC_BUILD_DIR:-build}
[ $# -ge 1 ] || { echo "usage: $0 MODEL.onnx [--input-shape=...]..." >&2; exit 2; }
model=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-6s %8s %14s %8s %12s\n' precision kernels "DRAM bytes" "vs fp32" "est. us"
base=
for p in fp32 fp16 bf16; do
  "$BUILD_DIR/bin/bwc-compile" "$model" "$@" --precision=$p -o "$tmp/$p.bwc" \
    --report-json="$tmp/$p.json"
  read -r k b us < <(python3 -c "import json,sys;t=json.load(open(sys.argv[1]))['totals'];print(t['kernels'],t['bytes'],t['estimated_us'])" "$tmp/$p.json")
  base=${base:-$b}
  printf '%-9s %8s %14s %7.1f%% %12.1f\n' $p $k $b "$(python3 -c "print(100.0*$b/$base)")" $us
done
