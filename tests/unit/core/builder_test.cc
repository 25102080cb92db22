// The builder: parameter resolution, absent versus zero, suggestions, names, constants and
// outputs.
#include "wnn/core/builder.h"

#include <gtest/gtest.h>

#include <limits>

#include "infer_test_util.h"

namespace wnn::testing {
namespace {

TEST(Builder, AbsentOptionTakesTheSpecDefaultButZeroIsKept) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {2, 3}});
  const OperandId absent = b.add1(OpKind::kReduceMean, {RawValue::Name{"x"}});
  const OperandId zero_axes =
      b.add1(OpKind::kReduceMean, {RawValue::Name{"x"}}, {{"axes", IntList{}}});
  const OperandId keep = b.add1(OpKind::kReduceMean, {RawValue::Name{"x"}},
                                {{"axes", IntList{0}}, {"keepDimensions", false}});
  EXPECT_EQ(g.desc(absent).shape, Shape{});           // all axes
  EXPECT_EQ(g.desc(zero_axes).shape, (Shape{2, 3}));  // [] reduces nothing
  EXPECT_EQ(g.desc(keep).shape, Shape{3});
  const Node& n = g.nodes()[2];
  EXPECT_TRUE(n.attrs.has("keepDimensions"));  // given as false: still given
  EXPECT_FALSE(g.nodes()[0].attrs.has("keepDimensions"));
  EXPECT_FALSE(n.attrs.get_bool("keepDimensions"));
}

TEST(Builder, UnknownOptionSuggestsTheClosestOne) {
  const std::string msg = rejection(
      {"conv2d",
       {{"x", DataType::kFloat32, {1, 1, 28, 28}}, {"w", DataType::kFloat32, {32, 1, 5, 5}}},
       {pos("x"), pos("w"), named("pads", IntList{1, 1, 1, 1})}});
  EXPECT_NE(msg.find("unknown option 'pads' (did you mean 'padding'?)"), std::string::npos) << msg;
  Graph g;
  const auto out =
      infer({"conv2d",
             {{"x", DataType::kFloat32, {1, 1, 28, 28}}, {"w", DataType::kFloat32, {32, 1, 5, 5}}},
             {pos("x"), pos("w"), named("padding", IntList{1, 1, 1, 1})}},
            g);
  EXPECT_EQ(out[0].shape, (Shape{1, 32, 26, 26}));
}

TEST(Builder, UnknownOperatorSuggestsTheClosestOne) {
  const std::string msg = rejection({"conv2D", {{"x", DataType::kFloat32, {1}}}, {pos("x")}});
  EXPECT_NE(msg.find("unknown operator 'conv2D' (did you mean 'conv2d'?)"), std::string::npos)
      << msg;
}

TEST(Builder, NamesAreUniqueAndOutputsMustExist) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {2}});
  EXPECT_THROW(b.input("x", {DataType::kFloat32, {2}}), Error);
  EXPECT_THROW(b.add(OpKind::kRelu, {RawValue::Name{"x"}}, {}, {"x"}), Error);
  EXPECT_THROW(b.output("nothing"), Error);
  b.output("x");
  EXPECT_THROW(b.output("x"), Error);  // listed twice
  EXPECT_EQ(b.unique_name("x"), "x_1");
  EXPECT_EQ(g.outputs().size(), 1u);
}

TEST(Builder, ParameterGivenTwiceOrMissingIsRejected) {
  EXPECT_NE(rejection({"softmax",
                       {{"x", DataType::kFloat32, {2, 3}}},
                       {pos("x"), named("axis", 1), named("axis", 0)}})
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(rejection({"softmax", {{"x", DataType::kFloat32, {2, 3}}}, {pos("x")}})
                .find("missing required argument 'axis'"),
            std::string::npos);
}

TEST(Builder, InlineConstantsAreCheckedAndMaterialised) {
  Graph g;
  GraphBuilder b(g);
  const OperandId s = b.constant("s", {DataType::kInt64, {3}}, ConstantInitKind::kScalar, "",
                                 int64_t(-9007199254740993));
  const auto* c = g.constant_of(s);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->bound());  // a fill is materialised only when bound
  g.bind_inline_constants();
  c = g.constant_of(s);
  EXPECT_EQ(c->data.size(), 24u);
  EXPECT_EQ(reinterpret_cast<const int64_t*>(c->data.data())[2], -9007199254740993);
  // Packed 4-bit inline bytes: element 0 in the low nibble, sign-extended.
  const OperandId q =
      b.constant("q", {DataType::kInt4, {3}}, ConstantInitKind::kBytes, "", {}, {0x9f, 0x07});
  const auto* qc = g.constant_of(q);
  const auto* v = reinterpret_cast<const int8_t*>(qc->data.data());
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(v[1], -7);
  EXPECT_EQ(v[2], 7);
  EXPECT_THROW(
      b.constant("bad", {DataType::kFloat32, {2}}, ConstantInitKind::kBytes, "", {}, {1, 2, 3}),
      Error);
  EXPECT_FALSE(g.find("bad").has_value());
}

TEST(Builder, HugeScalarFillIsDeclaredCheaplyAndRejectedWhenBound) {
  Graph g;
  GraphBuilder b(g);
  // 2^47 float32 elements: 512 TiB if materialised at declaration.
  b.constant("huge", {DataType::kFloat32, {int64_t(1) << 47}}, ConstantInitKind::kScalar, "", 1.0);
  b.constant("ok", {DataType::kInt32, {2}}, ConstantInitKind::kScalar, "", -1e300);
  try {
    g.bind_inline_constants();
    FAIL() << "expected the fill limit to reject 'huge'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("constant 'huge'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("562949953421312 bytes"), std::string::npos) << e.what();
  }
}

TEST(Builder, OutOfRangeScalarFillSaturatesInsteadOfUndefinedBehaviour) {
  Graph g;
  GraphBuilder b(g);
  const OperandId lo =
      b.constant("lo", {DataType::kInt64, {2}}, ConstantInitKind::kScalar, "", -1e300);
  const OperandId nan = b.constant("nan", {DataType::kInt32, {1}}, ConstantInitKind::kScalar, "",
                                   std::numeric_limits<double>::quiet_NaN());
  g.bind_inline_constants();
  EXPECT_EQ(reinterpret_cast<const int64_t*>(g.constant_of(lo)->data.data())[1], INT64_MIN);
  EXPECT_EQ(reinterpret_cast<const int32_t*>(g.constant_of(nan)->data.data())[0], 0);
}

TEST(Builder, DynamicDimsMustHoldTheirMaximum) {
  Graph g;
  GraphBuilder b(g);
  b.input("ids", {DataType::kInt64, {1, 128}}, {std::nullopt, DynamicDim{"seq", 128}});
  EXPECT_TRUE(g.has_dynamic_inputs());
  EXPECT_THROW(b.input("bad", {DataType::kInt64, {4}}, {DynamicDim{"n", 8}}), Error);
}

TEST(Builder, ShapesAreBoundedBeforeUse) {
  Graph g;
  GraphBuilder b(g);
  EXPECT_THROW(b.input("huge", {DataType::kFloat32, {int64_t(1) << 30, int64_t(1) << 30}}), Error);
  EXPECT_THROW(b.input("deep", {DataType::kFloat32, Shape(9, 1)}), Error);
  EXPECT_THROW(b.input("neg", {DataType::kFloat32, {-1}}), Error);
  EXPECT_TRUE(g.operands().empty());
}

}  // namespace
}  // namespace wnn::testing
