//===- GemmViewTest.cpp - The GEMM view computes the op -------------------===//
//
// GemmView's index arithmetic, instantiated on integers, must compute the
// op itself: for every (batch, m, n), sum over k of A * B (taps in the
// padding skipped) placed at resultIndex equals the direct convolution
// (matmul) at that element, in both layouts, with strides, dilations and
// asymmetric pads; gemmIndex inverts resultIndex.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/GemmView.h"

#include "bwc/Dialect/BWC/IR/BWCDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>
#include <random>

using namespace mlir;
using namespace mlir::bwc;

namespace {

int64_t numel(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}
int64_t linear(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t l = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    l = l * shape[d] + idx[d];
  return l;
}
SmallVector<int64_t> delinear(int64_t l, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    idx[d] = l % shape[d];
    l /= shape[d];
  }
  return idx;
}
std::vector<double> random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-4, 4); // exact sums
  std::vector<double> v(n);
  for (double &x : v)
    x = d(gen);
  return v;
}

class GemmViewTest : public ::testing::Test {
protected:
  GemmViewTest() { ctx.loadDialect<BWCDialect, func::FuncDialect>(); }
  Operation *parse(StringRef body) {
    module = parseSourceString<ModuleOp>(body, &ctx);
    EXPECT_TRUE(module);
    Operation *found = nullptr;
    module->walk([&](Operation *op) {
      if (isa<ConvOp, MatmulOp>(op))
        found = op;
    });
    return found;
  }
  /// Every result element through the view, then compared with `direct`
  /// (the element at a physical result index).
  void check(Operation *op,
             const std::function<double(ArrayRef<int64_t>)> &direct,
             const std::vector<double> &a, const std::vector<double> &b) {
    std::optional<GemmView> v = GemmView::get(op);
    ASSERT_TRUE(v);
    ArrayRef<int64_t> aShape = cast<ShapedType>(v->aTensor().getType()).getShape(),
                      bShape = cast<ShapedType>(v->bTensor().getType()).getShape(),
                      rShape = cast<ShapedType>(v->result().getType()).getShape();
    IntArith ar;
    std::vector<int> seen(numel(rShape), 0);
    for (int64_t bl = 0; bl < numel(v->batchShape); ++bl) {
      SmallVector<int64_t> batch = delinear(bl, v->batchShape);
      for (int64_t mi = 0; mi < v->m; ++mi)
        for (int64_t ni = 0; ni < v->n; ++ni) {
          double sum = 0;
          for (int64_t ki = 0; ki < v->k; ++ki) {
            GemmAccess<int64_t> x = v->a(ar, batch, mi, ki);
            GemmAccess<int64_t> y = v->b(ar, batch, ki, ni);
            if ((x.valid && !*x.valid) || (y.valid && !*y.valid))
              continue;
            sum += a[linear(x.index, aShape)] * b[linear(y.index, bShape)];
          }
          SmallVector<int64_t> r = v->resultIndex(ar, batch, mi, ni);
          ASSERT_EQ(r.size(), rShape.size());
          ++seen[linear(r, rShape)];
          EXPECT_EQ(sum, direct(r)) << "at m=" << mi << " n=" << ni;
          SmallVector<int64_t> back = v->gemmIndex(ar, r);
          SmallVector<int64_t> expect(batch);
          expect.push_back(mi);
          expect.push_back(ni);
          EXPECT_EQ(back, expect);
        }
    }
    for (int s : seen)
      EXPECT_EQ(s, 1); // every result element exactly once
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

// A 2-D convolution, logical input [2, 3, 7, 6], filter [4, 3, 3, 2],
// strides [2, 1], dilations [1, 2], pads [1, 0, 1, 1]: result
// [2, 4, 4, 5]. `last`: the same in channels_last.
void convCase(GemmViewTest *t, bool last,
              const std::function<Operation *(StringRef)> &parse,
              const std::function<void(Operation *,
                                       std::function<double(ArrayRef<int64_t>)>,
                                       std::vector<double>, std::vector<double>)>
                  &check) {
  SmallVector<int64_t> in = {2, 3, 7, 6}, w = {4, 3, 3, 2}, out = {2, 4, 4, 5};
  SmallVector<int64_t> st = {2, 1}, dl = {1, 2}, padLo = {1, 0};
  std::string text =
      last ? "func.func @f(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>) "
             "-> tensor<2x4x5x4xf32> {\n  %0 = bwc.conv %x, %w strides = [2, "
             "1] dilations = [1, 2] pads = [1, 0, 1, 1] groups = 1 "
             "{channels_last} : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>) -> "
             "tensor<2x4x5x4xf32>\n  return %0 : tensor<2x4x5x4xf32>\n}"
           : "func.func @f(%x: tensor<2x3x7x6xf32>, %w: tensor<4x3x3x2xf32>) "
             "-> tensor<2x4x4x5xf32> {\n  %0 = bwc.conv %x, %w strides = [2, "
             "1] dilations = [1, 2] pads = [1, 0, 1, 1] groups = 1 : "
             "(tensor<2x3x7x6xf32>, tensor<4x3x3x2xf32>) -> "
             "tensor<2x4x4x5xf32>\n  return %0 : tensor<2x4x4x5xf32>\n}";
  Operation *op = parse(text);
  ASSERT_TRUE(op);
  auto conv = cast<ConvOp>(op);
  SmallVector<int64_t> dataPerm = conv.getDataPerm(),
                       filterPerm = conv.getFilterPerm();
  auto physShape = [](ArrayRef<int64_t> logical, ArrayRef<int64_t> perm) {
    SmallVector<int64_t> s;
    for (int64_t p : perm)
      s.push_back(logical[p]);
    return s;
  };
  SmallVector<int64_t> inP = physShape(in, dataPerm), wP = physShape(w, filterPerm);
  std::vector<double> x = random(numel(in), 1), f = random(numel(w), 2);
  auto at = [&](const std::vector<double> &data, ArrayRef<int64_t> logical,
                ArrayRef<int64_t> perm, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> p;
    for (int64_t d : perm)
      p.push_back(logical[d]);
    return data[linear(p, shape)];
  };
  auto direct = [&](ArrayRef<int64_t> physical) {
    SmallVector<int64_t> o(physical.size());
    for (auto [i, p] : llvm::enumerate(dataPerm))
      o[p] = physical[i];
    double sum = 0;
    for (int64_t c = 0; c < in[1]; ++c)
      for (int64_t kh = 0; kh < w[2]; ++kh)
        for (int64_t kw = 0; kw < w[3]; ++kw) {
          int64_t ih = o[2] * st[0] + kh * dl[0] - padLo[0];
          int64_t iw = o[3] * st[1] + kw * dl[1] - padLo[1];
          if (ih < 0 || ih >= in[2] || iw < 0 || iw >= in[3])
            continue;
          sum += at(x, {o[0], c, ih, iw}, dataPerm, inP) *
                 at(f, {o[1], c, kh, kw}, filterPerm, wP);
        }
    return sum;
  };
  // A is the filter (channels-first) or the input (channels_last).
  if (last)
    check(op, direct, x, f);
  else
    check(op, direct, f, x);
  (void)t;
  (void)out;
}

TEST_F(GemmViewTest, ConvChannelsFirst) {
  convCase(
      this, false, [&](StringRef s) { return parse(s); },
      [&](Operation *op, auto d, auto a, auto b) { check(op, d, a, b); });
  EXPECT_EQ(GemmView::get(parse("func.func @f(%x: tensor<2x3x7x6xf32>, %w: "
                                "tensor<4x3x3x2xf32>) -> tensor<2x4x4x5xf32> "
                                "{\n  %0 = bwc.conv %x, %w strides = [2, 1] "
                                "dilations = [1, 2] pads = [1, 0, 1, 1] groups "
                                "= 1 : (tensor<2x3x7x6xf32>, "
                                "tensor<4x3x3x2xf32>) -> tensor<2x4x4x5xf32>\n"
                                "  return %0 : tensor<2x4x4x5xf32>\n}"))
                ->k,
            18);
}

TEST_F(GemmViewTest, ConvChannelsLast) {
  convCase(
      this, true, [&](StringRef s) { return parse(s); },
      [&](Operation *op, auto d, auto a, auto b) { check(op, d, a, b); });
}

TEST_F(GemmViewTest, BroadcastMatmul) {
  Operation *op = parse(
      "func.func @f(%a: tensor<2x1x5x4xf32>, %b: tensor<3x4x6xf32>) -> "
      "tensor<2x3x5x6xf32> {\n  %0 = bwc.matmul %a, %b : "
      "(tensor<2x1x5x4xf32>, tensor<3x4x6xf32>) -> tensor<2x3x5x6xf32>\n  "
      "return %0 : tensor<2x3x5x6xf32>\n}");
  ASSERT_TRUE(op);
  std::vector<double> a = random(2 * 5 * 4, 3), b = random(3 * 4 * 6, 4);
  check(
      op,
      [&](ArrayRef<int64_t> r) {
        double sum = 0;
        for (int64_t k = 0; k < 4; ++k)
          sum += a[linear({r[0], 0, r[2], k}, {2, 1, 5, 4})] *
                 b[linear({r[1], k, r[3]}, {3, 4, 6})];
        return sum;
      },
      a, b);
}

TEST_F(GemmViewTest, NoViewForGroupsOrTransposed) {
  EXPECT_FALSE(GemmView::get(parse(
      "func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> "
      "tensor<1x4x5x5xf32> {\n  %0 = bwc.conv %x, %w strides = [1, 1] "
      "dilations = [1, 1] pads = [1, 1, 1, 1] groups = 4 : "
      "(tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32>\n  "
      "return %0 : tensor<1x4x5x5xf32>\n}")));
}

} // namespace
