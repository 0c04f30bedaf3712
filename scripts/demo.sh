#!/usr/bin/env bash
# The main job. For now: build bwc-opt and show it parsing, verifying,
# folding and printing a sample program. Later milestones make this compile
# a model and print the bandwidth report.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh bwc-opt
SAMPLE=${1:-test/Dialect/BWC/canonicalize.mlir}
echo "== bwc-opt --canonicalize $SAMPLE"
./build/bin/bwc-opt --split-input-file --canonicalize "$SAMPLE"
