#include "wnn/validate/compare.h"

#include <gtest/gtest.h>

#include "wnn/core/builder.h"
#include "wnn/onnx/registry.h"

#include <cmath>
#include <limits>

namespace wnn::validate {
namespace {

Tensor floats(Shape shape, std::vector<float> v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, shape);
  std::copy(v.begin(), v.end(), t.mutable_view().as<float>());
  return t;
}

TEST(Compare, MetricsMatchHandComputedValues) {
  // a - r = [0.1, -0.2, 0, 0.4]; |r| = [1, 2, 0.5, 4]
  const Tensor a = floats({4}, {1.1f, -2.2f, 0.5f, 4.4f});
  const Tensor r = floats({4}, {1.0f, -2.0f, 0.5f, 4.0f});
  const OutputMetrics m = compare_tensors(a.view(), r.view(), {0.05, 0.1});
  // allowed = 0.05 + 0.1|r| = [0.15, 0.25, 0.1, 0.45] -> every element passes
  EXPECT_EQ(m.failing, 0);
  EXPECT_TRUE(m.pass);
  EXPECT_NEAR(m.max_abs, 0.4, 1e-6);
  EXPECT_NEAR(m.mean_abs, 0.7 / 4, 1e-6);
  EXPECT_NEAR(m.rmse, std::sqrt((0.01 + 0.04 + 0.16) / 4), 1e-6);
  EXPECT_NEAR(m.max_normalized, 0.4 / 0.45, 1e-5);  // 0.1/0.15=0.667, 0.2/0.25=0.8, 0.889
  const double dot = 1.1 * 1 + 2.2 * 2 + 0.25 + 4.4 * 4;
  const double na = std::sqrt(1.21 + 4.84 + 0.25 + 19.36), nr = std::sqrt(1 + 4 + 0.25 + 16);
  ASSERT_TRUE(m.cosine.has_value());
  EXPECT_NEAR(*m.cosine, dot / (na * nr), 1e-6);

  const OutputMetrics tight = compare_tensors(a.view(), r.view(), {0.0, 0.09});
  // allowed = 0.09|r| = [0.09, 0.18, 0.045, 0.36]: elements 0, 1 and 3 fail
  EXPECT_EQ(tight.failing, 3);
  EXPECT_DOUBLE_EQ(tight.failing_fraction, 0.75);
  EXPECT_FALSE(tight.pass);
}

TEST(Compare, NanMatchesNanAndInfinitiesMatchInSign) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor r = floats({3}, {nan, inf, -inf});
  EXPECT_TRUE(compare_tensors(floats({3}, {nan, inf, -inf}).view(), r.view(), {1, 1}).pass);
  const OutputMetrics m = compare_tensors(floats({3}, {0.0f, -inf, -inf}).view(), r.view(), {1, 1});
  EXPECT_EQ(m.failing, 2);  // a number for NaN, and -inf for +inf
  const OutputMetrics m2 =
      compare_tensors(floats({3}, {nan, 3e38f, -inf}).view(), r.view(), {1, 1});
  EXPECT_EQ(m2.failing, 1);  // a finite value never matches an infinity, whatever the tolerance
}

TEST(Compare, IntegersAreExactAndZeroToleranceNormalizesToInfinity) {
  Tensor a = Tensor::zeros(DataType::kInt64, {3});
  Tensor r = Tensor::zeros(DataType::kInt64, {3});
  a.mutable_view().as<int64_t>()[1] = -7;
  r.mutable_view().as<int64_t>()[1] = -7;
  a.mutable_view().as<int64_t>()[2] = 5;
  r.mutable_view().as<int64_t>()[2] = 4;
  const Tolerance t = default_tolerance(DataType::kInt64, Tolerance{1, 1});
  EXPECT_EQ(t.atol, 0);
  const OutputMetrics m = compare_tensors(a.view(), r.view(), t);
  EXPECT_EQ(m.failing, 1);
  EXPECT_TRUE(std::isinf(m.max_normalized));
}

TEST(Compare, EmptyOutputsPassWithoutCosine) {
  const Tensor e = Tensor::zeros(DataType::kFloat32, {0, 3});
  const OutputMetrics m = compare_tensors(e.view(), e.view(), {1e-5, 1e-4});
  EXPECT_TRUE(m.pass);
  EXPECT_FALSE(m.cosine.has_value());
  EXPECT_EQ(m.failing_fraction, 0);
}

TEST(Compare, DefaultTolerancesByDtype) {
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kFloat32, std::nullopt).atol, 1e-5);
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kFloat32, std::nullopt).rtol, 1e-4);
  // float16: one epsilon (2^-10, the spacing of float16 just above 1) absolute, ten relative.
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kFloat16, std::nullopt).atol, 1.0 / 1024);
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kFloat16, std::nullopt).rtol, 10.0 / 1024);
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kUint8, std::nullopt).rtol, 0);
}

TEST(Compare, ProfileDtypeFollowsFloat16ComputationNotStorage) {
  // x (f32 input) -> cast f16 -> relu -> cast f32 -> y        : a float16 body, float32 output
  // x -> add(x, w16 cast to f32) -> z                         : float16 weights, float32 math
  // x -> cast f16 -> cast i32 -> cast f32 -> k                : float16 upstream of an integer
  // i (i32 input) -> cast f32 -> q                            : no float16 anywhere
  // h (f16 input) -> identity -> hp                          : a node computes float16
  Graph g;
  GraphBuilder b(g);
  const OperandId x = b.input("x", {DataType::kFloat32, {3}});
  const OperandId i = b.input("i", {DataType::kInt32, {3}});
  const OperandId h = b.input("h", {DataType::kFloat16, {3}});
  const OperandId w =
      b.constant("w", onnx::make_tensor(DataType::kFloat16, {3}, std::vector<double>{0.5, -1, 2}));
  auto cast = [&](OperandId v, DataType to, const std::string& name) {
    return b.add1(OpKind::kCast, {v, to}, {}, name);
  };
  const OperandId x16 = cast(x, DataType::kFloat16, "x16");
  const OperandId r16 = b.add1(OpKind::kRelu, {x16}, {}, "r16");
  const OperandId y = cast(r16, DataType::kFloat32, "y");
  const OperandId w32 = cast(w, DataType::kFloat32, "w32");
  const OperandId z = b.add1(OpKind::kAdd, {x, w32}, {}, "z");
  const OperandId k = cast(cast(x16, DataType::kInt32, "k_i"), DataType::kFloat32, "k");
  const OperandId q = cast(i, DataType::kFloat32, "q");
  const OperandId hp = b.add1(OpKind::kIdentity, {h}, {}, "hp");
  const ProfileDtypes p(g);
  EXPECT_EQ(p.of(y), DataType::kFloat16);
  EXPECT_EQ(p.of(r16), DataType::kFloat16);
  EXPECT_EQ(p.of(z), DataType::kFloat32);
  EXPECT_EQ(p.of(w32), DataType::kFloat32);
  EXPECT_EQ(p.of(k), DataType::kFloat16);
  EXPECT_EQ(p.of(*g.find("k_i")), DataType::kInt32);  // integers stay exact
  EXPECT_EQ(p.of(q), DataType::kFloat32);
  EXPECT_EQ(p.of(hp), DataType::kFloat16);
  EXPECT_EQ(p.of(x), DataType::kFloat32);  // an input is what it is
  EXPECT_EQ(p.of(w), DataType::kFloat16);
}

onnx::NodeProto matmul_nbits(std::optional<int64_t> bits) {
  onnx::NodeProto n;
  n.op_type = "MatMulNBits";
  n.domain = "com.microsoft";
  if (bits) {
    onnx::AttributeProto a;
    a.name = "bits";
    a.type = onnx::AttributeProto::Type::kInt;
    a.i = *bits;
    n.attribute.push_back(a);
  }
  return n;
}

TEST(Compare, QuantizedProfileComesFromMatMulNBitsBits) {
  onnx::ModelProto m;
  EXPECT_FALSE(quantization_tolerance(m).has_value());
  m.graph.node.push_back(matmul_nbits(std::nullopt));  // default bits = 4
  auto t = quantization_tolerance(m);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->atol, 1e-3);
  EXPECT_DOUBLE_EQ(t->rtol, 1e-3);
  m.graph.node.push_back(matmul_nbits(8));
  t = quantization_tolerance(m);
  EXPECT_DOUBLE_EQ(t->atol, 2e-3);
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::kFloat32, t).rtol, 2e-3);
  // The same op in another domain is not the contrib op.
  onnx::ModelProto other;
  other.graph.node.push_back(matmul_nbits(8));
  other.graph.node.back().domain = "";
  EXPECT_FALSE(quantization_tolerance(other).has_value());
}

TEST(Compare, ReportsTheArithmeticOfEachAccuracyLevel) {
  onnx::ModelProto m;
  EXPECT_TRUE(quantized_arithmetic(m).empty());
  auto with_level = [](int64_t level) {
    onnx::NodeProto n = matmul_nbits(4);
    onnx::AttributeProto a;
    a.name = "accuracy_level";
    a.type = onnx::AttributeProto::Type::kInt;
    a.i = level;
    n.attribute.push_back(a);
    return n;
  };
  m.graph.node.push_back(with_level(4));
  m.graph.node.push_back(matmul_nbits(8));  // no attribute: level 0
  m.graph.node.push_back(with_level(4));
  const auto lines = quantized_arithmetic(m);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "MatMulNBits accuracy_level 0 (1 node): float32 products, as ONNX Runtime "
            "computes them");
  EXPECT_EQ(lines[1],
            "MatMulNBits accuracy_level 4 (2 nodes): ONNX Runtime's arithmetic reproduced (A "
            "quantized per block to int8, exact integer block products)");
}

TEST(Compare, Top1AgreementCountsRowsWithTheSameArgmax) {
  // rows: [0.1 0.9 -1] argmax 1 vs [0.2 0.8 0] argmax 1; [3 -2 3.5] argmax 2 vs [4 0 1] argmax 0
  const Tensor a = floats({2, 3}, {0.1f, 0.9f, -1.0f, 3.0f, -2.0f, 3.5f});
  const Tensor r = floats({2, 3}, {0.2f, 0.8f, 0.0f, 4.0f, 0.0f, 1.0f});
  EXPECT_DOUBLE_EQ(top1_agreement(a.view(), r.view()), 0.5);
  EXPECT_TRUE(looks_like_classes("output", DataType::kFloat32, {2, 3}));
  EXPECT_FALSE(looks_like_classes("hidden", DataType::kFloat32, {1, 7, 768}));
  EXPECT_TRUE(looks_like_classes("logits", DataType::kFloat32, {1, 7, 50}));
  EXPECT_FALSE(looks_like_classes("ids", DataType::kInt64, {1, 10}));
}

}  // namespace
}  // namespace wnn::validate
