// reduceSum and reduceMean over middle axes run as a matmul against ones on oneDNN
// (runtime/onednn/reduce_matmul.cc); innermost and scattered axes keep the reduction
// primitive. Every form must equal the reference kernels.
#include <gtest/gtest.h>

#include <algorithm>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using Ints = std::vector<int64_t>;
using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;

TEST(OnednnReduceMatmul, MiddleAxesMatchReferenceOnPlainScaledAndTransposedInputs) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 5, 3, 7}});
  Tensor c = Tensor::zeros(DataType::kFloat32, {});
  *c.mutable_view().as<float>() = -2.5f;
  // The attention-weights average: a sum over heads, then a division.
  b.output(b.add1(OpKind::kReduceSum, {x}, {{"axes", Ints{1}}}, "sum1"));
  b.output(
      b.add1(OpKind::kReduceMean, {x}, {{"axes", Ints{1, 2}}, {"keepDimensions", true}}, "mean12"));
  // Through a transposed view ([2, 3, 5, 7]) and a scaled one.
  const auto t = b.add1(OpKind::kTranspose, {x}, {{"permutation", Ints{0, 2, 1, 3}}});
  b.output(b.add1(OpKind::kReduceSum, {t}, {{"axes", Ints{2}}}, "sum_t"));
  const auto s = b.add1(OpKind::kMul, {x, b.constant("c", c)});
  b.output(b.add1(OpKind::kReduceMean, {s}, {{"axes", Ints{0}}}, "mean_s"));
  // Kept on the reduction primitive: innermost axes, and axes with a gap.
  b.output(b.add1(OpKind::kReduceSum, {x}, {{"axes", Ints{2, 3}}}, "sum_inner"));
  b.output(b.add1(OpKind::kReduceMean, {x}, {{"axes", Ints{0, 2}}}, "mean_gap"));
  const Tensor xv = seeded({2, 5, 3, 7}, 41);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  // Six reductions; the only copies are those of graph outputs held elsewhere, none of them
  // for the transposed or scaled inputs.
  EXPECT_EQ(std::count_if(labels.begin(), labels.end(),
                          [](const std::string& l) { return l.rfind("reorder", 0) == 0; }),
            0)
      << ::testing::PrintToString(labels);
}

}  // namespace
}  // namespace wnn::runtime
