// reduceSum, reduceMean, reduceMax, reduceMin, reduceProduct, reduceL1, reduceL2 and
// reduceSumSquare on oneDNN's reduction primitive. oneDNN keeps reduced dims as 1; WebNN may
// drop them, which is the same bytes, so the output is written through a keep-dims view.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "wnn/passes/pattern_match.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::algorithm;
using dnnl::memory;

struct Reduction {
  algorithm algo;
  float p = 0;
};

Reduction reduction_of(OpKind op) {
  switch (op) {
    case OpKind::kReduceSum:
      return {algorithm::reduction_sum};
    case OpKind::kReduceMean:
      return {algorithm::reduction_mean};
    case OpKind::kReduceMax:
      return {algorithm::reduction_max};
    case OpKind::kReduceMin:
      return {algorithm::reduction_min};
    case OpKind::kReduceProduct:
      return {algorithm::reduction_mul};
    case OpKind::kReduceL1:
      return {algorithm::reduction_norm_lp_sum, 1};
    case OpKind::kReduceL2:
      return {algorithm::reduction_norm_lp_sum, 2};
    default:
      return {algorithm::reduction_norm_lp_power_p_sum, 2};  // reduceSumSquare
  }
}

// The input's dims with each reduced axis set to 1.
memory::dims kept_dims(const Graph& g, const Node& n) {
  const auto& shape = g.desc(n.inputs[0]).shape;
  memory::dims d(shape.begin(), shape.end());
  for (int64_t axis : schema::resolve_axes(n.attrs, "axes", shape.size())) d[size_t(axis)] = 1;
  return d;
}

// Whether every reader of reduceMax `n` takes the max with a finite constant (reduceMin: the
// min), as DynamicQuantizeLinear's range [min(x, 0), max(x, 0)] does: -FLT_MAX for an all -inf
// group then gives what -inf gives.
bool clamped_to_finite(const Graph& g, const Node& n) {
  const OpKind with = n.op() == OpKind::kReduceMax ? OpKind::kMax : OpKind::kMin;
  const OperandId y = n.outputs[0];
  for (OperandId o : g.outputs()) {
    if (o == y) return false;
  }
  bool read = false;
  for (const Node& r : g.nodes()) {
    if (std::find(r.inputs.begin(), r.inputs.end(), y) == r.inputs.end()) continue;
    if (r.op() != with || r.inputs.size() != 2) return false;
    const OperandId other = r.inputs[0] == y ? r.inputs[1] : r.inputs[0];
    const auto c = passes::scalar_constant(g, other);
    if (!c || !std::isfinite(*c)) return false;
    read = true;
  }
  return read;
}

Support reduce_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if ((n.op() == OpKind::kReduceMax || n.op() == OpKind::kReduceMin) && !clamped_to_finite(g, n)) {
    // Measured: oneDNN's reduction_max of a group that is all -inf gives -FLT_MAX (it starts
    // from the lowest finite value); reduction_min is declined too as its mirror image.
    return Support::no("oneDNN's max reduction gives -FLT_MAX for an all -inf group");
  }
  const auto& shape = g.desc(n.inputs[0]).shape;
  if (shape.empty() || shape.size() > DNNL_MAX_NDIMS) {
    return Support::no(fmt::format("rank {}: oneDNN reduces ranks 1 to 12", shape.size()));
  }
  if (element_count(shape) == 0) return Support::no("an empty input");
  const memory::dims kept = kept_dims(g, n);
  if (std::equal(kept.begin(), kept.end(), shape.begin(), shape.end())) {
    return Support::no("no axis of size above 1 is reduced: oneDNN needs a reduction");
  }
  return Support::yes();
}

// reduceMean over the spatial axes of a rank-4 tensor (a classifier's global average pool)
// as a whole-window average pooling in the layout the input is held in: the reduction
// primitive needed it row-major (one reorder) and then took 0.4-0.55 ms for shufflenet's
// [1, 1024, 7, 7] on 2 threads, about 10% of the model. False when the shape does not fit.
bool define_global_mean(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& shape = g.desc(n.inputs[0]).shape;
  if (n.op() != OpKind::kReduceMean || shape.size() != 4) return false;
  const auto axes = schema::resolve_axes(n.attrs, "axes", shape.size());
  if (axes.size() != 2 || std::min(axes[0], axes[1]) != 2 || std::max(axes[0], axes[1]) != 3) {
    return false;
  }
  const memory::desc src = b.held_desc(n.inputs[0]);
  const memory::dims kept = {shape[0], shape[1], 1, 1};
  const memory::dims out_dims(g.desc(n.outputs[0]).shape.begin(), g.desc(n.outputs[0]).shape.end());
  const auto pool = [&](const memory::desc& dst) {
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference,
                                     algorithm::pooling_avg_exclude_padding, src, dst, {1, 1},
                                     {shape[2], shape[3]}, {0, 0}, {0, 0}, {0, 0});
    return dnnl::pooling_v2_forward::primitive_desc(d, b.engine());
  };
  auto pd = pool(memory::desc(kept, memory::data_type::f32, memory::format_tag::any));
  // The result in the output's own dims over the pooling's bytes; row-major when the pooling's
  // layout cannot drop the unit dims.
  memory::desc as = pd.dst_desc().reshape(out_dims, /*allow_empty=*/true);
  if (as.is_zero()) {
    pd = pool(memory::desc(kept, memory::data_type::f32, contiguous_strides(kept)));
    as = b.plain_desc(n.outputs[0]);
  }
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(n.inputs[0], src);
  args[DNNL_ARG_DST] = b.alias(b.define_output(n.outputs[0], as), pd.dst_desc());
  b.add_step(dnnl::pooling_v2_forward(pd), std::move(args));
  return true;
}

void define_reduce(RegionBuilder& b, const Node& n) {
  if (define_global_mean(b, n)) return;
  const Reduction r = reduction_of(n.op());
  const auto f32 = memory::data_type::f32;
  memory::dims kept = kept_dims(b.graph(), n);
  memory::desc src = b.plain_desc(n.inputs[0]);
  memory held;
  const bool whole = std::all_of(kept.begin(), kept.end(), [](int64_t d) { return d == 1; });
  if (whole && (n.op() == OpKind::kReduceMin || n.op() == OpKind::kReduceMax)) {
    // The minimum or maximum of every element is the same in any order: read the layout the
    // input is held in as one flat run (a dynamic quantization's range of a conv's output).
    held = b.get(n.inputs[0], b.dense_desc(n.inputs[0]));
    src = memory::desc({int64_t(element_count(b.graph().desc(n.inputs[0]).shape))}, f32,
                       memory::format_tag::a);
    held = b.alias(held, src);
    kept = {1};
  } else {
    held = b.get(n.inputs[0], src);
  }
  const memory::desc dst(kept, f32, memory::dims(contiguous_strides(kept)));
  dnnl::reduction::desc d(r.algo, src, dst, r.p, 0.0f);
  dnnl::reduction::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = held;
  memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  args[DNNL_ARG_DST] = b.alias(out, dst);
  b.add_step(dnnl::reduction(pd), std::move(args));
}

}  // namespace

void register_reduce(Table& t) {
  for (OpKind op :
       {OpKind::kReduceSum, OpKind::kReduceMean, OpKind::kReduceMax, OpKind::kReduceMin,
        OpKind::kReduceProduct, OpKind::kReduceL1, OpKind::kReduceL2, OpKind::kReduceSumSquare}) {
    t[size_t(op)] = {reduce_supports, define_reduce};
  }
}

}  // namespace wnn::runtime::onednn
