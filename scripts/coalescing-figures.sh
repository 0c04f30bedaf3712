#!/usr/bin/env bash
# Prints each real model's bytes-weighted coalescing efficiency (the access
# model, docs/analysis/access-model.md) under bwc-configure-kernels'
# defaults (--tile=none), after bwc-tile with the emitters the CUDA target
# has (--tile=default), and after bwc-tile with every emitter of the
# configuration vocabulary (column_reduction, transpose_tiled,
# contraction_tiled included). The figures need no GPU (--target=cpu).
# Usage: coalescing-figures.sh BIN_DIR MODELS_DIR
set -euo pipefail
bin=$1 models=$2
all=loop,thread_per_output,row_reduction,column_reduction,transpose_tiled,contraction_tiled
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
figure() { # NAME MODEL SHAPE FLAGS...
  local name=$1 model=$2 shape=$3
  shift 3
  "$bin/bwc-compile" "$model" --input-shape="$shape" --target=cpu \
    -o "$tmp/$name.bwc" --report-json "$tmp/$name.json" "$@" >/dev/null
  python3 -c "import json,sys;print('%.3f' % json.load(open(sys.argv[1]))['totals']['coalescing_efficiency'])" "$tmp/$name.json"
}
printf "%-14s %8s %8s %8s\n" model none default all
while read -r name shape; do
  m="$models/$name/model.onnx"
  printf "%-14s %8s %8s %8s\n" "$name" "$(figure "$name" "$m" "$shape" --tile=none)" \
    "$(figure "$name" "$m" "$shape")" \
    "$(figure "$name" "$m" "$shape" --tile-emitters=$all)"
done <<'LIST'
ppocr_cls x=1x3x48x192
ppocr_det x=1x3x320x320
ppocr_rec x=1x3x48x320
oww_melspec input=1x16000
oww_embedding input_1=1x76x32x1
LIST
