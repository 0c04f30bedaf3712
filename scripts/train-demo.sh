#!/usr/bin/env bash
# Trains a small classifier with bwc on the CPU target: an MLP (2 -> 32 ->
# 32 -> 3, tanh) on three interleaved spiral arms (python/train_demo.py),
# compiled as an SGD training step (bwc-compile --train=sgd:LR
# --loss=cross-entropy: forward, loss, backward and the weight update in
# one program) and run for STEPS full-batch steps by bwc-run --steps, the
# weights persisting between steps in the executor's buffers. Prints the
# falling loss, writes the trained model (bwc-run --save-weights
# OUT.onnx), then the accuracy of that model (compiled for
# inference) on the training set and on a held-out set.
#
#   bash scripts/train-demo.sh [STEPS] [LR]        (default 400 steps, 0.5)
#
# Exits 1 when the held-out accuracy is below BWC_DEMO_MIN_ACCURACY
# (default 0.9) or the loss does not fall; test/e2e runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-400}
lr=${2:-0.5}
B=${BWC_BIN:-build/bin}
out=${BWC_DEMO_DIR:-build/train-demo}
if [ ! -x "$B/bwc-compile" ] || [ ! -x "$B/bwc-run" ]; then
  bash scripts/setup.sh
  bash scripts/build.sh bwc-compile bwc-run bwc-python
fi
rm -rf "$out" && mkdir -p "$out"
/usr/bin/python3 python/train_demo.py data "$out"
echo "== bwc-compile --train=sgd:$lr --loss=cross-entropy"
"$B/bwc-compile" "$out/model.onnx" -o "$out/step.bwc" --train="sgd:$lr" \
  --loss=cross-entropy --report | sed -n '/== totals/,/ratio/p'
echo "== bwc-run --steps $steps (every 25th step)"
"$B/bwc-run" "$out/step.bwc" --input x="$out/x.pb" \
  --input target="$out/labels.pb" --steps "$steps" \
  --save-weights "$out/trained.onnx" --quiet > "$out/steps.txt"
awk 'NR % 25 == 1' "$out/steps.txt"
tail -1 "$out/steps.txt"
first=$(head -1 "$out/steps.txt" | awk '{print $4}')
last=$(tail -1 "$out/steps.txt" | awk '{print $4}')
if ! awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a / 4) }'; then
  echo "train-demo: the loss did not fall to a quarter ($first -> $last)" >&2
  exit 1
fi
echo "== accuracy of the trained model"
PYTHONPATH=${BWC_PYTHONPATH:-build/python} /usr/bin/python3 \
  python/train_demo.py accuracy "$out/trained.onnx" "$out" \
  --min "${BWC_DEMO_MIN_ACCURACY:-0.9}"
