#include <gtest/gtest.h>

#include <cmath>

#include "node_runner.h"

namespace wnn::kernels {
namespace {

using testing::expect_near_all;
using testing::NodeRunner;
using testing::pattern;

TEST(BatchNormalization, NormalisesAlongAxisWithScaleBiasAndZeroEpsilon) {
  // Shape [2, 3], axis 0: row 0 uses mean 1, variance 4; row 1 mean -2, variance 0.25.
  NodeRunner run;
  const auto r = run.run(normalization, OpKind::kBatchNormalization,
                         {run.input("x", {2, 3}, {1, 3, -1, -2, 0, -3}),
                          run.input("m", {2}, {1, -2}), run.input("v", {2}, {4, 0.25})},
                         {{"scale", run.input("s", {2}, {2, -1})},
                          {"bias", run.input("b", {2}, {0.5, 0})},
                          {"axis", int64_t(0)},
                          {"epsilon", 0.0}});
  expect_near_all(r.values[0], {0.5, 2.5, -1.5, 0, -4, 2}, 1e-7);
}

TEST(InstanceNormalization, NhwcNormalisesEachChannelOverSpace) {
  // Two channels over a 1x2 plane: channel 0 holds [1, 3] (mean 2, variance 1), channel 1
  // holds [-4, -4] (variance 0, so it becomes 0 before the bias).
  NodeRunner run;
  const auto r = run.run(normalization, OpKind::kInstanceNormalization,
                         {run.input("x", {1, 1, 2, 2}, {1, -4, 3, -4})},
                         {{"layout", "nhwc"},
                          {"scale", run.input("s", {2}, {3, 5})},
                          {"bias", run.input("b", {2}, {0, -1})},
                          {"epsilon", 0.25}});
  const double k = 3 / std::sqrt(1.25);
  expect_near_all(r.values[0], {-k, -1, k, -1}, 1e-6);
}

TEST(LayerNormalization, AxesZeroAndTwoWithScaleAndBiasShapedByThoseAxes) {
  const Shape shape = {2, 3, 2};
  const auto x = pattern(12, 4), scale = pattern(4, 5), bias = pattern(4, 6);
  NodeRunner run;
  const auto r = run.run(normalization, OpKind::kLayerNormalization, {run.input("x", shape, x)},
                         {{"axes", IntList{0, 2}},
                          {"scale", run.input("s", {2, 2}, scale)},
                          {"bias", run.input("b", {2, 2}, bias)},
                          {"epsilon", 1e-3}});
  // For each middle index c the group is x[a][c][d] over (a, d); scale/bias index [a][d].
  std::vector<double> expected(12);
  for (int c = 0; c < 3; ++c) {
    double mean = 0, sq = 0;
    for (int a = 0; a < 2; ++a)
      for (int d = 0; d < 2; ++d) mean += x[size_t(a * 6 + c * 2 + d)] / 4;
    for (int a = 0; a < 2; ++a)
      for (int d = 0; d < 2; ++d) sq += std::pow(x[size_t(a * 6 + c * 2 + d)] - mean, 2) / 4;
    for (int a = 0; a < 2; ++a)
      for (int d = 0; d < 2; ++d) {
        const size_t i = size_t(a * 6 + c * 2 + d);
        expected[i] = (x[i] - mean) / std::sqrt(sq + 1e-3) * scale[size_t(a * 2 + d)] +
                      bias[size_t(a * 2 + d)];
      }
  }
  expect_near_all(r.values[0], expected, 1e-6);
}

TEST(LayerNormalization, DefaultAxesAreAllButTheFirstAndEmptyAxesLeaveOnlyBias) {
  NodeRunner run;
  const auto r = run.run(normalization, OpKind::kLayerNormalization,
                         {run.input("x", {2, 2}, {1, 3, 10, 12})}, {{"epsilon", 0.0}});
  expect_near_all(r.values[0], {-1, 1, -1, 1}, 1e-7);
  NodeRunner run2;
  const auto r2 =
      run2.run(normalization, OpKind::kLayerNormalization, {run2.input("x", {2}, {1, 3})},
               {{"axes", IntList{}}, {"bias", run2.input("b", {}, {0.5})}});
  expect_near_all(r2.values[0], {0.5, 0.5}, 0);
}

}  // namespace
}  // namespace wnn::kernels
