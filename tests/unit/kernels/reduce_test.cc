#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"

namespace wnn::kernels {
namespace {

using testing::expect_near;
using testing::make;
using testing::OneNode;
using testing::values_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor red(OpKind op, const Tensor& x, std::vector<std::pair<std::string, RawValue>> named = {},
           std::vector<RawValue> extra = {}) {
  OneNode n(reduce);
  std::vector<RawValue> args = {n.in(x)};
  for (auto& e : extra) args.push_back(e);
  return n.run1(op, args, std::move(named));
}

// [2, 3, 2] = 1..12 with a few negatives.
const std::vector<double> kV = {1, -2, 3, 4, -5, 6, 7, 8, 0, -10, 11, 12};

TEST(ReduceKernel, SumOverAxesWithAndWithoutKeepDimensions) {
  const Tensor x = make(DataType::kFloat32, {2, 3, 2}, kV);
  // axes [0, 2]: for each middle index j, sum over i and k.
  const Tensor kept =
      red(OpKind::kReduceSum, x, {{"axes", std::vector<int64_t>{0, 2}}, {"keepDimensions", true}});
  EXPECT_EQ(kept.shape, (Shape{1, 3, 1}));
  expect_near(values_of(kept), {1 - 2 + 7 + 8, 3 + 4 + 0 - 10, -5 + 6 + 11 + 12});
  const Tensor flat = red(OpKind::kReduceSum, x, {{"axes", std::vector<int64_t>{1}}});
  EXPECT_EQ(flat.shape, (Shape{2, 2}));
  expect_near(values_of(flat), {1 + 3 - 5, -2 + 4 + 6, 7 + 0 + 11, 8 - 10 + 12});
  // Default: all axes, to a scalar.
  const Tensor all = red(OpKind::kReduceSum, x);
  EXPECT_EQ(all.shape, Shape{});
  expect_near(values_of(all), {35});
  // axes [] reduces nothing.
  const Tensor none = red(OpKind::kReduceSum, x, {{"axes", std::vector<int64_t>{}}});
  EXPECT_EQ(none.shape, (Shape{2, 3, 2}));
  expect_near(values_of(none), kV);
}

TEST(ReduceKernel, EveryFloatReducer) {
  const Tensor x = make(DataType::kFloat32, {2, 3}, {1, -2, 3, 0.5, 4, -1});
  const std::vector<std::pair<std::string, RawValue>> last = {{"axes", std::vector<int64_t>{1}}};
  expect_near(values_of(red(OpKind::kReduceL1, x, last)), {6, 5.5});
  expect_near(values_of(red(OpKind::kReduceL2, x, last)), {std::sqrt(14.0), std::sqrt(17.25)});
  expect_near(values_of(red(OpKind::kReduceSumSquare, x, last)), {14, 17.25});
  expect_near(values_of(red(OpKind::kReduceMean, x, last)), {2.0 / 3, 3.5 / 3});
  expect_near(values_of(red(OpKind::kReduceMax, x, last)), {3, 4});
  expect_near(values_of(red(OpKind::kReduceMin, x, last)), {-2, -1});
  expect_near(values_of(red(OpKind::kReduceProduct, x, last)), {-6, -2});
  expect_near(values_of(red(OpKind::kReduceLogSum, x, last)), {std::log(2.0), std::log(3.5)});
  expect_near(values_of(red(OpKind::kReduceLogSumExp, x, last)),
              {std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0)),
               std::log(std::exp(0.5) + std::exp(4.0) + std::exp(-1.0))});
}

TEST(ReduceKernel, LogSumExpDoesNotOverflow) {
  const Tensor x = make(DataType::kFloat32, {2, 2}, {1000, 1000, -kInf, -kInf});
  expect_near(values_of(red(OpKind::kReduceLogSumExp, x, {{"axes", std::vector<int64_t>{1}}})),
              {1000 + std::log(2.0), -kInf});
}

TEST(ReduceKernel, MaxMinPropagateNaN) {
  const Tensor x = make(DataType::kFloat16, {2, 2}, {kNaN, 1, 2, -3});
  expect_near(values_of(red(OpKind::kReduceMax, x, {{"axes", std::vector<int64_t>{1}}})),
              {kNaN, 2});
  expect_near(values_of(red(OpKind::kReduceMin, x, {{"axes", std::vector<int64_t>{1}}})),
              {kNaN, -3});
}

TEST(ReduceKernel, EmptyReductionsGiveTheIdentity) {
  const Tensor x = make(DataType::kFloat32, {2, 0}, {});
  const std::vector<std::pair<std::string, RawValue>> ax = {{"axes", std::vector<int64_t>{1}}};
  expect_near(values_of(red(OpKind::kReduceSum, x, ax)), {0, 0});
  expect_near(values_of(red(OpKind::kReduceProduct, x, ax)), {1, 1});
  expect_near(values_of(red(OpKind::kReduceMax, x, ax)), {-kInf, -kInf});
  expect_near(values_of(red(OpKind::kReduceMin, x, ax)), {kInf, kInf});
  expect_near(values_of(red(OpKind::kReduceMean, x, ax)), {kNaN, kNaN});
  const Tensor i = make(DataType::kInt32, {0, 3}, {});
  EXPECT_EQ(values_of(red(OpKind::kReduceMax, i, {{"axes", std::vector<int64_t>{0}}})),
            (std::vector<double>(3, -2147483648.0)));
}

TEST(ReduceKernel, IntegerReductionsWrap) {
  const Tensor x = make(DataType::kInt32, {3}, {65536, 65536, -3});
  // 2^16 * 2^16 = 2^32 wraps to 0.
  EXPECT_EQ(values_of(red(OpKind::kReduceProduct, x)), (std::vector<double>{0}));
  EXPECT_EQ(values_of(red(OpKind::kReduceSum, x)), (std::vector<double>{131069}));
  EXPECT_EQ(values_of(red(OpKind::kReduceL1, x)), (std::vector<double>{131075}));
  const Tensor u = make(DataType::kUint32, {2}, {4294967295.0, 2});
  EXPECT_EQ(values_of(red(OpKind::kReduceSum, u)), (std::vector<double>{1}));
}

TEST(ReduceKernel, ArgMaxArgMinTakeTheFirstIndexOnTies) {
  // [2, 3]: row 0 has two maxima (index 0 and 2), row 1 two minima (1 and 2).
  const Tensor x = make(DataType::kFloat32, {2, 3}, {5, -1, 5, 2, -4, -4});
  const Tensor amax = red(OpKind::kArgMax, x, {}, {int64_t(1)});
  EXPECT_EQ(amax.dtype, DataType::kInt32);
  EXPECT_EQ(values_of(amax), (std::vector<double>{0, 0}));
  EXPECT_EQ(values_of(red(OpKind::kArgMin, x, {}, {int64_t(1)})), (std::vector<double>{1, 1}));
  const Tensor a0 =
      red(OpKind::kArgMax, x, {{"keepDimensions", true}, {"outputDataType", DataType::kInt64}},
          {int64_t(0)});
  EXPECT_EQ(a0.dtype, DataType::kInt64);
  EXPECT_EQ(a0.shape, (Shape{1, 3}));
  EXPECT_EQ(values_of(a0), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values_of(red(OpKind::kArgMin, x, {}, {int64_t(0)})), (std::vector<double>{1, 1, 1}));
}

TEST(ReduceKernel, CumulativeSumExclusiveAndReversed) {
  const Tensor x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, -4, 0.5, 10});
  const auto cs = [&](bool excl, bool rev, int64_t axis) {
    return values_of(
        red(OpKind::kCumulativeSum, x, {{"exclusive", excl}, {"reversed", rev}}, {axis}));
  };
  expect_near(cs(false, false, 1), {1, 3, 6, -4, -3.5, 6.5});
  expect_near(cs(true, false, 1), {0, 1, 3, 0, -4, -3.5});
  expect_near(cs(false, true, 1), {6, 5, 3, 6.5, 10.5, 10});
  expect_near(cs(true, true, 1), {5, 3, 0, 10.5, 10, 0});
  expect_near(cs(false, false, 0), {1, 2, 3, -3, 2.5, 13});
  const Tensor i = make(DataType::kInt32, {3}, {2147483647.0, 1, 5});
  EXPECT_EQ(values_of(red(OpKind::kCumulativeSum, i, {}, {int64_t(0)})),
            (std::vector<double>{2147483647.0, -2147483648.0, -2147483643.0}));
}

}  // namespace
}  // namespace wnn::kernels
