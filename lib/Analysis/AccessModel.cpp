//===- AccessModel.cpp - Coalescing of GPU kernel memory accesses ---------===//
//
// Each emitter's thread mapping is replayed for three sample warps (the
// first, a middle one and the last full one of the launch): the lanes'
// output elements are traced back to argument elements with IndexTracer,
// and each buffer's elements per warp are counted in 32-byte sectors.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/AccessModel.h"

#include "bwc/Analysis/GemmView.h"

#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/IndexTracer.h"
#include "bwc/Analysis/KernelFit.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"

using namespace mlir;
using namespace mlir::bwc;

SectorCount mlir::bwc::countSectors(ArrayRef<int64_t> elements,
                                    int64_t elementBytes) {
  SmallVector<int64_t> e(elements.begin(), elements.end());
  llvm::sort(e);
  e.erase(std::unique(e.begin(), e.end()), e.end());
  SectorCount c;
  c.usefulBytes = e.size() * elementBytes;
  int64_t last = -1;
  for (int64_t x : e) {
    // An element never straddles sectors (sizes divide 32, buffers are
    // 256-byte aligned); the first and last byte cover wider elements.
    for (int64_t s : {x * elementBytes / kSectorBytes,
                      (x * elementBytes + elementBytes - 1) / kSectorBytes})
      if (s != last) {
        ++c.sectors;
        last = s;
      }
  }
  return c;
}

double mlir::bwc::programCoalescing(ArrayRef<KernelCoalescing> kernels) {
  double bytes = 0, fetched = 0;
  for (const KernelCoalescing &k : kernels) {
    bytes += k.bytes;
    fetched += k.fetchedBytes;
  }
  return fetched ? bytes / fetched : 1;
}

namespace {

int64_t elementBytes(Type t) {
  Type e = cast<ShapedType>(t).getElementType();
  return e.isInteger(1) ? 1 : std::max<int64_t>(1, e.getIntOrFloatBitWidth() / 8);
}

ArrayRef<int64_t> shapeOf(Type t) { return cast<ShapedType>(t).getShape(); }
int64_t numel(Type t) { return cast<ShapedType>(t).getNumElements(); }
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The first, a middle and the last of `n` items (deduplicated).
SmallVector<int64_t> samples(int64_t n) {
  SmallVector<int64_t> s = {0};
  for (int64_t x : {(n - 1) / 2, n - 1})
    if (x > s.back())
      s.push_back(x);
  return s;
}

/// Per-buffer sector counts over the sample warps of one phase.
struct Counts {
  std::vector<SectorCount> args, results;
  std::vector<bool> argTraced, resultTraced;
};

class Model {
public:
  Model(func::FuncOp kernel, DictionaryAttr config)
      : kernel(kernel), config(config),
        ret(kernel.getBody().front().getTerminator()) {
    argElements.resize(kernel.getNumArguments());
    resultElements.resize(kernel.getNumResults());
    for (Counts *c : {&main, &other}) {
      c->args.resize(kernel.getNumArguments());
      c->argTraced.resize(kernel.getNumArguments());
      c->results.resize(kernel.getNumResults());
      c->resultTraced.resize(kernel.getNumResults());
    }
    kernel.walk([&](Operation *op) {
      if (isa<ReduceOp>(op))
        reduces.push_back(op);
      if (isa<MatmulOp, ConvOp>(op) && !contraction)
        contraction = GemmView::get(op);
    });
  }

  FailureOr<KernelCoalescing> run();

private:
  int64_t get(StringRef f, int64_t dflt) {
    auto a = config.getAs<IntegerAttr>(f);
    return a ? a.getInt() : dflt;
  }
  LogicalResult require(StringRef f, int64_t &v) {
    v = get(f, 0);
    if (v >= 1)
      return success();
    return kernel.emitError() << "expects bwc.config field '" << f
                              << "' >= 1 but got " << v,
           failure();
  }

  /// Lane reads of value `v`'s element `idx`.
  void read(Value v, ArrayRef<int64_t> idx) {
    tracer.trace(v, idx, [&](unsigned a, int64_t e) {
      argElements[a].push_back(e);
    });
  }
  /// A lane writes element `linear` of result `r` (computing it).
  void write(unsigned r, int64_t linear) {
    Type t = kernel.getResultTypes()[r];
    if (linear >= numel(t))
      return;
    resultElements[r].push_back(linear);
    read(ret->getOperand(r), delinearize(linear, shapeOf(t)));
  }
  /// Counts the current warp's elements into `c` and clears them.
  void endWarp(Counts &c) {
    auto count = [](std::vector<std::vector<int64_t>> &elements,
                    TypeRange types, std::vector<SectorCount> &into,
                    std::vector<bool> &traced) {
      for (auto [i, e] : llvm::enumerate(elements)) {
        if (e.empty())
          continue;
        SectorCount s = countSectors(e, elementBytes(types[i]));
        into[i].usefulBytes += s.usefulBytes;
        into[i].sectors += s.sectors;
        traced[i] = true;
        e.clear();
      }
    };
    count(argElements, kernel.getArgumentTypes(), c.args, c.argTraced);
    count(resultElements, kernel.getResultTypes(), c.results, c.resultTraced);
  }

  void elementwise(int64_t vector, int64_t threads);
  void rowReduction(int64_t block);
  LogicalResult columnReduction(int64_t block);
  void transposeTiled();
  LogicalResult contractionTiled(int64_t block);

  func::FuncOp kernel;
  DictionaryAttr config;
  Operation *ret;
  SmallVector<Operation *> reduces;
  /// The first matmul or convolution with a GEMM view (contraction_tiled).
  std::optional<GemmView> contraction;
  IndexTracer tracer;
  std::vector<std::vector<int64_t>> argElements, resultElements;
  Counts main, other;
};

/// loop (groups of `vector` elements) and thread_per_output (vector 1):
/// global thread t handles group t in the first grid-stride step.
void Model::elementwise(int64_t vector, int64_t threads) {
  int64_t maxElements = 1;
  for (Type t : kernel.getResultTypes())
    maxElements = std::max(maxElements, numel(t));
  int64_t active = std::min(ceilDiv(maxElements, vector), threads);
  int64_t warps = std::max<int64_t>(1, active / kWarpLanes);
  for (int64_t w : samples(warps)) {
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t g = w * kWarpLanes + l;
      if (g >= active)
        break;
      for (int64_t e = g * vector; e < (g + 1) * vector; ++e)
        for (unsigned r = 0; r < kernel.getNumResults(); ++r)
          write(r, e);
    }
    endWarp(main);
  }
}

/// Threads of a block split into rows_per_block rows of threads_per_row
/// threads, each striding over its row; the reductions are bound in the
/// epilogue; per-row results are written by the row's first thread.
void Model::rowReduction(int64_t block) {
  int64_t row = get("row", 1), rows = get("rows", 1);
  int64_t perBlock = std::max<int64_t>(1, get("rows_per_block", 1));
  int64_t perRow = std::max<int64_t>(1, get("threads_per_row", block / perBlock));
  for (Operation *r : reduces)
    tracer.bound.insert(r);
  int64_t blocks = ceilDiv(rows, perBlock), warps = ceilDiv(block, kWarpLanes);
  SmallVector<int64_t> bs = samples(blocks), ws = samples(warps);
  for (auto [i, b] : llvm::enumerate(bs)) {
    int64_t w = ws[std::min(i, ws.size() - 1)];
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t t = w * kWarpLanes + l, r = b * perBlock + t / perRow;
      if (t >= block || r >= rows)
        continue;
      for (int64_t j = 0; j < std::min<int64_t>(ceilDiv(row, perRow), 4); ++j) {
        int64_t p = t % perRow + j * perRow;
        if (p >= row)
          break;
        for (Operation *red : reduces) {
          Value in = red->getOperand(0);
          read(in, delinearize(r * row + p, shapeOf(in.getType())));
        }
        for (unsigned k = 0; k < kernel.getNumResults(); ++k) {
          // A relaid result (relayoutChain) lands where its chain maps
          // the source's element, as the CUDA driver stores it.
          SmallVector<Operation *> chain = relayoutChain(ret->getOperand(k));
          int64_t n = numel(kernel.getResultTypes()[k]);
          if (n == rows * row && n != rows)
            write(k, relaidIndex(chain, r * row + p));
          else if (t % perRow == 0 && j == 0)
            write(k, relaidIndex(chain, r));
        }
      }
    }
    endWarp(main);
  }
}

/// columns_per_block adjacent kept positions x slices threads; a thread
/// reduces the positions s, s + slices, ... of its column for each
/// reduction in order (earlier ones bound, as the CUDA driver does); slice
/// 0 writes the per-column results, every slice writes the input-shaped
/// (whole) results at its positions with the reductions bound.
LogicalResult Model::columnReduction(int64_t block) {
  if (reduces.empty())
    return kernel.emitError()
               << "expects a bwc.reduce in a column_reduction kernel but got "
                  "none",
           failure();
  Operation *first = reduces.front();
  Type inType = first->getOperand(0).getType();
  ArrayRef<int64_t> inShape = shapeOf(inType);
  int64_t kept = numel(first->getResult(0).getType()),
          reduced = numel(inType) / std::max<int64_t>(1, kept);
  // The input index of (column, reduced position): the reduced axes
  // enumerate the position, the others the column.
  auto axes = cast<ReduceOp>(first).getAxes();
  SmallVector<int64_t> keptShape(inShape), reducedShape;
  for (int64_t a : axes) {
    reducedShape.push_back(inShape[a]);
    keptShape[a] = 1;
  }
  auto inputLinear = [&](int64_t col, int64_t pos) {
    Index idx = delinearize(col, keptShape),
          r = delinearize(pos, reducedShape);
    for (auto [i, a] : llvm::enumerate(axes))
      idx[a] = r[i];
    return linearize(idx, inShape);
  };
  int64_t columns = get("columns_per_block", 32);
  int64_t slices = get("slices", std::max<int64_t>(1, block / columns));
  SmallVector<int64_t> bs = samples(ceilDiv(kept, columns)),
                       ws = samples(ceilDiv(block, kWarpLanes));
  for (auto [i, b] : llvm::enumerate(bs)) {
    int64_t w = ws[std::min(i, ws.size() - 1)];
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t t = w * kWarpLanes + l, col = b * columns + t % columns,
              s = t / columns;
      if (col >= kept || s >= slices)
        continue;
      SmallVector<int64_t> positions;
      for (int64_t j = 0; j < 4 && s + j * slices < reduced; ++j)
        positions.push_back(s + j * slices);
      tracer.bound.clear();
      for (Operation *red : reduces) {
        tracer.reducedPositions[red] = positions;
        read(red->getResult(0),
             delinearize(col, shapeOf(red->getResult(0).getType())));
        tracer.bound.insert(red);
      }
      for (unsigned k = 0; k < kernel.getNumResults(); ++k) {
        if (shapeOf(kernel.getResultTypes()[k]) == inShape) {
          for (int64_t p : positions)
            write(k, inputLinear(col, p));
        } else if (s == 0) {
          write(k, col);
        }
      }
    }
    endWarp(main);
  }
  return success();
}

/// 32x32 tiles through shared memory: a warp reads a tile row along the
/// output dim fed by the input's innermost dim and writes a tile row along
/// the output's innermost dim. As the CUDA driver does, only the staged
/// transposes' operands are read in the first phase; the other arguments
/// are read at the output index with the transposes bound. Without a
/// stageable transpose each argument counts in the phase where it is coalesced
/// (`other` holds the read phase).
void Model::transposeTiled() {
  ArrayRef<int64_t> shape = shapeOf(kernel.getResultTypes().front());
  int64_t rank = shape.size(), tile = get("tile", 32);
  if (rank < 2)
    return elementwise(1, INT64_MAX);
  // The output dim whose unit step moves the biggest argument by one.
  int64_t inner = rank - 2;
  unsigned biggest = 0;
  for (unsigned a = 0; a < kernel.getNumArguments(); ++a)
    if (numel(kernel.getArgumentTypes()[a]) >
        numel(kernel.getArgumentTypes()[biggest]))
      biggest = a;
  auto probe = [&](ArrayRef<int64_t> idx) {
    int64_t found = -1;
    tracer.trace(ret->getOperand(0), idx, [&](unsigned a, int64_t e) {
      if (a == biggest && found < 0)
        found = e;
    });
    return found;
  };
  // The staged transposes: the kernel's transposes, all with one
  // permutation moving a non-innermost dim innermost, on the result shape
  // (as the CUDA driver requires); without them, the dim is probed on the
  // biggest argument.
  SmallVector<TransposeOp> transposes;
  kernel.walk([&](TransposeOp t) { transposes.push_back(t); });
  TransposeOp staged;
  if (!transposes.empty() && transposes[0].getPerm().back() != rank - 1 &&
      llvm::all_of(transposes, [&](TransposeOp t) {
        return t.getType().getShape() == shape &&
               t.getPerm() == transposes[0].getPerm() &&
               t.getInput().getType().getShape() ==
                   transposes[0].getInput().getType().getShape();
      }))
    staged = transposes[0];
  Index zero(rank, 0);
  int64_t base = probe(zero);
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (shape[d] < 2)
      continue;
    Index unit = zero;
    unit[d] = 1;
    if (staged ? staged.getPerm()[d] == rank - 1
               : base >= 0 && probe(unit) == base + 1)
      inner = d;
  }
  if (staged)
    for (TransposeOp t : transposes)
      tracer.bound.insert(t);
  int64_t ti = ceilDiv(shape[inner], tile), tj = ceilDiv(shape[rank - 1], tile);
  int64_t outer = numel(kernel.getResultTypes().front()) /
                  std::max<int64_t>(1, shape[inner] * shape[rank - 1]);
  for (int64_t id : samples(outer * ti * tj)) {
    SmallVector<int64_t> outerShape(shape.begin(), shape.end());
    outerShape[inner] = outerShape[rank - 1] = 1;
    Index idx = delinearize(id / (ti * tj), outerShape);
    int64_t a = id / tj % ti * tile, b = id % tj * tile;
    for (bool writePhase : {false, true}) {
      for (int64_t i = 0; i < tile; i += 8)
        for (int64_t l = 0; l < kWarpLanes && l < tile; ++l) {
          idx[inner] = a + (writePhase ? i : l);
          idx[rank - 1] = b + (writePhase ? l : i);
          if (idx[inner] >= shape[inner] || idx[rank - 1] >= shape[rank - 1])
            continue;
          if (writePhase) {
            for (unsigned r = 0; r < kernel.getNumResults(); ++r)
              write(r, linearize(idx, shape));
          } else if (staged) {
            Index in(rank);
            for (auto [d, p] : llvm::enumerate(staged.getPerm()))
              in[p] = idx[d];
            for (TransposeOp t : transposes)
              read(t.getInput(), in);
          } else {
            for (unsigned r = 0; r < kernel.getNumResults(); ++r)
              read(ret->getOperand(r), idx);
          }
        }
      endWarp(writePhase || staged ? main : other);
    }
  }
  if (staged)
    return; // each argument is read where the driver reads it
  for (unsigned a = 0; a < main.args.size(); ++a)
    if (other.argTraced[a] &&
        (!main.argTraced[a] ||
         other.args[a].efficiency() > main.args[a].efficiency())) {
      main.args[a] = other.args[a];
      main.argTraced[a] = true;
    }
}

/// Shared-memory tiles of the op's GEMM view (GemmView: a matmul, or a
/// convolution as an implicit GEMM): a warp stages 32 consecutive
/// positions of the row-major tile_m x tile_k A tile and tile_k x tile_n
/// B tile (at the operand elements the view reads, the first K step); the
/// epilogue writes tile rows along N with the op bound.
LogicalResult Model::contractionTiled(int64_t block) {
  if (!contraction)
    return kernel.emitError() << "expects a bwc.matmul or a direct bwc.conv "
                                 "with groups 1 in a contraction_tiled "
                                 "kernel but got none",
           failure();
  const GemmView &v = *contraction;
  int64_t tm = get("tile_m", 64), tn = get("tile_n", 64), tk = get("tile_k", 16);
  auto outType = cast<RankedTensorType>(v.result().getType());
  ArrayRef<int64_t> out = outType.getShape();
  int64_t m = v.m, n = v.n, kk = v.k;
  int64_t tilesM = ceilDiv(m, tm), tilesN = ceilDiv(n, tn);
  int64_t batches = numel(outType) / std::max<int64_t>(1, m * n);
  tracer.bound.insert(v.op);
  IntArith ar;
  // The 3-stage pipeline (ContractionKernel.cpp): an operand
  // GemmView::copiesChunks is staged in 16-byte chunks (lane l: chunk l of
  // the tile), any other element by element, lane l at element l + 256 i
  // of the tile (row-major), tile_m x tile_k / 256 rounds.
  bool mma = get("mma", 0) == 1;
  Type elt = outType.getElementType();
  int64_t chunk = mma && elt.isIntOrFloat() && elt.getIntOrFloatBitWidth() == 16
                      ? 8
                      : 4;
  bool chunkA = v.copiesChunks(/*isA=*/true, chunk),
       chunkB = v.copiesChunks(/*isA=*/false, chunk);
  int64_t rounds = std::max<int64_t>(1, tm * tk / 256);
  for (int64_t id : samples(batches * tilesM * tilesN)) {
    Index batch = delinearize(id / (tilesM * tilesN), v.batchShape);
    int64_t m0 = id / tilesN % tilesM * tm, n0 = id % tilesN * tn;
    for (int64_t i = 0; i < std::max<int64_t>(rounds, 4); ++i)
      for (int64_t l = 0; l < kWarpLanes; ++l) {
        int64_t q = l + i * block;
        if (i < rounds && (chunkA ? i == 0 : q < tm * tk))
          for (int64_t j = 0; j < (chunkA ? chunk : 1); ++j) {
            int64_t am = m0 + (chunkA ? q / (tk / chunk) : q / tk),
                    ak = chunkA ? q % (tk / chunk) * chunk + j : q % tk;
            if (am < m && ak < kk)
              read(v.aTensor(), Index(v.a(ar, batch, am, ak).index));
          }
        if (i < rounds && (chunkB ? i == 0 : q < tk * tn))
          for (int64_t j = 0; j < (chunkB ? chunk : 1); ++j) {
            int64_t bk = chunkB ? q / (tn / chunk) : q / tn,
                    bn = n0 + (chunkB ? q % (tn / chunk) * chunk + j : q % tn);
            if (bk < kk && bn < n)
              read(v.bTensor(), Index(v.b(ar, batch, bk, bn).index));
          }
        if (i < 4 && m0 + i < m && n0 + l < n) {
          Index idx(v.resultIndex(ar, batch, m0 + i, n0 + l));
          for (unsigned r = 0; r < kernel.getNumResults(); ++r)
            if (numel(kernel.getResultTypes()[r]) == numel(outType))
              write(r, linearize(idx, out));
        }
      }
    endWarp(main);
  }
  return success();
}

FailureOr<KernelCoalescing> Model::run() {
  auto emitter = config ? config.getAs<StringAttr>("emitter") : StringAttr();
  if (!emitter)
    return kernel.emitError() << "expects a bwc.config with an emitter",
           failure();
  int64_t block, grid;
  if (failed(require("block", block)) || failed(require("grid", grid)))
    return failure();
  StringRef e = emitter.getValue();
  if (e == "loop")
    elementwise(std::max<int64_t>(1, get("vector", 1)), grid * block);
  else if (e == "thread_per_output")
    elementwise(1, grid * block);
  else if (e == "row_reduction")
    rowReduction(block);
  else if (e == "column_reduction") {
    if (failed(columnReduction(block)))
      return failure();
  } else if (e == "transpose_tiled")
    transposeTiled();
  else if (e == "contraction_tiled") {
    if (failed(contractionTiled(block)))
      return failure();
  } else
    return kernel.emitError()
               << "expects bwc.config emitter loop, thread_per_output, "
                  "row_reduction, column_reduction, transpose_tiled or "
                  "contraction_tiled but got '"
               << e << "'",
           failure();

  KernelCoalescing k;
  auto add = [&](std::string name, Type t, SectorCount s, bool traced) {
    BufferAccess a{std::move(name), tensorBytes(t), s, traced};
    k.bytes += a.bytes;
    k.fetchedBytes += a.bytes / std::max(a.efficiency(), 1e-9);
    k.accesses.push_back(std::move(a));
  };
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    add("arg" + std::to_string(i), kernel.getArgumentTypes()[i], main.args[i],
        main.argTraced[i]);
  for (unsigned i = 0; i < kernel.getNumResults(); ++i)
    add("result" + std::to_string(i), kernel.getResultTypes()[i],
        main.results[i], main.resultTraced[i]);
  return k;
}

} // namespace

FailureOr<KernelCoalescing> mlir::bwc::analyzeCoalescing(func::FuncOp kernel,
                                                         DictionaryAttr config) {
  if (kernel.isExternal())
    return kernel.emitError() << "expects a kernel with a body", failure();
  return Model(kernel, config).run();
}
