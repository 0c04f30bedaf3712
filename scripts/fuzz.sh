#!/usr/bin/env bash
# Builds and runs one libFuzzer target (test/fuzz, docs/reliability.md):
#
#   bash scripts/fuzz.sh artifact 3600        # an hour of the artifact parser
#   bash scripts/fuzz.sh onnx 600             # raw ONNX bytes -> artifact
#   bash scripts/fuzz.sh modelproto 600       # ONNX models, mutated as such
#   bash scripts/fuzz.sh mlir 600             # bwc-dialect text -> artifact
#   bash scripts/fuzz.sh artifact 0 FILE...   # replay inputs (regressions)
#
# Builds with clang-22 (libFuzzer, AddressSanitizer, UBSan): the artifact
# target in build-fuzz/ (runtime only, ~1 min), the compiler's targets in
# build-fuzz-compiler/ (the whole compiler instrumented; 8 min 38 s on 2
# cores without ccache, measured 2026-12-07). The seed corpus is test/fuzz/corpus/TARGET (modelproto
# shares onnx's), the dictionary test/fuzz/TARGET.dict; the working corpus
# grows in BUILD/corpus/TARGET. BWC_FUZZ_JOBS=N runs N workers (-fork=N).
# A finding (crash, sanitizer report, input over 10 s or 2 GiB) is written
# to build-fuzz/findings/; minimize it and add it under
# test/fuzz/regressions/TARGET/, which CI replays. The last line is
# libFuzzer's "Done N runs in S second(s)".
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz.sh TARGET SECONDS [FILE...]}
seconds=${2:-60}
shift 2 || shift $#
case $target in
  artifact) build=${BWC_FUZZ_BUILD_DIR:-build-fuzz} runtime_only=ON
            seeds=artifact ;;
  onnx|modelproto) build=${BWC_FUZZ_BUILD_DIR:-build-fuzz-compiler}
            runtime_only=OFF seeds=onnx ;;
  mlir) build=${BWC_FUZZ_BUILD_DIR:-build-fuzz-compiler} runtime_only=OFF
        seeds=mlir ;;
  *) echo "fuzz.sh: unknown target '$target' (artifact, onnx, modelproto, mlir)" >&2
     exit 2 ;;
esac
# Cache hits across clones: paths under the repository hashed relative to
# it, and the build folder left out of the hash (-gline-tables-only would
# put it in).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
bin="$build/bin/fuzz-$target"
# BWC_FUZZ_PREBUILT=1 (ctest: scripts/test.sh built every target first):
# no cmake or ninja here, so the targets run side by side.
if [ -n "${BWC_FUZZ_PREBUILT:-}" ]; then
  [ -x "$bin" ] || { echo "fuzz.sh: $bin is not built (BWC_FUZZ_PREBUILT)" >&2; exit 1; }
elif [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DBWC_RUNTIME_ONLY=$runtime_only \
    -DBWC_FUZZ=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit > /dev/null
fi
if [ -z "${BWC_FUZZ_PREBUILT:-}" ] && ! log=$(ninja -C "$build" "fuzz-$target" 2>&1); then
  echo "$log" | tail -40
  exit 1
fi
if [ $# -gt 0 ]; then
  exec "$bin" -rss_limit_mb=2048 -timeout=10 "$@"
fi
mkdir -p "$build/corpus/$target" "$build/findings"
dict=()
[ -f "test/fuzz/$seeds.dict" ] && dict=(-dict="test/fuzz/$seeds.dict")
jobs=()
[ -n "${BWC_FUZZ_JOBS:-}" ] && jobs=(-fork="$BWC_FUZZ_JOBS" -ignore_crashes=1)
# The compiler's inputs are models: up to 64 KiB (make_seeds.py's limit).
len=()
[ "$seeds" != artifact ] && len=(-max_len=65536)
exec "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/findings/$target-" \
  "${len[@]}" "${dict[@]}" "${jobs[@]}" \
  "$build/corpus/$target" "test/fuzz/corpus/$seeds" \
  "test/fuzz/regressions/$target"
