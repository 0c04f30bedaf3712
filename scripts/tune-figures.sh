#!/usr/bin/env bash
# Runs `bwc-compile --tune` on each real model against the fake CUDA driver
# (FAKE_CUDA_BEST_BLOCK=128: synthetic times, block 128 fastest) and prints
# the distinct kernel signatures, the candidates timed, the entries whose
# choice differs from the heuristic's, the skipped candidates (remarks) and
# the wall time; then compiles once more with no driver, reusing the cache.
# No GPU: this checks the tuner's plumbing at model scale, not speed.
# Usage: tune-figures.sh BUILD_DIR MODELS_DIR
set -euo pipefail
build=$(cd "$1" && pwd) models=$(cd "$2" && pwd)
# The models and shapes of the real-model test.
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-14s %10s %10s %8s %8s %8s %8s\n" model signatures candidates changed skipped tune_s reuse_s
while read -r name shape; do
  m="$models/$name/model.onnx"
  start=$(date +%s.%N)
  BWC_CUDA_DRIVER="$build/lib/libbwc-fake-cuda.so" FAKE_CUDA_BEST_BLOCK=128 \
    BWC_PTXAS=none "$build/bin/bwc-compile" "$m" --input-shape="$shape" \
    --target=cuda --tune --tuning-cache="$tmp/$name.json" -o "$tmp/$name.bwc" \
    2>"$tmp/$name.err"
  mid=$(date +%s.%N)
  BWC_CUDA_DRIVER=/nonexistent/libcuda.so BWC_PTXAS=none "$build/bin/bwc-compile" \
    "$m" --input-shape="$shape" --target=cuda --tuning-cache="$tmp/$name.json" \
    -o "$tmp/$name.reuse.bwc" 2>/dev/null
  end=$(date +%s.%N)
  /usr/bin/python3 - "$tmp/$name.json" "$tmp/$name.err" "$name" "$start" "$mid" "$end" <<'PY'
import json, sys
cache, err, name, start, mid, end = sys.argv[1:]
entries = json.load(open(cache))["gpus"]["Fake CUDA device"]
timed = sum(len(e["candidates"]) for e in entries.values())
changed = sum(e["config"] != e["candidates"][0]["config"] for e in entries.values())
skipped = open(err).read().count("skips configuration")
print("%-14s %10d %10d %8d %8d %8.1f %8.1f" % (name, len(entries), timed, changed,
      skipped, float(mid) - float(start), float(end) - float(mid)))
PY
done < <(grep -v '^#' test/e2e/real-models.txt | cut -d' ' -f1,2)
