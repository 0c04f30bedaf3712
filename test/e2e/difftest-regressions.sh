#!/usr/bin/env bash
# Replays the minimized mismatches python/difftest.py found (one folder per
# finding under difftest-regressions/, ONNX's test-case layout with ONNX
# Runtime's outputs) through every bwc variant difftest checks: the CPU
# target with default options, --fusion=none and --codegen=elemental at
# relative L2 1e-3, --precision=fp16 at 1e-2, and the CUDA kernels on
# cuda-sim (all sanitizers) at 1e-3. docs/reliability.md lists the findings.
#
# Usage: difftest-regressions.sh BIN_DIR
set -uo pipefail
bin=$1
dir="$(dirname "$0")/difftest-regressions"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
variants=("cpu::1e-3" "cpu-nofusion:--fusion=none:1e-3"
          "cpu-elemental:--codegen=elemental:1e-3"
          "fp16:--precision=fp16:1e-2" "cuda-sim:--target=cuda:1e-3")
for case in "$dir"/*/; do
  name=$(basename "$case")
  for v in "${variants[@]}"; do
    IFS=: read -r label flag tol <<< "$v"
    run=()
    # A launch over 60 s is a finding too (finding 3 ran for hours).
    [ "$label" = cuda-sim ] && run=(--device=cuda-sim --sanitize=all --sim-timeout=60)
    if "$bin/bwc-compile" "$case/model.onnx" -o "$tmp/m.bwc" $flag \
         2> "$tmp/err" &&
       "$bin/bwc-run" "$tmp/m.bwc" --check "$case" --tolerance="$tol" \
         --quiet "${run[@]}" > "$tmp/out" 2>&1; then
      passed=$((passed + 1))
    else
      echo "FAILED: $name $label"; cat "$tmp/err" "$tmp/out" | head -5
      failed=$((failed + 1))
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
