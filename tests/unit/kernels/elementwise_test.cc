#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"

namespace wnn::kernels {
namespace {

using testing::expect_near;
using testing::make;
using testing::make_exact;
using testing::OneNode;
using testing::raw_of;
using testing::values_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor binary(OpKind op, const Tensor& a, const Tensor& b) {
  OneNode n(elementwise);
  const auto ia = n.in(a);
  const auto ib = n.in(b);
  return n.run1(op, {ia, ib});
}

Tensor unary(OpKind op, const Tensor& x, std::vector<RawValue> extra = {}) {
  OneNode n(elementwise);
  std::vector<RawValue> args = {n.in(x)};
  for (auto& e : extra) args.push_back(e);
  return n.run1(op, args);
}

TEST(ElementwiseKernel, AddBroadcastsRank3AgainstRank1And0) {
  // [2, 1, 3] + [3]: every row of a gets b added.
  const Tensor a = make(DataType::kFloat32, {2, 1, 3}, {1, -2, 0.5, 10, 0, -7});
  const Tensor b = make(DataType::kFloat32, {3}, {0.25, -1, 3});
  expect_near(values_of(binary(OpKind::kAdd, a, b)), {1.25, -3, 3.5, 10.25, -1, -4});
  // [2, 3] - scalar
  const Tensor c = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor s = make(DataType::kFloat32, {}, {2.5});
  expect_near(values_of(binary(OpKind::kSub, c, s)), {-1.5, -0.5, 0.5, 1.5, 2.5, 3.5});
  expect_near(values_of(binary(OpKind::kSub, s, c)), {1.5, 0.5, -0.5, -1.5, -2.5, -3.5});
}

TEST(ElementwiseKernel, MulBroadcastsBothWays) {
  // [3, 1] * [1, 4] -> [3, 4]: an outer product.
  const Tensor a = make(DataType::kFloat32, {3, 1}, {1, -2, 0});
  const Tensor b = make(DataType::kFloat32, {1, 4}, {3, 5, -7, 0.5});
  expect_near(values_of(binary(OpKind::kMul, a, b)), {3, 5, -7, 0.5, -6, -10, 14, -1, 0, 0, 0, 0});
}

TEST(ElementwiseKernel, IntegerArithmeticWraps) {
  const Tensor a = make(DataType::kInt8, {4}, {127, -128, 100, -3});
  const Tensor b = make(DataType::kInt8, {4}, {1, 1, 2, 5});
  EXPECT_EQ(values_of(binary(OpKind::kAdd, a, b)), (std::vector<double>{-128, -127, 102, 2}));
  EXPECT_EQ(values_of(binary(OpKind::kSub, a, b)), (std::vector<double>{126, 127, 98, -8}));
  EXPECT_EQ(values_of(binary(OpKind::kMul, a, b)), (std::vector<double>{127, -128, -56, -15}));
  const Tensor big = make_exact<int64_t>(DataType::kInt64, {2}, {INT64_MAX, INT64_MIN});
  const Tensor one = make_exact<int64_t>(DataType::kInt64, {2}, {1, -1});
  EXPECT_EQ(raw_of<int64_t>(binary(OpKind::kAdd, big, one)),
            (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
  const Tensor u = make(DataType::kUint32, {2}, {3, 0});
  const Tensor v = make(DataType::kUint32, {2}, {5, 1});
  EXPECT_EQ(raw_of<uint32_t>(binary(OpKind::kSub, u, v)),
            (std::vector<uint32_t>{4294967294u, 4294967295u}));
}

TEST(ElementwiseKernel, IntegerDivTruncatesAndNeverTraps) {
  const Tensor a = make(DataType::kInt32, {5}, {7, -7, 7, 5, -2147483648.0});
  const Tensor b = make(DataType::kInt32, {5}, {2, 2, -2, 0, -1});
  EXPECT_EQ(values_of(binary(OpKind::kDiv, a, b)),
            (std::vector<double>{3, -3, -3, 0, -2147483648.0}));
}

TEST(ElementwiseKernel, FloatDivFollowsIeee) {
  const Tensor a = make(DataType::kFloat32, {4}, {1, -1, 0, 7});
  const Tensor b = make(DataType::kFloat32, {4}, {0, 0, 0, -2});
  expect_near(values_of(binary(OpKind::kDiv, a, b)), {kInf, -kInf, kNaN, -3.5});
}

TEST(ElementwiseKernel, MaxMinPropagateNaNAndOrderSignedZeros) {
  const Tensor a = make(DataType::kFloat32, {4}, {kNaN, 1, -0.0, -5});
  const Tensor b = make(DataType::kFloat32, {4}, {1, kNaN, 0.0, 3});
  const auto mx = values_of(binary(OpKind::kMax, a, b));
  const auto mn = values_of(binary(OpKind::kMin, a, b));
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]) && std::isnan(mn[0]) && std::isnan(mn[1]));
  EXPECT_FALSE(std::signbit(mx[2]));
  EXPECT_TRUE(std::signbit(mn[2]));
  EXPECT_EQ(mx[3], 3);
  EXPECT_EQ(mn[3], -5);
}

TEST(ElementwiseKernel, PowOnFloatsAndWrappingIntegers) {
  const Tensor a = make(DataType::kFloat32, {3}, {2, 9, -2});
  const Tensor b = make(DataType::kFloat32, {3}, {-1, 0.5, 3});
  expect_near(values_of(binary(OpKind::kPow, a, b)), {0.5, 3, -8});
  const Tensor ia = make(DataType::kInt8, {6}, {3, 2, -1, -1, 5, 0});
  const Tensor ib = make(DataType::kInt8, {6}, {4, 7, -3, -2, -1, 0});
  // 3^4 = 81; 2^7 = 128 wraps to -128; (-1)^-3 = -1; (-1)^-2 = 1; 5^-1 = 0; 0^0 = 1.
  EXPECT_EQ(values_of(binary(OpKind::kPow, ia, ib)), (std::vector<double>{81, -128, -1, 1, 0, 1}));
}

TEST(ElementwiseKernel, ComparisonsGiveUint8) {
  const Tensor a = make(DataType::kFloat32, {2, 2}, {1, -2, kNaN, 3});
  const Tensor b = make(DataType::kFloat32, {2}, {1, 3});
  const Tensor eq = binary(OpKind::kEqual, a, b);
  EXPECT_EQ(eq.dtype, DataType::kUint8);
  EXPECT_EQ(values_of(eq), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values_of(binary(OpKind::kNotEqual, a, b)), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(values_of(binary(OpKind::kGreater, a, b)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(values_of(binary(OpKind::kGreaterOrEqual, a, b)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values_of(binary(OpKind::kLesser, a, b)), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(values_of(binary(OpKind::kLesserOrEqual, a, b)), (std::vector<double>{1, 1, 0, 1}));
  const Tensor ua = make(DataType::kUint64, {2}, {5, 0});
  const Tensor ub = make(DataType::kUint64, {2}, {4, 0});
  EXPECT_EQ(values_of(binary(OpKind::kGreater, ua, ub)), (std::vector<double>{1, 0}));
}

TEST(ElementwiseKernel, LogicalOpsTreatNonzeroAsTrue) {
  const Tensor a = make(DataType::kUint8, {4}, {0, 0, 7, 255});
  const Tensor b = make(DataType::kUint8, {4}, {0, 2, 0, 1});
  EXPECT_EQ(values_of(binary(OpKind::kLogicalAnd, a, b)), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(values_of(binary(OpKind::kLogicalOr, a, b)), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(values_of(binary(OpKind::kLogicalXor, a, b)), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(values_of(unary(OpKind::kLogicalNot, a)), (std::vector<double>{1, 1, 0, 0}));
}

TEST(ElementwiseKernel, Float16AddRoundsOnceToNearestEven) {
  // 2048 + 1 is a tie between 2048 and 2050 in float16: nearest even keeps 2048.
  // 2048 + 3 = 2051 ties between 2050 and 2052: even mantissa is 2052.
  const Tensor a = make(DataType::kFloat16, {3}, {2048, 2048, -1.5});
  const Tensor b = make(DataType::kFloat16, {3}, {1, 3, 0.25});
  const Tensor r = binary(OpKind::kAdd, a, b);
  EXPECT_EQ(r.dtype, DataType::kFloat16);
  EXPECT_EQ(values_of(r), (std::vector<double>{2048, 2052, -1.25}));
}

TEST(ElementwiseKernel, UnaryMath) {
  const Tensor x = make(DataType::kFloat32, {5}, {-2.5, -0.5, 0.5, 1.5, 2.5});
  expect_near(values_of(unary(OpKind::kRoundEven, x)), {-2, -0.0, 0, 2, 2});
  expect_near(values_of(unary(OpKind::kCeil, x)), {-2, -0.0, 1, 2, 3});
  expect_near(values_of(unary(OpKind::kFloor, x)), {-3, -1, 0, 1, 2});
  expect_near(values_of(unary(OpKind::kAbs, x)), {2.5, 0.5, 0.5, 1.5, 2.5});
  expect_near(values_of(unary(OpKind::kNeg, x)), {2.5, 0.5, -0.5, -1.5, -2.5});
  expect_near(values_of(unary(OpKind::kReciprocal, x)), {-0.4, -2, 2, 1 / 1.5, 0.4});
  expect_near(values_of(unary(OpKind::kExp, x)),
              {0.0820849986, 0.6065306597, 1.6487212707, 4.4816890703, 12.1824939607});
  expect_near(values_of(unary(OpKind::kErf, x)),
              {-0.9995930480, -0.5204998778, 0.5204998778, 0.9661051465, 0.9995930480});
  expect_near(values_of(unary(OpKind::kSin, x)),
              {-0.5984721441, -0.4794255386, 0.4794255386, 0.9974949866, 0.5984721441});
  expect_near(values_of(unary(OpKind::kCos, x)),
              {-0.8011436155, 0.8775825619, 0.8775825619, 0.0707372017, -0.8011436155});
  expect_near(values_of(unary(OpKind::kTan, x)),
              {0.7470222972, -0.5463024898, 0.5463024898, 14.1014199472, -0.7470222972}, 1e-5);
  const Tensor p = make(DataType::kFloat32, {4}, {4, 0, -1, 2});
  expect_near(values_of(unary(OpKind::kSqrt, p)), {2, 0, kNaN, 1.4142135624});
  expect_near(values_of(unary(OpKind::kLog, p)), {1.3862943611, -kInf, kNaN, 0.6931471806});
}

TEST(ElementwiseKernel, SignAbsNegOnIntegersWrap) {
  const Tensor x = make(DataType::kInt8, {4}, {-128, -5, 0, 9});
  EXPECT_EQ(values_of(unary(OpKind::kAbs, x)), (std::vector<double>{-128, 5, 0, 9}));
  EXPECT_EQ(values_of(unary(OpKind::kNeg, x)), (std::vector<double>{-128, 5, 0, -9}));
  EXPECT_EQ(values_of(unary(OpKind::kSign, x)), (std::vector<double>{-1, -1, 0, 1}));
  const Tensor f = make(DataType::kFloat16, {4}, {-0.0, -3, kNaN, 0.001});
  const auto s = values_of(unary(OpKind::kSign, f));
  EXPECT_TRUE(s[0] == 0 && std::signbit(s[0]));
  EXPECT_EQ(s[1], -1);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_EQ(s[3], 1);
}

TEST(ElementwiseKernel, IsNaNAndIsInfinite) {
  const Tensor x = make(DataType::kFloat16, {5}, {kNaN, kInf, -kInf, 70000, 1});
  EXPECT_EQ(values_of(unary(OpKind::kIsNaN, x)), (std::vector<double>{1, 0, 0, 0, 0}));
  // 70000 overflows float16 to inf when stored.
  EXPECT_EQ(values_of(unary(OpKind::kIsInfinite, x)), (std::vector<double>{0, 1, 1, 1, 0}));
}

TEST(ElementwiseKernel, IdentityCopiesInt4) {
  const Tensor x = make(DataType::kInt4, {3}, {-8, 7, -1});
  EXPECT_EQ(values_of(unary(OpKind::kIdentity, x)), (std::vector<double>{-8, 7, -1}));
}

TEST(ElementwiseKernel, CastTruncatesSaturatesAndWraps) {
  const Tensor f = make(DataType::kFloat32, {6}, {2.9, -2.9, 300, -300, kNaN, -0.5});
  EXPECT_EQ(values_of(unary(OpKind::kCast, f, {DataType::kInt32})),
            (std::vector<double>{2, -2, 300, -300, 0, 0}));
  EXPECT_EQ(values_of(unary(OpKind::kCast, f, {DataType::kUint8})),
            (std::vector<double>{2, 0, 255, 0, 0, 0}));
  EXPECT_EQ(values_of(unary(OpKind::kCast, f, {DataType::kInt4})),
            (std::vector<double>{2, -2, 7, -8, 0, 0}));
  const Tensor i = make(DataType::kInt32, {4}, {300, -1, 9, -9});
  EXPECT_EQ(values_of(unary(OpKind::kCast, i, {DataType::kUint8})),
            (std::vector<double>{44, 255, 9, 247}));
  EXPECT_EQ(values_of(unary(OpKind::kCast, i, {DataType::kInt4})),
            (std::vector<double>{-4, -1, -7, 7}));
  EXPECT_EQ(values_of(unary(OpKind::kCast, i, {DataType::kUint4})),
            (std::vector<double>{12, 15, 9, 7}));
  // int32 -> float16 rounds to nearest even: 2049 is a tie, goes to 2048.
  const Tensor j = make(DataType::kInt32, {2}, {2049, -7});
  EXPECT_EQ(values_of(unary(OpKind::kCast, j, {DataType::kFloat16})),
            (std::vector<double>{2048, -7}));
  const Tensor big = make_exact<int64_t>(DataType::kInt64, {1}, {INT64_MIN + 5});
  EXPECT_EQ(raw_of<uint64_t>(unary(OpKind::kCast, big, {DataType::kUint64})),
            (std::vector<uint64_t>{uint64_t(1) << 63 | 5}));
}

TEST(ElementwiseKernel, WhereBroadcastsAllThree) {
  // condition [2, 1], trueValue [3], falseValue scalar -> [2, 3].
  const Tensor c = make(DataType::kUint8, {2, 1}, {0, 9});
  const Tensor t = make(DataType::kInt32, {3}, {1, -2, 3});
  const Tensor f = make(DataType::kInt32, {}, {-100});
  OneNode n(elementwise);
  const auto ic = n.in(c);
  const auto it = n.in(t);
  const auto iff = n.in(f);
  EXPECT_EQ(values_of(n.run1(OpKind::kWhere, {ic, it, iff})),
            (std::vector<double>{-100, -100, -100, 1, -2, 3}));
}

}  // namespace
}  // namespace wnn::kernels
