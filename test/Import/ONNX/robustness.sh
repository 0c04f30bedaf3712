#!/usr/bin/env bash
# Feeds mutated copies of two real models to the ASan+UBSan build of the
# importer (scripts/test.sh builds it in build-fuzz-compiler/). Skips, visibly, when
# ../shared/models is not beside the repository.
# Usage: robustness.sh ASAN_DRIVER SHARED_MODELS_DIR
set -euo pipefail
driver=$1 models=$2
if [ ! -f "$models/ppocr_cls/model.onnx" ]; then
  echo "SKIPPED: $models/ppocr_cls/model.onnx not found (../shared/models is for CI and developer machines)"
  exit 77
fi
if [ ! -x "$driver" ]; then
  echo "missing $driver: build it with scripts/test.sh (ASan build in build-fuzz-compiler/)"
  exit 1
fi
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
"$driver" "$models/ppocr_cls/model.onnx" 1000 1 --input-shape=x=1x3x48x192
"$driver" "$models/oww_melspec/model.onnx" 300 2 --input-shape=input=1x16000
