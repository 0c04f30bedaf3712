//===- GemmView.h - A matmul or convolution as a batch of GEMMs -*- C++ -*-===//
//
// One description of which element of which operand a tiled contraction
// reads, shared by everything that must agree on it: the CUDA
// contraction_tiled driver and the CPU elemental check (IR values,
// include/bwc/Target/Elemental/GemmEmit.h) and the access model (integers).
// The index arithmetic is written once, as templates over an arithmetic
// `Ar` (IntArith below, or the IR builder's), so the three cannot drift.
//
// result[b](m, n) = sum over k < K of A[b](m, k) * B[b](k, n)  (+ conv bias)
//
// - matmul [..., M, K] x [..., K, N]: A = lhs, B = rhs, numpy-broadcast
//   batch dims (a size-1 operand dim reads index 0).
// - direct convolution, groups 1, logical input [N, C, D...], filter
//   [F, C, K...], result [N, F, O...]; the batch is the image n:
//   - channels-first: M = F, N = prod(O), K = C x prod(K) (c outer):
//     A(f, k) = filter[f, c, kpos], B(k, p) = input[n, c, o(p) * s +
//     kpos * d - pad], result[n, f, o(p)];
//   - channels_last (NHWC data, [K..., C, F] filter): M = prod(O), N = F,
//     K = prod(K) x C (c inner): A(p, k) = input[n, pos, c], B(k, f) =
//     filter[kpos, c, f] (K x F row-major), result[n, o(p), f].
//   A tap in the padding reads a clamped in-bounds element and is marked
//   invalid (it contributes 0).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_GEMMVIEW_H
#define BWC_ANALYSIS_GEMMVIEW_H

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include <optional>

namespace mlir::bwc {

/// Integer instantiation of the view's arithmetic (the access model).
struct IntArith {
  using V = int64_t;
  V c(int64_t x) { return x; }
  V add(V a, V b) { return a + b; }
  V mulC(V a, int64_t k) { return a * k; }
  V divC(V a, int64_t k) { return a / k; }
  V remC(V a, int64_t k) { return a % k; }
  /// 0 <= a < n (1 or 0).
  V inRange(V a, int64_t n) { return a >= 0 && a < n; }
  V andB(V a, V b) { return a && b; }
  V clamp(V a, int64_t lo, int64_t hi) { return a < lo ? lo : a > hi ? hi : a; }
};

/// Where one element of an operand comes from: `index` (physical, into
/// the operand tensor; always in bounds) and, for taps that may fall in
/// a convolution's padding, `valid` (the element counts only when true).
template <typename V> struct GemmAccess {
  SmallVector<V> index;
  std::optional<V> valid;
};

struct GemmView {
  enum class Kind { Matmul, ConvChannelsFirst, ConvChannelsLast };
  Operation *op = nullptr;
  Kind kind = Kind::Matmul;
  /// Result batch dims (matmul) or {images} (convolution).
  SmallVector<int64_t> batchShape;
  int64_t m = 0, n = 0, k = 0;

  /// The view of a bwc.matmul (operands of rank >= 2) or of a direct
  /// bwc.conv with groups 1; none for anything else.
  static std::optional<GemmView> get(Operation *op);

  /// The tensors A and B read (matmul lhs/rhs; conv filter/input).
  Value aTensor() const;
  Value bTensor() const;
  /// The conv's bias ([F]) or null; its element for output (m, n) is at
  /// index `biasAlongM() ? m : n`.
  Value bias() const;
  bool biasAlongM() const { return kind == Kind::ConvChannelsFirst; }

  /// Whether operand A (`isA`: along k) or B (along n) can be staged in
  /// 16-byte chunks of `chunk` consecutive elements starting at multiples
  /// of `chunk` (cp.async): the operand is a kernel argument (not computed
  /// in the kernel, or only reshaped: chunkSource) of 16 / `chunk`-byte
  /// elements, the extent along the
  /// chunk is
  /// a multiple of `chunk`, and in every batch and row the chunk's elements
  /// are consecutive in memory from a multiple of `chunk`, all valid or all
  /// in a convolution's padding. Checked on the view's own index
  /// arithmetic (the first, second and last row of the first and last
  /// batch, every chunk along the row). A row of more than
  /// kMaxCheckedChunks chunks is refused unchecked (bounded compile time).
  bool copiesChunks(bool isA, int64_t chunk) const;
  /// The kernel argument `t` is, or is a chain of bwc.reshape of (row-major
  /// order kept: the argument's linear index is `t`'s), else null: the
  /// buffer a chunked copy reads.
  static BlockArgument chunkSource(Value t);
  static constexpr int64_t kMaxCheckedChunks = int64_t(1) << 14;
  /// The op's result (the value a driver binds to its sums).
  Value result() const { return op->getResult(0); }

  template <typename Ar>
  GemmAccess<typename Ar::V> a(Ar &ar, ArrayRef<typename Ar::V> batch,
                               typename Ar::V mi, typename Ar::V ki) const {
    if (kind == Kind::Matmul)
      return {matmulOperand(ar, batch, lhsShape, mi, ki), std::nullopt};
    if (kind == Kind::ConvChannelsFirst)
      return {filterIndex(ar, mi, ki), std::nullopt};
    return inputIndex(ar, batch[0], mi, ki);
  }
  template <typename Ar>
  GemmAccess<typename Ar::V> b(Ar &ar, ArrayRef<typename Ar::V> batch,
                               typename Ar::V ki, typename Ar::V ni) const {
    if (kind == Kind::Matmul)
      return {matmulOperand(ar, batch, rhsShape, ki, ni), std::nullopt};
    if (kind == Kind::ConvChannelsFirst)
      return inputIndex(ar, batch[0], ni, ki);
    return {filterIndex(ar, ni, ki), std::nullopt};
  }
  /// The physical index of result element (batch, mi, ni).
  template <typename Ar>
  SmallVector<typename Ar::V> resultIndex(Ar &ar,
                                          ArrayRef<typename Ar::V> batch,
                                          typename Ar::V mi,
                                          typename Ar::V ni) const {
    using V = typename Ar::V;
    SmallVector<V> idx(batch.begin(), batch.end());
    if (kind == Kind::Matmul) {
      idx.push_back(mi);
      idx.push_back(ni);
      return idx;
    }
    bool first = kind == Kind::ConvChannelsFirst;
    idx.push_back(first ? mi : ni); // f
    for (V o : delinearize(ar, first ? ni : mi, outSpatial))
      idx.push_back(o);
    return permute<V>(idx, dataPerm);
  }

  /// Inverse of resultIndex: (batch..., m, n) of the physical result
  /// index `idx` (the CPU check walks the result and asks for each
  /// element's view coordinates).
  template <typename Ar>
  SmallVector<typename Ar::V>
  gemmIndex(Ar &ar, ArrayRef<typename Ar::V> idx) const {
    using V = typename Ar::V;
    if (kind == Kind::Matmul)
      return SmallVector<V>(idx.begin(), idx.end());
    // Logical [n, f, o...] of the physical index.
    SmallVector<V> logical(idx.size());
    for (auto [i, p] : llvm::enumerate(dataPerm))
      logical[p] = idx[i];
    V p = ar.c(0);
    for (size_t s = 0; s < outSpatial.size(); ++s)
      p = ar.add(ar.mulC(p, outSpatial[s]), logical[2 + s]);
    if (kind == Kind::ConvChannelsFirst)
      return {logical[0], logical[1], p};
    return {logical[0], p, logical[1]};
  }

private:
  // Matmul.
  SmallVector<int64_t> lhsShape, rhsShape;
  // Convolution: logical shapes, window, physical permutations.
  SmallVector<int64_t> inShape, inSpatial, outSpatial, kernelSpatial;
  SmallVector<int64_t> strides, dilations, padsLo, dataPerm, filterPerm;
  int64_t channels = 0;
  int64_t taps = 1; // prod(kernelSpatial)

  template <typename V>
  static SmallVector<V> permute(ArrayRef<V> logical, ArrayRef<int64_t> perm) {
    SmallVector<V> out;
    for (int64_t p : perm)
      out.push_back(logical[p]);
    return out;
  }
  template <typename Ar>
  static SmallVector<typename Ar::V> delinearize(Ar &ar, typename Ar::V x,
                                                 ArrayRef<int64_t> shape) {
    SmallVector<typename Ar::V> out(shape.size());
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      out[d] = d == 0 ? x : ar.remC(x, shape[d]);
      if (d > 0)
        x = ar.divC(x, shape[d]);
    }
    return out;
  }
  template <typename Ar>
  SmallVector<typename Ar::V>
  matmulOperand(Ar &ar, ArrayRef<typename Ar::V> batch,
                ArrayRef<int64_t> shape, typename Ar::V row,
                typename Ar::V col) const {
    SmallVector<typename Ar::V> idx;
    size_t rank = shape.size(), offset = batch.size() + 2 - rank;
    for (size_t d = 0; d + 2 < rank; ++d)
      idx.push_back(shape[d] == 1 ? ar.c(0) : batch[d + offset]);
    idx.push_back(row);
    idx.push_back(col);
    return idx;
  }
  /// (c, kpos...) of reduction index `ki`: c outer (channels-first) or
  /// inner (channels_last).
  template <typename Ar>
  std::pair<typename Ar::V, SmallVector<typename Ar::V>>
  channelAndTap(Ar &ar, typename Ar::V ki) const {
    if (kind == Kind::ConvChannelsFirst)
      return {ar.divC(ki, taps), delinearize(ar, ar.remC(ki, taps),
                                             kernelSpatial)};
    return {ar.remC(ki, channels),
            delinearize(ar, ar.divC(ki, channels), kernelSpatial)};
  }
  template <typename Ar>
  SmallVector<typename Ar::V> filterIndex(Ar &ar, typename Ar::V f,
                                          typename Ar::V ki) const {
    auto [c, tap] = channelAndTap(ar, ki);
    SmallVector<typename Ar::V> logical = {f, c};
    logical.append(tap.begin(), tap.end());
    return permute<typename Ar::V>(logical, filterPerm);
  }
  template <typename Ar>
  GemmAccess<typename Ar::V> inputIndex(Ar &ar, typename Ar::V image,
                                        typename Ar::V p,
                                        typename Ar::V ki) const {
    using V = typename Ar::V;
    auto [c, tap] = channelAndTap(ar, ki);
    SmallVector<V> o = delinearize(ar, p, outSpatial);
    SmallVector<V> logical = {image, c};
    std::optional<V> valid;
    for (size_t s = 0; s < outSpatial.size(); ++s) {
      V pos = ar.add(ar.add(ar.mulC(o[s], strides[s]),
                            ar.mulC(tap[s], dilations[s])),
                     ar.c(-padsLo[s]));
      V in = ar.inRange(pos, inSpatial[s]);
      valid = valid ? ar.andB(*valid, in) : in;
      logical.push_back(ar.clamp(pos, 0, inSpatial[s] - 1));
    }
    return {permute<V>(logical, dataPerm), valid};
  }
};

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_GEMMVIEW_H
