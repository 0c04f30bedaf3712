#!/usr/bin/env bash
# Builds and runs one libFuzzer target (test/fuzz, docs/reliability.md):
#
#   bash scripts/fuzz.sh artifact 3600        # an hour of the artifact parser
#   bash scripts/fuzz.sh artifact 0 FILE...   # replay inputs (regressions)
#
# Builds build-fuzz/ with clang-22 (libFuzzer, AddressSanitizer, UBSan),
# runtime only. The seed corpus is test/fuzz/corpus/TARGET, the dictionary
# test/fuzz/TARGET.dict; the working corpus grows in build-fuzz/corpus/TARGET.
# A finding (crash, sanitizer report, input over 10 s or 2 GiB) is written
# to build-fuzz/findings/; minimize it and add it under
# test/fuzz/regressions/TARGET/, which CI replays. The last line is
# libFuzzer's "Done N runs in S second(s)".
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz.sh TARGET SECONDS [FILE...]}
seconds=${2:-60}
shift 2 || shift $#
build=${BWC_FUZZ_BUILD_DIR:-build-fuzz}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DBWC_RUNTIME_ONLY=ON -DBWC_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    > /dev/null
fi
ninja -C "$build" "fuzz-$target" > /dev/null
bin="$build/bin/fuzz-$target"
if [ $# -gt 0 ]; then
  exec "$bin" -rss_limit_mb=2048 -timeout=10 "$@"
fi
mkdir -p "$build/corpus/$target" "$build/findings"
dict=()
[ -f "test/fuzz/$target.dict" ] && dict=(-dict="test/fuzz/$target.dict")
exec "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/findings/$target-" \
  "${dict[@]}" "$build/corpus/$target" "test/fuzz/corpus/$target"
