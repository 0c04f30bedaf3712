#!/usr/bin/env bash
# The main job: compile an ONNX model for the CPU, print the per-kernel
# static report, run it, check it against its reference and time it.
#
#   bash scripts/demo.sh                       # generated model (below)
#   bash scripts/demo.sh MODEL.onnx [--input-shape=NAME=DIMS]... [CASE_DIR]
#
# With no argument the model is made by python/make_demo_model.py:
# LayerNorm(gelu(x*a+b)+r) over 512 rows of 4096, written the way exporters
# write it, with numpy reference outputs. A CASE_DIR (ONNX backend-test
# layout) given after the model is checked with bwc-run --check.
# The report shows every kernel before and after fusion (bytes read and
# written, flops, intensity) and the totals; build/demo/report.png charts
# the bytes per kernel on both sides (one scale, fused kernels labelled
# with their ops) and the roofline of the measured kernel times.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh bwc-compile bwc-run
out=build/demo
mkdir -p "$out"
case_dir=""
if [ $# -eq 0 ]; then
  /usr/bin/python3 python/make_demo_model.py "$out/ln_gelu_residual" 512
  set -- "$out/ln_gelu_residual/model.onnx" --input-shape=x=512x4096 --input-shape=r=512x4096
  case_dir="$out/ln_gelu_residual"
fi
model=$1
shift
flags=()
for a in "$@"; do
  if [ -d "$a" ]; then case_dir=$a; else flags+=("$a"); fi
done
echo "== bwc-compile $model ${flags[*]:-} --report"
./build/bin/bwc-compile "$model" -o "$out/model.bwc" "${flags[@]}" --report \
  --report-json="$out/report.json"
if [ -n "$case_dir" ]; then
  echo "== bwc-run --check $case_dir"
  ./build/bin/bwc-run "$out/model.bwc" --check "$case_dir" --tolerance=1e-4
fi
echo "== bwc-run --bench 5 --measure-peak"
./build/bin/bwc-run "$out/model.bwc" --bench 5 --measure-peak \
  --peak-copy-bytes=268435456 --json "$out/bench.json"
# Before/after on one scale, each fused kernel labelled with its ops, and
# the roofline of the measured kernel times.
/usr/bin/python3 python/plot_report.py "$out/report.json" "$out/report.png" \
  --title "$(basename "$model")" --times "$out/bench.json"
