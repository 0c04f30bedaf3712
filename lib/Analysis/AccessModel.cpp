//===- AccessModel.cpp - Coalescing of GPU kernel memory accesses ---------===//
//
// Each emitter's thread mapping is replayed for three sample warps (the
// first, a middle one and the last full one of the launch): the lanes'
// output elements are traced back to argument elements with IndexTracer,
// the reads and writes are grouped into the warp's requests (a step of the
// emitter's mapping, a tracer site, the how-many-th read of the lane
// there), and each request is counted in 32-byte sectors.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/AccessModel.h"

#include "bwc/Analysis/GemmView.h"

#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/IndexTracer.h"
#include "bwc/Analysis/KernelFit.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/xxhash.h"
#include "mlir/IR/AsmState.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <mutex>

using namespace mlir;
using namespace mlir::bwc;

SectorCount mlir::bwc::countSectors(ArrayRef<int64_t> elements,
                                    int64_t elementBytes) {
  SmallVector<int64_t> e(elements.begin(), elements.end());
  llvm::sort(e);
  e.erase(std::unique(e.begin(), e.end()), e.end());
  SectorCount c;
  c.requests = 1;
  c.accessBytes = double(elementBytes);
  c.usefulBytes = double(e.size() * elementBytes);
  c.idealSectors = double(
      (int64_t(e.size()) * elementBytes + kSectorBytes - 1) / kSectorBytes);
  int64_t last = -1;
  for (int64_t x : e) {
    // An element never straddles sectors (sizes divide 32, buffers are
    // 256-byte aligned); the first and last byte cover wider elements.
    for (int64_t s : {x * elementBytes / kSectorBytes,
                      (x * elementBytes + elementBytes - 1) / kSectorBytes})
      if (s != last) {
        c.sectors += 1;
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
  return e.isInteger(1) ? 1
                        : std::max<int64_t>(1, e.getIntOrFloatBitWidth() / 8);
}

ArrayRef<int64_t> shapeOf(Type t) { return cast<ShapedType>(t).getShape(); }
int64_t numel(Type t) { return cast<ShapedType>(t).getNumElements(); }
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The widest access a lane makes (ld.global.v4.f32).
constexpr int64_t kVectorBytes = 16;

/// The first, a middle and the last of `n` items (deduplicated).
SmallVector<int64_t> samples(int64_t n) {
  SmallVector<int64_t> s = {0};
  for (int64_t x : {(n - 1) / 2, n - 1})
    if (x > s.back())
      s.push_back(x);
  return s;
}

/// The sample warps of the one-dimensional mappings: runs of 6
/// consecutive warps starting at the first five points of the golden-ratio
/// (Weyl) sequence, k x 0.618 mod 1 of the way for k = 0..4 (0, 0.236,
/// 0.472, 0.618, 0.854), and the last warp (deduplicated, in order). A
/// warp's alignment to a row changes its requests with a short period
/// (oww_embedding's 48-channel pixels: every third warp straddles two),
/// which 6 consecutive warps cover whole for periods 1, 2, 3 and 6; evenly
/// spaced samples can all fall on one residue (3 or 7 of them did), and a
/// first and a middle run both did on a long one (oww_melspec's 257 of
/// 288 padded channels: rows 0 and 48 start on a sector, most rows do
/// not). The Weyl points spread over every period.
SmallVector<int64_t> runSamples(int64_t n) {
  SmallVector<int64_t> s;
  SmallVector<int64_t> starts;
  for (int64_t k = 0; k < 5; ++k)
    starts.push_back(n * (k * 618034 % 1000000) / 1000000);
  llvm::sort(starts);
  for (int64_t start : starts)
    for (int64_t x = start; x < std::min(n, start + 6); ++x)
      if (s.empty() || x > s.back())
        s.push_back(x);
  if (s.back() < n - 1)
    s.push_back(n - 1);
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
    return kernel.emitError()
               << "expects bwc.config field '" << f << "' >= 1 but got " << v,
           failure();
  }

  /// Lane `lane` reads value `v`'s element `idx` (element `sub` of the
  /// lane's vector, at step `step` of the emitter's mapping).
  void read(Value v, ArrayRef<int64_t> idx) {
    tracer.trace(v, idx, [&](const TracedRead &r) {
      record(/*result=*/false, r.arg, r.element, r.site, r.weight, r.branched);
    });
  }
  /// A lane writes element `linear` of result `r` (computing it).
  void write(unsigned r, int64_t linear) {
    Type t = kernel.getResultTypes()[r];
    if (linear >= numel(t))
      return;
    record(/*result=*/true, r, linear, /*site=*/0, /*weight=*/1,
           /*branched=*/false);
    read(ret->getOperand(r), delinearize(linear, shapeOf(t)));
  }
  /// The n-th access of this lane (and vector element) to one buffer at
  /// one step and site joins the warp's n-th request there.
  void record(bool result, unsigned buffer, int64_t element, uint64_t site,
              double weight, bool branched) {
    unsigned b = 2 * buffer + result;
    int64_t &n = occurrences[{b, step, site, lane, sub}];
    Request &q = requests[{b, step, site, n++}];
    q.weight = std::max(q.weight, weight * stepWeight);
    q.branched |= branched;
    q.reads.push_back({lane, sub, element});
  }
  /// Counts the current warp's requests into `c` and clears them.
  void endWarp(Counts &c);

  void elementwise(int64_t vector, int64_t threads);
  void rowReduction(int64_t block);
  LogicalResult columnReduction(int64_t block);
  void transposeTiled();
  LogicalResult contractionTiled(int64_t block);
  LogicalResult contractionThread(int64_t threads);

  func::FuncOp kernel;
  DictionaryAttr config;
  Operation *ret;
  SmallVector<Operation *> reduces;
  /// The first matmul or convolution with a GEMM view (contraction_tiled).
  std::optional<GemmView> contraction;
  IndexTracer tracer;
  /// The lane being replayed, its vector element, the emitter's step and
  /// the executions of that step each of its requests stands for.
  int64_t lane = 0, sub = 0, step = 0;
  double stepWeight = 1;
  struct Request {
    double weight = 0;
    bool branched = false; ///< a read under an emitter branch: no vector
    SmallVector<std::array<int64_t, 3>, 32> reads; ///< lane, sub, element
  };
  /// Keyed (2 x buffer + result?, step, site, n-th access), in the order
  /// the warp first issues them (hashed: this is the model's hot path).
  llvm::MapVector<std::tuple<unsigned, int64_t, uint64_t, int64_t>, Request>
      requests;
  llvm::DenseMap<std::tuple<unsigned, int64_t, uint64_t, int64_t, int64_t>,
                 int64_t>
      occurrences;
  Counts main, other;
};

/// A vector element's accesses to one buffer at one site are one request
/// of the lane's `width` elements where every lane reads `width`
/// consecutive elements from a multiple of `width` (at most 16 bytes:
/// what bwc-vectorize-gpu-loads merges) outside the emitter's branches
/// (each element of a concat or a constant pad loads in its own scf.if),
/// else one request per element.
void Model::endWarp(Counts &c) {
  struct Read {
    int64_t chunk, lane, sub, element;
  };
  SmallVector<Read> reads;
  SmallVector<int64_t> all;
  for (auto &[key, q] : requests) {
    bool result = std::get<0>(key) % 2;
    unsigned buffer = std::get<0>(key) / 2;
    Type t = result ? kernel.getResultTypes()[buffer]
                    : kernel.getArgumentTypes()[buffer];
    int64_t bytes = elementBytes(t), subs = 1;
    for (auto &r : q.reads)
      subs = std::max(subs, r[1] + 1);
    int64_t width =
        std::max<int64_t>(1, std::min<int64_t>(subs, kVectorBytes / bytes));
    // Chunk -> lane -> sub -> element, a lane's first read of an element
    // slot kept (a stable sort, then the first of equal keys).
    reads.clear();
    for (auto &r : q.reads)
      reads.push_back({r[1] / width, r[0], r[1], r[2]});
    auto slot = [](const Read &r) {
      return std::make_tuple(r.chunk, r.lane, r.sub);
    };
    std::stable_sort(
        reads.begin(), reads.end(),
        [&](const Read &a, const Read &b) { return slot(a) < slot(b); });
    reads.erase(std::unique(reads.begin(), reads.end(),
                            [&](const Read &a, const Read &b) {
                              return slot(a) == slot(b);
                            }),
                reads.end());
    SectorCount &into = (result ? c.results : c.args)[buffer];
    (result ? c.resultTraced : c.argTraced)[buffer] = true;
    for (size_t from = 0; from < reads.size();) {
      size_t to = from;
      while (to < reads.size() && reads[to].chunk == reads[from].chunk)
        ++to;
      ArrayRef<Read> chunk(reads.data() + from, to - from);
      int64_t base = chunk.front().chunk * width;
      bool vector = width > 1 && !q.branched;
      for (size_t l = 0; l < chunk.size() && vector;) {
        size_t end = l;
        while (end < chunk.size() && chunk[end].lane == chunk[l].lane)
          ++end;
        int64_t first = chunk[l].element;
        vector &= int64_t(end - l) == width && first % width == 0;
        for (size_t i = l; i < end; ++i)
          vector &= chunk[i].sub == base + int64_t(i - l) &&
                    chunk[i].element == first + int64_t(i - l);
        l = end;
      }
      if (vector) {
        all.clear();
        for (const Read &r : chunk)
          all.push_back(r.element);
        SectorCount one = countSectors(all, bytes);
        one.accessBytes = double(width * bytes);
        into.add(one, q.weight);
      } else {
        // One request per vector element, its lanes in order.
        SmallVector<Read> bySub(chunk.begin(), chunk.end());
        std::stable_sort(
            bySub.begin(), bySub.end(),
            [](const Read &a, const Read &b) { return a.sub < b.sub; });
        for (size_t s = 0; s < bySub.size();) {
          all.clear();
          size_t e = s;
          for (; e < bySub.size() && bySub[e].sub == bySub[s].sub; ++e)
            all.push_back(bySub[e].element);
          into.add(countSectors(all, bytes), q.weight);
          s = e;
        }
      }
      from = to;
    }
  }
  requests.clear();
  occurrences.clear();
}

/// loop (groups of `vector` elements) and thread_per_output (vector 1):
/// global thread t handles group t in the first grid-stride step.
void Model::elementwise(int64_t vector, int64_t threads) {
  int64_t maxElements = 1;
  for (Type t : kernel.getResultTypes())
    maxElements = std::max(maxElements, numel(t));
  int64_t active = std::min(ceilDiv(maxElements, vector), threads);
  // Every warp that has work, the last partial one too (the counters
  // count it).
  int64_t warps = std::max<int64_t>(1, ceilDiv(active, kWarpLanes));
  for (int64_t w : runSamples(warps)) {
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t g = w * kWarpLanes + l;
      if (g >= active)
        break;
      lane = l;
      for (int64_t e = g * vector; e < (g + 1) * vector; ++e) {
        sub = e - g * vector;
        for (unsigned r = 0; r < kernel.getNumResults(); ++r)
          write(r, e);
      }
    }
    sub = 0;
    endWarp(main);
  }
}

/// Threads of a block split into rows_per_block rows of threads_per_row
/// threads, each striding over its row in groups of `vector` consecutive
/// positions (group g of thread t: (g x threads_per_row + t) x vector, as
/// RowReductionKernel.cpp); the reductions are bound in the epilogue.
/// Results as the kernel stores them: a row-shaped one that keeps its
/// source's order (with `cache_row`) in the same vector groups; any other
/// whole-row result (relaid by a transpose, or not cached) one position
/// per thread and step (t + j x threads_per_row), at the index its chain
/// moves the position to; per-row results by the row's first thread.
void Model::rowReduction(int64_t block) {
  int64_t row = get("row", 1), rows = get("rows", 1);
  int64_t perBlock = std::max<int64_t>(1, get("rows_per_block", 1));
  int64_t perRow =
      std::max<int64_t>(1, get("threads_per_row", block / perBlock));
  int64_t vector = std::max<int64_t>(1, get("vector", 1));
  bool cacheRow = get("cache_row", 0) != 0;
  for (Operation *r : reduces)
    tracer.bound.insert(r);
  ArrayRef<int64_t> inShape =
      reduces.empty() ? ArrayRef<int64_t>()
                      : shapeOf(reduces.front()->getOperand(0).getType());
  enum class Store { grouped, strided, perRow };
  SmallVector<Store> stores;
  SmallVector<SmallVector<Operation *>> chains;
  for (unsigned k = 0; k < kernel.getNumResults(); ++k) {
    // A relaid result (relayoutChain) lands where its chain maps the
    // source's element, as the CUDA driver stores it.
    SmallVector<Value> sources;
    for (Operation *r : reduces)
      sources.push_back(r->getOperand(0));
    chains.push_back(relayoutChain(ret->getOperand(k), sources));
    bool moves = llvm::any_of(
        chains.back(), [](Operation *op) { return !keepsLinearOrder(op); });
    int64_t n = numel(kernel.getResultTypes()[k]);
    stores.push_back(n != rows * row || n == rows ? Store::perRow
                     : !moves && cacheRow &&
                             shapeOf(kernel.getResultTypes()[k]) == inShape
                         ? Store::grouped
                         : Store::strided);
  }
  int64_t blocks = ceilDiv(rows, perBlock), warps = ceilDiv(block, kWarpLanes);
  SmallVector<int64_t> bs = samples(blocks), ws = samples(warps);
  for (auto [i, b] : llvm::enumerate(bs)) {
    int64_t w = ws[std::min(i, ws.size() - 1)];
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t t = w * kWarpLanes + l, r = b * perBlock + t / perRow;
      if (t >= block || r >= rows)
        continue;
      lane = l;
      int64_t groups = ceilDiv(row, perRow * vector),
              traced = std::min<int64_t>(groups, 4);
      for (int64_t j = 0; j < traced; ++j) {
        step = j;
        stepWeight = double(groups) / double(traced);
        for (sub = 0; sub < vector; ++sub) {
          int64_t p = (j * perRow + t % perRow) * vector + sub;
          if (p >= row)
            break;
          for (Operation *red : reduces) {
            Value in = red->getOperand(0);
            read(in, delinearize(r * row + p, shapeOf(in.getType())));
          }
          for (unsigned k = 0; k < kernel.getNumResults(); ++k)
            if (stores[k] == Store::grouped)
              write(k, relaidIndex(chains[k], r * row + p));
        }
      }
      sub = 0;
      int64_t strides = ceilDiv(row, perRow),
              tracedStrides = std::min<int64_t>(strides, 4);
      for (unsigned k = 0; k < kernel.getNumResults(); ++k) {
        if (stores[k] == Store::perRow) {
          if (t % perRow == 0) {
            step = 0;
            stepWeight = 1;
            write(k, relaidIndex(chains[k], r));
          }
          continue;
        }
        if (stores[k] != Store::strided)
          continue;
        for (int64_t j = 0; j < tracedStrides; ++j) {
          int64_t p = t % perRow + j * perRow;
          if (p >= row)
            break;
          step = 1000 * (k + 1) + j;
          stepWeight = double(strides) / double(tracedStrides);
          write(k, relaidIndex(chains[k], r * row + p));
        }
      }
    }
    sub = step = 0;
    stepWeight = 1;
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
    Index idx = delinearize(col, keptShape), r = delinearize(pos, reducedShape);
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
      lane = l;
      double each = positions.empty() ? 1
                                      : double(ceilDiv(reduced - s, slices)) /
                                            double(positions.size());
      tracer.bound.clear();
      for (Operation *red : reduces) {
        tracer.reducedPositions[red] = positions;
        tracer.reducedWeights[red] = each;
        read(red->getResult(0),
             delinearize(col, shapeOf(red->getResult(0).getType())));
        tracer.bound.insert(red);
      }
      for (unsigned k = 0; k < kernel.getNumResults(); ++k) {
        if (shapeOf(kernel.getResultTypes()[k]) == inShape) {
          stepWeight = each;
          for (int64_t p : positions)
            write(k, inputLinear(col, p));
          stepWeight = 1;
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
    tracer.trace(ret->getOperand(0), idx, [&](const TracedRead &r) {
      if (r.arg == biggest && found < 0)
        found = r.element;
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
          lane = l;
          step = i + (writePhase ? tile : 0);
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
  int64_t tm = get("tile_m", 64), tn = get("tile_n", 64),
          tk = get("tile_k", 16);
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
  int64_t chunk =
      mma && elt.isIntOrFloat() && elt.getIntOrFloatBitWidth() == 16 ? 8 : 4;
  bool chunkA = v.copiesChunks(/*isA=*/true, chunk),
       chunkB = v.copiesChunks(/*isA=*/false, chunk);
  int64_t rounds = std::max<int64_t>(1, tm * tk / 256);
  // Per K step each thread stages its A and B positions, every warp of
  // the block traced (warp 0 alone saw rows 0, 1, 16, 17, ... of A: with
  // 257-float rows those start on a sector far more often than the rest,
  // 0.892 modeled against 0.801 counted on oww_melspec's filterbank
  // matmul). The epilogue as ContractionKernel.cpp stores it: thread
  // (tr, tc) = (t / 16, t % 16) writes rows tr + 16 i and columns
  // tc + 16 j, i, j < 4 (a warp: 2 rows of 16 columns per store), once
  // per tile.
  int64_t warps = std::max<int64_t>(1, block / kWarpLanes);
  double kSteps = double(ceilDiv(kk, tk));
  for (int64_t id : samples(batches * tilesM * tilesN)) {
    Index batch = delinearize(id / (tilesM * tilesN), v.batchShape);
    int64_t m0 = id / tilesN % tilesM * tm, n0 = id % tilesN * tn;
    for (int64_t w = 0; w < warps; ++w) {
      for (int64_t i = 0; i < std::max<int64_t>(rounds, 4); ++i)
        for (int64_t l = 0; l < kWarpLanes; ++l) {
          int64_t q = w * kWarpLanes + l + i * block;
          lane = l;
          stepWeight = kSteps;
          step = 1000 + i;
          if (i < rounds && (chunkA ? i == 0 : q < tm * tk))
            for (int64_t j = 0; j < (chunkA ? chunk : 1); ++j) {
              sub = j;
              int64_t am = m0 + (chunkA ? q / (tk / chunk) : q / tk),
                      ak = chunkA ? q % (tk / chunk) * chunk + j : q % tk;
              if (am < m && ak < kk)
                read(v.aTensor(), Index(v.a(ar, batch, am, ak).index));
            }
          step = 2000 + i;
          if (i < rounds && (chunkB ? i == 0 : q < tk * tn))
            for (int64_t j = 0; j < (chunkB ? chunk : 1); ++j) {
              sub = j;
              int64_t bk = chunkB ? q / (tn / chunk) : q / tn,
                      bn =
                          n0 + (chunkB ? q % (tn / chunk) * chunk + j : q % tn);
              if (bk < kk && bn < n)
                read(v.bTensor(), Index(v.b(ar, batch, bk, bn).index));
            }
          sub = 0;
          stepWeight = 1;
          for (int64_t j = 0; i < 4 && j < 4; ++j) {
            step = 3000 + 4 * i + j;
            int64_t t = w * kWarpLanes + l;
            int64_t om = m0 + t / 16 + 16 * i, on = n0 + t % 16 + 16 * j;
            if (om >= m || on >= n)
              continue;
            Index idx(v.resultIndex(ar, batch, om, on));
            for (unsigned r = 0; r < kernel.getNumResults(); ++r)
              if (numel(kernel.getResultTypes()[r]) == numel(outType))
                write(r, linearize(idx, out));
          }
        }
      step = 0;
      stepWeight = 1;
      endWarp(main);
    }
  }
  return success();
}

/// ContractionThreadKernel.cpp: global thread t computes rows
/// mg x rows .. + rows - 1 of column n of batch b, (b, mg, n) =
/// delinearize(t, [batches, ceil(M / rows), lanes]) (lanes n >= N idle),
/// in the first grid-stride step. Per K step (up to 4 traced, evenly spaced over K, each standing
/// for its share): per row one read of A, `chunk` consecutive elements
/// (a vector element each: one request where copiesChunks), at the
/// clamped row; then `chunk` reads of B, one per K element. The epilogue
/// writes each row below M with the op bound.
LogicalResult Model::contractionThread(int64_t threads) {
  if (!contraction)
    return kernel.emitError() << "expects a bwc.matmul or a direct bwc.conv "
                                 "with groups 1 in a contraction_thread "
                                 "kernel but got none",
           failure();
  const GemmView &v = *contraction;
  int64_t rows = get("rows", 1), chunk = get("chunk", 1);
  if (rows < 1 || chunk < 1 || v.k % chunk)
    return kernel.emitError() << "expects contraction_thread rows >= 1 and "
                                 "a chunk dividing K = "
                              << v.k << " but got " << config,
           failure();
  auto outType = cast<RankedTensorType>(v.result().getType());
  ArrayRef<int64_t> out = outType.getShape();
  int64_t m = v.m, n = v.n, lanes = std::max(n, get("lanes", n));
  int64_t groups = ceilDiv(m, rows);
  int64_t batches = numel(outType) / std::max<int64_t>(1, m * n);
  tracer.bound.insert(v.op);
  IntArith ar;
  int64_t kSteps = v.k / chunk;
  SmallVector<int64_t> kSamples;
  int64_t traced = std::min<int64_t>(kSteps, 4);
  for (int64_t i = 0; i < traced; ++i)
    kSamples.push_back(traced == 1 ? 0 : i * (kSteps - 1) / (traced - 1));
  int64_t active = std::min(batches * groups * lanes, threads);
  int64_t warps = std::max<int64_t>(1, ceilDiv(active, kWarpLanes));
  for (int64_t w : runSamples(warps)) {
    for (int64_t l = 0; l < kWarpLanes; ++l) {
      int64_t g = w * kWarpLanes + l;
      if (g >= active)
        break;
      lane = l;
      int64_t col = g % lanes, mg = g / lanes % groups;
      if (col >= n)
        continue; // an idle lane
      Index batch = delinearize(g / lanes / groups, v.batchShape);
      for (int64_t s : kSamples) {
        step = s;
        stepWeight = double(kSteps) / double(traced);
        int64_t k0 = s * chunk;
        for (int64_t j = 0; j < rows; ++j)
          for (sub = 0; sub < chunk; ++sub)
            read(v.aTensor(),
                 Index(v.a(ar, batch, std::min(mg * rows + j, m - 1),
                           k0 + sub)
                           .index));
        sub = 0;
        for (int64_t i = 0; i < chunk; ++i)
          read(v.bTensor(), Index(v.b(ar, batch, k0 + i, col).index));
      }
      stepWeight = 1;
      for (int64_t j = 0; j < rows; ++j) {
        int64_t row = mg * rows + j;
        if (row >= m)
          break;
        step = kSteps + j;
        Index idx(v.resultIndex(ar, batch, row, col));
        for (unsigned r = 0; r < kernel.getNumResults(); ++r)
          if (numel(kernel.getResultTypes()[r]) == numel(outType))
            write(r, linearize(idx, out));
      }
    }
    step = 0;
    sub = 0;
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
  } else if (e == "contraction_thread") {
    if (failed(contractionThread(grid * block)))
      return failure();
  } else
    return kernel.emitError()
               << "expects bwc.config emitter loop, thread_per_output, "
                  "row_reduction, column_reduction, transpose_tiled, "
                  "contraction_tiled or contraction_thread but got '"
               << e << "'",
           failure();

  KernelCoalescing k;
  auto add = [&](std::string name, Type t, SectorCount s, bool traced) {
    BufferAccess a{std::move(name), tensorBytes(t), s, traced};
    k.bytes += a.bytes;
    if (traced)
      k.requests.add(s);
    k.accesses.push_back(std::move(a));
  };
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    add("arg" + std::to_string(i), kernel.getArgumentTypes()[i], main.args[i],
        main.argTraced[i]);
  for (unsigned i = 0; i < kernel.getNumResults(); ++i)
    add("result" + std::to_string(i), kernel.getResultTypes()[i],
        main.results[i], main.resultTraced[i]);
  k.fetchedBytes = k.bytes / std::max(k.efficiency(), 1e-9);
  return k;
}

} // namespace

namespace {

/// What the model's result depends on: the kernel's signature and body
/// (not its attributes: bwc-tile analyzes a kernel before it records its
/// choice, the report after) and the configuration, printed in full
/// (constants included: an index may be traced through one) and hashed.
/// `config` as far as the model reads it. loop, thread_per_output and
/// contraction_thread read block and grid only through the threads with
/// work (their first grid-stride step), so candidates that differ in block
/// size alone share one run.
DictionaryAttr modelConfig(func::FuncOp kernel, DictionaryAttr config) {
  auto emitter = config ? config.getAs<StringAttr>("emitter") : StringAttr();
  if (!emitter)
    return config;
  auto block = config.getAs<IntegerAttr>("block");
  auto grid = config.getAs<IntegerAttr>("grid");
  if (!block || !grid || block.getInt() < 1 || grid.getInt() < 1)
    return config;
  auto field = [&](StringRef name, int64_t dflt) {
    auto a = config.getAs<IntegerAttr>(name);
    return a ? a.getInt() : dflt;
  };
  int64_t work;
  if (emitter.getValue() == "loop" ||
      emitter.getValue() == "thread_per_output") {
    int64_t vector = emitter.getValue() == "loop"
                         ? std::max<int64_t>(1, field("vector", 1))
                         : 1;
    int64_t maxElements = 1;
    for (Type t : kernel.getResultTypes())
      maxElements = std::max(maxElements, numel(t));
    work = ceilDiv(maxElements, vector);
  } else if (emitter.getValue() == "contraction_thread") {
    int64_t rows = field("rows", 1);
    if (rows < 1)
      return config;
    std::optional<GemmView> view;
    kernel.walk([&](Operation *op) {
      if (isa<MatmulOp, ConvOp>(op) && !view)
        view = GemmView::get(op);
    });
    if (!view)
      return config;
    int64_t lanes = std::max(view->n, field("lanes", 0));
    int64_t batches = numel(view->result().getType()) /
                      std::max<int64_t>(1, view->m * view->n);
    work = batches * ceilDiv(view->m, rows) * lanes;
  } else {
    return config;
  }
  int64_t threads = block.getInt() * grid.getInt();
  if (threads / grid.getInt() != block.getInt())
    return config; // overflow: keyed as given
  NamedAttrList fields(config);
  Builder b(config.getContext());
  fields.set("block", b.getI64IntegerAttr(std::min(work, threads)));
  fields.set("grid", b.getI64IntegerAttr(1));
  return fields.getDictionary(config.getContext());
}

std::pair<uint64_t, uint64_t> modelKey(func::FuncOp kernel,
                                       DictionaryAttr config) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kernel.getFunctionType() << '\n'
     << modelConfig(kernel, config) << '\n';
  // Explicit flags: bwc-opt's --mlir-elide-elementsattrs-if-larger or
  // --mlir-print-debuginfo must not change the key.
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .enableDebugInfo(false);
  AsmState state(kernel, flags);
  for (Block &block : kernel.getBody()) {
    for (BlockArgument arg : block.getArguments()) {
      arg.printAsOperand(os, state);
      os << ':' << arg.getType() << ' ';
    }
    os << '\n';
    for (Operation &op : block) {
      op.print(os, state);
      os << '\n';
    }
  }
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()),
                        text.size()));
  return {h.high64, h.low64};
}

/// The model is a pure function of that key, and compiles analyze the
/// same kernel many times: bwc-tile each candidate, bwc-select-layout's
/// fused programs under several labelings (tiled again), bwc-pad-channels,
/// bwc-tile in the pipeline, then the report. Shared by every context of
/// the process (the key holds no context data); bounded.
struct ModelMemo {
  std::mutex mutex;
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, KernelCoalescing> results;
  static constexpr size_t kMaxEntries = 1 << 14;
};

ModelMemo &modelMemo() {
  static ModelMemo memo;
  return memo;
}

} // namespace

FailureOr<KernelCoalescing>
mlir::bwc::analyzeCoalescing(func::FuncOp kernel, DictionaryAttr config) {
  if (kernel.isExternal())
    return kernel.emitError() << "expects a kernel with a body", failure();
  std::pair<uint64_t, uint64_t> key = modelKey(kernel, config);
  ModelMemo &memo = modelMemo();
  {
    std::lock_guard<std::mutex> lock(memo.mutex);
    if (auto it = memo.results.find(key); it != memo.results.end())
      return it->second;
  }
  // A failure is not kept: analyzing again reports its error again.
  FailureOr<KernelCoalescing> k = Model(kernel, config).run();
  if (succeeded(k)) {
    std::lock_guard<std::mutex> lock(memo.mutex);
    if (memo.results.size() >= ModelMemo::kMaxEntries)
      memo.results.clear();
    memo.results.try_emplace(key, *k);
  }
  return k;
}
