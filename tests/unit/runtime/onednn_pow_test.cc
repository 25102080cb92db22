// pow on oneDNN: a constant exponent 2 (an STFT's |X|^2 in PyTorch exports) runs in the region
// as eltwise_square, equal to x * x; any other exponent, a computed or many-element one (also
// all 2s), or a base the exponent broadcasts stays on the reference kernels with the reason.
#include <gtest/gtest.h>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;

Tensor filled(Shape shape, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t.mutable_view().as<float>()[i] = v;
  return t;
}

// x [3, 5, 7] -> neg (exact on both) -> pow(., exponent) -> "y"; the pow is node 1.
std::shared_ptr<const Graph> pow_graph(Shape exponent_shape, float exponent, bool computed = false,
                                       Shape base_shape = {3, 5, 7}) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, base_shape});
  const auto t = b.add1(OpKind::kNeg, {x});
  OperandId e = b.constant("e", filled(std::move(exponent_shape), exponent));
  if (computed) e = b.input("e_in", {DataType::kFloat32, {}});
  b.output(b.add1(OpKind::kPow, {t, e}, {}, "y"));
  return g;
}

TEST(OnednnPow, SquareRunsInTheRegionAsXTimesX) {
  for (const Shape& es : {Shape{}, Shape{1}, Shape{1, 1, 1}}) {
    const auto g = pow_graph(es, 2);
    const Session s(g, {"onednn", 2, true, false});
    const auto& part = s.execution_plan().partition;
    ASSERT_EQ(part.region_of.size(), 2u);
    EXPECT_GE(part.region_of[1], 0) << part.ref_reason[1];
    const Tensor x = seeded({3, 5, 7}, 11);
    const auto got = s.run(std::vector<NamedView>{{"x", x.view()}});
    const auto want = Session(g, {"ref", 1}).run(std::vector<NamedView>{{"x", x.view()}});
    const float* a = got[0].tensor.view().as<float>();
    const float* r = want[0].tensor.view().as<float>();
    const float* in = x.view().as<float>();
    for (int64_t i = 0; i < x.size(); ++i) {
      const float t = -in[i];
      EXPECT_EQ(a[i], r[i]) << i;
      EXPECT_FLOAT_EQ(a[i], t * t) << i;
    }
  }
}

TEST(OnednnPow, OtherExponentsStayOnReference) {
  for (const auto& g : {pow_graph({}, 3), pow_graph({}, 0.5f), pow_graph({}, -2),
                        pow_graph({2}, 2, false, {3, 5, 2}), pow_graph({}, 2, true),
                        pow_graph({3, 5, 7}, 2), pow_graph({5, 7}, 2, false, {5, 1})}) {
    const Session s(g, {"onednn", 1, true, false});
    const auto& part = s.execution_plan().partition;
    EXPECT_LT(part.region_of[1], 0);
    EXPECT_NE(part.ref_reason[1].find("onednn"), std::string::npos) << part.ref_reason[1];
  }
}

}  // namespace
}  // namespace wnn::runtime
