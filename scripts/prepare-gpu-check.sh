#!/usr/bin/env bash
# Prepares OUTDIR for scripts/gpu-check.sh (runs here, with LLVM): compiles
# every real model of ../shared/models (plus --fusion=none variants of
# ppocr_det and ppocr_rec, ppocr_det with --conv-kernels=direct, and
# ppocr_rec in bf16 and fp16: its matmuls on the tensor cores; the bf16
# matmul microbenchmark also with --tensor-cores=off) and every microbenchmark (the four peer cases, the
# issue-10 colsum, softmax_axis0, nchw_nhwc, dwconv_hardswish and the
# matmul_bias_gelu of python/make_microbenchmarks.py) with --target=cuda,
# builds a smoke-test artifact from hand-written PTX, copies the small
# test cases and peers_torch.py. The 16384x4096 microbenchmark data is not
# copied (the GPU machine generates it). artifacts/, cases/ and tune/ go
# into one bundle.tgz (gpu-check.sh unpacks it); OUTDIR plus the tracked
# tree must stay within 63 MiB (the device tool carries at most 64 MiB).
#
# Usage: scripts/prepare-gpu-check.sh OUTDIR [--bf16]
# Environment: BWC_BUILD_DIR (default build; needs bwc-compile and
# bwc-make-test-artifact), BWC_SHARED (default ../shared), PYTHON (default
# /usr/bin/python3, Debian's, which has onnx and numpy), BWC_GPU_CHECK_TARGET (default cuda; cpu
# only to test these scripts on a machine without a GPU), MICRO_ROWS and
# MICRO_COLS (default 16384 and 4096), SKIP_MODELS=1 (microbenchmarks only),
# SKIP_MICRO=1 (models only, no tuning bundles), MICRO_ONLY=a,b (those
# microbenchmarks only), BWC_GPU_CHECK_EXTRA=1 (more A/B variants, see
# below).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BWC_BUILD_DIR:-build}
SHARED=${BWC_SHARED:-../shared}
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [--bf16]" >&2; exit 2; }
out=$1 bf16=${2:-}
bin=$BUILD_DIR/bin
PYTHON=${PYTHON:-/usr/bin/python3}
target=--target=${BWC_GPU_CHECK_TARGET:-cuda}
for tool in bwc-compile bwc-make-test-artifact; do
  [ -x "$bin/$tool" ] || { echo "prepare-gpu-check: $bin/$tool is missing (build it first)" >&2; exit 1; }
done
# A fresh OUTDIR every time (a previous run's cases would block the moves
# below and its artifacts would travel again).
rm -rf "$out/artifacts" "$out/cases" "$out/tune" "$out/results" "$out/manifest.tsv" \
  "$out/bundle.tgz"
mkdir -p "$out/artifacts" "$out/cases"
manifest=$out/manifest.tsv
printf '# name\tkind\tartifact\tcase\tcheck flags\n' > "$manifest"

# The runtime on a real GPU without the compiler: hand-written PTX.
mkdir -p "$out/cases/smoke"
"$PYTHON" test/tools/bwc-run/Inputs/make_cuda_cases.py "$out/cases/smoke/tmp"
mv "$out/cases/smoke/tmp/good/test_data_set_"* "$out/cases/smoke/"
rm -rf "$out/cases/smoke/tmp"
"$bin/bwc-make-test-artifact" -o "$out/artifacts/smoke.bwc" --target cuda \
  --gpu-arch sm_90 --code test/tools/bwc-run/Inputs/kernels.ptx \
  --input x:f32:2x3 --output y:f32:2x3 --weight f32:2x3=1,2,3,4,5,6 \
  --intermediate 24@256 --arena 512 --kernel mul:2x1x1:3x1x1:0:48,24,6 \
  --kernel add_one:1x1x1:6x1x1:0:24,24,6 --launch mul:0,2,3 --launch add_one:3,1
printf 'smoke\tsmoke\tartifacts/smoke.bwc\tcases/smoke\t\n' >> "$manifest"

# The CUDA target is C2's work: refuse clearly until bwc-compile has it.
probe=$out/probe.err
"$PYTHON" python/make_microbenchmarks.py "$out/probe" --rows 4 --cols 8 --no-data --only softmax > /dev/null
if ! "$bin/bwc-compile" "$out/probe/softmax_fp32/model.onnx" "$target" \
     -o "$out/probe.bwc" 2> "$probe"; then
  echo "prepare-gpu-check: bwc-compile --target=cuda is unavailable:" >&2
  head -3 "$probe" >&2
  echo "prepare-gpu-check: $out holds the hand-written smoke test only" >&2
  rm -rf "$out/probe" "$probe"
  exit 1
fi
rm -rf "$out/probe" "$probe" "$out/probe.bwc"

# --cuda-sim=off: the GPU machine runs the PTX/cubin, and the host objects
# for cuda-sim would only grow the bundle past the device tool's limit.
compile() { # NAME MODEL FLAGS...
  local name=$1 model=$2; shift 2
  if "$bin/bwc-compile" "$model" "$target" --cuda-sim=off "$@" \
       -o "$out/artifacts/$name.bwc" \
       2> "$out/artifacts/$name.compile.err"; then
    rm -f "$out/artifacts/$name.compile.err"; return 0
  fi
  echo "prepare-gpu-check: $name does not compile (kept going):" >&2
  head -3 "$out/artifacts/$name.compile.err" >&2
  return 1
}

while read -r name shape checkflags; do
  [ -z "${SKIP_MODELS:-}" ] || break
  mkdir -p "$out/cases/$name"
  cp -r "$SHARED/models/$name/test_data_set_0" "$out/cases/$name/"
  # NAME:FLAG:TOLERANCE (the fp32 limit 1e-4; fp16 1e-2 and bf16 3e-2 as
  # the conformance suites, against the fp32 reference).
  variants=("$name::1e-4")
  case $name in ppocr_det|ppocr_rec) variants+=("$name.nofuse:--fusion=none:1e-4") ;; esac
  # Every groups-1 convolution an implicit GEMM: the A/B of the default
  # (--conv-kernels=auto: implicit GEMMs only where their tiles fill the
  # SMs, docs/passes/bwc-configure-kernels.md).
  [ "$name" = ppocr_det ] && variants+=("$name.gemm:--conv-kernels=gemm:1e-4")
  [ "$name" = ppocr_rec ] && variants+=("$name.bf16:--precision=bf16:3e-2")
  [ "$name" = ppocr_rec ] && [ -n "${BWC_GPU_CHECK_EXTRA:-}" ] &&
    variants+=("$name.fp16:--precision=fp16:1e-2")
  for v in "${variants[@]}"; do
    IFS=: read -r vname vflag vtol <<< "$v"
    # shellcheck disable=SC2086 # vflag is empty or one flag
    compile "$vname" "$SHARED/models/$name/model.onnx" --input-shape="$shape" $vflag &&
      printf '%s\tmodel\tartifacts/%s.bwc\tcases/%s\t--tolerance=%s %s\n' \
        "$vname" "$vname" "$name" "$vtol" "$checkflags" >> "$manifest"
  done
done < <(grep -v '^#' test/e2e/real-models.txt)

# ppocr_det at batch 8 as compiled by default and with every convolution
# an implicit GEMM: timed only (the references are batch 1), compared side
# by side by gpu-check.sh (the convolution threshold). BWC_GPU_CHECK_EXTRA=1
# adds every convolution one thread per output, issue 10's layout/tiling
# A/B (--layout=nchw --tile=none) and ppocr_rec in fp16: with them the
# bundle passes the device tool's 64 MiB, so pair it with SKIP_MICRO=1.
if [ -z "${SKIP_MODELS:-}" ]; then
  b8=("ppocr_det.b8:" "ppocr_det.b8.gemm:--conv-kernels=gemm")
  [ -n "${BWC_GPU_CHECK_EXTRA:-}" ] &&
    b8+=("ppocr_det.b8.direct:--conv-kernels=direct"
         "ppocr_det.b8.nolayout:--layout=nchw --tile=none")
  for v in "${b8[@]}"; do
    vname=${v%%:*} vflags=${v#*:}
    # shellcheck disable=SC2086 # vflags is a list of flags
    compile "$vname" "$SHARED/models/ppocr_det/model.onnx" --input-shape=x=8x3x320x320 $vflags &&
      printf '%s\tbench\tartifacts/%s.bwc\t-\t\n' "$vname" "$vname" >> "$manifest"
  done
fi

# Microbenchmarks: models and meta.json only; gpu-check.sh makes the data.
# SKIP_MICRO=1: none (and no tuning bundles), for a quick re-measure of the
# models.
if [ -n "${SKIP_MICRO:-}" ]; then
  : > "$out/micro.txt"
else
  "$PYTHON" python/make_microbenchmarks.py "$out/cases" --no-data $bf16 \
    ${MICRO_ONLY:+--only "$MICRO_ONLY"} \
    --rows "${MICRO_ROWS:-16384}" --cols "${MICRO_COLS:-4096}" > "$out/micro.txt"
fi
while read -r dir; do
  name=$(basename "$dir")
  tol=--tolerance=1e-5; case $name in *bf16) tol=--tolerance=3e-2 ;; esac
  compile "$name" "$dir/model.onnx" &&
    printf '%s\tmicro\tartifacts/%s.bwc\tcases/%s\t%s\n' "$name" "$name" "$name" "$tol" >> "$manifest"
  # The tensor-core A/B: the same bf16 matmul on the f32 tiling.
  [ "$name" = matmul_bias_gelu_bf16 ] &&
    compile "$name.f32tiles" "$dir/model.onnx" --tensor-cores=off &&
    printf '%s\tmicro\tartifacts/%s.bwc\tcases/%s\t%s\n' "$name.f32tiles" "$name.f32tiles" "$name" "$tol" >> "$manifest"
done < "$out/micro.txt"
rm -f "$out/micro.txt"

# Tuning bundles (issue 10's --tune, split because the GPU machine has no
# LLVM): every distinct kernel's candidate configurations as PTX, timed
# there by bwc-tune-run; merge the results back here with bwc-compile
# --tune-import=RESULTS/tune/NAME --tuning-cache=FILE.
tune() { # NAME MODEL FLAGS...
  local name=$1 model=$2
  shift 2
  BWC_PTXAS=none "$bin/bwc-compile" "$model" --target=cuda "$@" --tune-export="$out/tune/$name" \
    -o "$out/tune/$name.bwc" 2> "$out/tune/$name.err" ||
    { echo "prepare-gpu-check: no tuning bundle for $name:" >&2; head -3 "$out/tune/$name.err" >&2; }
  rm -f "$out/tune/$name.bwc" "$out/tune/$name.err"
}
mkdir -p "$out/tune"
[ -n "${SKIP_MODELS:-}" ] || [ -n "${SKIP_MICRO:-}" ] ||
  tune ppocr_det "$SHARED/models/ppocr_det/model.onnx" --input-shape=x=1x3x320x320
while IFS=$'\t' read -r name kind _; do
  [ "$kind" = micro ] && [[ $name != *bf16* ]] && tune "$name" "$out/cases/$name/model.onnx"
done < "$manifest"

cp "$SHARED/bench/peers_torch.py" "$out/" 2>/dev/null ||
  echo "prepare-gpu-check: no $SHARED/bench/peers_torch.py (gpu-check skips the peers)" >&2
# One compressed bundle (the weights shrink little, the PTX a lot).
tar czf "$out/bundle.tgz" -C "$out" artifacts cases tune
rm -rf "$out/artifacts" "$out/cases" "$out/tune"
bytes=$(du -sb "$out" | cut -f1)
size=$(( (bytes + 1048575) / 1048576 ))
# The device tool carries OUTDIR with the tracked tree: 64 MiB in all.
tree=$(git ls-files -z 2>/dev/null | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
total=$(( (bytes + ${tree:-0} + 1048575) / 1048576 ))
echo "prepared $out: $(grep -vc '^#' "$manifest") cases, ${size} MiB (${total} MiB with the tracked tree)"
[ $((bytes + ${tree:-0})) -le $((63 * 1048576)) ] ||
  { echo "prepare-gpu-check: $out and the tracked tree are ${total} MiB (limit 63 of the tool's 64)" >&2; exit 1; }
