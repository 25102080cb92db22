// batchNormalization (inference with the given statistics) and layerNormalization (over
// trailing axes, read as a 2-D [outer, inner] view) on oneDNN's normalization primitives.
// instanceNormalization has no oneDNN 2.6 primitive: in NCHW each (n, c) plane is a row of an
// [N*C, H*W] view, normalized by layer normalization without scale or shift; the per-channel
// scale and bias follow as in-place binary mul and add broadcast over [1, C, 1, 1].
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include <omp.h>

#include <cmath>

#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;
using flags = dnnl::normalization_flags;

Support batch_norm_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const size_t rank = g.desc(n.inputs[0]).shape.size();
  if (rank < 2 || rank > 5) return Support::no(fmt::format("rank {}: oneDNN takes 2 to 5", rank));
  if (n.attrs.get_int("axis") != 1) {
    return Support::no(
        fmt::format("channel axis {}: oneDNN normalizes axis 1", n.attrs.get_int("axis")));
  }
  return Support::yes();
}

void define_batch_norm(RegionBuilder& b, const Node& n) {
  const auto& a = n.attrs;
  const OperandId input = n.inputs[0];
  const auto scale = a.get_operand("scale"), bias = a.get_operand("bias");
  auto f = flags::use_global_stats;
  if (scale) f = f | flags::use_scale;
  if (bias) f = f | flags::use_shift;
  const memory::desc src = b.held_desc(input);
  dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, src,
                                            float(a.get_float("epsilon")), f);
  dnnl::batch_normalization_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(input, src);
  args[DNNL_ARG_MEAN] = b.get(*a.get_operand("mean"), pd.mean_desc());
  args[DNNL_ARG_VARIANCE] = b.get(*a.get_operand("variance"), pd.variance_desc());
  const int64_t channels = b.graph().desc(input).shape[1];
  const memory::desc per_channel({channels}, memory::data_type::f32, memory::format_tag::a);
  if (scale) args[DNNL_ARG_SCALE] = b.get(*scale, per_channel);
  if (bias) args[DNNL_ARG_SHIFT] = b.get(*bias, per_channel);
  args[DNNL_ARG_DST] = b.define_output(n.outputs[0], pd.dst_desc());
  b.add_step(dnnl::batch_normalization_forward(pd), std::move(args));
}

// The normalized axes as a trailing block, or nullopt.
std::optional<size_t> trailing_from(const Graph& g, const Node& n) {
  const size_t rank = g.desc(n.inputs[0]).shape.size();
  IntList axes = n.attrs.get_ints("axes");
  if (!n.attrs.has("axes")) {
    axes.clear();
    for (size_t i = 1; i < rank; ++i) axes.push_back(int64_t(i));
  }
  if (axes.empty()) return std::nullopt;
  // In order, too: scale and bias are laid out in the order the axes are listed.
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != int64_t(rank - axes.size() + i)) return std::nullopt;
  }
  return rank - axes.size();
}

Support layer_norm_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (!trailing_from(g, n)) {
    return Support::no(
        "axes are not the last ones in increasing order: oneDNN normalizes trailing axes");
  }
  // WebNN's scale and bias have the normalized axes' shape; oneDNN reads them flat.
  return Support::yes();
}

void define_layer_norm(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& shape = g.desc(n.inputs[0]).shape;
  const size_t from = *trailing_from(g, n);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < shape.size(); ++i) (i < from ? outer : inner) *= shape[i];
  const auto f32 = memory::data_type::f32;
  const memory::desc view({outer, inner}, f32, memory::format_tag::ab);
  const auto scale = n.attrs.get_operand("scale"), bias = n.attrs.get_operand("bias");
  auto f = flags::none;
  if (scale) f = f | flags::use_scale;
  if (bias) f = f | flags::use_shift;
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, view,
                                            float(n.attrs.get_float("epsilon")), f);
  dnnl::layer_normalization_forward::primitive_desc pd(d, b.engine());
  const memory::desc flat({inner}, f32, memory::format_tag::a);
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.view(n.inputs[0], view);
  if (scale) args[DNNL_ARG_SCALE] = b.view(*scale, flat);
  if (bias) args[DNNL_ARG_SHIFT] = b.view(*bias, flat);
  memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  args[DNNL_ARG_DST] = b.alias(out, view);
  b.add_step(dnnl::layer_normalization_forward(pd), std::move(args));
}

Support instance_norm_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (n.attrs.get_enum("layout") != "nchw") {
    return Support::no("nhwc: a channel's plane is not a contiguous row for layer normalization");
  }
  if (element_count(g.desc(n.inputs[0]).shape) == 0) return Support::no("an empty input");
  return Support::yes();
}

void define_instance_norm(RegionBuilder& b, const Node& n) {
  const Shape& shape = b.graph().desc(n.inputs[0]).shape;
  const int64_t batch = shape[0], channels = shape[1], plane = shape[2] * shape[3];
  const auto f32 = memory::data_type::f32;
  const memory::desc rows({batch * channels, plane}, f32, memory::format_tag::ab);
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, rows,
                                            float(n.attrs.get_float("epsilon")), flags::none);
  dnnl::layer_normalization_forward::primitive_desc pd(d, b.engine());
  memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  b.add_step(dnnl::layer_normalization_forward(pd),
             {{DNNL_ARG_SRC, b.view(n.inputs[0], rows)}, {DNNL_ARG_DST, b.alias(out, rows)}});
  const memory::desc per_channel({1, channels, 1, 1}, f32, memory::format_tag::abcd);
  for (const auto& [option, algo] : {std::pair{"scale", dnnl::algorithm::binary_mul},
                                     std::pair{"bias", dnnl::algorithm::binary_add}}) {
    const auto operand = n.attrs.get_operand(option);
    if (!operand) continue;
    dnnl::binary::primitive_desc bin(
        dnnl::binary::desc(algo, out.get_desc(), per_channel, out.get_desc()), b.engine());
    b.add_step(dnnl::binary(bin), {{DNNL_ARG_SRC_0, out},
                                   {DNNL_ARG_SRC_1, b.view(*operand, per_channel)},
                                   {DNNL_ARG_DST, out}});
  }
}

}  // namespace

void register_normalization(Table& t) {
  t[size_t(OpKind::kInstanceNormalization)] = {instance_norm_supports, define_instance_norm};
  t[size_t(OpKind::kBatchNormalization)] = {batch_norm_supports, define_batch_norm};
  t[size_t(OpKind::kLayerNormalization)] = {layer_norm_supports, define_layer_norm};
}

// oneDNN 2.6's layer normalization always subtracts the mean (no RMS flag), so the chain runs
// as one pass of wnn's own per row: the mean of squares summed in double, then
// y = x * (1 / sqrt(mean + eps)) * gamma, in place of 6 to 7 kernels (and, for the optimum
// export's 1 / sqrt(...), a division on the reference kernels that split the region).
void define_rms_norm(RegionBuilder& b, const passes::RmsNormChain& r) {
  const Node& root = b.graph().nodes()[r.nodes.back()];
  const memory x = b.get(r.x, b.plain_desc(r.x));
  const memory y = b.define_output(root.outputs[0], b.plain_desc(root.outputs[0]));
  for (uint32_t k : r.nodes) b.mark_fused(k);
  const int64_t rows = int64_t(r.rows), cols = int64_t(r.cols);
  const std::vector<float> gamma = r.gamma;
  const float eps = r.eps;
  const int threads = rows * cols >= 16384 ? omp_get_max_threads() : 1;
  b.add_function_step(
      [=] {
        const float* in = static_cast<const float*>(x.get_data_handle());
        float* out = static_cast<float*>(y.get_data_handle());
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < rows; ++i) {
          const float* xi = in + i * cols;
          float* yi = out + i * cols;
          double sum = 0;
          for (int64_t j = 0; j < cols; ++j) sum += double(xi[j]) * double(xi[j]);
          const float inv = 1.0f / std::sqrt(float(sum / double(cols)) + eps);
          if (gamma.empty()) {
            for (int64_t j = 0; j < cols; ++j) yi[j] = xi[j] * inv;
          } else {
            for (int64_t j = 0; j < cols; ++j) yi[j] = xi[j] * inv * gamma[size_t(j)];
          }
        }
      },
      "", "wnn:rms");
}

}  // namespace wnn::runtime::onednn
