//===- EinsumOp.cpp - ONNX Einsum into transposes, matmuls, reductions ----===//
//
// An Einsum equation becomes the ops every later pass knows:
// - a label repeated within one operand (a diagonal) multiplies by an
//   identity mask and sums one copy out;
// - a label no later operand or the output needs is summed out at once;
// - operands fold left to right, each pair as one batched bwc.matmul:
//   [batch, left-only, contracted] x [batch, contracted, right-only];
// - the result is summed and transposed into the output's order.
// Ellipsis dims are labels of their own, aligned from the right, and
// broadcast between operands as numpy's einsum does. Without "->" the
// output is the labels that appear once, in alphabetical order, after the
// ellipsis dims.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Letters are their character; ellipsis dims are kEllipsis + position
/// counted from the right end of the ellipsis.
using Label = int;
constexpr Label kEllipsis = 1000;

/// An operand or partial result: a value and the label of each dim.
struct Term {
  Value value;
  SmallVector<Label> labels;
};

/// Parses one side ("ab...c") of `rank` dims, or of the ellipsis width
/// `ellipsisRank` when `rank` is negative (the output).
FailureOr<SmallVector<Label>> parseTerm(NodeContext &nc, StringRef text,
                                        int64_t rank, int64_t &ellipsisRank) {
  SmallVector<Label> labels;
  size_t dots = text.find("...");
  int64_t letters = 0;
  for (char c : text)
    if (c != '.') {
      if (!llvm::isAlpha(c))
        return nc.error() << "expects letters and '...' in the equation but "
                             "got '"
                          << c << "'",
               failure();
      ++letters;
    }
  if (dots != StringRef::npos && text.find("...", dots + 3) != StringRef::npos)
    return nc.error() << "expects at most one '...' per term", failure();
  int64_t width = 0;
  if (dots != StringRef::npos) {
    width = rank >= 0 ? rank - letters : ellipsisRank;
    if (width < 0)
      return nc.error() << "term '" << text << "' has more labels than its "
                        << rank << " dims",
             failure();
    if (rank >= 0)
      ellipsisRank = std::max(ellipsisRank, width);
  } else if (rank >= 0 && letters != rank) {
    return nc.error() << "term '" << text << "' has " << letters
                      << " labels for " << rank << " dims",
           failure();
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.') {
      for (int64_t j = width - 1; j >= 0; --j)
        labels.push_back(kEllipsis + j);
      i += 2;
      continue;
    }
    labels.push_back(text[i]);
  }
  return labels;
}

/// Sums out, in `t`, every label that `keep` does not hold, and takes the
/// diagonal of every label `t` holds twice.
void reduceTerm(BWCBuilder &bb, Term &t, ArrayRef<Label> keep) {
  // Diagonals: mask with the identity on (p, q), then sum q out.
  for (size_t p = 0; p < t.labels.size(); ++p) {
    for (size_t q = p + 1; q < t.labels.size(); ++q) {
      if (t.labels[q] != t.labels[p])
        continue;
      int64_t n = BWCBuilder::shapeOf(t.value)[p];
      Ints shape(t.labels.size(), 1);
      shape[p] = n;
      shape[q] = n;
      SmallVector<Attribute> eye;
      Type elt = BWCBuilder::elementTypeOf(t.value);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          eye.push_back(scalarAttr(elt, i == j ? 1.0 : 0.0));
      Value mask = bb.constant(
          DenseElementsAttr::get(RankedTensorType::get(shape, elt), eye));
      t.value = bb.reduce(ReduceKind::sum, bb.mul(t.value, mask),
                          {(int64_t)q}, /*keepDims=*/false);
      t.labels.erase(t.labels.begin() + q);
      --q;
    }
  }
  Ints axes;
  SmallVector<Label> kept;
  for (size_t d = 0; d < t.labels.size(); ++d) {
    if (llvm::is_contained(keep, t.labels[d]))
      kept.push_back(t.labels[d]);
    else
      axes.push_back(d);
  }
  if (!axes.empty())
    t.value = bb.reduce(ReduceKind::sum, t.value, axes, /*keepDims=*/false);
  t.labels = kept;
}

/// Transposes `t` so that its labels come in `order` (a permutation).
void permute(BWCBuilder &bb, Term &t, ArrayRef<Label> order) {
  Ints perm;
  for (Label l : order)
    perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    t.value = bb.transpose(t.value, perm);
  t.labels.assign(order.begin(), order.end());
}

int64_t sizeOf(const Term &t, Label l) {
  return BWCBuilder::shapeOf(t.value)[llvm::find(t.labels, l) - t.labels.begin()];
}

/// a x b as one batched matmul; both hold only labels `keep` needs or
/// labels they share.
Term contract(BWCBuilder &bb, Term a, Term b, ArrayRef<Label> keep) {
  SmallVector<Label> batch, contracted, left, right;
  for (Label l : a.labels) {
    bool inB = llvm::is_contained(b.labels, l);
    if (inB && llvm::is_contained(keep, l))
      batch.push_back(l);
    else if (inB)
      contracted.push_back(l);
    else
      left.push_back(l);
  }
  for (Label l : b.labels)
    if (!llvm::is_contained(a.labels, l))
      right.push_back(l);
  SmallVector<Label> aOrder(batch), bOrder(batch);
  llvm::append_range(aOrder, left);
  llvm::append_range(aOrder, contracted);
  llvm::append_range(bOrder, contracted);
  llvm::append_range(bOrder, right);
  permute(bb, a, aOrder);
  permute(bb, b, bOrder);
  // Ellipsis dims broadcast (1 against n) on shared labels.
  auto widen = [&](Term &t, Term &other) {
    Ints shape(BWCBuilder::shapeOf(t.value));
    bool changed = false;
    for (size_t d = 0; d < t.labels.size(); ++d)
      if (llvm::is_contained(other.labels, t.labels[d]) && shape[d] == 1 &&
          sizeOf(other, t.labels[d]) != 1) {
        shape[d] = sizeOf(other, t.labels[d]);
        changed = true;
      }
    if (changed)
      t.value = bb.broadcastTo(t.value, shape);
  };
  widen(a, b);
  widen(b, a);
  auto prod = [](const Term &t, ArrayRef<Label> ls) {
    int64_t p = 1;
    for (Label l : ls)
      p *= sizeOf(t, l);
    return p;
  };
  Ints resultShape;
  for (Label l : batch)
    resultShape.push_back(sizeOf(a, l));
  for (Label l : left)
    resultShape.push_back(sizeOf(a, l));
  for (Label l : right)
    resultShape.push_back(sizeOf(b, l));
  int64_t nb = prod(a, batch), m = prod(a, left), k = prod(a, contracted),
          n = prod(b, right);
  Value lhs = bb.reshape(a.value, {nb, m, k});
  Value rhs = bb.reshape(b.value, {nb, k, n});
  Term r;
  r.value = bb.reshape(bb.matmul(lhs, rhs), resultShape);
  r.labels = batch;
  llvm::append_range(r.labels, left);
  llvm::append_range(r.labels, right);
  return r;
}

LogicalResult importEinsum(NodeContext &nc, Results &out) {
  std::string equation;
  for (char c : nc.attrString("equation", ""))
    if (!llvm::isSpace(c))
      equation.push_back(c);
  StringRef eq(equation);
  auto [lhs, rhsPart] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if ((int)terms.size() != nc.numInputs() || terms.empty())
    return nc.error() << "equation '" << equation << "' has " << terms.size()
                      << " terms for " << nc.numInputs() << " inputs",
           failure();
  SmallVector<Term> operands;
  int64_t ellipsisRank = 0;
  for (auto [i, text] : llvm::enumerate(terms)) {
    FailureOr<Value> x = nc.requiredInput(i);
    if (failed(x))
      return failure();
    if (!isa<FloatType>(eltOf(*x)))
      return nc.error() << "expects float inputs", failure();
    FailureOr<SmallVector<Label>> labels =
        parseTerm(nc, text, rankOf(*x), ellipsisRank);
    if (failed(labels))
      return failure();
    operands.push_back({*x, *labels});
  }
  // One size per label (1 broadcasts, as numpy's einsum allows for the
  // ellipsis), also for a label repeated within one operand.
  llvm::DenseMap<Label, int64_t> sizes;
  for (const Term &t : operands)
    for (auto [d, l] : llvm::enumerate(t.labels)) {
      int64_t n = shapeOf(t.value)[d];
      auto [it, fresh] = sizes.try_emplace(l, n);
      bool repeated = llvm::count(t.labels, l) > 1;
      if (!fresh && it->second != n &&
          (repeated || (it->second != 1 && n != 1)))
        return nc.error() << "label '" << (l >= kEllipsis ? '.' : (char)l)
                          << "' has sizes " << it->second << " and " << n,
               failure();
      if (it->second == 1)
        it->second = n;
    }
  SmallVector<Label> output;
  if (explicitOutput) {
    FailureOr<SmallVector<Label>> labels =
        parseTerm(nc, rhsPart, -1, ellipsisRank);
    if (failed(labels))
      return failure();
    output = *labels;
  } else {
    for (int64_t j = ellipsisRank - 1; j >= 0; --j)
      output.push_back(kEllipsis + j);
    for (char c = 'A'; c <= 'z'; ++c) {
      int count = 0;
      for (const Term &t : operands)
        count += llvm::count(t.labels, (Label)c);
      if (count == 1)
        output.push_back(c);
    }
  }
  for (Label l : output)
    if (llvm::count(output, l) > 1 ||
        llvm::none_of(operands, [&](const Term &t) {
          return llvm::is_contained(t.labels, l);
        }))
      return nc.error() << "output label '"
                        << (l >= kEllipsis ? '.' : (char)l)
                        << "' is repeated or in no input",
             failure();
  // Labels needed after operand i: the output's and those of later ones.
  auto neededAfter = [&](size_t i) {
    SmallVector<Label> keep(output);
    for (size_t j = i + 1; j < operands.size(); ++j)
      llvm::append_range(keep, operands[j].labels);
    return keep;
  };
  BWCBuilder &bb = nc.bb;
  Term acc = operands[0];
  SmallVector<Label> keep0 = neededAfter(0);
  reduceTerm(bb, acc, keep0);
  for (size_t i = 1; i < operands.size(); ++i) {
    SmallVector<Label> keep = neededAfter(i);
    Term next = operands[i];
    SmallVector<Label> nextKeep(keep);
    llvm::append_range(nextKeep, acc.labels);
    reduceTerm(bb, next, nextKeep);
    SmallVector<Label> accKeep(keep);
    llvm::append_range(accKeep, next.labels);
    reduceTerm(bb, acc, accKeep);
    acc = contract(bb, acc, next, keep);
  }
  reduceTerm(bb, acc, output);
  permute(bb, acc, output);
  out.push_back(acc.value);
  return success();
}

} // namespace

void onnx_import::registerEinsumHandlers(HandlerTable &t) {
  t["Einsum"] = importEinsum;
}
