#!/usr/bin/env bash
# Bandwidth before vs after fusion, measured: compiles MODEL with
# --fusion=none and with the default fusion, runs both with --bench --json
# and prints the two per-kernel tables and the totals side by side
# (kernels, DRAM bytes, total kernel time, effective GB/s).
#
# Usage: scripts/compare-fusion.sh MODEL.onnx [bwc-compile flags]...
#        scripts/compare-fusion.sh --artifacts UNFUSED.bwc FUSED.bwc
# The target is --target=cuda unless the flags give one (--target=cpu runs
# on any machine). --artifacts takes two compiled artifacts (GPU machines
# have bwc-run but no bwc-compile). Environment: BWC_BUILD_DIR (default
# build), BWC_RUN_DIR (where bwc-run is; default BWC_BUILD_DIR/bin), BENCH_RUNS (default 20), BWC_RUN_FLAGS (more bwc-run flags, e.g.
# "--measure-peak" or "--peak-gbps 3900 --cuda-graph"), KEEP_DIR (keep the
# artifacts and JSON files there).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BWC_BUILD_DIR:-build}
runs=${BENCH_RUNS:-20}
usage="usage: $0 MODEL.onnx [bwc-compile flags]... | --artifacts UNFUSED.bwc FUSED.bwc"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
if [ -n "${KEEP_DIR:-}" ]; then
  tmp=$KEEP_DIR; mkdir -p "$tmp"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fi

if [ "$1" = --artifacts ]; then
  [ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
  unfused=$2 fused=$3
else
  model=$1; shift
  target=(--target=cuda)
  for flag in "$@"; do
    case $flag in --target=*|--target) target=() ;; esac
  done
  unfused=$tmp/unfused.bwc fused=$tmp/fused.bwc
  for variant in unfused fused; do
    extra=(); [ $variant = unfused ] && extra=(--fusion=none)
    if ! "$BUILD_DIR/bin/bwc-compile" "$model" "${target[@]}" "$@" "${extra[@]}" \
         -o "$tmp/$variant.bwc" 2> "$tmp/$variant.compile.err"; then
      echo "compare-fusion: bwc-compile ${target[*]} $* ${extra[*]} failed:" >&2
      head -5 "$tmp/$variant.compile.err" >&2
      exit 1
    fi
  done
fi

for variant in unfused fused; do
  art=$unfused; [ $variant = fused ] && art=$fused
  # shellcheck disable=SC2086 # BWC_RUN_FLAGS is a list of flags
  if ! "${BWC_RUN_DIR:-$BUILD_DIR/bin}/bwc-run" "$art" --bench "$runs" --json "$tmp/$variant.json" \
       ${BWC_RUN_FLAGS:-} > "$tmp/$variant.bench.txt" 2>&1; then
    echo "compare-fusion: bwc-run $art --bench $runs failed:" >&2
    tail -5 "$tmp/$variant.bench.txt" >&2
    exit 1
  fi
done
# BENCH_LABELS="LEFT,RIGHT" names the two columns (default: the fusion
# comparison).
labels=()
[ -z "${BENCH_LABELS:-}" ] || labels=("${BENCH_LABELS%%,*}" "${BENCH_LABELS#*,}")
"${PYTHON:-python3}" python/bench_tables.py fusion "$tmp/unfused.json" "$tmp/fused.json" "${labels[@]}"
