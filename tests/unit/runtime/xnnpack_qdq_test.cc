// The int8 quantized forms on the XNNPACK delegate: quantizeLinear/dequantizeLinear as Convert
// nodes, and QDQ conv2d / gemm / matmul run as one quantized kernel, against the reference
// kernels (which compute DQ -> float op -> Q). Also what is declined, with its reason, and
// that `wnn partition` puts a QDQ conv into one XNNPACK region.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"
#include "wnn/runtime/xnnpack/qdq.h"

namespace wnn::runtime {
namespace {

std::mt19937& rng() {
  static std::mt19937 r(20261130);
  return r;
}

Tensor int8_tensor(Shape shape, int lo = -128, int hi = 127) {
  return testing::uniform_ints(DataType::kInt8, std::move(shape), lo, hi, rng());
}

Tensor float_tensor(Shape shape, float lo, float hi) {
  return testing::uniform_floats(std::move(shape), lo, hi, rng());
}

Tensor filled(DataType dtype, Shape shape, double v) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) {
    if (dtype == DataType::kFloat32) t.mutable_view().as<float>()[i] = float(v);
    if (dtype == DataType::kInt8) t.mutable_view().as<int8_t>()[i] = int8_t(v);
    if (dtype == DataType::kUint8) t.mutable_view().as<uint8_t>()[i] = uint8_t(v);
  }
  return t;
}

// Per-tensor scale and zero point as WebNN scalars.
struct Params {
  OperandId scale, zero;
};
Params params(GraphBuilder& b, const std::string& name, float scale, int zero,
              DataType zdt = DataType::kInt8) {
  return {b.constant(name + "_s", filled(DataType::kFloat32, {}, scale)),
          b.constant(name + "_z", filled(zdt, {}, zero))};
}
OperandId dq(GraphBuilder& b, OperandId x, Params p) {
  return b.add1(OpKind::kDequantizeLinear, {x, p.scale, p.zero});
}
OperandId q(GraphBuilder& b, OperandId x, Params p, std::string name = {}) {
  return b.add1(OpKind::kQuantizeLinear, {x, p.scale, p.zero}, {}, std::move(name));
}

struct BothRuns {
  std::vector<NamedTensor> want, got;
  passes::Partition partition;
};

BothRuns run_both(std::shared_ptr<const Graph> g, const std::vector<NamedView>& in) {
  Session ref(g, {"ref", 1});
  Session xnn(g, {"xnnpack", 1, true, false});
  return {ref.run(in), xnn.run(in), xnn.execution_plan().partition};
}

// Counts |got - want| per element of int8 outputs; fails above `max_diff`.
int count_off_by_one(const Tensor& got, const Tensor& want, int max_diff = 1) {
  EXPECT_EQ(got.shape, want.shape);
  int off = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const int d = std::abs(int(got.view().as<int8_t>()[i]) - int(want.view().as<int8_t>()[i]));
    EXPECT_LE(d, max_diff) << "element " << i;
    off += d != 0;
  }
  return off;
}

// A QDQ conv: int8 x (nonzero zero point) -> DQ -> conv2d with a DQ per-channel int8 weight
// (negative values, zero point 0) and a float bias -> Q (nonzero zero point). The quantized
// kernel accumulates exactly in int32 and rounds once; the reference rounds the float sum of
// the same products. They differ only by float rounding in the reference's sum, the bias
// rounded to the int32 grid (half a step of in_scale * w_scale) and XNNPACK's fp32
// requantization, so at most one output step, and only near half-way points.
std::shared_ptr<const Graph> qdq_conv_graph(Shape x_shape, int64_t oc, int64_t groups, bool nhwc,
                                            bool per_channel) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t ic = nhwc ? x_shape[3] : x_shape[1];
  const auto x = b.input("x", {DataType::kInt8, x_shape});
  const auto xf = dq(b, x, params(b, "x", 0.037f, 7));
  // Filter oihw (nchw) or ohwi (nhwc); per output channel scales [O, 1, 1, 1].
  const Shape ws = nhwc ? Shape{oc, 3, 3, ic / groups} : Shape{oc, ic / groups, 3, 3};
  const auto w = b.constant("w", int8_tensor(ws));
  Tensor scales = per_channel ? float_tensor({oc, 1, 1, 1}, 0.002f, 0.02f)
                              : filled(DataType::kFloat32, {}, 0.011f);
  const Shape zs = per_channel ? Shape{oc, 1, 1, 1} : Shape{};
  const auto wf =
      b.add1(OpKind::kDequantizeLinear,
             {w, b.constant("w_s", scales), b.constant("w_z", filled(DataType::kInt8, zs, 0))});
  std::vector<std::pair<std::string, RawValue>> opts = {
      {"padding", std::vector<int64_t>{1, 0, 2, 1}},
      {"strides", std::vector<int64_t>{2, 1}},
      {"groups", groups},
      {"bias", b.constant("bias", float_tensor({oc}, -0.6f, 0.6f))}};
  if (nhwc) {
    opts.push_back({"inputLayout", std::string("nhwc")});
    opts.push_back({"filterLayout", std::string("ohwi")});
  }
  const auto y = b.add1(OpKind::kConv2d, {xf, wf}, opts);
  b.output(q(b, y, params(b, "y", 0.045f, -5), "y"));
  return g;
}

void expect_one_region_of(const passes::Partition& p, size_t nodes) {
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].nodes.size(), nodes);
  for (int r : p.region_of) EXPECT_EQ(r, 0);
}

// The index of the first node of kind `op`.
uint32_t node_of(const Graph& g, OpKind op) {
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].op() == op) return n;
  }
  ADD_FAILURE() << "no " << op_name(op);
  return 0;
}

// The pattern is matched, so the region runs one quantized kernel, not float ops.
void expect_matched(const Graph& g, OpKind op) {
  std::string why;
  EXPECT_TRUE(xnnpack::match_qdq(g, node_of(g, op), &why).has_value()) << why;
}

void check_qdq_conv(Shape x_shape, int64_t oc, int64_t groups, bool nhwc, bool per_channel) {
  const auto g = qdq_conv_graph(x_shape, oc, groups, nhwc, per_channel);
  expect_matched(*g, OpKind::kConv2d);
  const Tensor x = int8_tensor(x_shape);
  const BothRuns r = run_both(g, {{"x", x.view()}});
  expect_one_region_of(r.partition, 4);  // DQ x, DQ w, conv2d, Q: one quantized convolution
  const int off = count_off_by_one(r.got[0].tensor, r.want[0].tensor);
  std::printf("%d of %lld outputs one step off\n", off, (long long)r.got[0].tensor.size());
  // Near-ties are rare: most elements must agree exactly.
  EXPECT_LE(off, r.got[0].tensor.size() / 10);
  // Not trivially saturated: the outputs span much of the int8 range.
  int lo = 127, hi = -128;
  for (int64_t i = 0; i < r.want[0].tensor.size(); ++i) {
    lo = std::min<int>(lo, r.want[0].tensor.view().as<int8_t>()[i]);
    hi = std::max<int>(hi, r.want[0].tensor.view().as<int8_t>()[i]);
  }
  EXPECT_GT(hi - lo, 40);
}

TEST(XnnpackQdq, ConvPerChannelNchwOddSizes) { check_qdq_conv({1, 3, 7, 5}, 5, 1, false, true); }
TEST(XnnpackQdq, ConvPerTensorNhwc) { check_qdq_conv({2, 6, 5, 4}, 3, 1, true, false); }
TEST(XnnpackQdq, ConvGroupedPerChannel) { check_qdq_conv({1, 6, 5, 7}, 9, 3, false, true); }
TEST(XnnpackQdq, DepthwisePerChannel) { check_qdq_conv({1, 4, 6, 5}, 4, 4, false, true); }

// A QDQ gemm: int8 a [5, 7] -> DQ -> gemm with a DQ int8 per-tensor b (bTranspose as given) and
// a float c -> Q. Same one-step bound as the conv, for the same reasons.
std::shared_ptr<const Graph> qdq_fc_graph(OpKind op, bool b_transpose, bool per_channel_w) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t M = 5, K = 7, N = 3;
  const auto a = b.input("a", {DataType::kInt8, {M, K}});
  const auto af = dq(b, a, params(b, "a", 0.021f, -9));
  const Shape bs = b_transpose ? Shape{N, K} : Shape{K, N};
  const auto w = b.constant("w", int8_tensor(bs));
  OperandId wf;
  if (per_channel_w) {
    wf = b.add1(OpKind::kDequantizeLinear, {w, b.constant("w_s", float_tensor({N}, 0.005f, 0.03f)),
                                            b.constant("w_z", filled(DataType::kInt8, {N}, 0))});
  } else {
    wf = dq(b, w, params(b, "w", 0.013f, 0));
  }
  OperandId y;
  if (op == OpKind::kGemm) {
    y = b.add1(
        OpKind::kGemm, {af, wf},
        {{"c", b.constant("c", float_tensor({N}, -0.5f, 0.5f))}, {"bTranspose", b_transpose}});
  } else {
    y = b.add1(OpKind::kMatmul, {af, wf});
  }
  b.output(q(b, y, params(b, "y", 0.017f, 4), "y"));
  return g;
}

void check_qdq_fc(OpKind op, bool b_transpose) {
  const auto g = qdq_fc_graph(op, b_transpose, false);
  expect_matched(*g, op);
  const Tensor a = int8_tensor({5, 7});
  const BothRuns r = run_both(g, {{"a", a.view()}});
  expect_one_region_of(r.partition, 4);
  const int off = count_off_by_one(r.got[0].tensor, r.want[0].tensor);
  EXPECT_LE(off, 3);  // of 15
}

TEST(XnnpackQdq, GemmWithBiasAndTransposedB) { check_qdq_fc(OpKind::kGemm, true); }
TEST(XnnpackQdq, GemmWithBias) { check_qdq_fc(OpKind::kGemm, false); }
TEST(XnnpackQdq, Matmul) { check_qdq_fc(OpKind::kMatmul, false); }

// Per-channel fully connected weights do not match the pattern (this XNNPACK has no qc8 fully
// connected): the gemm runs in float on the dequantized weight between Convert nodes, still in
// one region, and so may round differently from the reference only as any float gemm does.
TEST(XnnpackQdq, PerChannelGemmRunsAsFloatBetweenConverts) {
  const auto g = qdq_fc_graph(OpKind::kGemm, false, true);
  std::string why;
  EXPECT_FALSE(xnnpack::match_qdq(*g, node_of(*g, OpKind::kGemm), &why).has_value());
  EXPECT_NE(why.find("no qc8 FC"), std::string::npos) << why;
  const Tensor a = int8_tensor({5, 7});
  const BothRuns r = run_both(g, {{"a", a.view()}});
  expect_one_region_of(r.partition, 4);
  count_off_by_one(r.got[0].tensor, r.want[0].tensor);
}

// quantizeLinear alone: equal to the reference except where x * (1 / scale), which XNNPACK
// rounds, and x / scale, which WebNN rounds, fall on different sides of a half-way point.
TEST(XnnpackQdq, QuantizeRoundsHalfToEvenAndSaturates) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const float scale = 0.1f;
  const int zero = -3;
  const auto x = b.input("x", {DataType::kFloat32, {3, 67}});
  b.output(q(b, x, params(b, "q", scale, zero), "y"));
  // Exact half-way points (k + 0.5) * scale, values far outside the range, zeros, negatives.
  Tensor xt = Tensor::zeros(DataType::kFloat32, {3, 67});
  float* px = xt.mutable_view().as<float>();
  for (int i = 0; i < 201; ++i) px[i] = (float(i - 100) + 0.5f) * scale;
  px[0] = 1e6f, px[1] = -1e6f, px[2] = 0.0f, px[3] = -0.0f, px[4] = 12.74f, px[5] = -13.05f;
  // Floats where x / 0.1f and x * (1 / 0.1f) round to different integers (found with numpy):
  // -11.15f / 0.1f = -111.49999 but -11.15f * 10.0f = -111.5 (to even: -112).
  px[6] = -11.15f, px[7] = -7.2500005f, px[8] = -7.5499997f;
  const BothRuns r = run_both(g, {{"x", xt.view()}});
  expect_one_region_of(r.partition, 1);
  const int8_t* got = r.got[0].tensor.view().as<int8_t>();
  const int8_t* want = r.want[0].tensor.view().as<int8_t>();
  EXPECT_EQ(want[0], 127);
  EXPECT_EQ(want[1], -128);
  int ties_differing = 0;
  for (int i = 0; i < 201; ++i) {
    // XNNPACK's quotient: x times the float reciprocal, rounded half to even, saturated.
    const float by_reciprocal = px[i] * (1.0f / scale);
    const double expect = std::clamp(std::nearbyint(double(by_reciprocal)) + zero, -128.0, 127.0);
    EXPECT_EQ(int(got[i]), int(expect)) << "x = " << px[i];
    // WebNN's: the float quotient, rounded half to even, saturated.
    const float quotient = px[i] / scale;
    EXPECT_EQ(int(want[i]), int(std::clamp(std::nearbyint(double(quotient)) + zero, -128.0, 127.0)))
        << "x = " << px[i];
    EXPECT_LE(std::abs(int(got[i]) - int(want[i])), 1) << "x = " << px[i];
    ties_differing += got[i] != want[i];
  }
  EXPECT_EQ(ties_differing, 3);  // exactly the three planted values
}

TEST(XnnpackQdq, DequantizeIsExact) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kInt8, {2, 3, 5, 7}});
  b.output(b.add1(OpKind::kRelu, {dq(b, x, params(b, "d", 0.0731f, -17))}, {}, "y"));
  const Tensor xt = int8_tensor({2, 3, 5, 7});
  const BothRuns r = run_both(g, {{"x", xt.view()}});
  expect_one_region_of(r.partition, 2);
  for (int64_t i = 0; i < xt.size(); ++i) {
    const float want = std::max(0.0f, float((xt.view().as<int8_t>()[i] + 17) * double(0.0731f)));
    ASSERT_EQ(r.got[0].tensor.view().as<float>()[i], want) << i;
  }
}

// Q -> DQ inside one region: the int8 value between them stays int8 inside XNNPACK.
TEST(XnnpackQdq, QuantizeDequantizeChainInOneRegion) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {4, 9}});
  const auto p = params(b, "p", 0.05f, 10);
  b.output(dq(b, q(b, b.add1(OpKind::kNeg, {x}), p), p));
  const Tensor xt = float_tensor({4, 9}, -8.0f, 8.0f);
  const BothRuns r = run_both(g, {{"x", xt.view()}});
  expect_one_region_of(r.partition, 3);
  EXPECT_TRUE(r.partition.regions[0].outputs.size() == 1);
  for (int64_t i = 0; i < xt.size(); ++i) {
    EXPECT_NEAR(r.got[0].tensor.view().as<float>()[i], r.want[0].tensor.view().as<float>()[i],
                0.05 + 1e-6);
  }
}

std::string reason_of(std::shared_ptr<const Graph> g, size_t node) {
  Session s(g, {"xnnpack", 1, true, false});
  const auto& p = s.execution_plan().partition;
  EXPECT_LT(p.region_of.at(node), 0);
  return p.ref_reason.at(node);
}

TEST(XnnpackQdq, DeclinesPerAxisUint8AndRuntimeScaleWithReasons) {
  {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {2, 3}});
    b.output(
        b.add1(OpKind::kQuantizeLinear, {x, b.constant("s", filled(DataType::kFloat32, {3}, 0.5)),
                                         b.constant("z", filled(DataType::kInt8, {3}, 1))}));
    EXPECT_NE(reason_of(g, 0).find("per-axis"), std::string::npos) << reason_of(g, 0);
  }
  {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {2, 3}});
    b.output(q(b, x, params(b, "u", 0.5f, 128, DataType::kUint8)));
    EXPECT_NE(reason_of(g, 0).find("only int8"), std::string::npos) << reason_of(g, 0);
  }
  {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kInt8, {2, 3}});
    const auto s = b.input("s", {DataType::kFloat32, {}});
    b.output(
        b.add1(OpKind::kDequantizeLinear, {x, s, b.constant("z", filled(DataType::kInt8, {}, 0))}));
    EXPECT_NE(reason_of(g, 0).find("not a constant"), std::string::npos) << reason_of(g, 0);
  }
  {
    // One int8 value read by two dequantizeLinear nodes with different scales.
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kInt8, {2, 3}});
    const auto a = dq(b, x, params(b, "a", 0.5f, 0));
    b.output(b.add1(OpKind::kAdd, {a, dq(b, x, params(b, "b", 0.25f, 0))}));
    EXPECT_NE(reason_of(g, 0).find("different scales"), std::string::npos) << reason_of(g, 0);
  }
}

// `wnn partition --backend xnnpack` on a QDQ conv graph file: one XNNPACK region holding the
// Q/DQ nodes and the conv, nothing on the reference kernels.
TEST(XnnpackQdq, PartitionCommandPutsQdqConvInOneRegion) {
  const auto dir = std::filesystem::temp_directory_path() / "wnn_xnnpack_qdq_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "qdq_conv.webnn";
  std::ofstream(path) << R"(webnn_graph "qdq_conv" v1 {
  inputs {
    x: i8[1, 3, 5, 5];
  }
  consts {
    xs: f32[] @scalar(0.05);
    xz: i8[] @scalar(3);
    w: i8[4, 3, 3, 3] @scalar(-7);
    ws: f32[4, 1, 1, 1] @bytes([0, 0, 128, 60, 0, 0, 0, 61, 0, 0, 64, 61, 0, 0, 128, 61]);
    wz: i8[4, 1, 1, 1] @scalar(0);
    bias: f32[4] @scalar(0.25);
    ys: f32[] @scalar(0.1);
    yz: i8[] @scalar(-2);
  }
  nodes {
    xf = dequantizeLinear(x, xs, xz);
    wf = dequantizeLinear(w, ws, wz);
    yf = conv2d(xf, wf, padding=[1, 1, 1, 1], bias=bias);
    y = quantizeLinear(yf, ys, yz);
  }
  outputs {
    y;
  }
}
)";
  const std::string cmd =
      std::string(WNN_BINARY) + " partition --backend xnnpack --json " + path.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["reference_nodes"], 0) << out;
  ASSERT_EQ(j["regions"].size(), 1u) << out;
  EXPECT_EQ(j["regions"][0]["delegate"], "xnnpack");
  EXPECT_EQ(j["regions"][0]["ops"],
            nlohmann::json({"dequantizeLinear", "dequantizeLinear", "conv2d", "quantizeLinear"}))
      << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wnn::runtime
