#!/usr/bin/env bash
# Prints each real model's bytes-weighted coalescing efficiency (the access
# model, docs/analysis/access-model.md) before and after the two M1.9
# passes: "before" = --layout=nchw --tile=none (bwc-configure-kernels'
# defaults on the channels-first program), "layout" = bwc-select-layout
# only (--tile=none), "both" = the default compile (bwc-select-layout and
# bwc-tile with the emitters the CUDA target has), "all" = both with every
# emitter of the configuration vocabulary (contraction_tiled included),
# "nhwc" = every chain forced channels-last (--layout=nhwc). The last two
# columns are the program's DRAM bytes (cost model) before and with both
# passes. The figures need no GPU (--target=cpu).
# Usage: coalescing-figures.sh BIN_DIR MODELS_DIR
set -euo pipefail
bin=$(cd "$1" && pwd) models=$(cd "$2" && pwd)
# The models and shapes of the real-model test.
cd "$(dirname "$0")/.."
all=loop,thread_per_output,row_reduction,column_reduction,transpose_tiled,contraction_tiled
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
figure() { # NAME MODEL SHAPE FIELD FLAGS...
  local name=$1 model=$2 shape=$3 field=$4
  shift 4
  "$bin/bwc-compile" "$model" --input-shape="$shape" --target=cpu \
    -o "$tmp/$name.bwc" --report-json "$tmp/$name.json" "$@" >/dev/null
  python3 -c "import json,sys;t=json.load(open(sys.argv[1]))['totals'];print('%.3f' % t['coalescing_efficiency'] if sys.argv[2]=='c' else t['bytes'])" "$tmp/$name.json" "$field"
}
printf "%-14s %7s %7s %7s %7s %7s %12s %12s\n" model before layout both all nhwc "bytes before" "bytes both"
while read -r name shape; do
  m="$models/$name/model.onnx"
  printf "%-14s %7s %7s %7s %7s %7s %12s %12s\n" "$name" \
    "$(figure "$name" "$m" "$shape" c --layout=nchw --tile=none)" \
    "$(figure "$name" "$m" "$shape" c --tile=none)" \
    "$(figure "$name" "$m" "$shape" c)" \
    "$(figure "$name" "$m" "$shape" c --tile-emitters=$all)" \
    "$(figure "$name" "$m" "$shape" c --layout=nhwc)" \
    "$(figure "$name" "$m" "$shape" b --layout=nchw --tile=none)" \
    "$(figure "$name" "$m" "$shape" b)"
done < <(grep -v '^#' test/e2e/real-models.txt | cut -d' ' -f1,2)
