// averagePool2d and maxPool2d on oneDNN's pooling_v2 primitive. WebNN's average excludes
// padding from the divisor (pooling_avg_exclude_padding); ceil rounding and explicit output
// sizes become a larger end padding, which both semantics treat alike: padding contributes
// nothing. Windows that would lie wholly in padding are declined.
//
// Nearest resample2d on the resampling primitive: both sample at half-pixel centres,
// src = (dst + 0.5) / scale - 0.5, with the scale WebNN gives (or out/in for sizes) passed as
// oneDNN's factor (declined when a given scale is not the size ratio, which oneDNN uses
// instead), and take floor(src + 0.5). Axes [2, 3] are NCHW as is; [1, 2] is NHWC seen as NCHW.
// Linear resample2d is a step of wnn's own over the region's memory, in the layout its
// producer left (a conv's channel blocks): the reference kernel's arithmetic, which is ONNX
// Runtime's (kernels/resample_linear.h); oneDNN's linear resampling rounds otherwise.
#include <fmt/format.h>
#include <omp.h>

#include <array>

#include "wnn/core/ops/conv.h"
#include "wnn/kernels/resample_linear.h"
#include "wnn/runtime/onednn/layout_plan.h"
#include "wnn/runtime/onednn/region_builder.h"
#include "wnn/runtime/onednn/views.h"

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
  memory::desc src = nchw_src(b, n.inputs[0], nhwc);
  // oneDNN 2.6 pools row-major NCHW in its scalar simple_nchw loop (2.6 ms for a 3x3 max over
  // one 160x160 channel, measured: 100x its jit kernel); channels-last runs the jit kernel,
  // at the cost of a reorder (none for one channel, whose bytes are the same).
  if (!nhwc && same_addressing(src, b.plain_desc(n.inputs[0]))) {
    src = memory::desc(src.dims(), memory::data_type::f32, memory::format_tag::acdb);
  }
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
  const Shape& in = g.desc(n.inputs[0]).shape;
  if (element_count(in) == 0) return Support::no("an empty input");
  // wnn's own step: any axes and scales.
  if (n.attrs.get_enum("mode") == "linear") return Support::yes();
  const IntList axes = n.attrs.get_ints("axes");
  if (axes != IntList{2, 3} && axes != IntList{1, 2}) {
    return Support::no(
        fmt::format("axes [{}, {}]: oneDNN resamples the trailing spatial axes", axes[0], axes[1]));
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

// Where the resampler finds an element of memory described by `d` (4-D float32, plain strided
// or with one inner block on a dim it does not resample), if it can.
kernels::ResampleLayoutOrNone resample_layout_of(const memory::desc& d, const IntList& axes) {
  const dnnl_memory_desc_t& m = d.data;
  const auto& blocking = m.format_desc.blocking;
  if (m.ndims != 4 || m.data_type != dnnl_f32 || m.format_kind != dnnl_blocked ||
      blocking.inner_nblks > 1) {
    return {};
  }
  std::array<int64_t, 4> dims{}, padded{}, strides{};
  for (size_t k = 0; k < 4; ++k) {
    dims[k] = m.dims[k], padded[k] = m.padded_dims[k], strides[k] = blocking.strides[k];
  }
  const bool blocked = blocking.inner_nblks == 1;
  return kernels::resample_layout(dims, padded, strides, blocked ? int(blocking.inner_idxs[0]) : -1,
                                  blocked ? blocking.inner_blks[0] : 1, axes);
}

// The input as held when the resampler can read that layout and the output can be made in the
// same one (channel blocks, NCHW, NHWC), else both row-major; then one step over them.
void define_linear_resample(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const OperandId input = n.inputs[0], output = n.outputs[0];
  const Shape& in = g.desc(input).shape;
  const Shape& out = g.desc(output).shape;
  const IntList axes = n.attrs.get_ints("axes");
  const memory::dims in_dims(in.begin(), in.end()), out_dims(out.begin(), out.end());
  const memory::desc held = b.held_desc(input);
  memory::desc src_desc = b.plain_desc(input), dst_desc = b.plain_desc(output);
  for (const auto t : {blocked_activation_tag(), memory::format_tag::acdb}) {
    const memory::desc like(in_dims, memory::data_type::f32, t);
    if (held == like && resample_layout_of(like, axes).ok) {
      src_desc = like;
      dst_desc = memory::desc(out_dims, memory::data_type::f32, t);
    }
  }
  const memory src = b.get(input, src_desc);
  const memory dst = b.define_output(output, dst_desc);
  const kernels::ResampleLayout src_layout = resample_layout_of(src_desc, axes).layout;
  const kernels::ResampleLayout dst_layout = resample_layout_of(dst_desc, axes).layout;
  const FloatList given = n.attrs.get_floats("scales");
  std::array<kernels::LinearAxis, 2> taps;
  for (size_t i = 0; i < 2; ++i) {
    const size_t axis = size_t(axes[i]);
    taps[i] = kernels::linear_axis(
        in[axis], out[axis],
        kernels::linear_scale(n.attrs.has("sizes"), in[axis], out[axis], given[i]));
  }
  const int threads = omp_get_max_threads();
  b.add_function_step(
      [=] {
        kernels::resample_linear(
            static_cast<const float*>(src.get_data_handle()) + src.get_desc().data.offset0,
            static_cast<float*>(dst.get_data_handle()) + dst.get_desc().data.offset0, src_layout,
            dst_layout, taps[0], taps[1], threads);
      },
      "", "wnn:resample_linear");
}

void define_resample(RegionBuilder& b, const Node& n) {
  if (n.attrs.get_enum("mode") == "linear") return define_linear_resample(b, n);
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
