#!/usr/bin/env bash
# The sanitizers' negative controls: each breaks one generated kernel of
# Inputs/sim-controls.mlir the way real emitter bugs look (an off-by-one
# bound, a dropped barrier, a shuffle on the wrong lanes, a missing store),
# recompiles with --gpu-module, and checks that cuda-sim's sanitizer
# reports it, naming the sanitizer and the kernel, and that the run fails.
# The unbroken kernels first run clean under --sanitize=all, so a control
# that fires proves its break, not noise. Usage: sim-negative-controls.sh BIN
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BWC_PTXAS=none
passed=0 failed=0

/usr/bin/python3 - "$tmp" <<'EOF'
import sys, numpy as np
from onnx import numpy_helper
rng = np.random.default_rng(7)
shapes = {"x": (64, 1000), "a": (64, 128), "b": (128, 96), "y": (1000,)}
for name, shape in shapes.items():
    t = numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
    open(f"{sys.argv[1]}/{name}.pb", "wb").write(t.SerializeToString())
EOF
inputs=(--input x="$tmp/x.pb" --input a="$tmp/a.pb" --input b="$tmp/b.pb"
        --input y="$tmp/y.pb")

"$bin/bwc-compile" "$here/Inputs/sim-controls.mlir" --target=cuda \
  --emit=gpu -o "$tmp/gpu.mlir" || { echo "FAILED: --emit=gpu"; exit 1; }

# run NAME SANITIZER EXPECTED_KERNEL EXPECTED_TEXT [EDIT.py]: EDIT.py gets the
# gpu.mlir text on stdin and prints the broken one.
run() {
  local name=$1 sanitizer=$2 kernel=$3 text=$4 edit=${5:-}
  local module="$tmp/gpu.mlir"
  if [ -n "$edit" ]; then
    module="$tmp/$name.mlir"
    if ! /usr/bin/python3 -c "$edit" < "$tmp/gpu.mlir" > "$module"; then
      echo "FAILED: $name: the edit did not apply"; failed=$((failed + 1))
      return
    fi
  fi
  if ! "$bin/bwc-compile" "$here/Inputs/sim-controls.mlir" --target=cuda \
       --gpu-module="$module" -o "$tmp/$name.bwc" 2> "$tmp/$name.cerr"; then
    echo "FAILED: $name: compile"; head -5 "$tmp/$name.cerr"
    failed=$((failed + 1)); return
  fi
  mkdir -p "$tmp/$name.out"
  "$bin/bwc-run" "$tmp/$name.bwc" --device=cuda-sim --sanitize="$sanitizer" \
    ${RUN_EXTRA:-} \
    "${inputs[@]}" --output-dir "$tmp/$name.out" > "$tmp/$name.log" 2>&1
  local rc=$?
  if [ -z "$edit" ]; then
    if [ $rc -eq 0 ] && ! grep -qE "^cuda-sim: (memcheck|racecheck|synccheck|initcheck):" "$tmp/$name.log"; then
      echo "ok: $name (clean under --sanitize=$sanitizer)"
      passed=$((passed + 1))
    else
      echo "FAILED: $name: the unbroken kernels are not clean"
      head -5 "$tmp/$name.log"; failed=$((failed + 1))
    fi
    return
  fi
  local line
  line=$(grep -m1 "^cuda-sim: $sanitizer: kernel '$kernel'" "$tmp/$name.log")
  if [ $rc -ne 0 ] && [ -n "$line" ] && [[ "$line" == *"$text"* ]]; then
    echo "ok: $name: $line"
    passed=$((passed + 1))
  else
    echo "FAILED: $name (exit $rc): expected a $sanitizer finding in $kernel" \
         "saying '$text'"
    head -5 "$tmp/$name.log"; failed=$((failed + 1))
  fi
}

run clean all "" ""

# memcheck: the tanh loop kernel runs one group of 4 past its 1000 elements.
run off-by-one memcheck main_k3_unary_tanh_bwc \
  "is out of bounds of parameter 0, input 'y' (4000 bytes): byte offset 4000" '
import sys; s = sys.stdin.read()
old = "%c250 = arith.constant 250 : index"
assert s.count(old) == 1; print(s.replace(old, "%c250 = arith.constant 251 : index"))'

# racecheck: the matmul reads its shared tiles with no barrier after
# staging them.
run dropped-barrier racecheck main_k1_matmul_bwc "hazard on shared array" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k1_matmul_bwc"); b = s.index("gpu.barrier\n", k)
print(s[:b] + s[b + len("gpu.barrier\n"):])'

# synccheck: the softmax row reduction'"'"'s first butterfly shuffle with
# width 16: lanes 16-31 execute a shfl.sync whose member mask excludes them.
run wrong-shuffle-lanes synccheck main_k0_fusion_reduction_bwc \
  "with a member mask that excludes the lane itself" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k0_fusion_reduction_bwc")
m = re.compile(r"gpu.shuffle  xor (%\S+), (%c16_i32\S*), %c32_i32\S* : f32").search(s, k)
print(s[:m.start()] + "gpu.shuffle  xor %s, %s, %s : f32" % (m.group(1), m.group(2), m.group(2)) + s[m.end():])'

# synccheck: a barrier only the threads of the first warp reach.
run divergent-barrier synccheck main_k1_matmul_bwc "exited without reaching it" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k1_matmul_bwc")
ret = s.index("gpu.return", k)
guard = ("%sim_tid = gpu.thread_id x\n      %sim_c32 = arith.constant 32 : index\n"
         "      %sim_lt = arith.cmpi ult, %sim_tid, %sim_c32 : index\n"
         "      scf.if %sim_lt {\n        gpu.barrier\n      }\n      ")
print(s[:ret] + guard + s[ret:])'

# initcheck: the matmul never stores its first output of each thread; the
# row sum then reads those arena bytes.
run missing-store initcheck main_k2_reduce_bwc "that nothing wrote" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k1_matmul_bwc")
m = re.compile(r"memref.store %\d+#0, %arg2\[%\d+\] : memref<6144xf32>\n").search(s, k)
print(s[:m.start()] + s[m.end():])'

# initcheck: the matmul'"'"'s first tile of A is never copied (its prologue
# cp.async dropped): the K loop reads stage 0 that nothing wrote.
run missing-shared-store initcheck main_k1_matmul_bwc "that no thread of the block wrote" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k1_matmul_bwc")
m = re.compile(r"%\d+ = nvgpu.device_async_copy [^\n]*%arg3\[[^\n]*\n").search(s, k)
print(s[:m.start()] + s[m.end():])'

# synccheck: an endless loop (the tanh loop kernel stepping by 0) ends in a
# finding and exit 1 after --sim-timeout, not in a hang.
RUN_EXTRA=--sim-timeout=2 run endless-loop synccheck main_k3_unary_tanh_bwc \
  "ran past 2 s: a thread that never reaches its barrier or never exits" '
import sys, re; s = sys.stdin.read()
k = s.index("gpu.func @main_k3_unary_tanh_bwc")
m = re.compile(r"scf.for (%\S+) = (%\S+) to (%\S+) step (%\S+) \{").search(s, k)
zero = "%%sim_zero = arith.subi %s, %s : index\n      " % (m.group(4), m.group(4))
print(s[:m.start()] + zero + "scf.for %s = %s to %s step %%sim_zero {" % (m.group(1), m.group(2), m.group(3)) + s[m.end():])'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
