// averagePool2d and maxPool2d on oneDNN's pooling_v2 primitive. WebNN's average excludes
// padding from the divisor (pooling_avg_exclude_padding); ceil rounding and explicit output
// sizes become a larger end padding, which both semantics treat alike: padding contributes
// nothing. Windows that would lie wholly in padding are declined.
#include <fmt/format.h>

#include "wnn/core/ops/conv.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;

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
  const OperandId input = n.inputs[0];
  // Keep the layout the producer chose (a conv's blocked output stays blocked).
  memory::desc src = b.held_desc(input);
  if (nhwc) src = b.plain_desc(input).permute_axes({0, 2, 3, 1});  // NHWC seen as NCHW
  const memory::desc dst_any({p.out.batch, p.out.channels, p.out.height, p.out.width},
                             memory::data_type::f32, memory::format_tag::any);
  dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, algo, src, dst_any,
                                   {p.strides[0], p.strides[1]}, {p.kh, p.kw},
                                   {p.dilations[0] - 1, p.dilations[1] - 1}, {p.pad[0], p.pad[2]},
                                   {p.end_h, p.end_w});
  dnnl::pooling_v2_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = nhwc ? b.view(input, src) : b.get(input, src);
  const memory::desc dst = pd.dst_desc();
  memory out = b.define_output(n.outputs[0], nhwc ? dst.permute_axes({0, 3, 1, 2}) : dst);
  args[DNNL_ARG_DST] = nhwc ? b.alias(out, dst) : out;
  if (pd.workspace_desc().get_size() > 0) {
    args[DNNL_ARG_WORKSPACE] = b.allocate(pd.workspace_desc());
  }
  b.add_step(dnnl::pooling_v2_forward(pd), std::move(args));
}

}  // namespace

void register_pool(Table& t) {
  t[size_t(OpKind::kAveragePool2d)] = {pool_supports, define_pool};
  t[size_t(OpKind::kMaxPool2d)] = {pool_supports, define_pool};
}

}  // namespace wnn::runtime::onednn
