#include "wnn/validate/noise_floor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "wnn/validate/compare.h"

namespace wnn::validate {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor floats(Shape shape, std::vector<float> v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, shape);
  std::copy(v.begin(), v.end(), t.mutable_view().as<float>());
  return t;
}

Tensor ints(std::vector<int64_t> v) {
  Tensor t = Tensor::zeros(DataType::kInt64, {int64_t(v.size())});
  std::copy(v.begin(), v.end(), t.mutable_view().as<int64_t>());
  return t;
}

TEST(NoiseFloor, TheFloorReplacesTheToleranceOnlyWhereItIsLarger) {
  // a - r = [2^-9, 0, 0, 5e-4]; atol + rtol |r| = [1.1e-4, 2.1e-4, 6e-5, 1.001e-2]
  const Tensor r = floats({4}, {1.0f, -2.0f, 0.5f, 100.0f});
  const Tensor a = floats({4}, {1.0f + 1.0f / 512, -2.0f, 0.5f, 100.0005f});
  const double d3 = double(100.0005f) - 100.0;
  const OutputMetrics plain = compare_tensors(a.view(), r.view(), {1e-5, 1e-4});
  EXPECT_FALSE(plain.pass);
  EXPECT_EQ(plain.failing, 1);
  EXPECT_EQ(plain.failing_without_floor, 1);
  EXPECT_FALSE(plain.within_floor_only());

  const OutputMetrics floored = compare_tensors(a.view(), r.view(), {1e-5, 1e-4, 0.002});
  EXPECT_TRUE(floored.pass);
  EXPECT_EQ(floored.failing, 0);
  EXPECT_EQ(floored.failing_without_floor, 1);
  EXPECT_TRUE(floored.within_floor_only());
  // Normalized by the allowance that decided: 2^-9 / 0.002; element 3 by its own tolerance.
  EXPECT_NEAR(floored.max_normalized, (1.0 / 512) / 0.002, 1e-9);
  EXPECT_LT(d3 / (1e-5 + 1e-4 * 100), floored.max_normalized);

  const OutputMetrics short_floor = compare_tensors(a.view(), r.view(), {1e-5, 1e-4, 0.0019});
  EXPECT_FALSE(short_floor.pass);
  EXPECT_EQ(short_floor.failing, 1);
}

TEST(NoiseFloor, NonFiniteValuesIgnoreTheFloor) {
  const Tensor r = floats({2}, {kNaN, 1.0f});
  const Tensor a = floats({2}, {0.0f, 1.0f});
  const OutputMetrics m = compare_tensors(a.view(), r.view(), {0, 0, 1e9});
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.failing, 1);
}

TEST(NoiseFloor, IntegersMayDifferOnAsManyElementsAsAllowed) {
  const Tensor r = ints({1, 0, 3, -4});
  const Tensor a = ints({1, 1, 3, -5});
  EXPECT_FALSE(compare_tensors(a.view(), r.view(), {}).pass);
  Tolerance one;
  one.allowed_mismatches = 1;
  EXPECT_FALSE(compare_tensors(a.view(), r.view(), one).pass);
  Tolerance two;
  two.allowed_mismatches = 2;
  const OutputMetrics m = compare_tensors(a.view(), r.view(), two);
  EXPECT_TRUE(m.pass);
  EXPECT_EQ(m.failing, 2);
  EXPECT_TRUE(m.within_floor_only());
}

NoiseFloorRuns runs_of(std::vector<Tensor> per_run, const std::string& name = "y") {
  NoiseFloorRuns runs;
  runs.runs = noise_floor_runs({});
  for (auto& t : per_run) runs.outputs.push_back({{name, std::move(t)}});
  return runs;
}

TEST(NoiseFloor, TheFloorIsTheLargestDistanceOfAnyRunOverFiniteElements) {
  const Tensor r = floats({4}, {1.0f, 2.0f, kNaN, 4.0f});
  // Run 0 moves element 1 by 0.5; run 1 moves element 0 by 0.25 and gives a number for the NaN.
  const auto runs =
      runs_of({floats({4}, {1.0f, 2.5f, kNaN, 4.0f}), floats({4}, {1.25f, 2.0f, 5.0f, 4.0f})});
  const auto floor = noise_floor_of("y", r, runs);
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(floor->per_run, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(floor->value, 0.5);
  EXPECT_EQ(floor->differing, 2);  // run 1: element 0 and the NaN

  const Tolerance f = with_noise_floor({1e-5, 1e-4}, DataType::kFloat32, *floor);
  EXPECT_EQ(f.floor, kNoiseFloorFactor * 0.5);
  EXPECT_EQ(f.allowed_mismatches, 0);
  EXPECT_EQ(f.atol, 1e-5);
  const Tolerance i = with_noise_floor({}, DataType::kInt64, *floor);
  EXPECT_EQ(i.floor, 0);
  EXPECT_EQ(i.allowed_mismatches, int64_t(kNoiseFloorFactor * 2));

  // A run without the output, or with another shape, gives no floor at all.
  EXPECT_FALSE(noise_floor_of("y", r, runs_of({r, r}, "z")).has_value());
  EXPECT_FALSE(noise_floor_of("y", r, runs_of({r, floats({2, 2}, {1, 2, 3, 4})})).has_value());
}

TEST(NoiseFloor, TheRunsChangeOnlyTheOptimizationLevelOrTheThreadCount) {
  ReferenceOptions base;
  base.timeout_seconds = 17;
  base.external_data_dir = "/data";
  auto runs = noise_floor_runs(base);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].optimization, "disabled");
  EXPECT_EQ(runs[0].threads, 1);
  EXPECT_EQ(runs[1].optimization, "all");
  EXPECT_EQ(runs[1].threads, 2);
  for (const auto& r : runs) {
    EXPECT_EQ(r.timeout_seconds, 17);
    EXPECT_EQ(r.external_data_dir, "/data");
  }
  EXPECT_EQ(describe_run(runs[1]), "optimization all, 2 threads");
  base.threads = 4;
  runs = noise_floor_runs(base);
  EXPECT_EQ(runs[0].threads, 4);
  EXPECT_EQ(runs[1].threads, 1);
  EXPECT_EQ(describe_run(runs[1]), "optimization all, 1 thread");
  EXPECT_EQ(parse_noise_floor_mode("always"), NoiseFloorMode::kAlways);
  EXPECT_EQ(parse_noise_floor_mode("sometimes"), std::nullopt);
}

}  // namespace
}  // namespace wnn::validate
