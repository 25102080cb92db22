// averagePool2d and maxPool2d on oneDNN's pooling_v2 primitive. WebNN's average excludes
// padding from the divisor (pooling_avg_exclude_padding); ceil rounding and explicit output
// sizes become a larger end padding, which both semantics treat alike: padding contributes
// nothing. Windows that would lie wholly in padding are declined.
//
// resample2d on the resampling primitive: both sample at half-pixel centres,
// src = (dst + 0.5) / scale - 0.5, with the scale WebNN gives (or out/in for sizes) passed as
// oneDNN's factor (declined when a given scale is not the size ratio, which oneDNN uses
// instead). Nearest takes floor(src + 0.5) in both. Linear stays on the reference kernel,
// which rounds as ONNX Runtime does. Axes [2, 3] are NCHW as is; [1, 2] is NHWC seen as NCHW.
#include <fmt/format.h>

#include "wnn/core/ops/conv.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;

// The source of a spatial op seen as NCHW: NHWC is a permuted view of the plain tensor;
// otherwise the layout the producer chose is kept (a conv's blocked output stays blocked).
memory::desc nchw_src(RegionBuilder& b, OperandId input, bool nhwc) {
  const memory::desc held = b.held_desc(input);
  return nhwc ? b.plain_desc(input).permute_axes({0, 2, 3, 1}) : held;
}

// Binds SRC and DST of a primitive built on nchw_src's view; an NHWC output is defined in
// WebNN's layout and the primitive writes it through the NCHW-permuted alias.
void bind_nchw_io(RegionBuilder& b, const Node& n, bool nhwc, const memory::desc& src,
                  const memory::desc& dst, std::unordered_map<int, memory>& args) {
  args[DNNL_ARG_SRC] = nhwc ? b.view(n.inputs[0], src) : b.get(n.inputs[0], src);
  memory out = b.define_output(n.outputs[0], nhwc ? dst.permute_axes({0, 3, 1, 2}) : dst);
  args[DNNL_ARG_DST] = nhwc ? b.alias(out, dst) : out;
}

Support pool_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const PoolGeometry p = pool_geometry(g, n);
  const int64_t eh = (p.kh - 1) * p.dilations[0] + 1, ew = (p.kw - 1) * p.dilations[1] + 1;
  if (p.end_h < 0 || p.end_w < 0) {
    return Support::no(
        fmt::format("output size needs negative end padding ({}, {})", p.end_h, p.end_w));
  }
  if (p.pad[0] >= eh || p.pad[2] >= ew || p.end_h >= eh || p.end_w >= ew) {
    return Support::no("padding not smaller than the window: oneDNN rejects it");
  }
  // With ceil rounding the last window may start past the input; oneDNN would divide by zero.
  if ((p.out.height - 1) * p.strides[0] - p.pad[0] >= p.in.height ||
      (p.out.width - 1) * p.strides[1] - p.pad[2] >= p.in.width) {
    return Support::no("a window lies wholly in the padding");
  }
  return Support::yes();
}

void define_pool(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const PoolGeometry p = pool_geometry(g, n);
  const bool nhwc = n.attrs.get_enum("layout") == "nhwc";
  const auto algo = n.op() == OpKind::kMaxPool2d ? dnnl::algorithm::pooling_max
                                                 : dnnl::algorithm::pooling_avg_exclude_padding;
  const memory::desc src = nchw_src(b, n.inputs[0], nhwc);
  const memory::desc dst_any({p.out.batch, p.out.channels, p.out.height, p.out.width},
                             memory::data_type::f32, memory::format_tag::any);
  dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, algo, src, dst_any,
                                   {p.strides[0], p.strides[1]}, {p.kh, p.kw},
                                   {p.dilations[0] - 1, p.dilations[1] - 1}, {p.pad[0], p.pad[2]},
                                   {p.end_h, p.end_w});
  dnnl::pooling_v2_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  bind_nchw_io(b, n, nhwc, src, pd.dst_desc(), args);
  if (pd.workspace_desc().get_size() > 0) {
    args[DNNL_ARG_WORKSPACE] = b.allocate(pd.workspace_desc());
  }
  b.add_step(dnnl::pooling_v2_forward(pd), std::move(args));
}

Support resample_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const IntList axes = n.attrs.get_ints("axes");
  if (axes != IntList{2, 3} && axes != IntList{1, 2}) {
    return Support::no(
        fmt::format("axes [{}, {}]: oneDNN resamples the trailing spatial axes", axes[0], axes[1]));
  }
  const Shape& in = g.desc(n.inputs[0]).shape;
  if (element_count(in) == 0) return Support::no("an empty input");
  // oneDNN weighs the four taps in its own order and rounding; the reference kernel computes
  // ONNX Runtime's float32 formula bit for bit (kernels/pool.cc), which a quantized model's
  // next dynamic quantization needs (its scale is the tensor's max / 255).
  if (n.attrs.get_enum("mode") == "linear") {
    return Support::no("linear: the reference kernel reproduces ONNX Runtime's rounding");
  }
  // Measured: oneDNN 2.6 samples linear resampling with the size ratio out/in, not the
  // factor given; WebNN uses the scale. They agree only when the ratio equals the scale.
  if (!n.attrs.has("sizes")) {
    const Shape& out = g.desc(n.outputs[0]).shape;
    const FloatList scales = n.attrs.get_floats("scales");
    for (size_t i = 0; i < 2; ++i) {
      const size_t axis = size_t(axes[i]);
      if (double(out[axis]) != double(in[axis]) * scales[i]) {
        return Support::no(fmt::format(
            "scale {} on axis {} is not output/input size ({}/{}): oneDNN samples with the ratio",
            scales[i], axis, out[axis], in[axis]));
      }
    }
  }
  return Support::yes();
}

void define_resample(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const IntList axes = n.attrs.get_ints("axes");
  const bool nhwc = axes == IntList{1, 2};
  const Shape& in = g.desc(n.inputs[0]).shape;
  const Shape& out = g.desc(n.outputs[0]).shape;
  std::vector<float> factors;
  const FloatList scales = n.attrs.get_floats("scales");
  for (size_t i = 0; i < 2; ++i) {
    const size_t axis = size_t(axes[i]);
    factors.push_back(n.attrs.has("sizes") ? float(double(out[axis]) / double(in[axis]))
                                           : float(scales[i]));
  }
  const auto algo = n.attrs.get_enum("mode") == "linear" ? dnnl::algorithm::resampling_linear
                                                         : dnnl::algorithm::resampling_nearest;
  const memory::desc src = nchw_src(b, n.inputs[0], nhwc);
  const memory::dims dst_dims = nhwc ? memory::dims{out[0], out[3], out[1], out[2]}
                                     : memory::dims{out[0], out[1], out[2], out[3]};
  const memory::desc dst_any(dst_dims, memory::data_type::f32, memory::format_tag::any);
  dnnl::resampling_forward::desc d(dnnl::prop_kind::forward_inference, algo, factors, src, dst_any);
  dnnl::resampling_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  bind_nchw_io(b, n, nhwc, src, pd.dst_desc(), args);
  b.add_step(dnnl::resampling_forward(pd), std::move(args));
}

}  // namespace

void register_pool(Table& t) {
  t[size_t(OpKind::kResample2d)] = {resample_supports, define_resample};
  t[size_t(OpKind::kAveragePool2d)] = {pool_supports, define_pool};
  t[size_t(OpKind::kMaxPool2d)] = {pool_supports, define_pool};
}

}  // namespace wnn::runtime::onednn
