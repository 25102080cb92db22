#include <gtest/gtest.h>

#include <algorithm>
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

// One output of ONNX Runtime's float32 linear resampling, written out as resample_linear.h
// documents it: per axis c = (o + 0.5) / scale - 0.5 clamped to [0, in - 1], taps trunc(c)
// and the next, weights |c - tap| of the other tap (0.5 each at the edge), four products
// summed left to right.
float ort_linear(const std::vector<float>& x, int64_t h, int64_t w, int64_t y_stride,
                 int64_t x_stride, int64_t oy, int64_t ox, float sy, float sx) {
  auto axis = [](int64_t o, int64_t in, float scale, int64_t& lo, int64_t& hi, float& d_lo,
                 float& d_hi) {
    float c = scale == 1.0f ? float(o) : (float(o) + 0.5f) / scale - 0.5f;
    c = std::min(std::max(c, 0.0f), float(in - 1));
    lo = int64_t(c);
    hi = std::min(lo + 1, in - 1);
    d_lo = lo == hi ? 0.5f : std::fabs(c - float(lo));
    d_hi = lo == hi ? 0.5f : std::fabs(c - float(hi));
  };
  int64_t y0, y1, x0, x1;
  float dy0, dy1, dx0, dx1;
  axis(oy, h, sy, y0, y1, dy0, dy1);
  axis(ox, w, sx, x0, x1, dx0, dx1);
  auto at = [&](int64_t y, int64_t xx) { return x[size_t(y * y_stride + xx * x_stride)]; };
  float v = (dx1 * dy1) * at(y0, x0);
  v = v + (dx0 * dy1) * at(y0, x1);
  v = v + (dx1 * dy0) * at(y1, x0);
  v = v + (dx0 * dy0) * at(y1, x1);
  return v;
}

TEST(Resample2d, LinearGivesOnnxRuntimesBitsInEitherLayout) {
  // 19 channels: in NHWC a 16-lane vector and a tail of 3 per pixel, in NCHW one value at a
  // time; both must give the same bits as the formula, scales 1.5 (5 -> 7 rows, samples between
  // the taps) and 2 (6 -> 12 columns, clamped at both edges).
  const int64_t c = 19, h = 5, w = 6;
  std::vector<double> nchw(size_t(c * h * w)), nhwc(nchw.size());
  std::vector<float> planes(nchw.size());
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const float v = float(3 * std::sin(0.37 * double((ch * h + y) * w + x) + 0.1));
        nchw[size_t((ch * h + y) * w + x)] = v;
        nhwc[size_t((y * w + x) * c + ch)] = v;
        planes[size_t((ch * h + y) * w + x)] = v;
      }
  NodeRunner run;
  const auto a = run.run(pool, OpKind::kResample2d, {run.input("a", {1, c, h, w}, nchw)},
                         {{"mode", "linear"}, {"scales", FloatList{1.5, 2.0}}});
  const auto b =
      run.run(pool, OpKind::kResample2d, {run.input("b", {1, h, w, c}, nhwc)},
              {{"mode", "linear"}, {"scales", FloatList{1.5, 2.0}}, {"axes", IntList{1, 2}}});
  const int64_t oh = 7, ow = 12;
  ASSERT_EQ(a.shapes[0], (Shape{1, c, oh, ow}));
  ASSERT_EQ(b.shapes[0], (Shape{1, oh, ow, c}));
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        const std::vector<float> plane(planes.begin() + ch * h * w,
                                       planes.begin() + (ch + 1) * h * w);
        const double want = ort_linear(plane, h, w, w, 1, y, x, 1.5f, 2.0f);
        ASSERT_EQ(a.values[0][size_t((ch * oh + y) * ow + x)], want) << ch << " " << y << " " << x;
        ASSERT_EQ(b.values[0][size_t((y * ow + x) * c + ch)], want) << ch << " " << y << " " << x;
      }
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
