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

Tensor act(OpKind op, const Tensor& x, std::vector<std::pair<std::string, RawValue>> named = {},
           std::vector<RawValue> extra = {}) {
  OneNode n(activation);
  std::vector<RawValue> args = {n.in(x)};
  for (auto& e : extra) args.push_back(e);
  return n.run1(op, args, std::move(named));
}

const std::vector<double> kX = {-4, -1.5, -0.0, 0.5, 2, 5};

std::vector<double> apply(double (*f)(double)) {
  std::vector<double> out;
  for (double x : kX) out.push_back(f(x));
  return out;
}

TEST(ActivationKernel, FloatFunctionsMatchTheirFormulas) {
  const Tensor x = make(DataType::kFloat32, {2, 3}, kX);
  expect_near(values_of(act(OpKind::kElu, x)),
              apply([](double v) { return v >= 0 ? v : std::exp(v) - 1; }));
  expect_near(values_of(act(OpKind::kElu, x, {{"alpha", 0.0}})), {0, 0, 0, 0.5, 2, 5});
  expect_near(values_of(act(OpKind::kGelu, x)), {-4 * 0.5 * std::erfc(4 / std::sqrt(2.0)),
                                                 -1.5 * 0.5 * std::erfc(1.5 / std::sqrt(2.0)), 0,
                                                 0.3457312306, 1.9544997361, 4.9999992833});
  expect_near(values_of(act(OpKind::kHardSigmoid, x, {{"alpha", 0.5}, {"beta", 0.0}})),
              {0, 0, 0, 0.25, 1, 1});
  expect_near(values_of(act(OpKind::kHardSwish, x)),
              {0, -1.5 * 1.5 / 6, 0, 0.5 * 3.5 / 6, 2 * 5.0 / 6, 5});
  expect_near(values_of(act(OpKind::kLeakyRelu, x, {{"alpha", -2.0}})), {8, 3, 0, 0.5, 2, 5});
  expect_near(values_of(act(OpKind::kLinear, x, {{"alpha", -0.5}, {"beta", 1.0}})),
              {3, 1.75, 1, 0.75, 0, -1.5});
  expect_near(values_of(act(OpKind::kLinear, x, {{"alpha", 0.0}})), {0, 0, 0, 0, 0, 0});
  expect_near(values_of(act(OpKind::kSigmoid, x)),
              apply([](double v) { return 1 / (1 + std::exp(-v)); }));
  expect_near(values_of(act(OpKind::kSoftplus, x)),
              apply([](double v) { return std::log(1 + std::exp(v)); }));
  expect_near(values_of(act(OpKind::kSoftsign, x)),
              apply([](double v) { return v / (1 + std::fabs(v)); }));
  expect_near(values_of(act(OpKind::kTanh, x)), apply([](double v) { return std::tanh(v); }));
}

TEST(ActivationKernel, LargeMagnitudesStayFinite) {
  const Tensor x = make(DataType::kFloat32, {4}, {-1000, 1000, -kInf, kInf});
  expect_near(values_of(act(OpKind::kSoftplus, x)), {0, 1000, 0, kInf});
  expect_near(values_of(act(OpKind::kSigmoid, x)), {0, 1, 0, 1});
  expect_near(values_of(act(OpKind::kHardSwish, x)), {0, 1000, 0, kInf});
  expect_near(values_of(act(OpKind::kGelu, x)), {0, 1000, kNaN, kInf});
}

TEST(ActivationKernel, Float16Path) {
  const Tensor x = make(DataType::kFloat16, {3}, {-2, 0.5, 3});
  const Tensor r = act(OpKind::kSigmoid, x);
  EXPECT_EQ(r.dtype, DataType::kFloat16);
  // Sigmoid rounded to float16 (10-bit mantissa): within half an ulp of the exact value.
  expect_near(values_of(r), {0.1192029220, 0.6224593312, 0.9525741268}, 1e-3);
}

TEST(ActivationKernel, ClampOnFloatsAndIntegers) {
  const Tensor x = make(DataType::kFloat32, {5}, {-3, -0.5, 0, 2.5, kNaN});
  expect_near(values_of(act(OpKind::kClamp, x, {{"minValue", -1.0}, {"maxValue", 0}})),
              {-1, -0.5, 0, 0, kNaN});
  expect_near(values_of(act(OpKind::kClamp, x, {{"maxValue", 1}})), {-3, -0.5, 0, 1, kNaN});
  const Tensor i = make(DataType::kInt8, {4}, {-128, -5, 7, 127});
  EXPECT_EQ(values_of(act(OpKind::kClamp, i, {{"minValue", -1000}, {"maxValue", 6.5}})),
            (std::vector<double>{-128, -5, 6, 6}));
  const Tensor u = make(DataType::kUint8, {3}, {0, 10, 255});
  EXPECT_EQ(values_of(act(OpKind::kClamp, u, {{"minValue", 3}})),
            (std::vector<double>{3, 10, 255}));
  // An int64 bound beyond 2^53 keeps every bit.
  const int64_t big = (int64_t(1) << 60) + 1;
  const Tensor l = make_exact<int64_t>(DataType::kInt64, {2}, {big + 5, -7});
  EXPECT_EQ(raw_of<int64_t>(act(OpKind::kClamp, l, {{"maxValue", big}})),
            (std::vector<int64_t>{big, -7}));
}

TEST(ActivationKernel, ReluOnIntegersAndFloats) {
  const Tensor i = make(DataType::kInt32, {3}, {-7, 0, 9});
  EXPECT_EQ(values_of(act(OpKind::kRelu, i)), (std::vector<double>{0, 0, 9}));
  const Tensor f = make(DataType::kFloat16, {3}, {-1.5, kNaN, 2});
  expect_near(values_of(act(OpKind::kRelu, f)), {0, kNaN, 2});
}

TEST(ActivationKernel, PreluBroadcastsSlope) {
  // input [2, 3], slope [3]; and int8 with a scalar slope that wraps.
  const Tensor x = make(DataType::kFloat32, {2, 3}, {-1, 2, -3, 4, -5, 0});
  const Tensor s = make(DataType::kFloat32, {3}, {0.5, -1, 2});
  OneNode n(activation);
  const auto ix = n.in(x);
  const auto is = n.in(s);
  expect_near(values_of(n.run1(OpKind::kPrelu, {ix, is})), {-0.5, 2, -6, 4, 5, 0});
  const Tensor xi = make(DataType::kInt8, {3}, {-100, 3, -1});
  const Tensor si = make(DataType::kInt8, {}, {2});
  OneNode m(activation);
  const auto jx = m.in(xi);
  const auto js = m.in(si);
  EXPECT_EQ(values_of(m.run1(OpKind::kPrelu, {jx, js})), (std::vector<double>{56, 3, -2}));
}

TEST(ActivationKernel, SoftmaxOnMiddleAxis) {
  // [2, 3, 2] along axis 1: each (outer, inner) column of 3 sums to 1.
  const std::vector<double> v = {1, -1, 2, 0, 3, 1000, 0, 5, 0, 5, 0, 5};
  const Tensor x = make(DataType::kFloat32, {2, 3, 2}, v);
  const auto r = values_of(act(OpKind::kSoftmax, x, {}, {int64_t(1)}));
  std::vector<double> expected(12);
  for (int o = 0; o < 2; ++o) {
    for (int i = 0; i < 2; ++i) {
      double mx = -kInf, sum = 0;
      for (int j = 0; j < 3; ++j) mx = std::max(mx, v[o * 6 + j * 2 + i]);
      for (int j = 0; j < 3; ++j) sum += std::exp(v[o * 6 + j * 2 + i] - mx);
      for (int j = 0; j < 3; ++j)
        expected[o * 6 + j * 2 + i] = std::exp(v[o * 6 + j * 2 + i] - mx) / sum;
    }
  }
  expect_near(r, expected);
  EXPECT_NEAR(r[5], 1.0, 1e-7);  // exp(1000) did not overflow
  expect_near({r[6], r[8], r[10]}, {1.0 / 3, 1.0 / 3, 1.0 / 3});
  // axis 0 of the same tensor.
  const auto r0 = values_of(act(OpKind::kSoftmax, x, {}, {int64_t(0)}));
  expect_near({r0[0], r0[6]}, {std::exp(1.0) / (std::exp(1.0) + 1), 1 / (std::exp(1.0) + 1)});
}

}  // namespace
}  // namespace wnn::kernels
