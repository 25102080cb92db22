// Every op a delegate claims, against the reference kernels on seeded inputs, across layouts,
// options and thread counts. A case the delegate declines is a skip that prints its reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "wnn/core/builder.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using Ints = std::vector<int64_t>;
using Named = std::vector<std::pair<std::string, RawValue>>;

// Builds graphs with seeded values: inputs are fed at run time, constants are weights.
class CaseBuilder {
 public:
  explicit CaseBuilder(uint32_t seed) : b_(*graph_), rng_(seed) {}
  OperandId input(Shape shape) {
    const std::string name = "in" + std::to_string(inputs_.size());
    const OperandId id = b_.input(name, {DataType::kFloat32, shape});
    inputs_.push_back({name, random(shape)});
    return id;
  }
  OperandId constant(Shape shape) {
    return b_.constant("c" + std::to_string(graph_->constants().size()), random(shape));
  }
  GraphBuilder& b() { return b_; }
  std::shared_ptr<Graph> graph() { return graph_; }
  const std::vector<NamedTensor>& inputs() const { return inputs_; }

 private:
  Tensor random(const Shape& shape) {
    Tensor t = Tensor::zeros(DataType::kFloat32, shape);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto* p = t.mutable_view().as<float>();
    for (int64_t i = 0; i < t.size(); ++i) p[i] = u(rng_);
    return t;
  }
  std::shared_ptr<Graph> graph_ = std::make_shared<Graph>();
  GraphBuilder b_;
  std::mt19937 rng_;
  std::vector<NamedTensor> inputs_;
};

struct Case {
  std::string name;
  std::function<OperandId(CaseBuilder&)> build;  // returns the output
  // Quantized cases: the largest quantization step of the output. A delegate's quantized
  // kernel rounds once from an exact int32 sum while the reference rounds its float sum, and
  // XNNPACK quantizes with x * (1 / scale) where WebNN divides, so near half-way points one
  // step of difference is allowed; everything else must match as float ops do.
  double quant_step = 0;
};

// Per-tensor quantization parameters and seeded int8 weights for the QDQ cases.
struct Quant {
  OperandId scale, zero;
};
Quant quant(CaseBuilder& k, float scale, int8_t zero) {
  Tensor s = Tensor::zeros(DataType::kFloat32, {});
  s.mutable_view().as<float>()[0] = scale;
  Tensor z = Tensor::zeros(DataType::kInt8, {});
  z.mutable_view().as<int8_t>()[0] = zero;
  const std::string n = std::to_string(k.graph()->constants().size());
  return {k.b().constant("qs" + n, s), k.b().constant("qz" + n, z)};
}
OperandId q_dq(CaseBuilder& k, OpKind op, OperandId x, Quant p) {
  return k.b().add1(op, {x, p.scale, p.zero});
}
// An int8 weight with values (i * 37) mod 255 - 127: negative and positive, no pattern with
// the layout.
OperandId int8_weight(CaseBuilder& k, Shape shape) {
  Tensor t = Tensor::zeros(DataType::kInt8, shape);
  for (int64_t i = 0; i < t.size(); ++i)
    t.mutable_view().as<int8_t>()[i] = int8_t(i * 37 % 255 - 127);
  return k.b().constant("w" + std::to_string(k.graph()->constants().size()), t);
}
// A float tensor filled with `v` (per-channel scales, zero points).
OperandId filled(CaseBuilder& k, DataType dtype, Shape shape, double v) {
  Tensor t = Tensor::zeros(dtype, shape);
  for (int64_t i = 0; i < t.size(); ++i) {
    if (dtype == DataType::kFloat32) t.mutable_view().as<float>()[i] = float(v * (1 + 0.1 * i));
    if (dtype == DataType::kInt8) t.mutable_view().as<int8_t>()[i] = int8_t(v);
    if (dtype == DataType::kUint8) t.mutable_view().as<uint8_t>()[i] = uint8_t(v);
  }
  return k.b().constant("f" + std::to_string(k.graph()->constants().size()), t);
}

void add_quantized_cases(std::vector<Case>& c) {
  using enum OpKind;
  c.push_back(
      {"quantize_dequantize_per_tensor",
       [](CaseBuilder& k) {
         const Quant p = quant(k, 0.0173f, -11);
         return q_dq(k, kDequantizeLinear, q_dq(k, kQuantizeLinear, k.input({3, 5, 7}), p), p);
       },
       0.0173});
  // x -> Q -> DQ -> conv2d(DQ(int8 w, per output channel), float bias) -> Q -> DQ: one
  // quantized convolution on XNNPACK, read back as float.
  c.push_back(
      {"qdq_conv2d_per_channel_nchw",
       [](CaseBuilder& k) {
         const Quant px = quant(k, 0.0091f, 5), py = quant(k, 0.031f, -3);
         const auto x =
             q_dq(k, kDequantizeLinear, q_dq(k, kQuantizeLinear, k.input({1, 3, 7, 6}), px), px);
         const auto w =
             k.b().add1(kDequantizeLinear, {int8_weight(k, {4, 3, 3, 3}),
                                            filled(k, DataType::kFloat32, {4, 1, 1, 1}, 0.004),
                                            filled(k, DataType::kInt8, {4, 1, 1, 1}, 0)});
         const auto y = k.b().add1(
             kConv2d, {x, w},
             {{"bias", k.constant({4})}, {"padding", Ints{1, 1, 0, 2}}, {"strides", Ints{1, 2}}});
         return q_dq(k, kDequantizeLinear, q_dq(k, kQuantizeLinear, y, py), py);
       },
       0.031});
  c.push_back(
      {"qdq_gemm_per_tensor",
       [](CaseBuilder& k) {
         const Quant pa = quant(k, 0.0083f, -7), pw = quant(k, 0.0061f, 0),
                     py = quant(k, 0.011f, 9);
         const auto a =
             q_dq(k, kDequantizeLinear, q_dq(k, kQuantizeLinear, k.input({3, 9}), pa), pa);
         const auto w = q_dq(k, kDequantizeLinear, int8_weight(k, {5, 9}), pw);
         const auto y = k.b().add1(kGemm, {a, w}, {{"c", k.constant({5})}, {"bTranspose", true}});
         return q_dq(k, kDequantizeLinear, q_dq(k, kQuantizeLinear, y, py), py);
       },
       0.011});
  c.push_back({"dequantize_per_axis_weight_into_float_gemm", [](CaseBuilder& k) {
                 const auto w =
                     k.b().add1(kDequantizeLinear,
                                {int8_weight(k, {4, 3}), filled(k, DataType::kFloat32, {3}, 0.01),
                                 filled(k, DataType::kInt8, {3}, -2)});
                 return k.b().add1(kGemm, {k.input({2, 4}), w});
               }});
  // Not the QDQ pattern (weight zero point 3, float output): a float conv on the weight
  // dequantized at compile time.
  c.push_back(
      {"dequantized_weight_conv_float_output", [](CaseBuilder& k) {
         const auto w =
             q_dq(k, kDequantizeLinear, int8_weight(k, {3, 2, 3, 3}), quant(k, 0.007f, 3));
         return k.b().add1(kConv2d, {k.input({1, 2, 6, 5}), w}, {{"bias", k.constant({3})}});
       }});
  // A dequantized constant that is itself the region's output: copied from static data.
  c.push_back({"dequantized_constant_as_output", [](CaseBuilder& k) {
                 return q_dq(k, kDequantizeLinear, int8_weight(k, {3, 4}), quant(k, 0.01f, -5));
               }});
  c.push_back({"quantize_per_axis_declined",
               [](CaseBuilder& k) {
                 const auto s = filled(k, DataType::kFloat32, {5}, 0.02);
                 const auto z = filled(k, DataType::kInt8, {5}, 3);
                 return k.b().add1(kDequantizeLinear,
                                   {k.b().add1(kQuantizeLinear, {k.input({2, 5}), s, z}), s, z});
               },
               0.03});
  c.push_back({"quantize_uint8_declined",
               [](CaseBuilder& k) {
                 const auto s = filled(k, DataType::kFloat32, {}, 0.02);
                 const auto z = filled(k, DataType::kUint8, {}, 128);
                 return k.b().add1(kDequantizeLinear,
                                   {k.b().add1(kQuantizeLinear, {k.input({2, 5}), s, z}), s, z});
               },
               0.02});
}

std::vector<Case> cases() {
  std::vector<Case> c;
  auto conv = [](std::string name, Shape in, Shape filter, Named opts, bool bias = false) {
    return Case{name, [=](CaseBuilder& k) {
                  Named o = opts;
                  const auto x = k.input(in);
                  const auto w = k.constant(filter);
                  if (bias) {
                    const auto& shape = k.graph()->desc(w).shape;
                    // Output channels: O's position per layout (oihw/ohwi: 0, hwio/ihwo: 3).
                    std::string layout = "oihw";
                    for (auto& [n, v] : o) {
                      if (n == "filterLayout") layout = std::get<std::string>(v.v);
                    }
                    const int64_t oc = layout.find('o') == 0 ? shape[0] : shape[3];
                    o.push_back({"bias", k.constant({oc})});
                  }
                  return k.b().add1(OpKind::kConv2d, {x, w}, o);
                }};
  };
  c.push_back(conv("conv2d_nchw_oihw", {1, 3, 7, 6}, {4, 3, 3, 3}, {}, true));
  c.push_back(
      conv("conv2d_padded_strided_dilated", {2, 4, 9, 8}, {5, 4, 3, 2},
           {{"padding", Ints{1, 2, 0, 1}}, {"strides", Ints{2, 1}}, {"dilations", Ints{2, 3}}}));
  c.push_back(conv(
      "conv2d_nhwc_ohwi", {1, 6, 5, 3}, {4, 3, 3, 3},
      {{"inputLayout", "nhwc"}, {"filterLayout", "ohwi"}, {"padding", Ints{1, 1, 1, 1}}}, true));
  c.push_back(conv("conv2d_nhwc_hwio", {1, 5, 5, 4}, {2, 2, 4, 6},
                   {{"inputLayout", "nhwc"}, {"filterLayout", "hwio"}}));
  c.push_back(conv("conv2d_grouped_ihwo", {1, 6, 5, 5}, {3, 3, 3, 4},
                   {{"groups", int64_t(2)}, {"filterLayout", "ihwo"}}, true));
  c.push_back(conv("conv2d_depthwise", {1, 8, 6, 7}, {8, 1, 3, 3},
                   {{"groups", int64_t(8)}, {"padding", Ints{1, 1, 1, 1}}}, true));
  c.push_back(conv("conv2d_depthwise_nhwc_hwio", {1, 6, 7, 8}, {3, 3, 1, 8},
                   {{"groups", int64_t(8)},
                    {"inputLayout", "nhwc"},
                    {"filterLayout", "hwio"},
                    {"strides", Ints{2, 2}}}));
  auto deconv = [](std::string name, Shape in, Shape filter, Named opts) {
    return Case{
        name, [=](CaseBuilder& k) {
          return k.b().add1(OpKind::kConvTranspose2d, {k.input(in), k.constant(filter)}, opts);
        }};
  };
  c.push_back(deconv("convTranspose2d_iohw", {1, 3, 4, 5}, {3, 2, 3, 3}, {}));
  c.push_back(deconv(
      "convTranspose2d_strided_padded", {1, 4, 3, 3}, {4, 3, 3, 2},
      {{"strides", Ints{2, 3}}, {"padding", Ints{1, 0, 0, 1}}, {"outputPadding", Ints{1, 0}}}));
  c.push_back(
      deconv("convTranspose2d_grouped", {1, 4, 3, 3}, {4, 3, 2, 2}, {{"groups", int64_t(2)}}));
  c.push_back(deconv("convTranspose2d_nhwc_hwoi", {1, 3, 4, 2}, {2, 2, 5, 2},
                     {{"inputLayout", "nhwc"}, {"filterLayout", "hwoi"}, {"strides", Ints{2, 2}}}));
  auto gemm = [](std::string name, Shape a, Shape b, Named opts, bool const_b, Shape cshape = {}) {
    return Case{name, [=](CaseBuilder& k) {
                  Named o = opts;
                  if (!cshape.empty() || name.find("scalar_c") != std::string::npos) {
                    o.push_back({"c", k.constant(cshape)});
                  }
                  const auto bb = const_b ? k.constant(b) : k.input(b);
                  return k.b().add1(OpKind::kGemm, {k.input(a), bb}, o);
                }};
  };
  c.push_back(gemm("gemm_const_b", {3, 5}, {5, 4}, {}, true));
  c.push_back(gemm("gemm_runtime_b_transposed", {5, 3}, {4, 5},
                   {{"aTranspose", true}, {"bTranspose", true}}, false));
  c.push_back(gemm("gemm_alpha_c_row", {2, 7}, {7, 3}, {{"alpha", 0.5}}, true, {3}));
  c.push_back(gemm("gemm_c_full", {4, 3}, {3, 2}, {{"alpha", -1.5}}, true, {4, 2}));
  c.push_back(gemm("gemm_beta_declined", {2, 2}, {2, 2}, {{"beta", 2.0}}, true, {2}));
  auto matmul = [](std::string name, Shape a, Shape b, bool const_b) {
    return Case{name, [=](CaseBuilder& k) {
                  const auto bb = const_b ? k.constant(b) : k.input(b);
                  return k.b().add1(OpKind::kMatmul, {k.input(a), bb});
                }};
  };
  c.push_back(matmul("matmul_2d_const", {6, 9}, {9, 5}, true));
  c.push_back(matmul("matmul_batched_runtime", {3, 4, 6}, {3, 6, 2}, false));
  c.push_back(matmul("matmul_broadcast_batch", {2, 1, 3, 4}, {3, 4, 5}, false));
  auto pool = [](std::string name, OpKind op, Shape in, Named opts) {
    return Case{name, [=](CaseBuilder& k) { return k.b().add1(op, {k.input(in)}, opts); }};
  };
  for (OpKind op : {OpKind::kAveragePool2d, OpKind::kMaxPool2d}) {
    const std::string p = std::string(op_name(op));
    c.push_back(pool(p + "_padded_ceil", op, {1, 3, 7, 8},
                     {{"windowDimensions", Ints{3, 3}},
                      {"strides", Ints{2, 2}},
                      {"padding", Ints{1, 1, 1, 0}},
                      {"outputShapeRounding", "ceil"}}));
    c.push_back(
        pool(p + "_nhwc_dilated", op, {2, 9, 8, 3},
             {{"windowDimensions", Ints{2, 3}}, {"dilations", Ints{2, 1}}, {"layout", "nhwc"}}));
    c.push_back(pool(p + "_global", op, {1, 5, 4, 6}, {}));
  }
  // instanceNormalization: with scale and bias, without, and NHWC (declined by oneDNN).
  c.push_back(
      Case{"instance_norm_scale_bias", [](CaseBuilder& k) {
             return k.b().add1(
                 OpKind::kInstanceNormalization, {k.input({2, 3, 5, 7})},
                 {{"scale", k.constant({3})}, {"bias", k.constant({3})}, {"epsilon", 1e-3}});
           }});
  c.push_back(Case{"instance_norm_plain", [](CaseBuilder& k) {
                     return k.b().add1(OpKind::kInstanceNormalization, {k.input({1, 4, 3, 1})});
                   }});
  c.push_back(Case{"instance_norm_nhwc", [](CaseBuilder& k) {
                     return k.b().add1(OpKind::kInstanceNormalization, {k.input({1, 3, 4, 2})},
                                       {{"bias", k.constant({2})}, {"layout", "nhwc"}});
                   }});
  // resample2d: upsampling and downsampling, by scales and by sizes, NCHW and NHWC axes.
  c.push_back(pool("resample2d_linear_scales", OpKind::kResample2d, {1, 3, 5, 6},
                   {{"mode", "linear"}, {"scales", std::vector<double>{2.0, 1.5}}}));
  // 7 * 1.5 is not an integer: oneDNN would sample with 10/7, so it must decline.
  c.push_back(pool("resample2d_linear_fractional_scale", OpKind::kResample2d, {1, 3, 5, 7},
                   {{"mode", "linear"}, {"scales", std::vector<double>{2.0, 1.5}}}));
  c.push_back(pool("resample2d_nearest_sizes_down", OpKind::kResample2d, {2, 2, 9, 8},
                   {{"sizes", Ints{4, 5}}}));
  c.push_back(pool("resample2d_linear_nhwc_sizes", OpKind::kResample2d, {1, 6, 5, 3},
                   {{"mode", "linear"}, {"sizes", Ints{11, 3}}, {"axes", Ints{1, 2}}}));
  c.push_back(pool("resample2d_nearest_scales_up", OpKind::kResample2d, {1, 2, 3, 4},
                   {{"scales", std::vector<double>{3.0, 2.0}}}));
  auto unary = [](OpKind op, Named opts = {}) {
    return Case{std::string(op_name(op)), [=](CaseBuilder& k) {
                  return k.b().add1(op, {k.input({2, 3, 5})}, opts);
                }};
  };
  for (OpKind op : {OpKind::kRelu, OpKind::kSigmoid, OpKind::kTanh, OpKind::kGelu,
                    OpKind::kHardSwish, OpKind::kAbs, OpKind::kExp, OpKind::kNeg}) {
    c.push_back(unary(op));
  }
  c.push_back(unary(OpKind::kLeakyRelu, {{"alpha", 0.3}}));
  c.push_back(unary(OpKind::kElu, {{"alpha", 0.7}}));
  c.push_back(unary(OpKind::kClamp, {{"minValue", -0.25}, {"maxValue", 0.5}}));
  c.push_back(unary(OpKind::kLinear, {{"alpha", -2.0}, {"beta", 0.25}}));
  c.push_back({"sqrt_and_log_of_positive", [](CaseBuilder& k) {
                 const auto x = k.b().add1(OpKind::kAbs, {k.input({4, 3})});
                 const auto one = k.b().add1(OpKind::kAdd, {x, k.constant({3})});
                 return k.b().add1(OpKind::kLog,
                                   {k.b().add1(OpKind::kSqrt, {k.b().add1(OpKind::kAbs, {one})})});
               }});
  for (OpKind op : {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kMax, OpKind::kMin}) {
    c.push_back({std::string(op_name(op)) + "_broadcast_second", [op](CaseBuilder& k) {
                   return k.b().add1(op, {k.input({2, 3, 4, 5}), k.constant({1, 3, 1, 1})});
                 }});
    c.push_back({std::string(op_name(op)) + "_broadcast_first", [op](CaseBuilder& k) {
                   return k.b().add1(op, {k.input({4, 1}), k.input({3, 4, 6})});
                 }});
  }
  c.push_back({"div_by_shifted", [](CaseBuilder& k) {
                 const auto d = k.b().add1(OpKind::kClamp, {k.input({3, 4})}, {{"minValue", 0.5}});
                 return k.b().add1(OpKind::kDiv, {k.input({2, 3, 4}), d});
               }});
  for (int64_t axis : {0, 1, 2}) {
    c.push_back({"softmax_axis" + std::to_string(axis), [axis](CaseBuilder& k) {
                   return k.b().add1(OpKind::kSoftmax, {k.input({3, 4, 5}), axis});
                 }});
  }
  c.push_back({"batchNormalization_scale_bias", [](CaseBuilder& k) {
                 const auto x = k.input({2, 3, 4, 5});
                 // variance must be positive: |v| + 0.1
                 const auto var = k.b().add1(
                     OpKind::kAdd, {k.b().add1(OpKind::kAbs, {k.input({3})}), k.constant({3})});
                 return k.b().add1(
                     OpKind::kBatchNormalization,
                     {x, k.constant({3}), k.b().add1(OpKind::kAbs, {var})},
                     {{"scale", k.constant({3})}, {"bias", k.constant({3})}, {"epsilon", 0.01}});
               }});
  c.push_back(
      {"batchNormalization_2d_no_scale", [](CaseBuilder& k) {
         const auto var = k.b().add1(OpKind::kClamp, {k.input({4})}, {{"minValue", 0.2}});
         return k.b().add1(OpKind::kBatchNormalization, {k.input({3, 4}), k.input({4}), var});
       }});
  c.push_back({"batchNormalization_axis3_declined", [](CaseBuilder& k) {
                 const auto var = k.b().add1(OpKind::kClamp, {k.input({4})}, {{"minValue", 0.2}});
                 return k.b().add1(OpKind::kBatchNormalization,
                                   {k.input({2, 2, 3, 4}), k.input({4}), var},
                                   {{"axis", int64_t(3)}});
               }});
  c.push_back({"layerNormalization_default_axes", [](CaseBuilder& k) {
                 return k.b().add1(OpKind::kLayerNormalization, {k.input({2, 3, 4})},
                                   {{"scale", k.constant({3, 4})}, {"bias", k.constant({3, 4})}});
               }});
  c.push_back({"layerNormalization_last_axis", [](CaseBuilder& k) {
                 return k.b().add1(
                     OpKind::kLayerNormalization, {k.input({5, 7})},
                     {{"axes", Ints{1}}, {"epsilon", 0.001}, {"bias", k.constant({7})}});
               }});
  c.push_back(
      {"layerNormalization_middle_axis_declined", [](CaseBuilder& k) {
         return k.b().add1(OpKind::kLayerNormalization, {k.input({2, 3, 4})}, {{"axes", Ints{1}}});
       }});
  for (OpKind op :
       {OpKind::kReduceSum, OpKind::kReduceMean, OpKind::kReduceMax, OpKind::kReduceMin,
        OpKind::kReduceProduct, OpKind::kReduceL1, OpKind::kReduceL2, OpKind::kReduceSumSquare}) {
    const std::string name(op_name(op));
    c.push_back({name + "_axes_0_2", [op](CaseBuilder& k) {
                   return k.b().add1(op, {k.input({3, 4, 5})}, {{"axes", Ints{0, 2}}});
                 }});
    c.push_back({name + "_last_keep", [op](CaseBuilder& k) {
                   return k.b().add1(op, {k.input({2, 3, 6})},
                                     {{"axes", Ints{2}}, {"keepDimensions", true}});
                 }});
    c.push_back({name + "_all", [op](CaseBuilder& k) {
                   return k.b().add1(op, {k.input({4, 5})});
                 }});
  }
  c.push_back({"prelu_channel_slope_after_nchw_conv", [](CaseBuilder& k) {
                 const auto y =
                     k.b().add1(OpKind::kConv2d, {k.input({1, 3, 5, 5}), k.constant({4, 3, 1, 1})});
                 return k.b().add1(OpKind::kPrelu, {y, k.constant({4, 1, 1})});
               }});
  c.push_back({"prelu_last_axis_slope", [](CaseBuilder& k) {
                 return k.b().add1(OpKind::kPrelu, {k.input({2, 3, 5}), k.constant({5})});
               }});
  c.push_back({"prelu_runtime_slope_declined", [](CaseBuilder& k) {
                 return k.b().add1(OpKind::kPrelu, {k.input({2, 5}), k.input({5})});
               }});
  // A small reduction feeding another op inside the region: its destination is region memory,
  // where oneDNN 2.6's vector stores past the end once corrupted the heap.
  c.push_back({"weight_norm_chain_reduce_div_mul", [](CaseBuilder& k) {
                 const auto v = k.input({6, 4, 1, 3});
                 const auto norm = k.b().add1(OpKind::kReduceL2, {v},
                                              {{"axes", Ints{1, 2, 3}}, {"keepDimensions", true}});
                 return k.b().add1(OpKind::kMul,
                                   {k.b().add1(OpKind::kDiv, {v, norm}), k.input({6, 1, 1, 1})});
               }});
  c.push_back({"reshape_after_tanh", [](CaseBuilder& k) {
                 const auto t = k.b().add1(OpKind::kTanh, {k.input({2, 3, 4})});
                 return k.b().add1(OpKind::kReshape, {t, Ints{4, 6}});
               }});
  c.push_back({"transpose_4d", [](CaseBuilder& k) {
                 return k.b().add1(OpKind::kTranspose, {k.input({2, 3, 4, 5})},
                                   {{"permutation", Ints{2, 0, 3, 1}}});
               }});
  c.push_back({"transpose_default_reverses", [](CaseBuilder& k) {
                 return k.b().add1(OpKind::kTranspose, {k.input({3, 1, 5})});
               }});
  c.push_back({"hard_sigmoid_after_conv", [](CaseBuilder& k) {
                 const auto y =
                     k.b().add1(OpKind::kConv2d, {k.input({1, 3, 5, 5}), k.constant({4, 3, 1, 1})});
                 return k.b().add1(OpKind::kHardSigmoid, {y}, {{"alpha", 0.3}, {"beta", 0.4}});
               }});
  c.push_back(
      {"slice_window_3d", [](CaseBuilder& k) {
         return k.b().add1(OpKind::kSlice, {k.input({4, 5, 6}), Ints{1, 0, 2}, Ints{2, 5, 3}});
       }});
  c.push_back(
      {"slice_after_tanh_strided_declined", [](CaseBuilder& k) {
         const auto t = k.b().add1(OpKind::kTanh, {k.input({7, 4})});
         return k.b().add1(OpKind::kSlice, {t, Ints{1, 1}, Ints{5, 3}}, {{"strides", Ints{2, 1}}});
       }});
  c.push_back({"concat_axis1_with_constant", [](CaseBuilder& k) {
                 std::vector<OperandId> parts = {k.input({2, 3, 4}), k.constant({2, 1, 4}),
                                                 k.input({2, 5, 4})};
                 return k.b().add1(OpKind::kConcat, {RawValue(parts), int64_t(1)});
               }});
  c.push_back(
      {"nchw_conv_then_flatten_gemm", [](CaseBuilder& k) {
         const auto y =
             k.b().add1(OpKind::kConv2d, {k.input({1, 3, 6, 6}), k.constant({4, 3, 3, 3})});
         const auto p = k.b().add1(OpKind::kAveragePool2d, {k.b().add1(OpKind::kRelu, {y})});
         const auto f = k.b().add1(OpKind::kReshape, {p, Ints{1, 4}});
         return k.b().add1(OpKind::kGemm, {f, k.constant({4, 7})}, {{"c", k.constant({7})}});
       }});
  c.push_back({"conv_relu_pool_chain_stays_in_one_region", [](CaseBuilder& k) {
                 const auto y =
                     k.b().add1(OpKind::kConv2d, {k.input({1, 8, 9, 9}), k.constant({16, 8, 3, 3})},
                                {{"bias", k.constant({16})}});
                 const auto r = k.b().add1(OpKind::kRelu, {y});
                 const auto s = k.b().add1(OpKind::kAdd, {r, k.constant({1, 16, 1, 1})});
                 return k.b().add1(OpKind::kMaxPool2d, {s},
                                   {{"windowDimensions", Ints{2, 2}}, {"strides", Ints{2, 2}}});
               }});
  add_quantized_cases(c);
  return c;
}

struct Param {
  std::string delegate;
  int threads;
  Case c;
};

// Readable test parameters in GoogleTest and CTest output.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.delegate << ", " << p.threads << " threads, " << p.c.name;
}

class DelegateDifferential : public ::testing::TestWithParam<Param> {};

TEST_P(DelegateDifferential, MatchesReferenceKernels) {
  const Param& p = GetParam();
  CaseBuilder k(1234);
  k.b().output(p.c.build(k));
  std::shared_ptr<const Graph> graph = k.graph();
  Session ref(graph, {"ref", 1});
  Session del(graph, {p.delegate, p.threads, true, false});
  const auto& part = del.execution_plan().partition;
  std::string declined;
  for (size_t n = 0; n < part.region_of.size(); ++n) {
    if (part.region_of[n] < 0) {
      declined +=
          std::string(op_name(del.graph().nodes()[n].op())) + ": " + part.ref_reason[n] + "\n";
    }
  }
  if (part.regions.empty()) GTEST_SKIP() << "declined: " << declined;
  if (!declined.empty()) std::printf("partly declined (runs on reference): %s", declined.c_str());
  std::vector<NamedView> views;
  for (const auto& in : k.inputs()) views.push_back({in.name, in.tensor.view()});
  const auto want = ref.run(views);
  for (int rep = 0; rep < 2; ++rep) {  // twice: compiled regions are reusable
    const auto got = del.run(views);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      ASSERT_EQ(got[o].tensor.shape, want[o].tensor.shape);
      const float* g = got[o].tensor.view().as<float>();
      const float* w = want[o].tensor.view().as<float>();
      for (int64_t i = 0; i < got[o].tensor.size(); ++i) {
        ASSERT_LE(std::abs(double(g[i]) - w[i]),
                  1e-5 + 1e-4 * std::abs(w[i]) + p.c.quant_step * 1.0001)
            << "element " << i << ": " << g[i] << " vs reference " << w[i];
      }
    }
  }
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const Delegate* d : available_delegates()) {
    // The packed and attention delegates claim one form each, none of these cases
    // (packed_matmul_test.cc, attention_delegate_test.cc).
    if (d->name() == "packed" || d->name() == "attention") continue;
    for (int threads : {1, 2}) {
      for (const Case& c : cases()) out.push_back({std::string(d->name()), threads, c});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllClaimedOps, DelegateDifferential, ::testing::ValuesIn(params()),
                         [](const auto& info) {
                           return info.param.delegate + "_t" + std::to_string(info.param.threads) +
                                  "_" + info.param.c.name;
                         });

}  // namespace
}  // namespace wnn::runtime
