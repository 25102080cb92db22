// The FFT convolution of long 1-D filters against a direct evaluation of the definition (in
// double), over layouts, groups, padding, batch, bias and both orientations; and the predicate
// that sends convs there.
#include "wnn/kernels/conv_fft.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "node_runner.h"
#include "wnn/core/builder.h"
#include "wnn/kernels/kernel_context.h"

namespace wnn::kernels {
namespace {

using testing::NodeRunner;
using testing::pattern;

struct Case {
  int64_t batch, channels, outputs, groups, length, taps, pad_begin, pad_end;
  std::string layout, filter_layout;
  bool along_w, bias;
  int threads;
};

// Shape of a 4-D array whose dims are named by `layout`, from sizes by letter.
Shape shape_of(std::string_view layout, std::map<char, int64_t> size) {
  Shape s;
  for (char c : layout) s.push_back(size.at(c));
  return s;
}

int64_t offset_of(const Shape& shape, std::string_view layout, std::map<char, int64_t> index) {
  int64_t offset = 0;
  for (size_t d = 0; d < 4; ++d) offset = offset * shape[d] + index.at(layout[d]);
  return offset;
}

// Runs the case through `fn` and checks it against the definition; returns max |error|.
double check_case(const Case& c, KernelFn fn) {
  const int64_t ig = c.channels / c.groups, og = c.outputs / c.groups;
  const int64_t out_len = c.length + c.pad_begin + c.pad_end - c.taps + 1;
  const char t = c.along_w ? 'w' : 'h', unit = c.along_w ? 'h' : 'w';
  const Shape xs =
      shape_of(c.layout, {{'n', c.batch}, {'c', c.channels}, {t, c.length}, {unit, 1}});
  const Shape ws = shape_of(c.filter_layout, {{'o', c.outputs}, {'i', ig}, {t, c.taps}, {unit, 1}});
  const auto xv = pattern(size_t(element_count(xs)), 7);
  const auto wv = pattern(size_t(element_count(ws)), 8);
  const auto bv = pattern(size_t(c.outputs), 9);
  const IntList padding =
      c.along_w ? IntList{0, 0, c.pad_begin, c.pad_end} : IntList{c.pad_begin, c.pad_end, 0, 0};
  NodeRunner run;
  std::vector<std::pair<std::string, RawValue>> options = {{"padding", padding},
                                                           {"groups", c.groups},
                                                           {"inputLayout", c.layout},
                                                           {"filterLayout", c.filter_layout}};
  if (c.bias) options.push_back({"bias", run.input("b", {c.outputs}, bv)});
  const OperandId x = run.input("x", xs, xv), w = run.input("w", ws, wv);
  const ScopedKernelContext context({c.threads, 0});
  const auto r = run.run(fn, OpKind::kConv2d, {x, w}, options);
  const Shape ys = shape_of(c.layout, {{'n', c.batch}, {'c', c.outputs}, {t, out_len}, {unit, 1}});
  EXPECT_EQ(r.shapes[0], ys);
  if (r.shapes[0] != ys) return INFINITY;
  std::vector<double> expected(r.values[0].size());
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t o = 0; o < c.outputs; ++o)
      for (int64_t p = 0; p < out_len; ++p) {
        double s = c.bias ? bv[size_t(o)] : 0.0;
        const int64_t g = o / og;
        for (int64_t i = 0; i < ig; ++i)
          for (int64_t k = 0; k < c.taps; ++k) {
            const int64_t q = p + k - c.pad_begin;
            if (q < 0 || q >= c.length) continue;
            s += wv[size_t(
                     offset_of(ws, c.filter_layout, {{'o', o}, {'i', i}, {t, k}, {unit, 0}}))] *
                 xv[size_t(
                     offset_of(xs, c.layout, {{'n', n}, {'c', g * ig + i}, {t, q}, {unit, 0}}))];
          }
        expected[size_t(offset_of(ys, c.layout, {{'n', n}, {'c', o}, {t, p}, {unit, 0}}))] = s;
      }
  double max_abs = 0, max_err = 0;
  for (double v : expected) max_abs = std::max(max_abs, std::fabs(v));
  EXPECT_GT(max_abs, 1.0);  // the comparison below is not against zeros
  const double tol = 1e-5 * max_abs + 1e-6;
  for (size_t k = 0; k < expected.size(); ++k) {
    const double err = std::fabs(r.values[0][k] - expected[k]);
    max_err = std::max(max_err, err);
    EXPECT_LE(err, tol) << "element " << k << ": " << r.values[0][k] << " vs " << expected[k];
  }
  std::printf("max error %.3g (max |y| %.3g)\n", max_err, max_abs);
  return max_err;
}

TEST(ConvFft, MatchesDirectConvolution) {
  const std::vector<Case> cases = {
      // Several blocks (L = 64, 33 outputs a block), groups, symmetric padding, bias.
      {1, 8, 6, 2, 100, 32, 16, 16, "nchw", "oihw", true, true, 1},
      // nhwc, hwio, batch 2, asymmetric padding, no bias, 2 threads.
      {2, 6, 9, 3, 77, 33, 5, 20, "nhwc", "hwio", true, false, 2},
      // Along H (W = 1), ohwi, zero padding, one group, shared by 2 threads.
      {1, 5, 4, 1, 90, 40, 0, 0, "nchw", "ohwi", false, true, 2},
      // Along H, nhwc, ihwo, a single block of odd length (L = 45), depthwise, batch 2.
      {2, 4, 4, 4, 30, 40, 5, 6, "nhwc", "ihwo", false, true, 2},
      // One group of 40 outputs, batch 2, 2 threads sharing each image: product tasks of 32 and
      // of 8 (padded to 16) output channels.
      {2, 24, 40, 1, 120, 36, 17, 18, "nchw", "ohwi", true, true, 2},
      // The wav2vec2 positional conv's shape, scaled down in channels: K = 128, padding 64.
      {1, 32, 32, 4, 199, 128, 64, 64, "nchw", "oihw", true, true, 2},
  };
  double worst = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.layout << "/" << c.filter_layout << " K=" << c.taps
                                      << " groups=" << c.groups << " batch=" << c.batch);
    worst = std::max(worst, check_case(c, conv2d_fft));
  }
  std::printf("worst max error over the cases: %.3g\n", worst);
}

TEST(ConvFft, ReferenceConv2dTakesTheFftPathAndMatches) {
  // Through the conv family kernel, on groups of 16 channels. The test values are multiples of
  // 1/4, so the direct kernel (double accumulation) is exact here and only the FFT path rounds:
  // a nonzero error shows that path ran.
  EXPECT_GT(check_case({1, 32, 32, 2, 64, 48, 3, 1, "nchw", "oihw", true, true, 1}, conv), 0.0);
  // Groups of 8 input channels stay on the direct kernel.
  EXPECT_EQ(check_case({1, 16, 32, 2, 64, 48, 3, 1, "nchw", "oihw", true, true, 1}, conv), 0.0);
}

// A one-conv graph for the predicate.
bool applies(DataType dtype, Shape input, Shape filter, IntList padding = {0, 0, 0, 0},
             IntList strides = {1, 1}, IntList dilations = {1, 1}, int64_t groups = 1) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {dtype, input});
  const auto w = b.input("w", {dtype, filter});
  b.add1(
      OpKind::kConv2d, {x, w},
      {{"padding", padding}, {"strides", strides}, {"dilations", dilations}, {"groups", groups}});
  return fft_conv_applies(g, g.nodes().back());
}

TEST(ConvFft, AppliesOnlyToLongUnitStrideFloat32OneDimensionalFilters) {
  const IntList none = {0, 0, 0, 0}, one = {1, 1};
  EXPECT_TRUE(
      applies(DataType::kFloat32, {1, 64, 1, 200}, {64, 16, 1, 128}, {0, 0, 64, 64}, one, one, 4));
  EXPECT_TRUE(applies(DataType::kFloat32, {1, 16, 200, 1}, {16, 16, 32, 1}));
  {
    // The reason every delegate gives for leaving it on the reference kernels.
    Graph g;
    GraphBuilder b(g);
    b.add1(OpKind::kConv2d, {b.input("x", {DataType::kFloat32, {1, 16, 1, 200}}),
                             b.input("w", {DataType::kFloat32, {16, 16, 1, 128}})});
    EXPECT_EQ(faster_on_reference(g, g.nodes().back()).value_or(""),
              "a long 1-D filter (128 taps): the FFT convolution of the reference kernels is "
              "faster");
    b.add1(OpKind::kConv2d, {b.input("x2", {DataType::kFloat32, {1, 16, 1, 200}}),
                             b.input("w2", {DataType::kFloat32, {16, 16, 1, 3}})});
    EXPECT_FALSE(faster_on_reference(g, g.nodes().back()).has_value());
  }
  // Short filters, including the usual 1x3 / 3x1.
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 1, 200}, {16, 16, 1, 31}));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 1, 200}, {16, 16, 1, 3}));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 200, 1}, {16, 16, 3, 1}));
  // Stride 2, dilation 2, float16.
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 1, 200}, {16, 16, 1, 64}, none, {1, 2}));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 1, 200}, {16, 16, 1, 64}, none, one, {1, 2}));
  EXPECT_FALSE(applies(DataType::kFloat16, {1, 16, 1, 200}, {16, 16, 1, 64}));
  // Not 1-D: a 2-D input under a 1-row filter, or padding along the unit dimension.
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 2, 200}, {16, 16, 1, 64}));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 16, 1, 200}, {16, 16, 1, 64}, {1, 0, 0, 0}));
  // Depthwise, and groups of fewer than 16 input or output channels.
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 64, 1, 200}, {64, 1, 1, 128}, none, one, one, 64));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 8, 1, 200}, {16, 8, 1, 128}));
  EXPECT_FALSE(applies(DataType::kFloat32, {1, 64, 1, 200}, {32, 16, 1, 128}, none, one, one, 4));
}

}  // namespace
}  // namespace wnn::kernels

namespace wnn::kernels {
namespace {

// A filter that is not a graph constant may change in place between calls at the same address
// (a caller's buffer refilled); the kernel must read it again, even where the change is in
// values a cache fingerprint would not sample. Marked constant (as a session marks a graph
// constant), the same call gives the same result.
TEST(ConvFft, FilterChangedInPlaceIsReadAgain) {
  constexpr int64_t kC = 32, kLen = 60, kTaps = 40, kOut = kLen - kTaps + 1;
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {1, kC, 1, kLen}});
  const auto w = b.input("w", {DataType::kFloat32, {kC, kC, 1, kTaps}});
  b.output(b.add1(OpKind::kConv2d, {x, w}, {}, "y"));
  const Node& node = g.nodes()[0];
  ASSERT_TRUE(fft_conv_applies(g, node));
  const auto xd = testing::pattern(size_t(kC * kLen), 3);
  const auto wd = testing::pattern(size_t(kC * kC * kTaps), 4);
  std::vector<float> xv(xd.begin(), xd.end()), wv(wd.begin(), wd.end());
  const Shape xs = {1, kC, 1, kLen}, ws = {kC, kC, 1, kTaps}, ys = {1, kC, 1, kOut};
  std::vector<float> y(size_t(kC * kOut));
  auto run = [&] {
    const std::vector<ConstTensorView> ins = {
        {DataType::kFloat32, xs, reinterpret_cast<const std::byte*>(xv.data())},
        {DataType::kFloat32, ws, reinterpret_cast<const std::byte*>(wv.data())}};
    const std::vector<TensorView> outs = {
        {DataType::kFloat32, ys, reinterpret_cast<std::byte*>(y.data())}};
    run_node(node, ins, outs);
  };
  auto max_error = [&] {
    double err = 0;
    for (int64_t o = 0; o < kC; ++o)
      for (int64_t p = 0; p < kOut; ++p) {
        double s = 0;
        for (int64_t i = 0; i < kC; ++i)
          for (int64_t k = 0; k < kTaps; ++k)
            s += double(wv[size_t((o * kC + i) * kTaps + k)]) * xv[size_t(i * kLen + p + k)];
        err = std::max(err, std::fabs(s - y[size_t(o * kOut + p)]));
      }
    return err;
  };
  run();
  EXPECT_LT(max_error(), 1e-3);
  wv[1] += 8.0f;  // output channel 0, input channel 0, tap 1: every output of channel 0 moves
  run();
  EXPECT_LT(max_error(), 1e-3);
  {
    const ScopedKernelContext constants({1, uint64_t(1) << 1});
    run();
    EXPECT_LT(max_error(), 1e-3);  // first constant call: computed from the current values
  }
}

}  // namespace
}  // namespace wnn::kernels
