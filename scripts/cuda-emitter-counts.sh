#!/usr/bin/env bash
# Emitter usage per real model under --target=cuda (docs/targets/cuda.md):
# how many kernels each `emitter` of bwc.config builds, and how many
# row reductions keep the row in registers or pack rows per block.
# Usage: cuda-emitter-counts.sh BIN_DIR MODELS_DIR
set -euo pipefail
bin=$1 models=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # NAME INPUT-SHAPE
  "$bin/bwc-compile" "$models/$1/model.onnx" --input-shape="$2" \
    --target=cuda --emit=gpu -o "$tmp/$1.mlir"
  local emitters cached packed
  emitters=$(grep -o 'emitter = "[a-z_]*"' "$tmp/$1.mlir" | cut -d'"' -f2 |
             sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
  cached=$(grep -c 'cache_row = 1' "$tmp/$1.mlir" || true)
  packed=$(grep -o 'rows_per_block = [0-9]*' "$tmp/$1.mlir" |
           grep -vc '= 1$' || true)
  echo "$1: ${emitters}row_reduction with cache_row=1: $cached, with rows_per_block>1: $packed"
}
count ppocr_cls x=1x3x48x192
count ppocr_det x=1x3x320x320
count ppocr_rec x=1x3x48x320
count oww_melspec input=1x16000
count oww_embedding input_1=1x76x32x1
