//===- Passes.td - bwc graph and program passes ------------*- tablegen -*-===//
#ifndef BWC_TRANSFORMS_PASSES_TD
#define BWC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Program structure
//===----------------------------------------------------------------------===//

def OutlineKernelsPass : Pass<"bwc-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline every kernel of the program into its own function";
  let description = [{
    Each op of the program function (`main` by default) other than constants
    becomes one kernel: a private `func.func` marked `bwc.kernel`, called
    from the program function. A kernel is what one launch runs on every
    backend. Small constants (at most `inline-constant-elements` elements)
    are cloned into the kernel as literals; larger ones (weights) are passed
    as arguments. Until fusion (M1.4) forms larger regions, each kernel
    holds one op.

    Example:
    ```mlir
    %y = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %y = func.call @main_k0_unary(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"inlineConstantElements", "inline-constant-elements", "int64_t",
           "16", "Constants up to this many elements are cloned into kernels">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def KernelsToBuffersPass : Pass<"bwc-kernels-to-buffers", "::mlir::ModuleOp"> {
  let summary = "Give kernels the buffer ABI: memref inputs, then memref outputs";
  let description = [{
    Rewrites every `bwc.kernel` function from tensors to destination-passing
    style on memrefs: `(in0, ..., out0, ...) -> ()`. Inputs are read through
    `bufferization.to_tensor restrict`, results are written with
    `bufferization.materialize_in_destination ... restrict writable`, so that
    One-Shot Bufferize computes straight into the caller's buffers. This is
    the calling convention of every launch in the artifact. A tensor of
    rank >= 2 with no element gets a `memref<0xT>` (reshaped inside the
    kernel): the bare-pointer calling convention refuses it at its shape.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CopiesToLinalgPass : Pass<"bwc-copies-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization inserts `memref.copy`, which the LLVM lowering turns into
    a call to MLIR's C runner utilities when the copy is strided. The
    runtime does not ship those, so copies become `linalg.copy` and lower to
    loops like every other kernel body.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ConfigureKernelsPass : Pass<"bwc-configure-kernels", "::mlir::ModuleOp"> {
  let summary = "Choose each GPU kernel's emitter and launch configuration";
  let description = [{
    Runs after `bwc-outline-kernels`. Records on every `bwc.kernel` function
    a `bwc.config` dictionary that the CUDA target obeys (and that a later
    tiling or layout pass may rewrite):

    - `emitter = "loop"` when every result has one shape and every element
      depends on O(1) input elements (no reduce, arg_reduce, matmul, conv,
      pool): `vector` consecutive elements per thread and iteration
      (16 bytes over the widest result element, halved until it divides the
      element count; 1 for i1 results), a grid-stride loop;
    - `emitter = "row_reduction"` when the kernel's reductions all reduce the
      same trailing axes of same-shaped f16/bf16/f32 inputs and every result
      holds either one value per row or a whole row: `threads_per_row`
      threads (about 4 elements each, whole warps) striding over the `row`
      elements, `rows_per_block` short rows packed into blocks of up to 256
      (a warp per row: shuffles only), f32 accumulation, warp shuffles and
      shared memory; `cache_row = 1` (the row read once, kept in registers)
      where a thread holds at most 32 elements and the reduced input is
      only read at its own index, with `vector` consecutive positions per
      group (16 bytes of the input where the row allows);
    - `emitter = "column_reduction"` when the f16/bf16/f32 reductions keep
      the innermost axis and every value computed from them is per-column
      or on the input shape, never read at another column (a reduction may
      read an earlier one: softmax over axis 0): `columns_per_block` (32)
      adjacent columns x `slices` threads (8..32, enough for sm-count x
      1024 threads) splitting the reduced positions, `unroll` loads in
      flight per thread, `passes` over the input (one per reduction, one
      more for a result of the input shape; 1 with `cache_column = 1`, the
      thread's <= 32 positions of the input kept in registers);
    - `emitter = "transpose_tiled"` for a loop kernel whose only transpose
      moves a non-innermost dimension innermost (both >= 16 elements), with
      elementwise ops on its shape after it: 32x32 `tile`s staged through
      shared memory by 256 threads, coalesced on both sides;
    - `emitter = "contraction_tiled"` for one float matmul, or one direct
      convolution with groups 1 as an implicit GEMM (GemmView; unless
      `conv-gemm` is false; with `conv-gemm-fill`, only where its tiles
      number at least `sm-count`), with f32 accumulation and an elementwise
      epilogue: 64x64 output tiles (`tile_m`, `tile_n`), K through shared
      memory in steps of `tile_k` (16), 256 threads of 4x4 outputs; `mma =
      1` (tensor cores) for f16/bf16 unless `tensor-cores` is false;
    - `emitter = "thread_per_output"` otherwise (pools, grouped and
      transposed convolutions, integer matmuls, arg_reduce): one thread
      per output element, the reduced or K/window loop inside it; correct
      for every kernel.

    `block` is the threads per block, `grid` the blocks; the grid of a
    grid-stride loop is capped at `sm-count` x (2048 / `block`), one full
    wave of resident threads. `elements_per_thread` is the most elements one
    thread computes.

    Example:
    ```mlir
    func.func private @main_k0_unary_exp(...) attributes {bwc.kernel,
        bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64,
                      emitter = "loop", grid = 1 : i64, vector = 4 : i64}}
    ```
  }];
  let options = [
    Option<"smCount", "sm-count", "int64_t", "132",
           "Streaming multiprocessors of the target GPU (H100 SXM: 132)">,
    Option<"maxThreads", "max-threads", "int64_t", "1024",
           "Most threads per block">,
    Option<"loopBlock", "loop-block", "int64_t", "256",
           "Threads per block of loop and thread-per-output kernels">,
    Option<"convGemm", "conv-gemm", "bool", "true",
           "Direct convolutions with groups 1 as implicit GEMMs "
           "(contraction_tiled); false: thread_per_output">,
    Option<"convGemmFill", "conv-gemm-fill", "bool", "true",
           "Implicit GEMMs only where their 64x64 tiles number at least "
           "sm-count (smaller ones: thread_per_output); false: every one">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "f16/bf16 contractions on the tensor cores (contraction_tiled "
           "mma = 1); false: the f32 tiling (mma = 0)">,
  ];
}

def TilePass : Pass<"bwc-tile", "::mlir::ModuleOp"> {
  let summary = "Choose each kernel's configuration with the access model";
  let description = [{
    Runs after `bwc-configure-kernels`. For every `bwc.kernel` function,
    scores its default `bwc.config` and the alternatives the listed
    `emitters` offer (`column_reduction` for reductions over non-innermost
    axes, `transpose_tiled` for loop kernels, `contraction_tiled` with
    `mma` 1 and 0 for matmul and groups-1 convolution kernels) with the
    access model (bytes-weighted coalescing
    efficiency, include/bwc/Analysis/AccessModel.h), and keeps the best:
    highest efficiency, then more blocks up to 2 per SM, then the
    specialized emitter for column reductions and matmuls. Candidates
    whose shared memory exceeds `shared-memory-bytes` are skipped. Records
    the chosen `bwc.config` and `bwc.coalescing` (its efficiency, f64).

    Example:
    ```mlir
    func.func private @main_k0_reduce(...) attributes {bwc.coalescing = 1.0,
        bwc.config = {block = 256 : i64, columns_per_block = 32 : i64,
                      emitter = "column_reduction", grid = 128 : i64, ...}}
    ```
  }];
  let options = [
    Option<"smCount", "sm-count", "int64_t", "132",
           "Streaming multiprocessors of the target GPU (H100 SXM: 132)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "49152",
           "Static shared memory one block may use">,
    Option<"emitters", "emitters", "std::string",
           "\"loop,thread_per_output,row_reduction,column_reduction,transpose_tiled,contraction_thread\"",
           "Comma-separated emitters the target supports; the pass chooses "
           "only among these">,
    Option<"convGemm", "conv-gemm", "bool", "true",
           "Whether contraction_tiled may take convolutions (implicit "
           "GEMMs), as bwc-configure-kernels' option of the same name">,
    Option<"convGemmFill", "conv-gemm-fill", "bool", "true",
           "Whether an implicit GEMM with fewer tiles than sm-count ranks "
           "below every other candidate, as bwc-configure-kernels' option "
           "of the same name">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "Whether contraction_tiled may use the tensor cores (mma = 1), "
           "as bwc-configure-kernels' option of the same name">,
  ];
}

def ApplyTuningPass : Pass<"bwc-apply-tuning", "::mlir::ModuleOp"> {
  let summary = "Use the kernel configurations a GPU measured fastest";
  let description = [{
    Runs after `bwc-tile`. Reads the tuning cache `cache` (JSON written by
    `bwc-compile --tune`, include/bwc/Analysis/TuningCache.h) and, for
    every `bwc.kernel` function whose signature (`kernelSignature`: a hash
    of the kernel without its name, locations and configuration) has an
    entry for GPU `gpu`, replaces its `bwc.config` with the cached one,
    re-scores `bwc.coalescing` and marks it `bwc.tuned`. Every kernel
    looked up gets `bwc.signature` (its key in the cache).
    Without `gpu`, the cache must hold one GPU. A corrupt cache, an unknown
    GPU, or a cached configuration the access model rejects for the kernel
    is an error naming the file and the entry.

    Example:
    ```mlir
    func.func private @main_k0_unary(...) attributes {bwc.kernel,
        bwc.config = {block = 128 : i64, emitter = "loop", ...},
        bwc.signature = "3f2a9c0d1e4b5a67", bwc.tuned}
    ```
  }];
  let options = [
    Option<"cache", "cache", "std::string", "", "The tuning cache file">,
    Option<"gpu", "gpu", "std::string", "",
           "The GPU whose measurements to use (default: the cache's only one)">,
  ];
}

def SelectLayoutPass : Pass<"bwc-select-layout", "::mlir::ModuleOp"> {
  let summary = "Channels-last convolutions where the access model says "
                "they pay; transposed constants baked";
  let description = [{
    Runs on the tensor program before fusion. Groups convolutions and pools
    with the ops between them that do not depend on dim order (elementwise,
    cast, concat, pad, slice, resize, keepdims reductions) into chains of
    one rank. Prices each conv and pool with the access model in
    channels-first and channels-last order, and each layout change as a
    read and a write of the tensor it converts, then labels every op of a
    chain with the cheapest assignment (an exact minimum s-t cut,
    include/bwc/Analysis/MinCut.h; ties stay channels-first).
    Channels-last ops get `channels_last` (convs, pools) and permuted
    per-dim attributes, filters are stored `[K..., C/groups, F]` at compile
    time, and `bwc.transpose` ops sit where labels change (graph inputs and
    outputs keep their layout). Records `bwc.layout` ("nchw" or "nhwc") and
    `bwc.layout_cost` (`chain`, the op's `nchw_bytes` and `nhwc_bytes`, the
    chain's `chain_nchw_bytes` and chosen `chain_bytes`) on every conv and
    pool. Every transpose of a constant becomes a transposed constant,
    whatever its size.

    Example:
    ```mlir
    %y = bwc.conv %xt, %w_hwio strides = [1, 1] ... {bwc.layout = "nhwc",
        bwc.layout_cost = {chain = 0 : i64, chain_bytes = ..., ...},
        channels_last} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>)
        -> tensor<1x8x8x16xf32>
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"auto\"",
           "auto (the cost model decides), nchw (keep every chain "
           "channels-first) or nhwc (every chain channels-last)">,
    Option<"smCount", "sm-count", "int64_t", "132",
           "Streaming multiprocessors of the target GPU (grid of the priced "
           "kernels)">,
  ];
}

def PadChannelsPass : Pass<"bwc-pad-channels", "::mlir::ModuleOp"> {
  let summary = "Channels-last convolutions computed on output channels "
                "padded to whole warps, where the access model says it pays";
  let description = [{
    Runs on the tensor program after bwc-select-layout (CUDA target). A
    candidate is a channels-last direct convolution with groups 1, a
    constant filter and bias, and F output channels not a multiple of 32
    that round up to F' <= 1.25 F. Each is priced alone (DRAM bytes
    fetched in 32-byte sectors, the access model, configured as
    bwc-compile configures it) computing F and F' channels; F' is taken
    when it fetches at most 0.95 as much. The accepted paddings then face
    the fused program (canonicalize, bwc-fuse, outline, configure): they
    stay only if it fetches fewer bytes padded. A padded convolution has
    zero filter columns and bias entries; the unary and scalar ops that
    read it alone run on the padded channels, then a `bwc.slice` takes
    the F real ones. Records `bwc.pad_channels = {channels, padded,
    fetched_bytes, padded_fetched_bytes, chosen}` on every candidate and
    `bwc.pad_check = {plain_fetched_bytes, padded_fetched_bytes}` on a
    module with a `main` program where a padding was priced worth it.

    Example (oww_melspec's STFT, F = 257):
    ```mlir
    %c = bwc.conv %x, %w_padded ... {bwc.pad_channels = {channels = 257 : i64,
        chosen = true, fetched_bytes = ..., padded = 288 : i64,
        padded_fetched_bytes = ...}, channels_last}
        : (tensor<1x16000x1xf32>, tensor<512x1x288xf32>) -> tensor<1x97x288xf32>
    %y = bwc.slice %c starts = [0, 0, 0] steps = [1, 1, 1]
        : (tensor<1x97x288xf32>) -> tensor<1x97x257xf32>
    ```
  }];
  let options = [
    Option<"smCount", "sm-count", "int64_t", "132",
           "Streaming multiprocessors of the target GPU (grid of the priced "
           "kernels)">,
  ];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def FusePass : Pass<"bwc-fuse", "::mlir::ModuleOp"> {
  let summary = "Group ops into bwc.fusion regions that each run as one kernel";
  let description = [{
    Wraps groups of ops of the program function in `bwc.fusion` regions so
    that intermediates between them never touch DRAM. Every decision uses the
    bytes-moved cost model (bwc/Analysis/CostModel.h): two groups merge only
    when the merged kernel moves fewer bytes than the two separate kernels,
    the merge creates no cycle between kernels, and the merged region holds at
    most `max-ops` ops. An op that fuses with nothing stays a plain op.

    Kinds, each switchable:
    - `elementwise`: any DAG of unary/binary/select/cast/broadcast ops
      (`loop`).
    - `reduction`: reductions with their elementwise producers (input fusion)
      and consumers (epilogue). Several reductions share a group only when
      they reduce the same axes of same-shaped tensors (one row), so a
      Softmax or a decomposed LayerNorm is one `reduction` kernel; the other
      ops of the group work on whole rows or on one value per row.
    - `multi-output`: a group may yield several values that are used outside
      it instead of being split.
    - `horizontal`: independent groups reading the same tensor merge when
      that saves reading it twice.
    - `contraction-epilogue`: elementwise ops of the result's shape after one
      bwc.matmul/bwc.conv (bias, folded BatchNorm, activation, residual), and
      casts/broadcasts/reshapes of its operands (`contraction`). A group holds
      at most one contraction, never duplicated.
    - `data-movement`: reshape, transpose, slice, concat, pad, gather and
      nearest resize join their producer or consumer group.
    - `duplicate`: a cheap producer (broadcast, reshape, elementwise) used by
      several groups is cloned into each of them when that saves bytes.

    Small constants (at most kInlineConstantElements elements) are cloned
    into regions; larger ones are region inputs.

    Example:
    ```mlir
    %0 = bwc.binary add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = bwc.unary relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // becomes
    %1 = bwc.fusion loop (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {...}
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"elementwise", "elementwise", "bool", "true",
           "Fuse elementwise and broadcast chains">,
    Option<"reduction", "reduction", "bool", "true",
           "Fuse reductions with their producers and consumers">,
    Option<"multiOutput", "multi-output", "bool", "true",
           "Let a group yield several values used outside it">,
    Option<"horizontal", "horizontal", "bool", "true",
           "Fuse independent groups that read the same tensor">,
    Option<"contractionEpilogue", "contraction-epilogue", "bool", "true",
           "Fuse elementwise epilogues (and cast/broadcast/reshape "
           "prologues) into matmul and conv">,
    Option<"dataMovement", "data-movement", "bool", "true",
           "Fuse data movement ops into their producer or consumer">,
    Option<"duplicate", "duplicate", "bool", "true",
           "Clone cheap producers into several consumer groups">,
    Option<"maxOps", "max-ops", "int64_t", "64",
           "Most ops in one fusion region">,
    Option<"printCost", "print-cost", "bool", "false",
           "Print kernels and DRAM bytes before and after fusion to stderr">,
  ];
}

//===----------------------------------------------------------------------===//
// Memory planning
//===----------------------------------------------------------------------===//

def RematerializePass : Pass<"bwc-rematerialize", "::mlir::ModuleOp"> {
  let summary = "Recompute kernels near late uses so the arena fits a budget";
  let description = [{
    Runs after `bwc-outline-kernels`, before `bwc-plan-buffers`, on the
    program function (`main` by default). While the planned arena exceeds
    `memory-budget`, values live across the peak are dropped after their
    early uses and their kernels are called again just before the late uses
    (a chain of kernels back to values alive anyway when needed); the cost
    of a recomputation is its flops plus 16 flops per DRAM byte (the cost
    model's kernel figures). Graph inputs, weights and returned values are
    always available; nothing else is recomputed from. Strategies
    (bwc/Analysis/Remat.h): `greedy` (cheapest per byte removed near the
    peak), `checkpoints` (Chen et al.'s segments), `best` (both, the
    cheaper one that meets the budget).

    A budget no strategy meets is an error naming the smallest arena
    reached. Decisions are attributes: each recomputing call carries
    `bwc.remat` (the launch index, in the order before the pass, of the call
    it repeats); the program function carries `bwc.remat_budget_bytes`,
    `bwc.remat_arena_before`, `bwc.remat_arena_after` (planned as bwc-plan-buffers does),
    `bwc.remat_min_arena`,
    `bwc.remat_recomputed_ops`, `bwc.remat_extra_flops`,
    `bwc.remat_extra_bytes` and `bwc.remat_strategy`.

    Example (memory-budget=1KiB):
    ```mlir
    %1 = call @main_k1_unary_neg(%0) : ...
    %5 = call @main_k1_unary_neg(%0) {bwc.remat = 1 : i64} : ...
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"memoryBudget", "memory-budget", "std::string", "\"\"",
           "Largest arena, in bytes or with a KiB/MiB/GiB suffix (empty: no "
           "budget, the pass does nothing)">,
    Option<"strategy", "strategy", "std::string", "\"best\"",
           "greedy, checkpoints or best (both, keep the cheaper)">,
    Option<"epilogues", "epilogues", "bool", "false",
           "Plan in-place writes as bwc-plan-buffers{epilogues=true} does: "
           "a kernel running a contraction or reduction may write over an "
           "operand read only in its outputs' epilogues">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def GuardBranchesPass : Pass<"bwc-guard-branches", "::mlir::ModuleOp"> {
  let summary = "Guard the launches only one branch of a runtime If needs";
  let description = [{
    Runs after `bwc-outline-kernels` (and `bwc-rematerialize`), before
    `bwc-plan-buffers`. An ONNX If on a runtime condition is imported as
    both branches joined by `bwc.select`s marked `bwc.if_both_branches`.
    A launch whose every result is read only through the then (else)
    operand of such selects, directly or through other such launches, is
    guarded by the condition: the executor reads the condition's byte and
    skips the launch when the other branch is taken. The join kernel reads
    a skipped launch's undefined results only through ops that compute no
    address from data and cannot trap (no gather, no integer division), and
    its select discards them.

    A guarded launch that came before its condition's launch moves down to
    just before its first user.

    Decisions are attributes: `bwc.guard` on each guarded call, a list of
    dictionaries with `branch` ("then" or "else") and `cond` (the
    condition's id), every one of which must hold; `bwc.branch_conditions`
    on the call computing a condition, dictionaries with `id` and `result`
    (the result that is the condition), or `bwc.branch_condition` (the id)
    on a program argument that is one; `bwc.guarded_launches` (how many)
    on the program. docs/passes/bwc-guard-branches.md has examples.
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def PlanBuffersPass : Pass<"bwc-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer at an offset in one arena";
  let description = [{
    Runs after `bwc-outline-kernels` on the program function (`main` by
    default), whose calls are the launches in order. Every call result that
    is not returned is an intermediate, live from its launch to the last
    launch reading it; inputs, weights and outputs are outside the arena.
    Intermediates get 256-byte aligned offsets from greedy-by-size and from
    best-fit in time order (bwc/Analysis/BufferPlan.h); the smaller arena is
    kept.

    A result takes over an operand's storage in place when the operand is an
    intermediate that dies at this launch, has the result's type, and the
    kernel is elementwise (only bwc.unary/binary/select/cast/constant) and
    reads the operand only at its own shape in ops before (or at) the one
    producing the result, so every element is read before it is overwritten.
    With `epilogues` the kernel may run anything else (a contraction, a
    reduction) as long as every value computed from the operand is
    elementwise at its shape: the elemental code generators emit an
    output's epilogue where they store it.
    The same rule lets an optimizer step's update of a state argument (a
    result marked `bwc.state_update`) overwrite the state's own buffer when
    that launch is the state's last reader (`bwc.state_inplace` on the
    call: the operand index each result overwrites, -1 none).

    Decisions are attributes. On each call: `bwc.offsets` (one arena offset
    per result, -1 outside the arena) and, when one is taken, `bwc.inplace`
    (the operand index each result reuses, -1 none). On the program
    function: `bwc.arena_bytes`, `bwc.lower_bound_bytes` (peak of aligned
    bytes live at one launch), `bwc.no_reuse_bytes` (sum of aligned sizes),
    `bwc.planner`; with `schedule`, `bwc.schedule` (the order kept:
    "memory-aware" or "program-order") and the arena of each order,
    `bwc.program_order_arena_bytes` and `bwc.memory_aware_arena_bytes`.

    Example:
    ```mlir
    %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 0>} : ...
    %1 = call @main_k1_unary_neg(%0) {bwc.inplace = array<i64: 0>,
                                      bwc.offsets = array<i64: 0>} : ...
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"planner", "planner", "std::string", "\"smallest\"",
           "smallest (both, keep the smaller arena), greedy-by-size or best-fit">,
    Option<"inPlace", "in-place", "bool", "true",
           "Let elementwise kernels write over an operand that dies there">,
    Option<"schedule", "schedule", "bool", "false",
           "Reorder independent launches first (memory-aware topological order); kept only when it shrinks the arena">,
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark for each in-place candidate refused, with the reason">,
    Option<"epilogues", "epilogues", "bool", "false",
           "Also let a kernel that runs a contraction or reduction write over an operand only its elementwise epilogue reads (the elemental code generators: CUDA, --codegen=elemental)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def VerifyPlanPass : Pass<"bwc-verify-plan", "::mlir::ModuleOp"> {
  let summary = "Check that the buffer plan never overlaps live buffers";
  let description = [{
    Reads the attributes of `bwc-plan-buffers`, recomputes the live range of
    every intermediate from the program function, and proves that no two
    buffers live at the same launch share a byte (except an in-place pair,
    at the same offset, at its hand-over launch), that every buffer lies in
    [0, bwc.arena_bytes), that offsets are 256-byte aligned, and that every
    intermediate (and no output) has an offset. A violation is an error
    naming both buffers.
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
  ];
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def GradPass : Pass<"bwc-grad", "::mlir::ModuleOp"> {
  let summary = "Build the training step: a loss and its reverse-mode gradients";
  let description = [{
    Turns the program function into one training step. The arguments marked
    `bwc.trainable` (the importer marks the initializers `--trainable`
    selects) are the parameters. The pass appends a `target` argument,
    applies `loss` to the first result (`mse`: mean((y - target)^2) over all
    elements; `cross-entropy`: the mean over rows of
    logsumexp(y) - y[target] along the last axis, target holding i64 class
    indices), and builds the adjoint of every value on a path from a
    parameter to the loss, in reverse program order, with each op's
    `DifferentiableOpInterface` rule. The function then returns `loss` and
    one `grad.<name>` per parameter (zeros for a parameter the loss does not
    read). A parameter whose argument carries `bwc.initial_value` (an
    initializer) becomes that constant again, so the step's inputs are the
    model's inputs and `target`; one without (an initializer the model also
    lists as a graph input) stays an input.

    With `optimizer=sgd` or `adam` the step also updates the parameters:
    each parameter argument becomes state (`bwc.state`, keeping its
    `bwc.initial_value`), Adam adds its moments `adam.m.<name>`,
    `adam.v.<name>` (zeros) and `adam.step`; the function returns `loss` and
    one result per state tensor marked `bwc.state_update = "<name>"`, the
    new value the runtime stores in place after the run (sgd:
    w - lr * g; adam: beta1 0.9, beta2 0.999, eps 1e-8, bias-corrected).

    `loss-scale` multiplies the seed of the backward pass (the loss's
    adjoint) by a factor and divides the gradients by it at the end, so
    that gradients far below 1 survive fp16 (bwc-mixed-precision runs
    after). `dynamic` keeps the factor as state (`loss_scale.scale`, 65536
    at first, and `loss_scale.good`), reports it (`loss_scale`, after
    `loss`) with `skipped` (1 when a gradient was not finite), keeps every
    state tensor unchanged on a skipped step, halves the scale then, and
    doubles it after `growth-interval` good steps.

    An op on the path without a rule, or whose rule does not cover its
    configuration, is an error naming it. The function records
    `bwc.training = {loss, params, optimizer, lr}`.

    Example (`loss=mse`):
    ```mlir
    func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32> {bwc.trainable})
        -> tensor<4xf32> {
      %y = bwc.binary mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    }
    // becomes (x, w, target) -> (loss: tensor<f32>, grad.w: tensor<4xf32>)
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"loss", "loss", "std::string", "\"mse\"",
           "The loss applied to the first result: mse or cross-entropy">,
    Option<"optimizer", "optimizer", "std::string", "\"none\"",
           "none (results: loss and gradients), sgd or adam (results: loss; "
           "the parameters become state updated in place)">,
    Option<"lr", "lr", "double", "0.01", "The optimizer's learning rate">,
    Option<"lossScale", "loss-scale", "std::string", "\"none\"",
           "none, a positive factor the loss is multiplied by before the "
           "backward pass (gradients unscaled after), or dynamic "
           "(GradScaler-like: state, halved on a non-finite gradient, the "
           "step then skipped; doubled after growth-interval good steps)">,
    Option<"growthInterval", "growth-interval", "int64_t", "2000",
           "Dynamic loss scaling: good steps before the scale doubles">,
  ];
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

def MixedPrecisionPass : Pass<"bwc-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Rewrite the program in fp16 or bf16 where numerics allow";
  let description = [{
    AMP-style rewriting of the f32 values of the program function (see
    docs/passes/bwc-mixed-precision.md for the lists and their reasons):
    - allow: `bwc.matmul`, `bwc.conv` take low-precision operands and give
      low-precision results, summed in f32: the pass sets
      `acc_type = f32`, which every kernel emitter obeys;
    - follow: elementwise and data movement ops compute in low precision
      when every non-constant float operand is low precision, else in f32
      (average pools in low precision get `acc_type = f32` too);
    - deny: sum/mean/prod reductions, exp, log, pow, reciprocal, rsqrt,
      squares, division by a computed value and linear/cubic resizing
      compute in f32 (their operands cast up), as does any op reading an
      f32 constant the low type cannot hold (overflow or flush to zero).
    Graph inputs and outputs keep their f32 types (casts at the boundary)
    unless `low-io` is set. f32 weights feeding low-precision ops are
    converted at compile time; cast pairs that are exact round trips
    (f16 -> f32 -> f16) cancel.

    With `bwc-compile --calibrate`: an op already marked `bwc.keep_f32`
    (the validation search) stays f32, and so does an op that would give
    the low type to a value whose recorded `bwc.range` ({max, median})
    overflows or underflows it; the reason is written to `bwc.keep_f32`.

    Example (precision=fp16):
    ```mlir
    %y = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // becomes
    %xh = bwc.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    %yh = bwc.matmul %xh, %wh {acc_type = f32} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
    %y = bwc.cast %yh : tensor<4x16xf16> to tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"precision", "precision", "std::string", "\"fp16\"",
           "Low precision: fp16 or bf16">,
    Option<"lowIO", "low-io", "bool", "false",
           "Give the program's f32 inputs and results the low precision">,
  ];
}

#endif // BWC_TRANSFORMS_PASSES_TD
