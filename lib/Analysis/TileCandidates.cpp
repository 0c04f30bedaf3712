//===- TileCandidates.cpp - Kernel configurations worth trying ------------===//
//
// bwc-tile's alternatives to bwc-configure-kernels' default (other
// emitters) and the launch-shape variants the CUDA tuner times. Every
// configuration built here is one the CUDA drivers accept: grids are
// grid-stride (any size is correct), blocks are whole warps of at most 1024
// threads, and each emitter's own constraints (columns_per_block x slices =
// block, rows_per_block x threads_per_row = block, cache_row only with at
// most 32 elements per thread) hold by construction.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/TileCandidates.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Analysis/GemmView.h"
#include "bwc/Analysis/KernelFit.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// Resident threads per SM (sm_80 and later): a grid-stride grid is capped
/// at one full wave, as bwc-configure-kernels does.
constexpr int64_t kThreadsPerSM = 2048;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// `base` with `fields` set (added or replaced).
DictionaryAttr withFields(DictionaryAttr base,
                          ArrayRef<std::pair<StringRef, Attribute>> fields) {
  NamedAttrList attrs(base);
  for (auto [name, value] : fields)
    attrs.set(name, value);
  return attrs.getDictionary(base.getContext());
}

int64_t largestResult(func::FuncOp kernel) {
  int64_t n = 1;
  for (Type t : kernel.getResultTypes())
    n = std::max(n, cast<ShapedType>(t).getNumElements());
  return n;
}

int64_t field(DictionaryAttr config, StringRef name, int64_t otherwise) {
  auto a = config.getAs<IntegerAttr>(name);
  return a ? a.getInt() : otherwise;
}

/// Launch-shape variants of `chosen` for the emitter it names.
SmallVector<TileCandidate>
launchVariants(func::FuncOp kernel, DictionaryAttr chosen, int64_t smCount) {
  Builder b(kernel.getContext());
  auto i64 = [&](int64_t v) -> Attribute { return b.getI64IntegerAttr(v); };
  auto strideGrid = [&](int64_t work, int64_t block) {
    return std::clamp<int64_t>(ceilDiv(work, block), 1,
                               smCount * (kThreadsPerSM / block));
  };
  StringRef emitter = chosen.getAs<StringAttr>("emitter").getValue();
  int64_t n = largestResult(kernel);
  SmallVector<TileCandidate> out;
  if (emitter == "loop") {
    int64_t dfltVector = field(chosen, "vector", 1);
    for (int64_t vector : {dfltVector, int64_t(1)}) {
      for (int64_t block : {128, 256, 512}) {
        if (n % vector)
          continue;
        int64_t grid = strideGrid(n / vector, block);
        out.push_back({withFields(
            chosen, {{"block", i64(block)},
                     {"grid", i64(grid)},
                     {"vector", i64(vector)},
                     {"elements_per_thread",
                      i64(ceilDiv(n / vector, grid * block) * vector)}})});
      }
      if (dfltVector == 1)
        break;
    }
  } else if (emitter == "thread_per_output") {
    for (int64_t block : {128, 256, 512}) {
      int64_t grid = strideGrid(n, block);
      out.push_back({withFields(
          chosen, {{"block", i64(block)},
                   {"grid", i64(grid)},
                   {"elements_per_thread", i64(ceilDiv(n, grid * block))}})});
    }
  } else if (emitter == "row_reduction") {
    int64_t row = field(chosen, "row", 0), rows = field(chosen, "rows", 0);
    int64_t tpr = field(chosen, "threads_per_row", 0);
    int64_t rpb = field(chosen, "rows_per_block", 0);
    bool cache = field(chosen, "cache_row", 0) != 0;
    if (row < 1 || rows < 1 || tpr < 32 || rpb < 1)
      return out;
    std::pair<int64_t, int64_t> shapes[] = {
        {tpr, rpb / 2}, {tpr, rpb * 2}, {tpr * 2, rpb}, {tpr / 2, rpb}};
    for (auto [t, r] : shapes) {
      if (t < 32 || t % 32 || r < 1 || t * r > 1024)
        continue;
      int64_t perThread = ceilDiv(row, t);
      bool cached = cache && perThread <= 32;
      out.push_back({withFields(
          chosen,
          {{"block", i64(t * r)},
           {"grid", i64(std::min<int64_t>(ceilDiv(rows, r), INT32_MAX))},
           {"rows_per_block", i64(r)},
           {"threads_per_row", i64(t)},
           {"cache_row", i64(cached)},
           {"vector", i64(cached ? rowReductionVector(kernel, row, t) : 1)},
           {"elements_per_thread", i64(perThread)}})});
    }
  } else if (emitter == "column_reduction") {
    auto reduces = kernel.getBody().getOps<ReduceOp>();
    if (reduces.empty())
      return out;
    ReduceOp r = *reduces.begin();
    int64_t reduced = r.getInput().getType().getNumElements() /
                      std::max<int64_t>(1, r.getType().getNumElements());
    int64_t count = llvm::range_size(reduces);
    int64_t columns = field(chosen, "columns_per_block", 32);
    int64_t dflt = field(chosen, "slices", 1);
    for (int64_t slices : {dflt / 2, dflt * 2}) {
      int64_t block = columns * slices;
      if (slices < 1 || block > 1024)
        continue;
      int64_t grid = strideGrid(ceilDiv(n, columns) * block, block);
      SmallVector<std::pair<StringRef, Attribute>> fields = {
          {"block", i64(block)},
          {"grid", i64(grid)},
          {"slices", i64(slices)},
          {"elements_per_thread", i64(ceilDiv(reduced, slices))}};
      // A cached column holds at most 32 positions per thread (the CUDA
      // driver refuses more); without the cache every walk reads DRAM.
      if (field(chosen, "cache_column", 0) && ceilDiv(reduced, slices) > 32) {
        bool whole = llvm::any_of(kernel.getResultTypes(), [&](Type t) {
          return cast<ShapedType>(t).getShape() ==
                 r.getInput().getType().getShape();
        });
        fields.push_back({"cache_column", i64(0)});
        fields.push_back({"unroll", i64(8)});
        fields.push_back(
            {"passes",
             i64(count - (onlineSoftmaxReductions(kernel) ? 1 : 0) + whole)});
      }
      out.push_back({withFields(chosen, fields), block * 4 * count});
    }
  }
  // transpose_tiled and contraction_tiled: the drivers take one block and
  // tile shape only (256 threads, 32x32 / 64x64x16).
  return out;
}

} // namespace

SmallVector<TileCandidate>
mlir::bwc::tileCandidates(func::FuncOp kernel, DictionaryAttr dflt,
                          const llvm::StringSet<> &allowed, int64_t smCount,
                          ContractionChoices choices) {
  Builder b(kernel.getContext());
  auto i64 = [&](int64_t v) -> Attribute { return b.getI64IntegerAttr(v); };
  auto name = [&](StringRef s) -> Attribute { return b.getStringAttr(s); };
  StringRef emitter = dflt.getAs<StringAttr>("emitter").getValue();
  auto shape = cast<ShapedType>(kernel.getResultTypes().front()).getShape();
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  SmallVector<TileCandidate> out = {{dflt}};

  // Narrower vectors for a loop kernel, down to one element per thread
  // and step: where a thread's `vector` elements read strided inputs (a
  // stride-2 slice: four requests of 32 sectors), lanes on consecutive
  // elements make one request of 8; where an f32 input feeds a 16-bit
  // result at vector 8, each lane's two 16-byte loads are 32 bytes apart
  // (half of each request's sectors) and vector 4 reads them whole
  // (since 2026-12-04, when the access model began counting requests).
  // The same grid and elements per thread, widest first, so that a tie
  // (a contiguous kernel) keeps the wider vector.
  if (emitter == "loop")
    for (int64_t v = field(dflt, "vector", 1) / 2; v >= 1; v /= 2)
      out.push_back({withFields(dflt, {{"vector", i64(v)}})});

  // Only transposes the CUDA driver can stage (tiledTransposes), one
  // padded 32-row shared tile each (transposeTileColumns).
  SmallVector<TransposeOp, 2> staged;
  if (emitter == "loop" && allowed.contains("transpose_tiled"))
    staged = tiledTransposes(kernel);
  if (!staged.empty()) {
    int64_t tileBytes = 0;
    for (TransposeOp t : staged)
      tileBytes += 32 * transposeTileColumns(t.getType().getElementTypeBitWidth()) *
                   t.getType().getElementTypeBitWidth() / 8;
    int64_t tiles = elements / (shape.back() * shape[shape.size() - 2]) *
                    ceilDiv(shape.back(), 32) *
                    ceilDiv(shape[shape.size() - 2], 32);
    out.push_back({withFields(dflt, {{"emitter", name("transpose_tiled")},
                                     {"block", i64(256)},
                                     {"grid", i64(tiles)},
                                     {"tile", i64(32)},
                                     {"vector", i64(1)},
                                     {"elements_per_thread", i64(4)}}),
                   tileBytes, false});
  }
  // Only kernels the CUDA driver takes (fitsColumnReduction: float
  // reductions, dependent ones too), with bwc-configure-kernels' launch;
  // one f32 slab of `block` per reduction.
  if (emitter == "thread_per_output" && fitsColumnReduction(kernel) &&
      allowed.contains("column_reduction")) {
    ColumnReductionLaunch l = columnReductionLaunch(kernel, smCount, 1024);
    out.push_back(
        {withFields(dflt, {{"emitter", name("column_reduction")},
                           {"block", i64(l.block)},
                           {"grid", i64(l.grid)},
                           {"columns_per_block", i64(l.columnsPerBlock)},
                           {"slices", i64(l.slices)},
                           {"unroll", i64(l.unroll)},
                           {"passes", i64(l.passes)},
                           {"cache_column", i64(l.cache)},
                           {"elements_per_thread", i64(l.perThread)}}),
         l.block * 4 * int64_t(plainReductions(kernel).size()), true});
  }
  // A channels-last depthwise convolution (with elementwise ops around
  // it) as a `loop` kernel of 16-byte channel groups (loopGroupedConv):
  // each thread computes `vector` consecutive channels of one position in
  // one loop nest, lanes on consecutive groups, so every tap's input and
  // filter reads and the stores are 16-byte vectors where one thread per
  // output reads 4 bytes.
  if (emitter == "thread_per_output" && allowed.contains("loop")) {
    int64_t bits = cast<ShapedType>(kernel.getResultTypes().front())
                       .getElementType()
                       .getIntOrFloatBitWidth();
    int64_t vector = bits <= 128 && bits >= 8 ? 128 / bits : 1;
    if (ConvOp conv = vector > 1 ? loopGroupedConv(kernel, vector) : ConvOp();
        conv && conv.getChannelsLast() && !conv.getTransposed() &&
        conv.getLogicalFilterShape()[1] == 1 &&
        conv.getGroups() == conv.getLogicalResultShape()[1]) {
      int64_t groups = elements / vector;
      for (int64_t block : {128, 256, 512}) {
        int64_t grid = std::clamp<int64_t>(ceilDiv(groups, block), 1,
                                           smCount * (kThreadsPerSM / block));
        out.push_back(
            {withFields(dflt, {{"emitter", name("loop")},
                               {"block", i64(block)},
                               {"grid", i64(grid)},
                               {"vector", i64(vector)},
                               {"elements_per_thread",
                                i64(ceilDiv(groups, grid * block) * vector)}}),
             0, /*preferOnTie=*/true});
      }
    }
  }
  // The CUDA driver's contractions (tiledContraction: a matmul or a
  // direct convolution with groups 1 as its GEMM view, floats summed in
  // f32), 64x64x16 tiles only.
  Operation *contraction = tiledContraction(kernel, choices.convGemm);
  if (contraction &&
      (emitter == "thread_per_output" || emitter == "contraction_tiled") &&
      allowed.contains("contraction_tiled")) {
    GemmView view = *GemmView::get(contraction);
    int64_t m = view.m, n = view.n, batch = 1;
    for (int64_t d : view.batchShape)
      batch *= d;
    int64_t tm = 64;
    int64_t tn = tm, tiles = batch * ceilDiv(m, tm) * ceilDiv(n, tn);
    // 16-bit operands: tensor cores first (3 stages of [64][tile_k] and
    // [tile_k][64] tiles in the operand type plus the [64][64] f32 result
    // tile), K steps of 32 then 16, and the f32 FMA tiling (K steps of
    // 16) as alternatives the tuner can measure. The access model ties
    // them where the global accesses are the same; only the first wins a
    // tie.
    Type elt = cast<ShapedType>(view.result().getType()).getElementType();
    bool sixteen = (elt.isF16() || elt.isBF16()) && choices.tensorCores;
    bool starved =
        choices.convGemmFill && !implicitGemmFills(contraction, smCount);
    // (mma, tile_k)
    SmallVector<std::pair<int64_t, int64_t>, 3> variants;
    if (sixteen)
      variants = {{1, 32}, {1, 16}};
    variants.push_back({0, 16});
    for (auto [mma, tk] : variants)
      out.push_back(
          {withFields(dflt, {{"emitter", name("contraction_tiled")},
                             {"block", i64(256)},
                             {"grid", i64(tiles)},
                             {"tile_m", i64(tm)},
                             {"tile_n", i64(tn)},
                             {"tile_k", i64(tk)},
                             {"mma", i64(mma)},
                             {"elements_per_thread", i64(tm * tn / 256)}}),
           // 3 stages; the f32 tiling stages f32 whatever the operands,
           // mma the operand type plus the f32 result tile.
           mma ? 3 * (tm + tn) * tk * 2 + tm * tn * 4
               : 3 * (tm + tn) * tk * 4,
           /*preferOnTie=*/(mma == 1 && tk == 32) || !sixteen, starved});
  }
  // The same op without shared memory (ContractionThreadKernel.cpp):
  // `rows` outputs of one column per thread (B read once for all of them),
  // A in 16-byte chunks along K where GemmView::copiesChunks (a broadcast
  // vector load per row: 4 f32 or 8 f16/bf16 K elements). Beside
  // thread_per_output, for every kernel the driver takes (convolutions
  // too, whatever `choices`: no implicit GEMM is staged). Threads per block
  // scale down with `rows` so that the grids tie thread_per_output's, and
  // a tie goes to the last candidate: the most rows.
  Operation *direct = tiledContraction(kernel);
  if (direct && emitter == "thread_per_output" &&
      allowed.contains("contraction_thread")) {
    GemmView view = *GemmView::get(direct);
    Type elt = cast<ShapedType>(view.result().getType()).getElementType();
    int64_t chunk = 128 / elt.getIntOrFloatBitWidth();
    if (view.k % chunk || !view.copiesChunks(/*isA=*/true, chunk))
      chunk = 1;
    int64_t batch = 1;
    for (int64_t d : view.batchShape)
      batch *= d;
    // N below 128 rounded up to whole warps where at most a quarter of
    // the lanes idle (N = 24, 48, 72, 96 + 24), so that no warp straddles
    // two groups of rows (most warps would). A wider N straddles in few
    // warps, and one not a multiple of 8 elements misaligns its rows
    // whatever the lanes (oww_melspec's 257 STFT channels: bwc-pad-channels
    // pads those, and offering 288 lanes on 257 made it stop).
    SmallVector<int64_t, 2> laneCounts = {view.n};
    int64_t whole = ceilDiv(view.n, 32) * 32;
    if (view.n < 128 && whole != view.n && 3 * whole <= 4 * view.n)
      laneCounts.push_back(whole);
    for (int64_t lanes : laneCounts)
      for (int64_t rows : {1, 2, 4}) {
        if ((rows == 1 && chunk == 1) || (rows > 1 && rows > view.m))
          continue;
        int64_t work = batch * ceilDiv(view.m, rows) * lanes;
        // 128 to 512 threads' worth of rows per block. The access model
        // reads block and grid only through the threads with work, so the
        // sizes of one (rows, lanes) share one model run (modelConfig in
        // AccessModel.cpp); each run is repeated in every fused program
        // bwc-select-layout prices.
        for (int64_t threads : {128, 256, 512}) {
          int64_t block = std::max<int64_t>(32, threads / rows);
          int64_t grid = std::clamp<int64_t>(
              ceilDiv(work, block), 1, smCount * (kThreadsPerSM / block));
          SmallVector<std::pair<StringRef, Attribute>> fields = {
              {"emitter", name("contraction_thread")},
              {"block", i64(block)},
              {"grid", i64(grid)},
              {"rows", i64(rows)},
              {"chunk", i64(chunk)},
              {"elements_per_thread", i64(rows * ceilDiv(work, grid * block))}};
          if (lanes != view.n)
            fields.push_back({"lanes", i64(lanes)});
          out.push_back({withFields(dflt, fields), 0, /*preferOnTie=*/true});
        }
      }
  }
  return out;
}

SmallVector<TileCandidate>
mlir::bwc::tuningCandidates(func::FuncOp kernel, DictionaryAttr chosen,
                            const llvm::StringSet<> &allowed, int64_t smCount,
                            int64_t sharedMemoryBytes, size_t limit,
                            ContractionChoices choices) {
  SmallVector<TileCandidate> all =
      tileCandidates(kernel, chosen, allowed, smCount, choices);
  all.append(launchVariants(kernel, chosen, smCount));
  SmallVector<TileCandidate> out;
  // The access model's rejections are expected here (a variant that does
  // not apply), not errors of the compile.
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  for (const TileCandidate &c : all) {
    if (out.size() >= limit)
      break;
    bool seen = llvm::any_of(
        out, [&](const TileCandidate &o) { return o.config == c.config; });
    if (seen || c.sharedBytes > sharedMemoryBytes ||
        failed(analyzeCoalescing(kernel, c.config)))
      continue;
    out.push_back(c);
  }
  return out;
}
