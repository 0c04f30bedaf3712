#!/usr/bin/env bash
# Rematerialization end to end (docs/passes/bwc-rematerialize.md):
# - the training-step models of python/make_training_models.py under a
#   budget of 50% and of 25% of their unconstrained arena: the budget is
#   met, the extra flops are at most 35% of the program's, bwc-run --check
#   passes; a 1-byte
#   budget is refused with exit code 1 and the minimum reachable arena;
# - every real model of ../shared/models (skipped without them) compiled at
#   the smallest budget bwc-rematerialize reports reachable and checked.
# Prints one line per model with the figures. About 30 s on 2 cores.
# BWC_COMPILE_FLAGS / BWC_RUN_FLAGS add flags to every compile / check
# (cuda-sim: --target=cuda / --device=cuda-sim --sanitize=all).
# Usage: remat.sh BIN_DIR MODELS_DIR
set -uo pipefail
bin=$1 models=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# json FILE EXPR: a field of a report.
json() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# min_arena MODEL FLAGS...: the exact bytes of "minimum reachable arena",
# from the error a 1-byte budget must give (exit code 1).
min_arena() {
  local model=$1; shift
  "$bin/bwc-compile" "$model" -o "$tmp/refused.bwc" --memory-budget=1 "$@" \
    ${BWC_COMPILE_FLAGS:-} 2> "$tmp/refused.err"
  local rc=$?
  if [ $rc -ne 1 ] ||
     ! grep -q "memory budget 1 B cannot be met: minimum reachable arena is" \
       "$tmp/refused.err"; then
    echo "expected exit code 1 and the minimum reachable arena, got $rc:" >&2
    head -3 "$tmp/refused.err" >&2
    return 1
  fi
  sed -n 's/.*minimum reachable arena is .* (\([0-9]*\) B).*/\1/p' \
    "$tmp/refused.err" | head -1
}

# check NAME MODEL_DIR BUDGET MAX_FLOPS_RATIO FLAGS...: compile under the
# budget, check the numbers, print the figures.
check() {
  local name=$1 dir=$2 budget=$3 maxRatio=$4; shift 4
  if ! "$bin/bwc-compile" "$dir/model.onnx" -o "$tmp/$name.bwc" \
       --memory-budget="$budget" --report-json "$tmp/$name.json" "$@" \
       ${BWC_COMPILE_FLAGS:-} 2> "$tmp/$name.err"; then
    fail "$name does not compile under $budget B"; head -3 "$tmp/$name.err"
    return
  fi
  local figures
  figures=$(json "$tmp/$name.json" "' '.join(str(x) for x in (r['remat']['arena_before_bytes'], r['remat']['arena_after_bytes'], r['remat']['recomputed_ops'], r['remat']['extra_flops'], '%.3f' % r['remat']['extra_flops_ratio'], r['remat']['strategy']))")
  echo "$name budget $budget: arena before/after, recomputed ops, extra flops (ratio), strategy: $figures"
  local after ratio
  read -r _ after _ _ ratio _ <<< "$figures"
  [ "$after" -le "$budget" ] || fail "$name arena $after above $budget"
  /usr/bin/python3 -c "import sys; sys.exit(float(sys.argv[1]) > float(sys.argv[2]))" \
    "$ratio" "$maxRatio" || fail "$name extra flops ratio $ratio > $maxRatio"
  "$bin/bwc-run" "$tmp/$name.bwc" --check "$dir" --tolerance=1e-4 \
    "${checkFlags[@]}" ${BWC_RUN_FLAGS:-} > "$tmp/$name.check" 2>&1 ||
    { fail "$name --check"; tail -3 "$tmp/$name.check"; }
}

/usr/bin/python3 "$here/../../python/make_training_models.py" "$tmp/train" ||
  fail "make_training_models.py"
checkFlags=()
for name in mlp_train residual_train; do
  dir=$tmp/train/$name
  "$bin/bwc-compile" "$dir/model.onnx" -o "$tmp/free.bwc" \
    --report-json "$tmp/free.json" ${BWC_COMPILE_FLAGS:-} ||
    { fail "$name"; continue; }
  arena=$(json "$tmp/free.json" "r['memory']['arena_bytes']")
  check "$name" "$dir" $((arena / 2)) 0.35
  # Half the arena is met by re-running cheap kernels (bwc-fuse puts the
  # weight transposes first); a quarter needs recomputed activations.
  check "$name-quarter" "$dir" $((arena / 4)) 0.35
  min_arena "$dir/model.onnx" > /dev/null || fail "$name 1-byte budget"
done

if [ -d "$models/ppocr_cls" ]; then
  while read -r name shape flags; do
    read -r -a checkFlags <<< "$flags"
    min=$(min_arena "$models/$name/model.onnx" --input-shape="$shape") ||
      { fail "$name 1-byte budget"; continue; }
    check "$name" "$models/$name" "$min" 1.0 --input-shape="$shape"
  done <<'MODELS'
ppocr_cls x=1x3x48x192
ppocr_det x=1x3x320x320 --abs-tolerance=1e-6
ppocr_rec x=1x3x48x320
oww_melspec input=1x16000
oww_embedding input_1=1x76x32x1
MODELS
else
  echo "real models skipped: $models not found"
fi
[ "$failed" -eq 0 ] && echo "remat: all passed"
[ "$failed" -eq 0 ]
