#!/usr/bin/env bash
# The GPU check: run on a GPU machine (cmake, g++, a CUDA driver; no LLVM)
# from the repository root, with OUTDIR made by scripts/prepare-gpu-check.sh.
# Builds the runtime alone (-DBWC_RUNTIME_ONLY=ON), measures the copy
# bandwidth once, generates the microbenchmark data, runs --check then
# --bench on every case of OUTDIR/manifest.tsv, compare-fusion on ppocr_det
# and ppocr_rec, and ../shared/bench/peers_torch.py (OUTDIR's copy; skipped
# with a note without torch), then prints one table: case, check, bwc GB/s,
# % of copy, PyTorch eager and torch.compile GB/s, and "N passed, N failed".
# Everything goes to OUTDIR/results/; one failing case does not stop the rest.
# With $OUT set (the device tool's return folder), OUTDIR/results is also
# packed into $OUT/results.tgz (plus $OUT/summary.txt) when the script
# exits, even on a timeout: the tool returns few files and no deep folders.
# Every step has its own timeout well inside the tool's 600 s per call; see
# docs/runtime-cuda.md "GPU check" for the two-call recipe (peers apart).
#
# Usage: scripts/gpu-check.sh OUTDIR
# Environment: BENCH_RUNS (default 100), PYTHON (default python3),
# GPU_BUILD_DIR (default build-gpu), CASE_TIMEOUT (s, default 60),
# DATA_TIMEOUT (s, default 240), PEERS_TIMEOUT (s, default 240),
# SKIP_PEERS=1, PEAK_COPY_BYTES (default 1 GiB per buffer), BWC_RUN (use
# this bwc-run instead of building one).
set -u
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$(cd "$1" && pwd)
res=$out/results
mkdir -p "$res"
PYTHON=${PYTHON:-python3}
runs=${BENCH_RUNS:-100}
build=${GPU_BUILD_DIR:-build-gpu}
case_timeout=${CASE_TIMEOUT:-60}
note() { echo "gpu-check: $*" | tee -a "$res/notes.txt"; }
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  trap 'tar czf "$OUT/results.tgz" -C "$out" results 2>/dev/null;
        cp "$res/summary.txt" "$OUT/" 2>/dev/null' EXIT
fi

# 0. What prepare-gpu-check.sh packed.
if [ -f "$out/bundle.tgz" ]; then
  tar xzf "$out/bundle.tgz" -C "$out" && rm -f "$out/bundle.tgz" ||
    { note "cannot unpack $out/bundle.tgz"; exit 1; }
fi

# 1. The runtime, without LLVM ($BWC_RUN: a bwc-run already built).
run=${BWC_RUN:-$build/bin/bwc-run}
# Ninja when the machine has it (then make is not needed); a configured
# build folder keeps its generator.
generator=
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=Ninja
if [ -z "${BWC_RUN:-}" ] &&
   ! { cmake -S . -B "$build" -DBWC_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
       ${generator:+-G "$generator"} &&
       cmake --build "$build" -j "$(nproc)" --target bwc-run bwc-tune-run; } > "$res/build.log" 2>&1; then
  note "the runtime does not build (see $res/build.log)"; tail -20 "$res/build.log"; exit 1
fi
run_dir=$(cd "$(dirname "$run")" && pwd)

# 2. The copy bandwidth, once, on the smoke artifact: every later bench
# compares with the same figure.
peak_flags=()
if timeout "$case_timeout" "$run" "$out/artifacts/smoke.bwc" --bench 10 --measure-peak \
     --peak-copy-bytes "${PEAK_COPY_BYTES:-1073741824}" --json "$res/peak.json" \
     > "$res/peak.txt" 2>&1; then
  gbps=$("$PYTHON" -c "import json,sys; print(json.load(open(sys.argv[1]))['copy_gbps'])" "$res/peak.json")
  peak_flags=(--peak-gbps "$gbps")
  note "copy bandwidth $gbps GB/s ($(grep '^device:' "$res/peak.txt"))"
else
  note "--measure-peak failed: $(tail -1 "$res/peak.txt")"
fi

# 3. Microbenchmark data (16384x4096: generated here, not shipped).
if grep -q $'\tmicro\t' "$out/manifest.tsv"; then
  bf16=; grep -q $'_bf16\t' "$out/manifest.tsv" && bf16=--bf16
  # The cases the manifest holds (prepare's MICRO_ONLY may have left some out).
  only=$(awk -F'\t' '$2 == "micro" { n = $4; sub(/^cases\//, "", n); sub(/_(fp32|bf16)$/, "", n); print n }' \
         "$out/manifest.tsv" | sort -u | paste -sd, -)
  # shellcheck disable=SC2086
  timeout "${DATA_TIMEOUT:-240}" "$PYTHON" python/make_microbenchmarks.py "$out/cases" --data-only $bf16 \
    --only "$only" \
    > "$res/micro-data.log" 2>&1 || note "microbenchmark data failed (see $res/micro-data.log)"
fi

# 4. Every case: --check then --bench.
while IFS=$'\t' read -r name kind artifact case flags; do
  case $name in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086 # flags is a list of bwc-run flags
  if [ "$case" = - ]; then
    : # timed only (no reference at this shape)
  elif timeout "$case_timeout" "$run" "$out/$artifact" --check "$out/$case" $flags \
       > "$res/$name.check.txt" 2>&1; then
    echo PASS > "$res/$name.check.status"
  else
    echo FAIL > "$res/$name.check.status"
    note "$name: check failed: $(grep -m1 -E 'FAIL|error' "$res/$name.check.txt")"
  fi
  for graph in "" --cuda-graph; do
    suffix=${graph:+.graph}
    timeout "$case_timeout" "$run" "$out/$artifact" --bench "$runs" "${peak_flags[@]}" \
      $graph --json "$res/$name$suffix.bench.json" > "$res/$name$suffix.bench.txt" 2>&1 ||
      note "$name: bench$graph failed: $(tail -1 "$res/$name$suffix.bench.txt")"
  done
done < "$out/manifest.tsv"

# 5. Two artifacts measured side by side (compare-fusion.sh --artifacts):
# RESULT LEFT RIGHT [LABELS]; skipped when either artifact is missing.
compare() {
  local result=$1 left=$out/artifacts/$2.bwc right=$out/artifacts/$3.bwc
  [ -f "$left" ] && [ -f "$right" ] || return 0
  BWC_RUN_DIR=$run_dir BENCH_RUNS=$runs BWC_RUN_FLAGS="${peak_flags[*]}" \
    BENCH_LABELS=${4:-} timeout "$case_timeout" bash scripts/compare-fusion.sh \
    --artifacts "$left" "$right" > "$res/$result.txt" 2>&1 ||
    note "$result failed: $(tail -1 "$res/$result.txt")"
}
# Fusion before/after.
for m in ppocr_det ppocr_rec; do
  compare "fusion-$m" "$m.nofuse" "$m"
done
# 5b. Layout and tiling passes off vs on (ppocr_det, batch 8; only with
# BWC_GPU_CHECK_EXTRA when preparing).
compare layout-ppocr_det.b8 ppocr_det.b8.nolayout ppocr_det.b8 "no layout/tile,layout+tile"
# 5b'. Every convolution an implicit GEMM vs the default (auto), at batch 1
# and 8, and every one one thread per output vs auto at batch 8.
compare conv-ppocr_det ppocr_det.gemm ppocr_det "implicit GEMM,auto"
compare conv-ppocr_det.b8 ppocr_det.b8.gemm ppocr_det.b8 "implicit GEMM,auto"
compare direct-ppocr_det.b8 ppocr_det.b8.direct ppocr_det.b8 "direct conv,auto"
# 5b''. The bf16 matmul on the f32 tiling vs the tensor cores.
compare mma-matmul matmul_bias_gelu_bf16.f32tiles matmul_bias_gelu_bf16 "f32 tiles,tensor cores"

# 5c. Tuning: time every bundle's candidates (bwc-compile --tune-export
# made them); bundle.tsv and results.tsv come back under results/tune/NAME
# for bwc-compile --tune-import there.
tune_run=$(dirname "$run")/bwc-tune-run
for dir in "$out"/tune/*/; do
  [ -f "$dir/bundle.tsv" ] || continue
  name=$(basename "$dir")
  mkdir -p "$res/tune/$name"
  if timeout "$case_timeout" "$tune_run" "$dir" > "$res/tune/$name/run.txt" 2>&1; then
    cp "$dir/bundle.tsv" "$dir/results.tsv" "$res/tune/$name/"
  else
    note "tuning $name failed: $(tail -1 "$res/tune/$name/run.txt")"
  fi
done

# 6. The peers, in the same run.
if [ -n "${SKIP_PEERS:-}" ]; then
  note "peers skipped (SKIP_PEERS)"
elif [ ! -f "$out/peers_torch.py" ]; then
  note "peers skipped: no $out/peers_torch.py"
elif ! "$PYTHON" -c "import torch, triton; assert torch.cuda.is_available()" 2> /dev/null; then
  note "peers skipped: torch with CUDA (and triton) is not available"
else
  timeout "${PEERS_TIMEOUT:-240}" "$PYTHON" "$out/peers_torch.py" "$res/peers.json" \
    > "$res/peers.txt" 2>&1 || note "peers_torch.py failed: $(tail -1 "$res/peers.txt")"
fi

# 7. One table.
"$PYTHON" python/bench_tables.py gpu-check "$out" | tee "$res/summary.txt"
status=${PIPESTATUS[0]}
show() { # RESULT TITLE: a side-by-side comparison, when it ran
  [ -f "$res/$1.txt" ] || return 0
  echo; echo "== $2"; tail -8 "$res/$1.txt"
}
for m in ppocr_det ppocr_rec; do show "fusion-$m" "fusion: $m"; done
show layout-ppocr_det.b8 "ppocr_det batch 8: left --layout=nchw --tile=none, right default passes"
show conv-ppocr_det "ppocr_det: left --conv-kernels=gemm, right auto (default)"
show conv-ppocr_det.b8 "ppocr_det batch 8: left --conv-kernels=gemm, right auto (default)"
show direct-ppocr_det.b8 "ppocr_det batch 8: left --conv-kernels=direct, right auto (default)"
show mma-matmul "matmul_bias_gelu_bf16: left --tensor-cores=off, right mma.sync (default)"
exit "$status"
