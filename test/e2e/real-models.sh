#!/usr/bin/env bash
# Compiles the real models of ../shared/models for the CPU and checks each
# against its reference outputs at relative L2 <= 1e-4. ppocr_det's output
# 0 is a sigmoid saturated near 0 (values <= 5e-7): ONNX Runtime's reference
# is itself 0.26 away from the exact sigmoid there in relative L2 (bwc's is
# 3e-5), so that model also accepts a max abs error <= 1e-6; its output 1
# (the logits) must still meet 1e-4. See docs/compile.md. Extra arguments go
# to bwc-compile (e.g. --fusion=none). Skips, visibly, without the models.
# BWC_TOLERANCE overrides the relative L2 bound (mixed precision: 1e-2
# fp16, 3e-2 bf16); BWC_XFAIL lists models expected to fail (each must
# fail, with its reason in docs/passes/bwc-mixed-precision.md).
# BWC_RUN_FLAGS adds bwc-run flags (cuda-sim: --device=cuda-sim
# --sanitize=all); BWC_MODELS limits the run to the models it lists.
# Usage: real-models.sh BIN_DIR MODELS_DIR [BWC_COMPILE_FLAGS...]
set -uo pipefail
bin=$1 models=$2
shift 2
if [ ! -d "$models/ppocr_cls" ]; then
  echo "SKIPPED: $models not found (../shared/models is for CI and developer machines)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tol=${BWC_TOLERANCE:-1e-4}
passed=0 failed=0 xfailed=0
while read -r name shape checkflags; do
  if "$bin/bwc-compile" "$models/$name/model.onnx" -o "$tmp/$name.bwc" \
       --input-shape="$shape" "$@" 2> "$tmp/$name.err" &&
     "$bin/bwc-run" "$tmp/$name.bwc" --check "$models/$name" --tolerance="$tol" \
       $checkflags ${BWC_RUN_FLAGS:-}; then
    if [[ " ${BWC_XFAIL:-} " == *" $name "* ]]; then
      echo "UNEXPECTED PASS: $name (remove it from BWC_XFAIL)"
      failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  elif [[ " ${BWC_XFAIL:-} " == *" $name "* ]]; then
    echo "expected failure: $name"
    xfailed=$((xfailed + 1))
  else
    echo "FAILED: $name"; head -5 "$tmp/$name.err"
    failed=$((failed + 1))
  fi
done < <(grep -v '^#' "$(dirname "$0")/real-models.txt" |
         while read -r name rest; do
           if [ -z "${BWC_MODELS:-}" ] || [[ " $BWC_MODELS " == *" $name "* ]]; then
             echo "$name $rest"
           fi
         done)
echo "$passed passed, $failed failed, $xfailed expected failures"
[ "$failed" -eq 0 ]
