// The int8 matmul of the oneDNN delegate (runtime/onednn/integer_conv.h): MatMulInteger's float
// form, a uint8 tensor cast to float32 minus a run-time zero point times a constant [K, N] of
// integers, runs as oneDNN's u8 x s8 -> s32 matmul, shifted into int8 (plus a column of ones)
// where a column leaves it. Every case compares against the exact int64 product computed here,
// rounded to float32 once (or the int32 itself), and checks from the profile that the int8 kernel
// ran (its step is labelled "matmul int8"): with WNN_ONEDNN_INT8=0 they fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
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

struct MatmulCase {
  Shape batch{2, 3};  // A is [batch..., K]; its rows are collapsed
  int64_t k = 37, n = 19;
  bool zero_point = true;
  bool int32_output = false;  // the matmul read by a cast to int32, as the importer writes it
  // Then ONNX Runtime's dequantization: cast to float32, mul by a scale (a run-time scalar
  // input "s", or with per_column a constant per column, or with full_scale a constant of the
  // output's shape, which is not folded), plus a constant bias per column.
  bool dequantize = false, per_column = false, full_scale = false, bias = true;
  bool gelu = false;  // then gelu of the dequantized product (a BERT FFN's up projection)
};

Shape a_shape(const MatmulCase& c) {
  Shape s = c.batch;
  s.push_back(c.k);
  return s;
}

// B [K, N] with column o in [lo + o * drift, hi + o * drift], both ends present.
Tensor integer_weights(const MatmulCase& c, int lo, int hi, int drift, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {c.k, c.n});
  float* v = t.mutable_view().as<float>();
  std::mt19937 rng(seed);
  for (int64_t o = 0; o < c.n; ++o) {
    std::uniform_int_distribution<int> u(lo + int(o) * drift, hi + int(o) * drift);
    for (int64_t r = 0; r < c.k; ++r) v[r * c.n + o] = float(u(rng));
    v[o] = float(lo + int(o) * drift);
    v[(c.k - 1) * c.n + o] = float(hi + int(o) * drift);
  }
  return t;
}

Tensor codes(const MatmulCase& c, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kUint8, a_shape(c));
  std::mt19937 rng(seed);
  auto* v = t.mutable_view().as<uint8_t>();
  for (int64_t i = 0; i < t.size(); ++i) v[i] = uint8_t(rng() % 256);
  v[0] = 0, v[1] = 255;
  return t;
}

Tensor values(Shape shape, uint32_t seed, float lo, float hi) {
  Tensor t = Tensor::zeros(DataType::kFloat32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  float* v = t.mutable_view().as<float>();
  for (int64_t i = 0; i < t.size(); ++i) v[i] = u(rng);
  return t;
}

Shape out_shape(const MatmulCase& c) {
  Shape s = c.batch;
  s.push_back(c.n);
  return s;
}

Tensor scale_constant(const MatmulCase& c) {
  return values(c.full_scale ? out_shape(c) : Shape{c.n}, 11, 1e-4f, 3e-3f);
}
Tensor bias_constant(const MatmulCase& c) { return values({c.n}, 12, -2.0f, 2.0f); }
constexpr float kScale = 0.0123456f;  // the run-time scale

// cast(q) [- cast(z)] matmul w [-> cast to int32 [-> dequantized]].
std::shared_ptr<const Graph> matmul_graph(const MatmulCase& c, const Tensor& w) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  OperandId x =
      b.add1(OpKind::kCast, {b.input("q", {DataType::kUint8, a_shape(c)}), DataType::kFloat32});
  if (c.zero_point) {
    const auto z =
        b.add1(OpKind::kCast, {b.input("z", {DataType::kUint8, {}}), DataType::kFloat32}, {}, "zf");
    x = b.add1(OpKind::kSub, {x, z});
  }
  const bool cast = c.int32_output || c.dequantize;
  const auto y = b.add1(OpKind::kMatmul, {x, b.constant("w", w)}, {}, cast ? "mm" : "y");
  if (!cast) {
    b.output(y);
    return g;
  }
  const auto i32 = b.add1(OpKind::kCast, {y, DataType::kInt32}, {}, c.dequantize ? "i32" : "y");
  if (!c.dequantize) {
    b.output(i32);
    return g;
  }
  const auto f = b.add1(OpKind::kCast, {i32, DataType::kFloat32});
  const auto s = c.per_column || c.full_scale ? b.constant("s", scale_constant(c))
                                              : b.input("s", {DataType::kFloat32, {}});
  const auto m = b.add1(OpKind::kMul, {f, s}, {}, c.bias ? "m" : "y");
  // ONNX Runtime's quantizer writes Add(bias, product).
  const auto d = c.bias ? b.add1(OpKind::kAdd, {b.constant("bias", bias_constant(c)), m}, {},
                                 c.gelu ? "d" : "y")
                        : m;
  b.output(c.gelu ? b.add1(OpKind::kGelu, {d}, {}, "y") : d);
  return g;
}

// ONNX Runtime's int32 accumulation of (q - z) * w, rounded once to float32 (or the integer).
std::vector<double> exact(const MatmulCase& c, const Tensor& q, uint8_t z, const Tensor& w) {
  const auto* x = q.view().as<uint8_t>();
  const float* wv = w.view().as<float>();
  const int64_t rows = q.size() / c.k;
  std::vector<double> y(size_t(rows * c.n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < c.n; ++o) {
      int64_t acc = 0;
      for (int64_t i = 0; i < c.k; ++i) {
        const int64_t xv = int64_t(x[r * c.k + i]) - (c.zero_point ? z : 0);
        acc += xv * int64_t(wv[i * c.n + o]);
      }
      double v = c.int32_output ? double(acc) : double(float(acc));
      if (c.dequantize) {
        const float s = c.per_column   ? scale_constant(c).view().as<float>()[o]
                        : c.full_scale ? scale_constant(c).view().as<float>()[r * c.n + o]
                                       : kScale;
        const float scaled = float(int32_t(acc)) * s;
        v = c.bias ? double(scaled + bias_constant(c).view().as<float>()[o]) : double(scaled);
      }
      y[size_t(r * c.n + o)] = v;
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

void expect_exact_int8(const MatmulCase& c, const Tensor& w, uint8_t z, bool shifted,
                       int dequantized = 0) {
  const auto g = matmul_graph(c, w);
  const Tensor q = codes(c, 7);
  const auto want = exact(c, q, z, w);
  for (int threads : {1, 2}) {
    const auto r = run_onednn(g, q, z, threads);
    ASSERT_EQ(r.y.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r.y[i], want[i]) << "at " << i;
    EXPECT_EQ(r.count_containing("matmul int8"), 1) << r.joined();
    EXPECT_EQ(r.count_containing("box-sum shift"), shifted ? 1 : 0) << r.joined();
    EXPECT_EQ(r.count_containing("dequantize"), dequantized) << r.joined();
    if (dequantized) {
      // The casts, mul and add run inside the int8 steps (the zero point's cast to float32
      // is read, as int32, by the matmul).
      for (const auto& l : r.steps) {
        if (l.rfind("reorder for cast 'zf'", 0) == 0) continue;
        for (const char* op : {"cast '", "mul '", "add '"}) {
          EXPECT_NE(l.rfind(op, 0), 0u) << r.joined();
          EXPECT_EQ(l.find(std::string("for ") + op), std::string::npos) << r.joined();
        }
      }
    }
  }
}

// Odd K, N not a multiple of any vector width, negative weights and a zero point.
TEST(OnednnIntegerMatmul, Int8WeightsRunInt8KernelExactly) {
  MatmulCase c;
  expect_exact_int8(c, integer_weights(c, -128, 127, 0, 1), 137, false);
}

TEST(OnednnIntegerMatmul, WithoutZeroPointAndOneRow) {
  MatmulCase c;
  c.batch = {1};
  c.k = 64, c.n = 33;
  c.zero_point = false;
  expect_exact_int8(c, integer_weights(c, -90, 101, 0, 2), 0, false);
}

// uint8 weights with zero point 143 span [-143, 112]; the span drifts per column, as per-column
// zero points give: shifted into int8, the row sums from a column of ones.
TEST(OnednnIntegerMatmul, UInt8WeightsShiftIntoInt8WithRowSums) {
  MatmulCase c;
  c.n = 21;
  expect_exact_int8(c, integer_weights(c, -143, 112, 3, 3), 201, true);
}

// The importer's cast of the product to int32 is folded: the matmul writes int32, no cast runs.
TEST(OnednnIntegerMatmul, CastToInt32IsFolded) {
  for (bool shifted : {false, true}) {
    MatmulCase c;
    c.int32_output = true;
    c.k = 161;
    const Tensor w =
        integer_weights(c, shifted ? -160 : -100, shifted ? 90 : 120, shifted ? 1 : 0, 8);
    expect_exact_int8(c, w, 77, shifted);
    const auto r = run_onednn(matmul_graph(c, w), codes(c, 7), 77, 1);
    for (const auto& l : r.steps) EXPECT_NE(l.rfind("cast 'y'", 0), 0u) << l;
  }
}

// ONNX Runtime's Cast, Mul by the scales and Add of the bias run as the matmul's output scales
// and post-op (or in the shifted form's recombination), bit for bit the same float32 results:
// a run-time scalar scale, per-column scales, with and without bias, shifted or not.
TEST(OnednnIntegerMatmul, DequantizationIsFoldedExactly) {
  for (bool shifted : {false, true}) {
    for (bool per_column : {false, true}) {
      for (bool bias : {true, false}) {
        MatmulCase c;
        c.dequantize = true, c.per_column = per_column, c.bias = bias;
        c.k = 129, c.n = 35;
        SCOPED_TRACE(::testing::Message() << shifted << per_column << bias);
        const Tensor w =
            integer_weights(c, shifted ? -150 : -127, shifted ? 100 : 127, shifted ? 1 : 0, 9);
        expect_exact_int8(c, w, 131, shifted, 1);
      }
    }
  }
}

// A gelu reading the dequantized product alone runs as the int8 kernel's last post-op: no gelu
// step of its own, and the values of gelu over ONNX Runtime's exact dequantized product (to
// oneDNN's erf, a few ulps).
TEST(OnednnIntegerMatmul, GeluAfterTheDequantizationRunsInTheKernel) {
  MatmulCase c;
  c.dequantize = true, c.per_column = true, c.gelu = true;
  c.k = 77, c.n = 41;
  const Tensor w = integer_weights(c, -127, 127, 0, 13);
  const Tensor q = codes(c, 7);
  const auto product = exact(c, q, 131, w);
  for (int threads : {1, 2}) {
    const auto r = run_onednn(matmul_graph(c, w), q, 131, threads);
    ASSERT_EQ(r.y.size(), product.size());
    bool negative = false;
    for (size_t i = 0; i < product.size(); ++i) {
      const double x = product[i], want = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      negative |= want < -0.05;
      ASSERT_NEAR(r.y[i], want, 2e-6 * (1 + std::abs(want))) << "at " << i;
    }
    EXPECT_TRUE(negative) << "gelu's negative lobe is not exercised";
    EXPECT_EQ(r.count_containing("matmul int8, dequantize"), 1) << r.joined();
    EXPECT_EQ(r.count_containing("gelu"), 0) << r.joined();
  }
}

// A scale of the output's shape is no per-column scale: the int8 matmul writes int32 and the
// float32 dequantization runs as its own steps, with the same values.
TEST(OnednnIntegerMatmul, FullScaleIsNotFolded) {
  MatmulCase c;
  c.dequantize = true, c.full_scale = true;
  expect_exact_int8(c, integer_weights(c, -128, 127, 0, 10), 5, false, 0);
}

// Sums past 2^24 round once to float32, as ONNX Runtime's Cast does, with a zero point too.
TEST(OnednnIntegerMatmul, LargeSumsRoundOnceToFloat32) {
  MatmulCase c;
  c.batch = {3};
  c.k = 2001, c.n = 5;
  c.zero_point = false;
  const Tensor w = integer_weights(c, 110, 127, 0, 5);
  expect_exact_int8(c, w, 0, false);
  const auto want = exact(c, codes(c, 7), 0, w);
  EXPECT_GT(*std::max_element(want.begin(), want.end()), double(1 << 24));
  c.zero_point = true;
  expect_exact_int8(c, w, 3, false);
  c.dequantize = true, c.per_column = true;
  expect_exact_int8(c, w, 3, false, 1);
}

TEST(OnednnIntegerMatmul, LookAlikesAreNotMatched) {
  MatmulCase c;
  auto reason = [&](const std::shared_ptr<const Graph>& g) {
    for (const Node& n : g->nodes()) {
      if (n.op() == OpKind::kMatmul) {
        const auto m = onednn::match_integer_matmul(*g, n);
        EXPECT_FALSE(m.conv);
        return m.reason;
      }
    }
    return std::string("no matmul");
  };
  // A column spanning more than 256 values.
  const Tensor wide = integer_weights(c, -200, 100, 0, 6);
  EXPECT_NE(reason(matmul_graph(c, wide)).find("column 0 spans [-200, 100]"), std::string::npos);
  // A fraction among the weights.
  Tensor frac = integer_weights(c, -5, 5, 0, 6);
  frac.mutable_view().as<float>()[4] = 0.5f;
  EXPECT_NE(reason(matmul_graph(c, frac)).find("is not an integer"), std::string::npos);
  // A zero point that is no integer (a constant 3.5), and codes cast from int8.
  for (bool int8_codes : {false, true}) {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const DataType dt = int8_codes ? DataType::kInt8 : DataType::kUint8;
    OperandId x = b.add1(OpKind::kCast, {b.input("q", {dt, a_shape(c)}), DataType::kFloat32});
    Tensor z = Tensor::zeros(DataType::kFloat32, {});
    z.mutable_view().as<float>()[0] = int8_codes ? 3.0f : 3.5f;
    x = b.add1(OpKind::kSub, {x, b.constant("z", z)});
    b.output(
        b.add1(OpKind::kMatmul, {x, b.constant("w", integer_weights(c, -5, 5, 0, 1))}, {}, "y"));
    EXPECT_NE(reason(g).find("a is not a uint8 tensor"), std::string::npos);
  }
  // Weights computed at run time.
  {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x =
        b.add1(OpKind::kCast, {b.input("q", {DataType::kUint8, a_shape(c)}), DataType::kFloat32});
    b.output(b.add1(OpKind::kMatmul, {x, b.input("w", {DataType::kFloat32, {c.k, c.n}})}, {}, "y"));
    EXPECT_NE(reason(g).find("b is not a bound constant"), std::string::npos);
  }
  // A declined matmul runs in float32 on oneDNN, still exact here (small sums).
  const Tensor q = codes(c, 7);
  const auto r = run_onednn(matmul_graph(c, wide), q, 9, 1);
  EXPECT_EQ(r.count_containing("matmul int8"), 0) << r.joined();
  const auto want = exact(c, q, 9, wide);
  ASSERT_EQ(r.y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r.y[i], want[i]) << "at " << i;
}

}  // namespace
}  // namespace wnn::runtime

namespace wnn::runtime {
namespace {

Tensor scalar(float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {});
  t.mutable_view().as<float>()[0] = v;
  return t;
}

// DynamicQuantizeLinear as the importer writes it (range [min(x, 0), max(x, 0)], scale
// range / 255 or 1 for an all-zero x, zero point and codes rounded half to even and clamped):
// every node runs inside one oneDNN region, with the reference kernels' values bit for bit.
// With `filter`, x is relu(conv2d(input, filter)) instead of the input itself.
std::shared_ptr<const Graph> dynamic_quantize_graph(Shape shape, const Tensor* filter = nullptr) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  OperandId x = b.input("x", {DataType::kFloat32, shape});
  if (filter) {
    x = b.add1(OpKind::kRelu, {b.add1(OpKind::kConv2d, {x, b.constant("w", *filter)},
                                      {{"padding", IntList{1, 1, 1, 1}}})});
    shape = g->desc(x).shape;
  }
  IntList all;
  for (size_t i = 0; i < shape.size(); ++i) all.push_back(int64_t(i));
  const auto zero = b.constant("zero", scalar(0));
  const auto lo = b.add1(OpKind::kMin, {b.add1(OpKind::kReduceMin, {x}, {{"axes", all}}), zero});
  const auto hi = b.add1(OpKind::kMax, {b.add1(OpKind::kReduceMax, {x}, {{"axes", all}}), zero});
  const auto div =
      b.add1(OpKind::kDiv, {b.add1(OpKind::kSub, {hi, lo}), b.constant("d", scalar(255))});
  const auto scale =
      b.add1(OpKind::kWhere, {b.add1(OpKind::kEqual, {hi, lo}), b.constant("one", scalar(1)), div},
             {}, "scale");
  const auto zp = b.add1(
      OpKind::kRoundEven,
      {b.add1(OpKind::kClamp, {b.add1(OpKind::kSub, {zero, b.add1(OpKind::kDiv, {lo, scale})})},
              {{"minValue", 0.0}, {"maxValue", 255.0}})});
  const auto q =
      b.add1(OpKind::kAdd, {b.add1(OpKind::kRoundEven, {b.add1(OpKind::kDiv, {x, scale})}), zp});
  const auto codes = b.add1(OpKind::kClamp, {q}, {{"minValue", 0.0}, {"maxValue", 255.0}});
  b.output(b.add1(OpKind::kCast, {codes, DataType::kUint8}, {}, "codes"));
  b.output(scale);
  b.output(b.add1(OpKind::kCast, {zp, DataType::kUint8}, {}, "zero_point"));
  return g;
}

void expect_in_one_onednn_region(const std::shared_ptr<const Graph>& g, const Tensor& x,
                                 int quantize_steps = 0) {
  const std::vector<NamedView> in = {{"x", x.view()}};
  const auto want = Session(g, {"ref", 1}).run(in);
  Session s(g, {"onednn", 2, true, false});
  s.set_profiling(true);
  const auto got = s.run(in);
  std::set<std::string> where;
  int quantize = 0;
  for (const auto& row : s.profile()) {
    where.insert(row.where);
    quantize += row.label.find("quantize to uint8") != std::string::npos;
  }
  // The codes' div, roundEven, add, clamp and cast as one pass.
  EXPECT_EQ(quantize, quantize_steps);
  EXPECT_EQ(where.size(), 1u);
  EXPECT_EQ(where.count("ref"), 0u);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    const auto w = want[o].tensor.view(), v = got[o].tensor.view();
    ASSERT_EQ(v.dtype, w.dtype);
    const size_t bytes = size_t(w.size()) * (w.dtype == DataType::kFloat32 ? 4 : 1);
    EXPECT_EQ(std::memcmp(v.data, w.data, bytes), 0) << "output " << o;
  }
}

TEST(OnednnDynamicQuantize, RunsInOneRegionExactly) {
  const auto g = dynamic_quantize_graph({2, 3, 37});
  Tensor x = Tensor::zeros(DataType::kFloat32, {2, 3, 37});
  float* p = x.mutable_view().as<float>();
  for (int64_t i = 0; i < x.size(); ++i) p[i] = std::sin(0.37f * float(i)) * 3.5f - 0.25f;
  expect_in_one_onednn_region(g, x, 1);
  // All positive (min(x, 0) = 0), and all zero (scale 1).
  for (int64_t i = 0; i < x.size(); ++i) p[i] = 0.5f + float(i % 13);
  expect_in_one_onednn_region(g, x, 1);
  for (int64_t i = 0; i < x.size(); ++i) p[i] = 0;
  expect_in_one_onednn_region(g, x, 1);
  // Scale 127.5 / 255 = 0.5 exactly: x / scale = i / 2, half-way for every odd i (and the
  // negative half-way values with a zero point).
  for (int64_t i = 0; i < x.size(); ++i) p[i] = 0.25f * float(i % 200);
  p[0] = 127.5f;
  expect_in_one_onednn_region(g, x, 1);
  for (int64_t i = 0; i < x.size(); ++i) p[i] = -0.25f * float(i % 150);
  p[0] = 27.5f, p[1] = -100.0f;  // range 127.5
  expect_in_one_onednn_region(g, x, 1);
}

// The quantization of a conv's output reads it in the layout the conv wrote (channels-last or
// blocked without padding): the range's reductions and the codes need no row-major copy, and the
// codes are written in that layout, with the reference kernels' bytes.
TEST(OnednnDynamicQuantize, ReadsTheConvLayoutWithoutReorders) {
  // Small integers, so the conv's sums are exact in any order and the reference kernels give
  // the same conv output.
  std::mt19937 rng(21);
  const Tensor filter = testing::uniform_ints(DataType::kInt32, {32, 5, 3, 3}, -4, 4, rng);
  const Tensor x = testing::uniform_ints(DataType::kInt32, {1, 5, 9, 11}, -3, 5, rng);
  auto as_float = [](const Tensor& t) {
    Tensor f =
        Tensor::zeros(DataType::kFloat32, Shape(t.view().shape.begin(), t.view().shape.end()));
    for (int64_t i = 0; i < t.size(); ++i)
      f.mutable_view().as<float>()[i] = float(t.view().as<int32_t>()[i]);
    return f;
  };
  const Tensor ff = as_float(filter), xf = as_float(x);
  const auto g = dynamic_quantize_graph({1, 5, 9, 11}, &ff);
  expect_in_one_onednn_region(g, xf, 1);
  Session s(g, {"onednn", 2, true, false});
  s.set_profiling(true);
  s.run(std::vector<NamedView>{{"x", xf.view()}});
  for (const auto& row : s.profile()) {
    for (const char* reader : {"reorder for reduceMin", "reorder for reduceMax", "reorder for div"})
      EXPECT_NE(row.label.rfind(reader, 0), 0u) << row.label;
  }
}

// roundEven on oneDNN (eltwise_round) rounds half-way values to even, as the reference does.
TEST(OnednnDynamicQuantize, RoundEvenHalfWay) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  b.output(b.add1(OpKind::kRoundEven, {b.input("x", {DataType::kFloat32, {41}})}, {}, "y"));
  Tensor x = Tensor::zeros(DataType::kFloat32, {41});
  float* p = x.mutable_view().as<float>();
  for (int i = 0; i < 41; ++i) p[i] = float(i - 20) * 0.5f;  // -10, -9.5, ..., 10
  p[0] = 8388609.0f, p[1] = -0.5f, p[2] = 1e30f;
  expect_in_one_onednn_region(g, x);
}

// reduceMax read by anything but a max with a finite constant stays off oneDNN, which gives
// -FLT_MAX for an all -inf group; so does where over more than one element.
TEST(OnednnDynamicQuantize, LookAlikesAreDeclined) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {4, 5}});
  const auto r = b.add1(OpKind::kReduceMax, {x}, {{"axes", IntList{1}}});
  b.output(b.add1(OpKind::kAdd, {r, b.constant("c", Tensor::zeros(DataType::kFloat32, {4}))}));
  const auto r2 = b.add1(OpKind::kReduceMin, {x}, {{"axes", IntList{1}}});
  b.output(b.add1(OpKind::kMin, {r2, b.constant("inf", scalar(INFINITY))}));
  const auto c = b.add1(OpKind::kEqual, {x, x});
  b.output(b.add1(OpKind::kWhere, {c, x, x}));
  const onednn::Table& t = onednn::table();
  for (size_t k : {size_t(0), size_t(2)}) {
    const Support s = t[size_t(g->nodes()[k].op())].supports(*g, g->nodes()[k]);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("-FLT_MAX"), std::string::npos) << s.reason;
  }
  // equal over many elements is oneDNN's binary_eq (onednn_comparison_test.cc); where is not.
  EXPECT_TRUE(t[size_t(OpKind::kEqual)].supports(*g, g->nodes()[4]).ok);
  const Support s = t[size_t(OpKind::kWhere)].supports(*g, g->nodes()[5]);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("single elements only"), std::string::npos) << s.reason;
}

}  // namespace
}  // namespace wnn::runtime
