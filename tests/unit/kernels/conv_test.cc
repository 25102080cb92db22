#include <gtest/gtest.h>

#include <map>

#include "node_runner.h"
#include "wnn/core/half.h"

namespace wnn::kernels {
namespace {

using testing::expect_near_all;
using testing::NodeRunner;
using testing::pattern;

// Element of a 4-D row-major array whose dims are named by `layout`, addressed by letter.
double at(const std::vector<double>& v, const Shape& shape, std::string_view layout,
          std::map<char, int64_t> index) {
  int64_t offset = 0;
  for (size_t d = 0; d < 4; ++d) offset = offset * shape[d] + index.at(layout[d]);
  return v[size_t(offset)];
}

TEST(Conv2d, HandComputedDifferenceFilter) {
  NodeRunner run;
  // out[i][j] = x[i][j] - x[i+1][j+1] + 0.5 on x = 1..9.
  const auto r = run.run(conv, OpKind::kConv2d,
                         {run.input("x", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                          run.input("w", {1, 1, 2, 2}, {1, 0, 0, -1})},
                         {{"bias", run.input("b", {1}, {0.5})}});
  EXPECT_EQ(r.shapes[0], (Shape{1, 1, 2, 2}));
  expect_near_all(r.values[0], {-3.5, -3.5, -3.5, -3.5}, 0);
}

// nhwc input, hwio filter, two groups, dilations, strides and asymmetric padding together,
// against a direct evaluation of the definition.
TEST(Conv2d, NhwcHwioGroupsDilationsStridesPaddingMatchDefinition) {
  const int64_t N = 2, C = 4, H = 5, W = 6, O = 6, G = 2, KH = 3, KW = 2;
  const Shape xs = {N, H, W, C}, ws = {KH, KW, C / G, O};
  const auto xv = pattern(N * H * W * C, 1), wv = pattern(KH * KW * (C / G) * O, 2);
  const auto bv = pattern(O, 3);
  const int64_t pad[4] = {1, 0, 2, 1}, stride[2] = {1, 2}, dil[2] = {2, 1};
  NodeRunner run;
  const auto r = run.run(conv, OpKind::kConv2d, {run.input("x", xs, xv), run.input("w", ws, wv)},
                         {{"padding", IntList{1, 0, 2, 1}},
                          {"strides", IntList{1, 2}},
                          {"dilations", IntList{2, 1}},
                          {"groups", int64_t(G)},
                          {"inputLayout", "nhwc"},
                          {"filterLayout", "hwio"},
                          {"bias", run.input("b", {O}, bv)}});
  const int64_t OH = (H + pad[0] + pad[1] - ((KH - 1) * dil[0] + 1)) / stride[0] + 1;
  const int64_t OW = (W + pad[2] + pad[3] - ((KW - 1) * dil[1] + 1)) / stride[1] + 1;
  ASSERT_EQ(r.shapes[0], (Shape{N, OH, OW, O}));
  std::vector<double> expected;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        for (int64_t o = 0; o < O; ++o) {
          const int64_t g = o / (O / G);
          double s = bv[size_t(o)];
          for (int64_t i = 0; i < C / G; ++i)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * stride[0] - pad[0] + kh * dil[0];
                const int64_t iw = ow * stride[1] - pad[2] + kw * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += at(xv, xs, "nhwc", {{'n', n}, {'h', ih}, {'w', iw}, {'c', g * (C / G) + i}}) *
                     at(wv, ws, "hwio", {{'h', kh}, {'w', kw}, {'i', i}, {'o', o}});
              }
          expected.push_back(s);
        }
  expect_near_all(r.values[0], expected, 1e-6);
}

// Depthwise (groups = channels) with ohwi and ihwo filter layouts, in float16.
TEST(Conv2d, DepthwiseInFloat16WithOtherFilterLayouts) {
  const int64_t C = 3;
  const auto xv = pattern(C * 4 * 4, 5);
  for (const char* layout : {"ohwi", "ihwo"}) {
    SCOPED_TRACE(layout);
    const Shape ws = std::string(layout) == "ohwi" ? Shape{C, 2, 2, 1} : Shape{1, 2, 2, C};
    const auto wv = pattern(C * 4, 6);
    NodeRunner run;
    const auto r = run.run(conv, OpKind::kConv2d,
                           {run.input("x", {1, C, 4, 4}, xv, DataType::kFloat16),
                            run.input("w", ws, wv, DataType::kFloat16)},
                           {{"groups", C}, {"filterLayout", layout}});
    std::vector<double> expected;
    for (int64_t c = 0; c < C; ++c)
      for (int64_t oh = 0; oh < 3; ++oh)
        for (int64_t ow = 0; ow < 3; ++ow) {
          double s = 0;
          for (int64_t kh = 0; kh < 2; ++kh)
            for (int64_t kw = 0; kw < 2; ++kw)
              s += xv[size_t((c * 4 + oh + kh) * 4 + ow + kw)] *
                   at(wv, ws, layout, {{'o', c}, {'i', 0}, {'h', kh}, {'w', kw}});
          expected.push_back(half_to_float(float_to_half(float(s))));
        }
    expect_near_all(r.values[0], expected, 0);
  }
}

TEST(ConvTranspose2d, StrideTwoReplicatesAndOutputPaddingExtends) {
  NodeRunner run;
  const auto r = run.run(
      conv, OpKind::kConvTranspose2d,
      {run.input("x", {1, 1, 2, 2}, {1, -2, 0, 4}), run.input("w", {1, 1, 2, 2}, {1, 2, 3, -1})},
      {{"strides", IntList{2, 2}},
       {"outputPadding", IntList{1, 0}},
       {"bias", run.input("b", {1}, {10})}});
  ASSERT_EQ(r.shapes[0], (Shape{1, 1, 5, 4}));
  // Each input value v writes v * [[1, 2], [3, -1]] into its own 2x2 block; the extra row
  // from outputPadding holds only the bias.
  const std::vector<double> expected = {11, 12, 8,  6,  13, 9, 4,  12, 10, 10,
                                        14, 18, 10, 10, 22, 6, 10, 10, 10, 10};
  expect_near_all(r.values[0], expected, 0);
}

// nhwc input, ohwi filter, groups 2, dilations, padding and outputSizes, against the
// definition: out[oh][ow] gathers x[ih][iw] * w[kh][kw] where oh = ih*s - pad + kh*d.
TEST(ConvTranspose2d, GroupsDilationsPaddingOutputSizesMatchDefinition) {
  const int64_t N = 1, C = 4, H = 3, W = 4, G = 2, OG = 3, KH = 2, KW = 3;
  const Shape xs = {N, H, W, C}, ws = {OG, KH, KW, C};
  const auto xv = pattern(N * H * W * C, 7), wv = pattern(OG * KH * KW * C, 8);
  const int64_t pad[4] = {1, 0, 0, 2}, stride[2] = {2, 3}, dil[2] = {2, 1};
  int64_t size[2];
  size[0] = (H - 1) * stride[0] + (KH - 1) * dil[0] + 1 - pad[0] - pad[1] + 1;  // + 1 < stride
  size[1] = (W - 1) * stride[1] + (KW - 1) * dil[1] + 1 - pad[2] - pad[3] + 2;
  NodeRunner run;
  const auto r =
      run.run(conv, OpKind::kConvTranspose2d, {run.input("x", xs, xv), run.input("w", ws, wv)},
              {{"padding", IntList{1, 0, 0, 2}},
               {"strides", IntList{2, 3}},
               {"dilations", IntList{2, 1}},
               {"groups", G},
               {"outputSizes", IntList{size[0], size[1]}},
               {"inputLayout", "nhwc"},
               {"filterLayout", "ohwi"}});
  const int64_t O = OG * G;
  ASSERT_EQ(r.shapes[0], (Shape{N, size[0], size[1], O}));
  std::vector<double> expected(size_t(size[0] * size[1] * O), 0.0);
  for (int64_t ih = 0; ih < H; ++ih)
    for (int64_t iw = 0; iw < W; ++iw)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t o = 0; o < OG; ++o)
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) {
              const int64_t oh = ih * stride[0] - pad[0] + kh * dil[0];
              const int64_t ow = iw * stride[1] - pad[2] + kw * dil[1];
              if (oh < 0 || oh >= size[0] || ow < 0 || ow >= size[1]) continue;
              const int64_t g = c / (C / G);
              expected[size_t((oh * size[1] + ow) * O + g * OG + o)] +=
                  at(xv, xs, "nhwc", {{'n', 0}, {'h', ih}, {'w', iw}, {'c', c}}) *
                  at(wv, ws, "ohwi", {{'o', o}, {'h', kh}, {'w', kw}, {'i', c}});
            }
  expect_near_all(r.values[0], expected, 1e-6);
}

}  // namespace
}  // namespace wnn::kernels
