#!/usr/bin/env bash
# cuda-sim's memory counters (bwc-run --profile --json) against figures
# worked out by hand for Inputs/sim-counters.mlir, and a negative control:
# the transpose's shared tiles unpadded (32x32 instead of 32x33, through
# --gpu-module) must show the 32-way conflicts of its column-wise reads.
# Usage: sim-counters.sh BIN
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BWC_PTXAS=none
/usr/bin/python3 - "$tmp" <<'PY'
import sys, numpy as np
from onnx import numpy_helper
rng = np.random.default_rng(3)
for n, s in [("x", (1024,)), ("y", (1024,)), ("t", (1, 64, 64))]:
    t = numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
    open(f"{sys.argv[1]}/{n}.pb", "wb").write(t.SerializeToString())
PY
run() { # NAME [COMPILE FLAGS...]: compile, profile into $tmp/NAME.json
  local name=$1; shift
  mkdir -p "$tmp/$name.out"
  "$bin/bwc-compile" "$here/Inputs/sim-counters.mlir" --target=cuda "$@" \
    -o "$tmp/$name.bwc" &&
  "$bin/bwc-run" "$tmp/$name.bwc" --device=cuda-sim --sanitize=all --profile \
    --input x="$tmp/x.pb" --input y="$tmp/y.pb" --input t="$tmp/t.pb" \
    --output-dir "$tmp/$name.out" --json "$tmp/$name.json" > "$tmp/$name.log"
}
run padded || { echo "FAILED: padded run"; cat "$tmp/padded.log"; exit 1; }
"$bin/bwc-compile" "$here/Inputs/sim-counters.mlir" --target=cuda --emit=gpu \
  -o "$tmp/gpu.mlir" && sed 's/32x33xf32/32x32xf32/g' "$tmp/gpu.mlir" > "$tmp/unpadded.mlir"
run unpadded --gpu-module="$tmp/unpadded.mlir" ||
  { echo "FAILED: unpadded run"; cat "$tmp/unpadded.log"; exit 1; }
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
failed = passed = 0
def expect(name, got, want):
    global failed, passed
    if abs(got - want) > 1e-9:
        print(f"FAILED: {name} = {got}, expected {want}"); failed += 1
    else:
        print(f"ok: {name} = {got}"); passed += 1
def kernels(run):
    return {k["name"]: k["counters"] for k in json.load(open(f"{tmp}/{run}.json"))["kernels"]}
p, u = kernels("padded"), kernels("unpadded")
add = next(v for k, v in p.items() if "binary_add" in k)
tr = next(v for k, v in p.items() if "binary_add" not in k)
# add: 1024 f32 + 1024 f32, vector 4: 8 warps, per warp one 16-byte load
# request per input (512 bytes = 16 sectors) and one store request.
expect("add global_load_requests", add["global_load_requests"], 16)
expect("add global_load_sectors", add["global_load_sectors"], 256)
expect("add global_store_requests", add["global_store_requests"], 8)
expect("add global_store_sectors", add["global_store_sectors"], 128)
expect("add ideal_sectors", add["ideal_sectors"], 3 * 4096 / 32)
expect("add byte_efficiency", add["byte_efficiency"], 1.0)
expect("add sector_efficiency", add["sector_efficiency"], 1.0)
expect("add bytes_per_request", add["bytes_per_request"], 16)
# transpose 64x64 in 4 tiles of 32x32 (one per block, 8 warps x 4 rows):
# 128 load and 128 store requests of 4 sectors, 128 shared stores and 128
# shared loads, 2 barriers per tile; the [32][33] padding: no conflict.
expect("transpose global_load_requests", tr["global_load_requests"], 128)
expect("transpose global_load_sectors", tr["global_load_sectors"], 512)
expect("transpose global_store_sectors", tr["global_store_sectors"], 512)
expect("transpose sector_efficiency", tr["sector_efficiency"], 1.0)
expect("transpose shared_requests", tr["shared_requests"], 256)
expect("transpose shared_conflict_ways", tr["shared_conflict_ways"], 1.0)
expect("transpose barriers", tr["barriers"], 8)
# Unpadded, the column-wise reads hit one bank 32 times: (128 x 1 + 128 x
# 32) / 256 wavefronts per conflict-free wavefront.
tu = next(v for k, v in u.items() if "binary_add" not in k)
expect("unpadded shared_conflict_ways", tu["shared_conflict_ways"], 16.5)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
