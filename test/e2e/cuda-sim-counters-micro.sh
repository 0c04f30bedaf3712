#!/usr/bin/env bash
# M2.2 on the microbenchmarks (python/make_microbenchmarks.py at 1024 x
# 2048, fp32 and bf16: small enough that cuda-sim runs every block):
# every kernel's access-model coalescing within 0.05 of cuda-sim's sector
# efficiency (no known disagreements), at most 1.10 shared-memory
# conflict ways, and the outputs checked under every sanitizer (1e-4 fp32,
# 3e-2 bf16). Figures in docs/benchmarks.md, "Counters".
# Usage: cuda-sim-counters-micro.sh BIN
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/../../python/make_microbenchmarks.py" "$tmp/mb" \
  --rows 1024 --cols 2048 --bf16 > /dev/null
exec /usr/bin/python3 "$here/../../python/sim_counters.py" "$bin" "$tmp/mb" \
  --micro --max-ways 1.10 --agreement /dev/null --check
