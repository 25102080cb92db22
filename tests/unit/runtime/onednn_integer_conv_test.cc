// The int8 conv of the oneDNN delegate (runtime/onednn/integer_conv.h): a uint8 tensor cast to
// float32 minus a run-time zero point, convolved with a filter of integers, runs as oneDNN's
// u8 x s8 -> s32 convolution, shifted into int8 (plus a box-sum channel) where a filter row
// leaves it. Every case compares against the exact int64 product computed here, rounded to
// float32 once, and checks from the profile that the int8 kernel ran (its step is labelled
// "conv2d int8"); the declines say why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "profiled_run.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/onednn/integer_conv.h"
#include "wnn/runtime/onednn/region_builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using Ints = std::vector<int64_t>;

struct ConvCase {
  int64_t c = 5, h = 9, w = 7, m = 7, kh = 3, kw = 3, groups = 1;
  Ints padding{1, 1, 1, 1}, strides{1, 1};
  bool zero_point = true;
  bool int32_output = false;  // the conv read by a cast to int32, as the importer writes it
  // Then ONNX Runtime's dequantization: cast to float32, mul by a scale (a run-time scalar input
  // "s", or with per_channel a constant of shape `channel_shape`), plus a constant bias of that
  // shape when `bias`.
  bool dequantize = false, per_channel = false, bias = true;
  Shape channel_shape;  // [m, 1, 1] or [1, m, 1, 1]; default [1, m, 1, 1]
};

Shape channel_shape(const ConvCase& k) {
  return k.channel_shape.empty() ? Shape{1, k.m, 1, 1} : k.channel_shape;
}
Tensor scale_constant(const ConvCase& k) {
  return testing::seeded(channel_shape(k), 11, 1e-4f, 3e-3f);
}
Tensor bias_constant(const ConvCase& k) { return testing::seeded(channel_shape(k), 12, -2, 2); }
constexpr float kScale = 0.0123456f;  // the run-time scale

// Filter values in [lo, hi] (per output channel o: [lo + o * drift, hi + o * drift]).
Tensor integer_filter(const ConvCase& k, int lo, int hi, int drift, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {k.m, k.c / k.groups, k.kh, k.kw});
  float* v = t.mutable_view().as<float>();
  std::mt19937 rng(seed);
  const int64_t row = t.size() / k.m;
  for (int64_t o = 0; o < k.m; ++o) {
    std::uniform_int_distribution<int> u(lo + int(o) * drift, hi + int(o) * drift);
    for (int64_t i = 0; i < row; ++i) v[o * row + i] = float(u(rng));
    // Both ends present, so the row spans its whole range.
    v[o * row] = float(lo + int(o) * drift);
    v[o * row + row - 1] = float(hi + int(o) * drift);
  }
  return t;
}

Tensor codes(const ConvCase& k, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kUint8, {1, k.c, k.h, k.w});
  std::mt19937 rng(seed);
  auto* v = t.mutable_view().as<uint8_t>();
  for (int64_t i = 0; i < t.size(); ++i) v[i] = uint8_t(rng() % 256);
  v[0] = 0, v[1] = 255;
  return t;
}

std::shared_ptr<const Graph> conv_graph(const ConvCase& k, const Tensor& filter) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  OperandId x = b.add1(OpKind::kCast,
                       {b.input("q", {DataType::kUint8, {1, k.c, k.h, k.w}}), DataType::kFloat32});
  if (k.zero_point) {
    const auto z =
        b.add1(OpKind::kCast, {b.input("z", {DataType::kUint8, {}}), DataType::kFloat32}, {}, "zf");
    x = b.add1(OpKind::kSub, {x, z});
  }
  const bool cast = k.int32_output || k.dequantize;
  const auto y = b.add1(OpKind::kConv2d, {x, b.constant("w", filter)},
                        {{"padding", k.padding}, {"strides", k.strides}, {"groups", k.groups}},
                        cast ? "conv" : "y");
  if (!cast) {
    b.output(y);
    return g;
  }
  const auto i32 = b.add1(OpKind::kCast, {y, DataType::kInt32}, {}, k.dequantize ? "i32" : "y");
  if (!k.dequantize) {
    b.output(i32);
    return g;
  }
  const auto f = b.add1(OpKind::kCast, {i32, DataType::kFloat32});
  const auto s =
      k.per_channel ? b.constant("s", scale_constant(k)) : b.input("s", {DataType::kFloat32, {}});
  // ONNX Runtime's quantizer writes Mul(product, scale), then the bias Add.
  const auto m = b.add1(OpKind::kMul, {f, s}, {}, k.bias ? "m" : "y");
  b.output(k.bias ? b.add1(OpKind::kAdd, {m, b.constant("bias", bias_constant(k))}, {}, "y") : m);
  return g;
}

// ONNX Runtime's int32 accumulation of (q - z) * w, padding counting as the zero point, then
// one rounding to float32 (or, for an int32 output, the integer itself).
std::vector<double> exact(const ConvCase& k, const Tensor& q, uint8_t z, const Tensor& filter,
                          int64_t oh, int64_t ow) {
  const auto* x = q.view().as<uint8_t>();
  const float* w = filter.view().as<float>();
  const int64_t cg = k.c / k.groups, mg = k.m / k.groups;
  std::vector<double> y(size_t(k.m * oh * ow));
  for (int64_t o = 0; o < k.m; ++o) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        int64_t acc = 0;
        for (int64_t c = 0; c < cg; ++c) {
          for (int64_t a = 0; a < k.kh; ++a) {
            for (int64_t bb = 0; bb < k.kw; ++bb) {
              const int64_t r = i * k.strides[0] - k.padding[0] + a;
              const int64_t s = j * k.strides[1] - k.padding[2] + bb;
              if (r < 0 || r >= k.h || s < 0 || s >= k.w) continue;
              const int64_t ci = (o / mg) * cg + c;
              const int64_t xv = int64_t(x[(ci * k.h + r) * k.w + s]) - (k.zero_point ? z : 0);
              acc += xv * int64_t(w[((o * cg + c) * k.kh + a) * k.kw + bb]);
            }
          }
        }
        double v = k.int32_output ? double(acc) : double(float(acc));
        if (k.dequantize) {
          const float sc = k.per_channel ? scale_constant(k).view().as<float>()[o] : kScale;
          const float scaled = float(int32_t(acc)) * sc;
          v = k.bias ? double(scaled + bias_constant(k).view().as<float>()[o]) : double(scaled);
        }
        y[size_t((o * oh + i) * ow + j)] = v;
      }
    }
  }
  return y;
}

testing::ProfiledRun run_onednn(const std::shared_ptr<const Graph>& g, const Tensor& q, uint8_t z,
                                int threads) {
  Tensor zt = Tensor::zeros(DataType::kUint8, {});
  zt.mutable_view().as<uint8_t>()[0] = z;
  Tensor st = Tensor::zeros(DataType::kFloat32, {});
  st.mutable_view().as<float>()[0] = kScale;
  return testing::run_profiled(g, {{"q", q.view()}, {"z", zt.view()}, {"s", st.view()}}, "onednn",
                               threads);
}

// Runs the case on 1 and 2 threads and expects the exact values, one int8 kernel and (when
// `shifted`) the int32 recombination step.
void expect_exact_int8(const ConvCase& k, const Tensor& filter, uint8_t z, bool shifted,
                       int dequantized = 0) {
  const auto g = conv_graph(k, filter);
  const Tensor q = codes(k, 7);
  const Shape& ys = g->desc(g->outputs()[0]).shape;
  const auto want = exact(k, q, z, filter, ys[2], ys[3]);
  for (int threads : {1, 2}) {
    const auto r = run_onednn(g, q, z, threads);
    ASSERT_EQ(r.y.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r.y[i], want[i]) << "at " << i;
    EXPECT_EQ(r.count_containing("conv2d int8"), 1) << r.joined();
    EXPECT_EQ(r.count_containing("box-sum shift"), shifted ? 1 : 0) << r.joined();
    EXPECT_EQ(r.count_containing("dequantize"), dequantized) << r.joined();
    if (dequantized) {
      // The casts, mul and add run inside the int8 steps (the zero point's cast to float32 is
      // read, as int32, by the conv; the output 'y' is reordered from oneDNN's blocked layout
      // into the caller's buffer).
      for (const auto& l : r.steps) {
        if (l.rfind("reorder for cast 'zf'", 0) == 0) continue;
        if (l.rfind("reorder for ", 0) == 0 && l.find(" 'y' [") != std::string::npos) continue;
        for (const char* op : {"cast '", "mul '", "add '"}) {
          EXPECT_NE(l.rfind(op, 0), 0u) << r.joined();
          EXPECT_EQ(l.find(std::string("for ") + op), std::string::npos) << r.joined();
        }
      }
    }
  }
}

TEST(OnednnIntegerConv, Int8FilterRunsInt8KernelExactly) {
  ConvCase k;
  expect_exact_int8(k, integer_filter(k, -128, 127, 0, 1), 137, false);
}

TEST(OnednnIntegerConv, WithoutZeroPoint) {
  ConvCase k;
  k.zero_point = false;
  k.padding = {0, 2, 1, 0};
  expect_exact_int8(k, integer_filter(k, -90, 101, 0, 2), 0, false);
}

// uint8 weights with zero point 143 span [-143, 112]; per channel the span drifts, as weights
// of several zero points (one per channel) would.
TEST(OnednnIntegerConv, UInt8WeightsShiftIntoInt8WithBoxSum) {
  ConvCase k;
  k.strides = {2, 1};
  k.padding = {1, 0, 0, 2};
  expect_exact_int8(k, integer_filter(k, -143, 112, 3, 3), 201, true);
}

// A chunked product of the importer is a grouped conv (one group per chunk): each group gets
// its own box-sum channel.
TEST(OnednnIntegerConv, GroupedShiftedFilter) {
  ConvCase k;
  k.c = 9, k.m = 6, k.groups = 3, k.h = 6, k.w = 11;
  expect_exact_int8(k, integer_filter(k, -200, 50, 1, 4), 3, true);
}

// Sums past 2^24 round once to float32, to nearest even, as ONNX Runtime's Cast does; a float
// conv would round its partial sums instead.
// The importer's cast of the product to int32 is folded: the conv writes int32 (the shifted
// form from its int32 recombination), and no cast step runs.
TEST(OnednnIntegerConv, CastToInt32IsFolded) {
  for (bool shifted : {false, true}) {
    ConvCase k;
    k.int32_output = true;
    k.padding = {2, 1, 0, 1};
    expect_exact_int8(k, integer_filter(k, shifted ? -160 : -100, shifted ? 90 : 120, 1, 8), 77,
                      shifted);
    const auto r =
        run_onednn(conv_graph(k, integer_filter(k, -100, 120, 1, 8)), codes(k, 7), 77, 1);
    // A cast step would be labelled "cast 'y'"; the reorder of the int32 output into the
    // caller's row-major buffer is "reorder for cast 'y'".
    for (const auto& l : r.steps) EXPECT_NE(l.rfind("cast 'y'", 0), 0u) << l;
  }
}

// ConvInteger's dequantization as ONNX Runtime's quantizer writes it (Cast, Mul by the product
// of the scales, Add of the bias) runs as the conv's post-ops, or in the shifted form's
// recombination, with bit for bit the same float32 results: a run-time scalar scale, per-channel
// scales as [m, 1, 1] and [1, m, 1, 1], with and without bias, grouped and strided too.
TEST(OnednnIntegerConv, DequantizationIsFoldedExactly) {
  for (bool shifted : {false, true}) {
    for (bool per_channel : {false, true}) {
      for (bool bias : {true, false}) {
        ConvCase k;
        k.c = 6, k.m = 10, k.h = 8, k.w = 11, k.groups = per_channel ? 2 : 1;
        k.strides = {2, 1}, k.padding = {1, 0, 2, 1};
        k.dequantize = true, k.per_channel = per_channel, k.bias = bias;
        if (per_channel && bias) k.channel_shape = {k.m, 1, 1};
        SCOPED_TRACE(::testing::Message() << shifted << per_channel << bias);
        const Tensor f =
            integer_filter(k, shifted ? -150 : -127, shifted ? 100 : 127, shifted ? 1 : 0, 9);
        expect_exact_int8(k, f, 131, shifted, 1);
      }
    }
  }
}

// A scale or bias that varies along another axis is no dequantization by channel: the int8 conv
// writes int32 and the float32 mul and add run as their own steps, with the same values.
TEST(OnednnIntegerConv, DequantizationAlongOtherAxesIsNotFolded) {
  for (Shape other : {Shape{1, 1, 1, 7}, Shape{1, 1, 9, 1}}) {
    ConvCase k;  // output [1, 7, 9, 7]
    k.dequantize = true, k.per_channel = true, k.channel_shape = other;
    SCOPED_TRACE(::testing::Message() << other.size() << " " << other[2]);
    // The exact values want the channel index: along another axis they index differently, so
    // only the folding is checked here, and the values against the reference kernels.
    const auto g = conv_graph(k, integer_filter(k, -128, 127, 0, 3));
    const Tensor q = codes(k, 7);
    const auto r = run_onednn(g, q, 5, 1);
    EXPECT_EQ(r.count_containing("conv2d int8"), 1) << r.joined();
    EXPECT_EQ(r.count_containing("dequantize"), 0) << r.joined();
    Tensor zt = Tensor::zeros(DataType::kUint8, {});
    zt.mutable_view().as<uint8_t>()[0] = 5;
    const std::vector<NamedView> in = {{"q", q.view()}, {"z", zt.view()}};
    const auto want = Session(g, {"ref", 1}).run(in);
    const float* wv = want[0].tensor.view().as<float>();
    ASSERT_EQ(r.y.size(), size_t(want[0].tensor.size()));
    for (size_t i = 0; i < r.y.size(); ++i) ASSERT_EQ(r.y[i], double(wv[i])) << "at " << i;
  }
}

TEST(OnednnIntegerConv, LargeSumsRoundOnceToFloat32) {
  ConvCase k;
  k.c = 160, k.m = 3, k.h = 5, k.w = 4;
  Tensor f = integer_filter(k, 100, 127, 0, 5);
  expect_exact_int8(k, f, 0, false);
  const Tensor q = codes(k, 7);
  const auto want = exact(k, q, 0, f, 5, 4);
  EXPECT_GT(*std::max_element(want.begin(), want.end()), float(1 << 24));
}

TEST(OnednnIntegerConv, DeclinesSayWhy) {
  ConvCase k;
  auto reason = [&](const std::shared_ptr<const Graph>& g) {
    for (const Node& n : g->nodes()) {
      if (n.op() == OpKind::kConv2d) {
        const auto m = onednn::match_integer_conv(*g, n);
        EXPECT_FALSE(m.conv);
        return m.reason;
      }
    }
    return std::string("no conv");
  };
  // A row spanning more than 256 values.
  Tensor wide = integer_filter(k, -200, 100, 0, 6);
  EXPECT_NE(reason(conv_graph(k, wide)).find("filter row 0 spans [-200, 100]"), std::string::npos);
  // A fraction.
  Tensor frac = integer_filter(k, -5, 5, 0, 6);
  frac.mutable_view().as<float>()[4] = 0.5f;
  EXPECT_NE(reason(conv_graph(k, frac)).find("is not an integer"), std::string::npos);
  // A float input.
  auto g = std::make_shared<Graph>();
  {
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {1, k.c, k.h, k.w}});
    b.output(
        b.add1(OpKind::kConv2d, {x, b.constant("w", integer_filter(k, -5, 5, 0, 1))}, {}, "y"));
  }
  EXPECT_NE(reason(g).find("not a uint8 tensor"), std::string::npos);
  // A declined conv runs in float32 on oneDNN and is still exact here (small sums).
  const Tensor q = codes(k, 7);
  const auto gw = conv_graph(k, wide);
  const auto r = run_onednn(gw, q, 9, 1);
  EXPECT_EQ(r.count_containing("conv2d int8"), 0) << r.joined();
  const auto want = exact(k, q, 9, wide, k.h, k.w);
  ASSERT_EQ(r.y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r.y[i], want[i]) << "at " << i;
}

// DynamicQuantizeLinear's codes, clamp(roundEven(x) + 3, 0, 255) cast to uint8, run on oneDNN
// as an exact reorder; a cast of arbitrary floats to an integer type does not (rounding and
// saturation would act) and says so. (The product's cast to int32 is CastToInt32IsFolded's.)
TEST(OnednnCast, ExactIntegerCastsOnlyAndTheirValues) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 3, 5, 7}});
  Tensor three = Tensor::zeros(DataType::kFloat32, {});
  three.mutable_view().as<float>()[0] = 3;
  const auto r =
      b.add1(OpKind::kAdd, {b.add1(OpKind::kRoundEven, {x}), b.constant("three", three)});
  const auto clamped = b.add1(OpKind::kClamp, {r}, {{"minValue", 0.0}, {"maxValue", 255.0}});
  b.output(b.add1(OpKind::kCast, {clamped, DataType::kUint8}, {}, "codes"));
  b.output(b.add1(OpKind::kCast, {x, DataType::kInt32}, {}, "truncated"));
  const onednn::Table& t = onednn::table();
  const Node& codes = g->nodes()[3];
  const Node& truncated = g->nodes()[4];
  EXPECT_TRUE(t[size_t(OpKind::kCast)].supports(*g, codes).ok);
  const Support no = t[size_t(OpKind::kCast)].supports(*g, truncated);
  EXPECT_FALSE(no.ok);
  EXPECT_NE(no.reason.find("cast from float32 to int32"), std::string::npos) << no.reason;
  // Values past both ends of [0, 255] and half-way points.
  Tensor xv = Tensor::zeros(DataType::kFloat32, {2, 3, 5, 7});
  float* p = xv.mutable_view().as<float>();
  for (int64_t i = 0; i < xv.size(); ++i) p[i] = float(i % 37) * 9.5f - 60.25f;
  p[0] = 2.5f, p[1] = -3.5f, p[2] = 251.5f, p[3] = 1e6f;
  const std::vector<NamedView> in = {{"x", xv.view()}};
  const auto want = Session(g, {"ref", 1}).run(in);
  Session s(g, {"onednn", 2, true, false});
  s.set_profiling(true);
  const auto got = s.run(in);
  bool on_onednn = false;
  for (const auto& row : s.profile()) {
    if (row.label.find("cast 'codes'") != std::string::npos) on_onednn = row.where != "ref";
  }
  EXPECT_TRUE(on_onednn);
  const auto* w = want[0].tensor.view().as<uint8_t>();
  const auto* v = got[0].tensor.view().as<uint8_t>();
  for (int64_t i = 0; i < xv.size(); ++i) ASSERT_EQ(v[i], w[i]) << "at " << i;
  EXPECT_EQ(v[0], 5);  // roundEven(2.5) + 3
}

}  // namespace
}  // namespace wnn::runtime
