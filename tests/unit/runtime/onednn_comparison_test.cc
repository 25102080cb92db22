// equal and notEqual on oneDNN (binary_eq and binary_ne writing uint8) and pooling of row-major
// NCHW values (held channels-last for oneDNN's jit kernel): a detector's peak test `x ==
// maxPool(x)` over its score map (tf2onnx: Equal, Cast, Mul after a MaxPool) stays in the region
// instead of splitting it around reference nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::seeded;

// a [2, 3, 4, 5] and b: seeded, with ties, NaNs in either operand and a +0 / -0 pair.
struct Operands {
  Tensor a, b;
};
Operands operands(const Shape& b_shape) {
  Operands o{seeded({2, 3, 4, 5}, 21), seeded(b_shape, 22)};
  float* a = o.a.mutable_view().as<float>();
  float* b = o.b.mutable_view().as<float>();
  const int64_t n = o.b.size();
  for (int64_t i = 0; i < n; i += 3) a[i] = b[i];  // ties where b is not broadcast
  a[1] = std::numeric_limits<float>::quiet_NaN();
  b[2] = std::numeric_limits<float>::quiet_NaN();
  a[4] = 0.0f;
  b[4] = -0.0f;
  return o;
}

// cmp(a, b) -> "k" (uint8), and cast(k, float32) * a -> "y"; or with the operands swapped.
std::shared_ptr<const Graph> comparison(OpKind op, const Shape& b_shape, bool swapped) {
  auto g = std::make_shared<Graph>();
  GraphBuilder gb(*g);
  const auto a = gb.input("a", {DataType::kFloat32, {2, 3, 4, 5}});
  const auto b = gb.input("b", {DataType::kFloat32, b_shape});
  const auto k = swapped ? gb.add1(op, {b, a}, {}, "k") : gb.add1(op, {a, b}, {}, "k");
  const auto f = gb.add1(OpKind::kCast, {k, DataType::kFloat32});
  gb.output(k);
  gb.output(gb.add1(OpKind::kMul, {f, a}, {}, "y"));
  return g;
}

TEST(OnednnComparison, EqualityRunsInTheRegionAndMatchesTheReference) {
  for (OpKind op : {OpKind::kEqual, OpKind::kNotEqual}) {
    // b full-size, b broadcast, and b broadcast as the first operand.
    for (const auto& [b_shape, swapped] :
         {std::pair{Shape{2, 3, 4, 5}, false}, std::pair{Shape{4, 1}, false},
          std::pair{Shape{3, 1, 5}, true}}) {
      SCOPED_TRACE(std::string(op_name(op)) + (swapped ? " swapped" : ""));
      const auto g = comparison(op, b_shape, swapped);
      const Operands o = operands(b_shape);
      const std::vector<NamedView> in{{"a", o.a.view()}, {"b", o.b.view()}};
      const auto want = Session(g, {"ref", 1}).run(in);
      for (int threads : {1, 2}) {
        const Session s(g, {"onednn", threads, true, false});
        const auto& part = s.execution_plan().partition;
        // Full-size operands run jit; a broadcast one with a uint8 result ran oneDNN's
        // reference implementation, which is refused (the comparison goes to wnn's kernel).
        if (b_shape == Shape{2, 3, 4, 5}) {
          ASSERT_EQ(part.regions.size(), 1u);
          ASSERT_GE(part.region_of[0], 0) << part.ref_reason[0];
        } else if (part.region_of[0] < 0) {
          EXPECT_NE(part.ref_reason[0].find("reference implementation"), std::string::npos)
              << part.ref_reason[0];
        }
        const auto got = s.run(in);
        ASSERT_EQ(got[0].tensor.dtype, DataType::kUint8);
        const uint8_t* k = got[0].tensor.view().as<uint8_t>();
        const uint8_t* kr = want[0].tensor.view().as<uint8_t>();
        int ones = 0;
        for (int64_t i = 0; i < got[0].tensor.size(); ++i) {
          ASSERT_EQ(k[i], kr[i]) << i;
          ones += k[i];
        }
        EXPECT_GT(ones, 0);
        EXPECT_LT(ones, got[0].tensor.size());
        const float* y = got[1].tensor.view().as<float>();
        const float* yr = want[1].tensor.view().as<float>();
        for (int64_t i = 0; i < got[1].tensor.size(); ++i) {
          if (std::isnan(yr[i])) {
            EXPECT_TRUE(std::isnan(y[i])) << i;
          } else {
            ASSERT_EQ(y[i], yr[i]) << i;
          }
        }
      }
    }
  }
}

TEST(OnednnComparison, OrderedComparisonsStayOnTheReference) {
  // oneDNN's binary_gt says NaN > b: the ordered comparisons are not lowered.
  for (OpKind op :
       {OpKind::kGreater, OpKind::kGreaterOrEqual, OpKind::kLesser, OpKind::kLesserOrEqual}) {
    const auto g = comparison(op, {2, 3, 4, 5}, false);
    const Session s(g, {"onednn", 1, true, false});
    const auto& part = s.execution_plan().partition;
    EXPECT_LT(part.region_of[0], 0) << op_name(op);
    EXPECT_NE(part.ref_reason[0].find("no lowering"), std::string::npos) << part.ref_reason[0];
  }
}

TEST(OnednnComparison, BothOperandsBroadcastStaysOnTheReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder gb(*g);
  const auto a = gb.input("a", {DataType::kFloat32, {3, 1}});
  const auto b = gb.input("b", {DataType::kFloat32, {1, 4}});
  gb.output(gb.add1(OpKind::kEqual, {a, b}, {}, "k"));
  const Session s(g, {"onednn", 1, true, false});
  const auto& part = s.execution_plan().partition;
  EXPECT_LT(part.region_of[0], 0);
  EXPECT_NE(part.ref_reason[0].find("both operands broadcast"), std::string::npos)
      << part.ref_reason[0];
}

// x -> sigmoid -> pool(3x3, padding 1) -> "p", and x == p (the peak test).
std::shared_ptr<const Graph> peaks(OpKind pool, const Shape& shape) {
  auto g = std::make_shared<Graph>();
  GraphBuilder gb(*g);
  const auto x = gb.input("x", {DataType::kFloat32, shape});
  const auto s = gb.add1(OpKind::kSigmoid, {x});
  const auto p = gb.add1(
      pool, {s}, {{"windowDimensions", IntList{3, 3}}, {"padding", IntList{1, 1, 1, 1}}}, "p");
  gb.output(p);
  gb.output(gb.add1(OpKind::kCast, {gb.add1(OpKind::kEqual, {s, p}), DataType::kFloat32}, {}, "k"));
  return g;
}

TEST(OnednnComparison, PoolingOfRowMajorNchwRunsTheJitKernel) {
  // One channel (channels-last is the same bytes) and three (a reorder first); max and
  // average; odd sizes.
  for (const Shape& shape : {Shape{1, 1, 9, 11}, Shape{2, 3, 7, 6}}) {
    for (OpKind pool : {OpKind::kMaxPool2d, OpKind::kAveragePool2d}) {
      const auto g = peaks(pool, shape);
      const Tensor x = seeded(shape, 23);
      const std::vector<NamedView> in{{"x", x.view()}};
      Session s(g, {"onednn", 1, true, false});
      EXPECT_EQ(s.execution_plan().partition.regions.size(), 1u);
      s.set_profiling(true);
      s.run(in);
      bool pooled = false;
      for (const auto& row : s.profile()) {
        if (row.op != op_name(pool)) continue;
        pooled = true;
        EXPECT_EQ(row.kernel.rfind("simple_nchw", 0), std::string::npos) << row.kernel;
      }
      EXPECT_TRUE(pooled);
      expect_same_as_reference(g, in);
    }
  }
}

}  // namespace
}  // namespace wnn::runtime
