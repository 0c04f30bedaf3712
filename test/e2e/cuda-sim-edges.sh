#!/usr/bin/env bash
# The CUDA emitters' edge cases (python/make_sim_edge_cases.py: partial
# tiles and warps, guards, vector tails, ragged / batched / broadcast
# contractions, padded, strided and dilated implicit GEMMs, the
# thread-per-output fallback) compiled with --target=cuda in fp32 (1e-4),
# fp16 (1e-2), bf16 (3e-2) and channels-last, run on cuda-sim with every
# sanitizer and checked against float64 numpy references. Each fp32 case
# must use the emitters it names, and the fp16/bf16 contractions must take
# the tensor-core (mma) path, those marked cp_async with cp.async staging
# (every precision and layout), those marked grouped_loop with a `loop`
# kernel around a convolution in the nhwc variants (channels-last depthwise
# channel groups), so the coverage cannot silently shrink.
# With BWC_FAKE_CUDA (the fake driver library), also the configurations
# --tune picks when told that 128- or 512-thread blocks are fastest
# (FAKE_CUDA_BEST_BLOCK): the tuner's launch-shape variants of every
# emitter, reused from the cache and run on cuda-sim.
# Usage: cuda-sim-edges.sh BIN
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BWC_PTXAS=none
/usr/bin/python3 "$here/../../python/make_sim_edge_cases.py" "$tmp/cases" > /dev/null ||
  { echo "FAILED: make_sim_edge_cases.py"; exit 1; }
passed=0 failed=0
declare -A seen
while read -r name emitters; do
  variants="fp32 fp16 bf16 nhwc nhwc-bf16"
  [ -n "${BWC_FAKE_CUDA:-}" ] && variants+=" tuned128 tuned512"
  for variant in $variants; do
    flags=() tol=1e-4
    # The contraction driver's cases are small (a few tiles): the default
    # (--conv-kernels=auto) runs such convolutions one thread per output,
    # so they ask for the implicit GEMM explicitly.
    [[ $emitters == *contraction_tiled* ]] && flags=(--conv-kernels=gemm)
    id=$name.$variant
    model=$tmp/cases/$name/model.onnx
    case $variant in
      fp16) flags+=(--precision=fp16); tol=1e-2 ;;
      bf16) flags+=(--precision=bf16); tol=3e-2 ;;
      nhwc) flags+=(--layout=nhwc) ;;
      nhwc-bf16) flags+=(--layout=nhwc --precision=bf16); tol=3e-2 ;;
      tuned*)
        if ! env BWC_CUDA_DRIVER="$BWC_FAKE_CUDA" \
             FAKE_CUDA_BEST_BLOCK=${variant#tuned} "$bin/bwc-compile" "$model" \
             "${flags[@]}" --target=cuda --tune --tuning-cache="$tmp/$id.json" \
             -o "$tmp/$id.tune.bwc" > "$tmp/$id.tune" 2>&1; then
          echo "FAILED: $id: --tune"; head -3 "$tmp/$id.tune"
          failed=$((failed + 1)); continue
        fi
        flags+=(--tuning-cache="$tmp/$id.json") ;;
    esac
    if ! "$bin/bwc-compile" "$model" --target=cuda "${flags[@]}" \
         --emit=gpu -o "$tmp/$id.gpu" 2> "$tmp/$id.err" ||
       ! "$bin/bwc-compile" "$model" --target=cuda "${flags[@]}" \
         -o "$tmp/$id.bwc" 2>> "$tmp/$id.err"; then
      echo "FAILED: $id: compile"; head -3 "$tmp/$id.err"
      failed=$((failed + 1)); continue
    fi
    used=$(grep -o 'emitter = "[a-z_]*"' "$tmp/$id.gpu" | cut -d'"' -f2 |
           sort -u | tr '\n' ' ')
    mma=$(grep -c 'mma = 1' "$tmp/$id.gpu")
    async=$(grep -c 'nvgpu.device_async_copy' "$tmp/$id.gpu")
    grouped=$(grep -cE '_(conv|fusion_contraction)_bwc\(.*emitter = "loop"' "$tmp/$id.gpu")
    if ! "$bin/bwc-run" "$tmp/$id.bwc" --device=cuda-sim --sanitize=all \
         --check "$tmp/cases/$name" --tolerance=$tol > "$tmp/$id.log" 2>&1; then
      echo "FAILED: $id ($used): $(grep -m1 -E 'FAIL|error|cuda-sim:' "$tmp/$id.log")"
      failed=$((failed + 1)); continue
    fi
    missing=""
    if [ $variant = fp32 ]; then
      for e in $emitters; do
        [[ $e == cp_async || $e == grouped_loop ]] && continue  # markers
        [[ " $used " == *" $e "* ]] || missing+=" $e"
      done
    fi
    if [[ $emitters == *contraction_tiled* && $variant =~ (fp16|bf16)$ &&
          $mma -eq 0 ]]; then
      missing+=" mma"
    fi
    if [[ $emitters == *cp_async* && $variant =~ ^(fp32|fp16|bf16|nhwc|nhwc-bf16)$ &&
          $async -eq 0 ]]; then
      missing+=" cp_async"
    fi
    if [[ $emitters == *grouped_loop* && $variant =~ ^nhwc &&
          $grouped -eq 0 ]]; then
      missing+=" grouped_loop"
    fi
    if [ -n "$missing" ]; then
      echo "FAILED: $id uses $used but not$missing"
      failed=$((failed + 1)); continue
    fi
    for e in $used; do seen[$e]=1; done
    [ "$mma" -gt 0 ] && seen[mma]=1
    [ "$async" -gt 0 ] && seen[cp_async]=1
    [ "$grouped" -gt 0 ] && seen[grouped_loop]=1
    echo "ok: $id ($used$( [ "$mma" -gt 0 ] && echo "mma ")): $(grep -m1 'rel-l2' "$tmp/$id.log" | sed 's/.*rel-l2/rel-l2/')"
    passed=$((passed + 1))
  done
done < "$tmp/cases/cases.txt"
for e in loop row_reduction column_reduction transpose_tiled \
         contraction_tiled contraction_thread thread_per_output mma cp_async \
         grouped_loop; do
  [ -n "${seen[$e]:-}" ] || { echo "FAILED: no case exercised $e"; failed=$((failed + 1)); }
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
