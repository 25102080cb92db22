// conv2d, convTranspose2d, averagePool2d and maxPool2d on XNNPACK's NHWC convolution,
// deconvolution and pooling nodes. The filter must be a constant (XNNPACK takes static filters
// only); it is repacked once to XNNPACK's [O, H, W, I] from any WebNN filter layout.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "wnn/core/ops/conv.h"
#include "wnn/runtime/xnnpack/subgraph_builder.h"

namespace wnn::runtime::xnnpack {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Support conv_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32_rank(g, n); !s.ok) return s;
  const OperandId filter = *n.attrs.get_operand("filter");
  if (!is_static(g, filter)) return Support::no(reasons::not_constant(g, filter, "filter"));
  if (auto bias = n.attrs.get_operand("bias"); bias && !is_static(g, *bias)) {
    return Support::no(reasons::not_constant(g, *bias, "bias"));
  }
  return Support::yes();
}

// The filter `src` as XNNPACK's [G * Og, H, W, Ig]. conv2d filters hold Ig input channels and
// all output channels; convTranspose2d filters hold all input channels and Og outputs.
template <typename T>
std::vector<T> ohwi_filter(const Graph& g, OperandId filter, const T* src, std::string_view layout,
                           int64_t groups, bool transposed) {
  const auto& shape = g.desc(filter).shape;
  const auto f = conv_filter_geometry(shape, layout);
  const auto strides = contiguous_strides(shape);
  int64_t so = 0, si = 0, sh = 0, sw = 0;
  for (size_t k = 0; k < 4; ++k) {
    (layout[k] == 'o' ? so : layout[k] == 'i' ? si : layout[k] == 'h' ? sh : sw) = strides[k];
  }
  const int64_t og = transposed ? f.output_channels : f.output_channels / groups;
  const int64_t ig = transposed ? f.input_channels / groups : f.input_channels;
  std::vector<T> out(size_t(element_count(shape)));
  size_t k = 0;
  for (int64_t gr = 0; gr < groups; ++gr)
    for (int64_t o = 0; o < og; ++o)
      for (int64_t h = 0; h < f.height; ++h)
        for (int64_t w = 0; w < f.width; ++w)
          for (int64_t i = 0; i < ig; ++i) {
            // conv2d: O spans the groups; convTranspose2d: I does.
            const int64_t oo = transposed ? o : gr * og + o, ii = transposed ? gr * ig + i : i;
            out[k++] = src[oo * so + ii * si + h * sh + w * sw];
          }
  return out;
}

// The convolution node of conv2d `n` on XNNPACK values (fp32 or quantized alike).
void define_conv_node(SubgraphBuilder& b, const Node& n, uint32_t x, uint32_t w, uint32_t bv,
                      uint32_t y) {
  const auto& a = n.attrs;
  const auto f =
      conv_filter_geometry(b.graph().desc(n.inputs[1]).shape, a.get_enum("filterLayout"));
  const int64_t groups = a.get_int("groups");
  const auto pad = a.get_ints("padding"), st = a.get_ints("strides"), dil = a.get_ints("dilations");
  check_xnn(
      xnn_define_convolution_2d(b.subgraph(), uint32_t(pad[0]), uint32_t(pad[3]), uint32_t(pad[1]),
                                uint32_t(pad[2]), uint32_t(f.height), uint32_t(f.width),
                                uint32_t(st[0]), uint32_t(st[1]), uint32_t(dil[0]),
                                uint32_t(dil[1]), uint32_t(groups), size_t(f.input_channels),
                                size_t(f.output_channels / groups), -kInf, kInf, x, w, bv, y, 0),
      "xnn_define_convolution_2d");
}

void define_conv(SubgraphBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (const QdqMatch* m = b.qdq(uint32_t(&n - g.nodes().data()))) return define_qdq_conv(b, n, *m);
  const auto& a = n.attrs;
  const OperandId input = *a.get_operand("input"), filter = *a.get_operand("filter");
  const auto f = conv_filter_geometry(g.desc(filter).shape, a.get_enum("filterLayout"));
  const int64_t groups = a.get_int("groups");
  const uint32_t w = b.static_value(
      ohwi_filter(g, filter, b.static_floats(filter).data(), a.get_enum("filterLayout"), groups,
                  false),
      {size_t(f.output_channels), size_t(f.height), size_t(f.width), size_t(f.input_channels)});
  const auto bias = a.get_operand("bias");
  const uint32_t x = b.value(input);
  const uint32_t bv = bias ? b.new_static(*bias) : XNN_INVALID_VALUE_ID;
  const uint32_t y = b.output(n.outputs[0]);
  define_conv_node(b, n, x, w, bv, y);
}

}  // namespace

// The QDQ conv as one quantized convolution: qint8 input and output with the Q/DQ params, the
// filter qcint8 with its per-channel scales, the bias qcint32 with scale input * filter.
void define_qdq_conv(SubgraphBuilder& b, const Node& n, const QdqMatch& m) {
  const Graph& g = b.graph();
  const auto& a = n.attrs;
  const OperandId filter = n.inputs[1];
  const Node& dqw = g.nodes()[m.dq_filter];
  const auto f = conv_filter_geometry(g.desc(filter).shape, a.get_enum("filterLayout"));
  const int64_t groups = a.get_int("groups");
  const int8_t* wq = reinterpret_cast<const int8_t*>(g.constant_of(dqw.inputs[0])->data.data());
  const int8_t* w_data =
      b.keep(ohwi_filter(g, filter, wq, a.get_enum("filterLayout"), groups, false));
  const float* scales = b.keep(m.filter_scales);
  const size_t w_dims[4] = {size_t(f.output_channels), size_t(f.height), size_t(f.width),
                            size_t(f.input_channels)};
  uint32_t w = 0;
  check_xnn(
      xnn_define_channelwise_quantized_tensor_value(b.subgraph(), xnn_datatype_qcint8, scales, 4, 0,
                                                    w_dims, w_data, XNN_INVALID_VALUE_ID, 0, &w),
      "xnn_define_channelwise_quantized_tensor_value (filter)");
  uint32_t bv = XNN_INVALID_VALUE_ID;
  if (const auto bias = a.get_operand("bias")) {
    const auto& fb = b.static_floats(*bias);
    std::vector<float> bias_scales(fb.size());
    std::vector<int32_t> q(fb.size());
    for (size_t c = 0; c < fb.size(); ++c) {
      bias_scales[c] = m.input.scale * m.filter_scales[c];
      q[c] = quantize_bias(fb[c], bias_scales[c]);
    }
    const size_t dims[1] = {fb.size()};
    check_xnn(xnn_define_channelwise_quantized_tensor_value(
                  b.subgraph(), xnn_datatype_qcint32, b.keep(std::move(bias_scales)), 1, 0, dims,
                  b.keep(std::move(q)), XNN_INVALID_VALUE_ID, 0, &bv),
              "xnn_define_channelwise_quantized_tensor_value (bias)");
  }
  const uint32_t x = b.value(g.nodes()[m.dq_input].inputs[0]);
  const uint32_t y = b.output(g.nodes()[m.q_output].outputs[0]);
  define_conv_node(b, n, x, w, bv, y);
}

namespace {

// convTranspose2d: XNNPACK crops the output by the padding, like WebNN, and adds the
// adjustment (outputPadding, or what outputSizes implies) at the bottom and right.
struct Deconv {
  Conv2dGeometry in, out;
  FilterGeometry f;
  int64_t groups, adj_h, adj_w;
  IntList pad, strides, dilations;
};

Deconv deconv_of(const Graph& g, const Node& n) {
  const auto& a = n.attrs;
  Deconv d;
  d.in = conv_input_geometry(g.desc(n.inputs[0]).shape, a.get_enum("inputLayout"));
  d.out = conv_input_geometry(g.desc(n.outputs[0]).shape, a.get_enum("inputLayout"));
  d.f = conv_filter_geometry(g.desc(n.inputs[1]).shape, a.get_enum("filterLayout"));
  d.groups = a.get_int("groups");
  d.pad = a.get_ints("padding"), d.strides = a.get_ints("strides");
  d.dilations = a.get_ints("dilations");
  const int64_t eh = (d.f.height - 1) * d.dilations[0] + 1,
                ew = (d.f.width - 1) * d.dilations[1] + 1;
  d.adj_h = d.out.height - ((d.in.height - 1) * d.strides[0] + eh - d.pad[0] - d.pad[1]);
  d.adj_w = d.out.width - ((d.in.width - 1) * d.strides[1] + ew - d.pad[2] - d.pad[3]);
  return d;
}

Support deconv_supports(const Graph& g, const Node& n) {
  if (auto s = conv_supports(g, n); !s.ok) return s;
  const Deconv d = deconv_of(g, n);
  if (d.adj_h < 0 || d.adj_w < 0 || d.adj_h >= d.strides[0] || d.adj_w >= d.strides[1]) {
    return Support::no(fmt::format(
        "output adjustment ({}, {}) outside [0, stride): XNNPACK rejects it", d.adj_h, d.adj_w));
  }
  return Support::yes();
}

void define_deconv(SubgraphBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& a = n.attrs;
  const Deconv d = deconv_of(g, n);
  const OperandId filter = n.inputs[1];
  const int64_t ig = d.f.input_channels / d.groups, og = d.f.output_channels;
  const uint32_t w =
      b.static_value(ohwi_filter(g, filter, b.static_floats(filter).data(),
                                 a.get_enum("filterLayout"), d.groups, true),
                     {size_t(d.groups * og), size_t(d.f.height), size_t(d.f.width), size_t(ig)});
  const auto bias = a.get_operand("bias");
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t bv = bias ? b.new_static(*bias) : XNN_INVALID_VALUE_ID;
  const uint32_t y = b.output(n.outputs[0]);
  check_xnn(xnn_define_deconvolution_2d(
                b.subgraph(), uint32_t(d.pad[0]), uint32_t(d.pad[3]), uint32_t(d.pad[1]),
                uint32_t(d.pad[2]), uint32_t(d.adj_h), uint32_t(d.adj_w), uint32_t(d.f.height),
                uint32_t(d.f.width), uint32_t(d.strides[0]), uint32_t(d.strides[1]),
                uint32_t(d.dilations[0]), uint32_t(d.dilations[1]), uint32_t(d.groups), size_t(ig),
                size_t(og), -kInf, kInf, x, w, bv, y, 0),
            "xnn_define_deconvolution_2d");
}

bool global_average(const PoolGeometry& p, const Node& n) {
  return n.op() == OpKind::kAveragePool2d && p.kh == p.in.height && p.kw == p.in.width &&
         p.out.height == 1 && p.out.width == 1 && p.pad == IntList{0, 0, 0, 0};
}

Support pool_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32_rank(g, n); !s.ok) return s;
  const PoolGeometry p = pool_geometry(g, n);
  if (global_average(p, n)) return Support::yes();
  if (p.kh * p.kw <= 1) return Support::no("a 1x1 window: XNNPACK requires a pooling size above 1");
  if (n.op() == OpKind::kAveragePool2d && p.dilations != IntList{1, 1}) {
    return Support::no("dilated average pooling: XNNPACK's has no dilation");
  }
  if (p.end_h < 0 || p.end_w < 0) return Support::no("output size needs negative end padding");
  if (p.strides[0] > p.kh || p.strides[1] > p.kw) {
    return Support::no("a stride above the window: XNNPACK pooling rejects it");
  }
  if (p.pad[0] >= p.kh || p.pad[2] >= p.kw || p.end_h >= p.kh || p.end_w >= p.kw) {
    return Support::no("padding not smaller than the window");
  }
  if ((p.out.height - 1) * p.strides[0] - p.pad[0] >= p.in.height ||
      (p.out.width - 1) * p.strides[1] - p.pad[2] >= p.in.width) {
    return Support::no("a window lies wholly in the padding");
  }
  return Support::yes();
}

void define_pool(SubgraphBuilder& b, const Node& n) {
  const PoolGeometry p = pool_geometry(b.graph(), n);
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t y = b.output(n.outputs[0]);
  if (global_average(p, n)) {
    check_xnn(xnn_define_global_average_pooling_2d(b.subgraph(), -kInf, kInf, x, y, 0),
              "xnn_define_global_average_pooling_2d");
  } else if (n.op() == OpKind::kAveragePool2d) {
    check_xnn(xnn_define_average_pooling_2d(b.subgraph(), uint32_t(p.pad[0]), uint32_t(p.end_w),
                                            uint32_t(p.end_h), uint32_t(p.pad[2]), uint32_t(p.kh),
                                            uint32_t(p.kw), uint32_t(p.strides[0]),
                                            uint32_t(p.strides[1]), -kInf, kInf, x, y, 0),
              "xnn_define_average_pooling_2d");
  } else {
    check_xnn(xnn_define_max_pooling_2d(b.subgraph(), uint32_t(p.pad[0]), uint32_t(p.end_w),
                                        uint32_t(p.end_h), uint32_t(p.pad[2]), uint32_t(p.kh),
                                        uint32_t(p.kw), uint32_t(p.strides[0]),
                                        uint32_t(p.strides[1]), uint32_t(p.dilations[0]),
                                        uint32_t(p.dilations[1]), -kInf, kInf, x, y, 0),
              "xnn_define_max_pooling_2d");
  }
}

}  // namespace

void register_conv(Table& t) {
  t[size_t(OpKind::kConv2d)] = {conv_supports, define_conv};
  t[size_t(OpKind::kConvTranspose2d)] = {deconv_supports, define_deconv};
  t[size_t(OpKind::kAveragePool2d)] = {pool_supports, define_pool};
  t[size_t(OpKind::kMaxPool2d)] = {pool_supports, define_pool};
}

}  // namespace wnn::runtime::xnnpack
