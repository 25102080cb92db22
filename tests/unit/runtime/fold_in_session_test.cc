// Folding as the session uses it: a weight_norm convolution (filter computed in the graph)
// becomes one oneDNN region with nothing left on the reference kernels, and folded and
// unfolded graphs give the same outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;

// weight_norm(Conv1d(8, 6, 3, padding=1, groups=2)) as conv2d with H = 1.
std::shared_ptr<const Graph> weight_norm_conv() {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 8, 1, 11}});
  const auto v = b.constant("v", seeded({6, 4, 1, 3}, 1));
  const auto gain = b.constant("g", seeded({6, 1, 1, 1}, 2));
  const auto norm = b.add1(OpKind::kReduceL2, {v},
                           {{"axes", std::vector<int64_t>{1, 2, 3}}, {"keepDimensions", true}});
  const auto w = b.add1(OpKind::kMul, {gain, b.add1(OpKind::kDiv, {v, norm})}, {}, "w");
  b.output(b.add1(OpKind::kConv2d, {x, w},
                  {{"padding", std::vector<int64_t>{0, 0, 1, 1}},
                   {"groups", int64_t(2)},
                   {"bias", b.constant("bias", seeded({6}, 3))}},
                  "y"));
  return g;
}

std::vector<float> run_once(const Session& s, const Tensor& x) {
  const auto out = s.run(std::vector<NamedView>{{"x", x.view()}});
  const float* p = out.at(0).tensor.view().as<float>();
  return {p, p + out[0].tensor.size()};
}

TEST(FoldInSession, WeightNormConvIsOneRegionWithNothingOutside) {
  const Session s(weight_norm_conv(), {"onednn", 1, true, false});
  const auto& part = s.execution_plan().partition;
  EXPECT_EQ(s.execution_plan().folded_nodes, 3u);
  ASSERT_EQ(part.regions.size(), 1u);
  EXPECT_EQ(part.regions[0].delegate, "onednn");
  EXPECT_EQ(s.graph().nodes().size(), 1u);
  for (int r : part.region_of) EXPECT_EQ(r, 0);
}

TEST(FoldInSession, WithoutFoldingTheConvFallsBackNamingTheFilter) {
  const Session s(weight_norm_conv(), {"onednn", 1, false, false});
  const auto& part = s.execution_plan().partition;
  const auto& nodes = s.graph().nodes();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[3].op(), OpKind::kConv2d);
  EXPECT_EQ(part.region_of[3], -1);
  EXPECT_NE(part.ref_reason[3].find("filter 'w' is not a constant"), std::string::npos)
      << part.ref_reason[3];
  const auto warning = fallback_warning(s.execution_plan());
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("1 conv2d/convTranspose2d/gemm/matmul node run"), std::string::npos)
      << *warning;
}

TEST(FoldInSession, FoldedAndUnfoldedGraphsGiveTheSameOutputs) {
  const auto g = weight_norm_conv();
  const Tensor x = seeded({1, 8, 1, 11}, 4);
  const auto reference = run_once(Session(g, {"ref", 1}), x);
  const auto unfolded = run_once(Session(g, {"onednn", 1, false, false}), x);
  const auto folded = run_once(Session(g, {"onednn", 2, true, false}), x);
  ASSERT_EQ(reference.size(), 66u);
  ASSERT_EQ(folded.size(), reference.size());
  for (size_t i = 0; i < folded.size(); ++i) {
    EXPECT_NEAR(folded[i], reference[i], 1e-5 + 1e-5 * std::abs(reference[i])) << i;
    EXPECT_NEAR(unfolded[i], reference[i], 1e-5 + 1e-5 * std::abs(reference[i])) << i;
  }
  // Not all zeros: the check above is not trivially true.
  double sum = 0;
  for (float v : reference) sum += std::abs(v);
  EXPECT_GT(sum, 1.0);
}

}  // namespace
}  // namespace wnn::runtime
