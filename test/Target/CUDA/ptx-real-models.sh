#!/usr/bin/env bash
# Compiles the real models of ../shared/models with --target=cuda (this must
# work on any machine: no GPU, no CUDA toolkit) and, when ptxas is installed
# ($BWC_PTXAS, PATH or /usr/local/cuda/bin), assembles every PTX module for
# sm_90. Also assembles the lit tests' kernels (one per emitter, and the
# issue-10 column reductions, the tensor-core matmuls, the implicit-GEMM
# convolutions) and ppocr_rec and ppocr_det in bf16 (matmuls and
# convolutions on the mma path), and requires that no kernel spills
# registers (ptxas -v). Exits 77 (skipped, with the reason) when the
# models or ptxas are missing, after the compile checks.
# Usage: ptx-real-models.sh BIN_DIR MODELS_DIR SRC_DIR
set -uo pipefail
bin=$1 models=$2 src=$3
if [ ! -d "$models/ppocr_cls" ]; then
  echo "SKIPPED: $models not found (../shared/models is for CI and developer machines)"
  exit 77
fi
ptxas=${BWC_PTXAS:-}
if [ -z "$ptxas" ]; then
  ptxas=$(command -v ptxas || true)
  [ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
fi
[ "$ptxas" = none ] && ptxas=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 compiled=0 assembled=0
check() { # NAME INPUT [FLAGS...]
  local name=$1 input=$2
  shift 2
  # The PTX alone (the compiler itself never needs ptxas for it).
  if ! "$bin/bwc-compile" "$input" --target=cuda --emit=ptx -o "$tmp/$name.ptx" \
       "$@" 2> "$tmp/$name.err"; then
    echo "FAILED: $name: bwc-compile --target=cuda"; head -5 "$tmp/$name.err"
    failed=$((failed + 1)); return
  fi
  compiled=$((compiled + 1))
  if grep -q '__nv_' "$tmp/$name.ptx"; then
    echo "FAILED: $name: the PTX calls libdevice"; failed=$((failed + 1)); return
  fi
  [ -z "$ptxas" ] && return
  if ! "$ptxas" -arch=sm_90 -O3 -v "$tmp/$name.ptx" -o "$tmp/$name.cubin" \
       2> "$tmp/$name.ptxas"; then
    echo "FAILED: $name: ptxas"; grep -v '^ptxas info' "$tmp/$name.ptxas" | head -5
    failed=$((failed + 1)); return
  fi
  # No kernel spills registers to local memory (ptxas -v).
  if grep -q '[1-9][0-9]* bytes spill \(stores\|loads\)' "$tmp/$name.ptxas"; then
    echo "FAILED: $name: ptxas spills registers:"
    grep -B2 '[1-9][0-9]* bytes spill' "$tmp/$name.ptxas" | grep -o "entry function '[^']*'" | head -5
    failed=$((failed + 1)); return
  fi
  assembled=$((assembled + 1))
  echo "ok: $name ($(grep -c '^.visible .entry' "$tmp/$name.ptx") kernels)"
}
check ppocr_cls "$models/ppocr_cls/model.onnx" --input-shape=x=1x3x48x192
check ppocr_det "$models/ppocr_det/model.onnx" --input-shape=x=1x3x320x320
check ppocr_rec "$models/ppocr_rec/model.onnx" --input-shape=x=1x3x48x320
check oww_melspec "$models/oww_melspec/model.onnx" --input-shape=input=1x16000
check oww_embedding "$models/oww_embedding/model.onnx" --input-shape=input_1=1x76x32x1
# bf16: the matmul kernels take the tensor-core path (mma.sync).
check ppocr_rec_bf16 "$models/ppocr_rec/model.onnx" --input-shape=x=1x3x48x320 --precision=bf16
# bf16 convolutions: implicit GEMMs on the tensor cores.
check ppocr_det_bf16 "$models/ppocr_det/model.onnx" --input-shape=x=1x3x320x320 --precision=bf16
check emitters "$src/test/Target/CUDA/kernels.mlir"
check mma "$src/test/Target/CUDA/mma.mlir"
check implicit_gemm "$src/test/Target/CUDA/implicit-gemm.mlir" --layout=nchw
check column_reductions "$src/test/Target/CUDA/column-reduction.mlir"
echo "$compiled compiled, $assembled assembled by ptxas, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ -z "$ptxas" ]; then
  echo "SKIPPED: ptxas not found: the PTX was generated but not assembled"
  exit 77
fi
