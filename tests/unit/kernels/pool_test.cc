#include <gtest/gtest.h>

#include <cmath>

#include "node_runner.h"

namespace wnn::kernels {
namespace {

using testing::expect_near_all;
using testing::NodeRunner;

// x[h][w] = 5h + w - 7 on a 4x5 plane. Window 3x3, strides 2, padding [1, 0, 0, 1], ceil:
// rows {0,1} and {1,2,3}; columns {0,1,2}, {2,3,4} and {4} (the rest is padding).
std::vector<double> plane() {
  std::vector<double> v;
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 5; ++w) v.push_back(5 * h + w - 7);
  return v;
}

const std::vector<std::pair<std::string, RawValue>> kCeilOptions = {
    {"windowDimensions", IntList{3, 3}},
    {"strides", IntList{2, 2}},
    {"padding", IntList{1, 0, 0, 1}},
    {"outputShapeRounding", "ceil"}};

TEST(Pool2d, AverageCountsOnlyCellsInsideTheInput) {
  NodeRunner run;
  const auto r =
      run.run(pool, OpKind::kAveragePool2d, {run.input("x", {1, 1, 4, 5}, plane())}, kCeilOptions);
  ASSERT_EQ(r.shapes[0], (Shape{1, 1, 2, 3}));
  // Mean of 5h + w - 7 = 5 mean(rows) + mean(cols) - 7.
  expect_near_all(r.values[0], {-3.5, -1.5, -0.5, 4, 6, 7}, 1e-7);
}

TEST(Pool2d, MaxIgnoresPadding) {
  NodeRunner run;
  const auto r =
      run.run(pool, OpKind::kMaxPool2d, {run.input("x", {1, 1, 4, 5}, plane())}, kCeilOptions);
  expect_near_all(r.values[0], {0, 2, 2, 10, 12, 12}, 0);
}

TEST(Pool2d, L2IsRootOfSumOfSquaresOverValidCells) {
  NodeRunner run;
  const auto r =
      run.run(pool, OpKind::kL2Pool2d, {run.input("x", {1, 1, 4, 5}, plane())}, kCeilOptions);
  // Last column: rows {0,1} hold -3, 2; rows {1,2,3} hold 2, 7, 12.
  EXPECT_NEAR(r.values[0][2], std::sqrt(13.0), 1e-6);
  EXPECT_NEAR(r.values[0][5], std::sqrt(197.0), 1e-6);
  // First window: rows 0-1, cols 0-2: -7 -6 -5 -2 -1 0.
  EXPECT_NEAR(r.values[0][0], std::sqrt(49 + 36 + 25 + 4 + 1 + 0.0), 1e-6);
}

TEST(Pool2d, NhwcChannelsPoolIndependently) {
  std::vector<double> x;
  for (double v : plane()) {
    x.push_back(v);
    x.push_back(-v);
  }
  auto options = kCeilOptions;
  options.push_back({"layout", "nhwc"});
  NodeRunner run;
  const auto r = run.run(pool, OpKind::kAveragePool2d, {run.input("x", {1, 4, 5, 2}, x)}, options);
  ASSERT_EQ(r.shapes[0], (Shape{1, 2, 3, 2}));
  expect_near_all(r.values[0], {-3.5, 3.5, -1.5, 1.5, -0.5, 0.5, 4, -4, 6, -6, 7, -7}, 1e-7);
}

TEST(Pool2d, DefaultWindowIsGlobalAndMaxKeepsInt8) {
  NodeRunner run;
  const auto r =
      run.run(pool, OpKind::kMaxPool2d,
              {run.input("x", {1, 2, 2, 2}, {-5, -3, -128, -1, 7, 0, 127, -2}, DataType::kInt8)});
  ASSERT_EQ(r.shapes[0], (Shape{1, 2, 1, 1}));
  expect_near_all(r.values[0], {-1, 127}, 0);
}

TEST(Pool2d, OutputSizesOverrideRoundingAndDilationsSpreadTheWindow) {
  NodeRunner run;
  // 1x6 row, window 1x2 dilated by 2, stride 2: columns (0,2), (2,4) and, because outputSizes
  // asks for the ceil size 3 while rounding stays floor, (4,6) where 6 is outside.
  const auto r =
      run.run(pool, OpKind::kAveragePool2d, {run.input("x", {1, 1, 1, 6}, {1, -2, 4, 0, -3, 5})},
              {{"windowDimensions", IntList{1, 2}},
               {"dilations", IntList{1, 2}},
               {"strides", IntList{1, 2}},
               {"outputSizes", IntList{1, 3}}});
  ASSERT_EQ(r.shapes[0], (Shape{1, 1, 1, 3}));
  expect_near_all(r.values[0], {2.5, 0.5, -3}, 0);
}

TEST(Resample2d, LinearOnAxes12ClampsAtTheEdges) {
  // [[1, 5], [-3, 9]] doubled along axes 1 and 2; 1-D weights for 2 -> 4 with half-pixel
  // centres are [1, 0], [.75, .25], [.25, .75], [0, 1].
  const double wt[4][2] = {{1, 0}, {.75, .25}, {.25, .75}, {0, 1}};
  const double x[2][2] = {{1, 5}, {-3, 9}};
  NodeRunner run;
  const auto r = run.run(pool, OpKind::kResample2d, {run.input("x", {1, 2, 2, 1}, {1, 5, -3, 9})},
                         {{"mode", "linear"}, {"sizes", IntList{4, 4}}, {"axes", IntList{1, 2}}});
  ASSERT_EQ(r.shapes[0], (Shape{1, 4, 4, 1}));
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) s += wt[i][p] * wt[j][q] * x[p][q];
      expected.push_back(s);
    }
  expect_near_all(r.values[0], expected, 1e-7);
}

TEST(Resample2d, NearestWithScalesOnReversedAxes) {
  // axes [3, 2]: scale 2 on axis 3 (width 2 -> 4: columns 0 0 1 1) and 0.4 on axis 2
  // (height 5 -> 2: source rows 0.75 -> 1 and 3.25 -> 3).
  NodeRunner run;
  const auto r = run.run(pool, OpKind::kResample2d,
                         {run.input("x", {1, 1, 5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
                         {{"scales", FloatList{2.0, 0.4}}, {"axes", IntList{3, 2}}});
  ASSERT_EQ(r.shapes[0], (Shape{1, 1, 2, 4}));
  expect_near_all(r.values[0], {3, 3, 4, 4, 7, 7, 8, 8}, 0);
}

}  // namespace
}  // namespace wnn::kernels
