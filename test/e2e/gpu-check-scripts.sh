#!/usr/bin/env bash
# The GPU-check tooling, run on the CPU: the nine microbenchmarks
# (make_microbenchmarks.py at 64x256, fp32 and bf16) compiled for the CPU
# and checked against their numpy references; compare-fusion.sh --target=cpu; then
# prepare-gpu-check.sh (CPU target, microbenchmarks only) and gpu-check.sh
# with the fake CUDA driver for the smoke artifact and canned peer figures,
# down to its one table. About 30 s on 2 cores.
# Usage: gpu-check-scripts.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
export PYTHON=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"

echo "== microbenchmarks at 64x256 on the CPU (fp32 at 1e-5, bf16 at 3e-2)"
"$PYTHON" python/make_microbenchmarks.py "$tmp/mb" --rows 64 --cols 256 --bf16 > "$tmp/mb.txt"
[ "$(wc -l < "$tmp/mb.txt")" -eq 18 ]
while read -r dir; do
  tol=1e-5; case $dir in *bf16) tol=3e-2 ;; esac
  "$build/bin/bwc-compile" "$dir/model.onnx" --target=cpu -o "$dir/m.bwc"
  "$build/bin/bwc-run" "$dir/m.bwc" --check "$dir" --tolerance=$tol --quiet
done < "$tmp/mb.txt"
# A wrong reference must fail (the check can fail).
cp "$tmp/mb/softmax_fp32/test_data_set_0/input_0.pb" \
   "$tmp/mb/softmax_fp32/test_data_set_0/output_0.pb"
if "$build/bin/bwc-run" "$tmp/mb/softmax_fp32/m.bwc" --check "$tmp/mb/softmax_fp32" \
     --tolerance=1e-5 --quiet > /dev/null; then
  echo "FAIL: a wrong softmax reference passed"; exit 1
fi

echo "== compare-fusion.sh --target=cpu"
BWC_BUILD_DIR=$build BENCH_RUNS=3 bash scripts/compare-fusion.sh \
  "$tmp/mb/bias_gelu_res_ln_fp32/model.onnx" --target=cpu | tee "$tmp/fusion.txt"
read -r unfused fused < <(awk '$1 == "kernels" { print $2, $3 }' "$tmp/fusion.txt")
[ "$fused" -lt "$unfused" ] || { echo "FAIL: fusion did not reduce the kernels"; exit 1; }

echo "== prepare-gpu-check.sh + gpu-check.sh (CPU artifacts, fake driver)"
BWC_BUILD_DIR=$build BWC_GPU_CHECK_TARGET=cpu SKIP_MODELS=1 MICRO_ROWS=64 \
  MICRO_COLS=256 bash scripts/prepare-gpu-check.sh "$tmp/out"
# artifacts/, cases/ and tune/ travel packed in one bundle.tgz.
[ -f "$tmp/out/bundle.tgz" ] && [ ! -d "$tmp/out/artifacts" ] ||
  { echo "FAIL: prepare-gpu-check.sh did not pack its bundle"; exit 1; }
mkdir -p "$tmp/out/results"
# Canned peer figures: layernorm float32 eager at 0.5 ms moves
# 2*64*256*4 bytes = 0.262 GB/s.
"$PYTHON" - "$tmp/out/results/peers.json" <<'PY'
import json, sys
json.dump([{"name": "copy", "bw": 100.0},
           {"name": "layernorm float32", "min_bytes": 131072, "eager": 0.5,
            "inductor": 0.25}], open(sys.argv[1], "w"))
PY
# Two stand-in artifacts (the smoke test's) exercise the side-by-side
# comparisons that ppocr_det's variants get on the GPU.
tar xzf "$tmp/out/bundle.tgz" -C "$tmp/out" artifacts/smoke.bwc
cp "$tmp/out/artifacts/smoke.bwc" "$tmp/out/artifacts/ppocr_det.bwc"
cp "$tmp/out/artifacts/smoke.bwc" "$tmp/out/artifacts/ppocr_det.gemm.bwc"
mkdir -p "$tmp/ret"
OUT=$tmp/ret BWC_RUN=$build/bin/bwc-run BWC_CUDA_DRIVER=$build/lib/libbwc-fake-cuda.so \
  SKIP_PEERS=1 BENCH_RUNS=3 PEAK_COPY_BYTES=1048576 \
  bash scripts/gpu-check.sh "$tmp/out" | tee "$tmp/table.txt"
# With $OUT (the device tool's return folder) the results come back packed.
# (a list file, not a pipe: grep -q stopping early would make tar fail
# with SIGPIPE under pipefail)
tar tzf "$tmp/ret/results.tgz" > "$tmp/ret/list.txt"
grep -qx 'results/summary.txt' "$tmp/ret/list.txt" ||
  { echo "FAIL: no results/summary.txt in \$OUT/results.tgz"; exit 1; }
[ -f "$tmp/ret/summary.txt" ] || { echo "FAIL: no \$OUT/summary.txt"; exit 1; }
grep -q '^layernorm_fp32 .* PASS .* 0\.3 *0\.5$' "$tmp/table.txt" ||
  { echo "FAIL: the layernorm row lacks the canned peer figures"; exit 1; }
grep -q '^smoke .* PASS ' "$tmp/table.txt"
grep -q '^== ppocr_det: left --conv-kernels=gemm, right auto' "$tmp/table.txt" ||
  { echo "FAIL: no side-by-side conv comparison"; exit 1; }
grep -q '^kernel timing  *graph  *graph$' "$tmp/table.txt" ||
  { echo "FAIL: the comparison does not say how kernels were timed"; exit 1; }
grep -q '^10 passed, 0 failed$' "$tmp/table.txt"
# Tuning bundles made here (--target=cuda), timed there by bwc-tune-run
# (the fake driver), merged back here by bwc-compile --tune-import.
bundle=$tmp/out/results/tune/layernorm_fp32
[ -f "$bundle/results.tsv" ] || { echo "FAIL: no tuning results for layernorm_fp32"; exit 1; }
BWC_PTXAS=none "$build/bin/bwc-compile" "$tmp/out/cases/layernorm_fp32/model.onnx" \
  --target=cuda --tune-import="$bundle" --tuning-cache="$tmp/cache.json" -o "$tmp/tuned.bwc"
grep -q '"Fake CUDA device"' "$tmp/cache.json"
echo "gpu-check scripts: OK"
