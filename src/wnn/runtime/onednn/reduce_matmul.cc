// reduceSum and reduceMean over a block of middle axes as a matmul against a row of ones:
// [outer..., R, inner] -> ones[1, R] x X[o] for each outer index o. oneDNN 2.6 runs such reductions
// on its reference kernel (multihead_attention's head average of the attention weights, a [1, 4,
// 10, 17] sum over axis 1, took 30% of the model); its matmul kernels read the input as strides, so
// a transposed or scaled input costs no copy either. Reductions over the innermost axes keep
// oneDNN's reduction primitive, which is vectorized there.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "wnn/runtime/onednn/views.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;

DefineFn g_define_sum = nullptr, g_define_mean = nullptr;

void define_reduce_by_matmul(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const bool mean = n.op() == OpKind::kReduceMean;
  const DefineFn fallback = mean ? g_define_mean : g_define_sum;
  const auto& shape = g.desc(n.inputs[0]).shape;
  std::vector<int64_t> axes = schema::resolve_axes(n.attrs, "axes", shape.size());
  std::sort(axes.begin(), axes.end());
  const bool block = !axes.empty() && axes.back() - axes.front() + 1 == int64_t(axes.size());
  if (!block || !b.readable_strided(n.inputs[0])) return fallback(b, n);
  int64_t reduced = 1, inner = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (int64_t(i) > axes.back())
      inner *= shape[i];
    else if (int64_t(i) >= axes.front())
      reduced *= shape[i];
  }
  if (inner == 1 || reduced == 1) return fallback(b, n);
  // The outer axes stay separate batch dims: a transposed input may not merge them.
  memory::dims wdims(shape.begin(), shape.begin() + axes.front());
  memory::dims odims = wdims, ones_dims(wdims.size(), 1);
  wdims.insert(wdims.end(), {reduced, inner});
  odims.insert(odims.end(), {1, inner});
  ones_dims.insert(ones_dims.end(), {1, reduced});
  StridedView x = b.strided_from_start(n.inputs[0]);
  const auto strides = reshape_strides(x.dims, x.strides, wdims);
  if (!strides) return fallback(b, n);
  const auto f32 = memory::data_type::f32;
  const memory::desc weights(wdims, f32, *strides);
  const memory::desc ones_desc(ones_dims, f32, memory::dims(contiguous_strides(ones_dims)));
  const memory::desc dst_desc(odims, f32, memory::dims(contiguous_strides(odims)));
  dnnl::primitive_attr attr;
  const float scale = x.scale / (mean ? float(reduced) : 1.0f);
  if (scale != 1) attr.set_output_scales(0, {scale});
  std::optional<dnnl::matmul::primitive_desc> pd;
  try {
    pd.emplace(dnnl::matmul::desc(ones_desc, weights, dst_desc), attr, b.engine());
  } catch (const dnnl::error&) {
    return fallback(b, n);
  }
  if (reference_kernel(*pd)) return fallback(b, n);
  memory ones = b.allocate(ones_desc);
  std::fill_n(static_cast<float*>(ones.get_data_handle()), reduced, 1.0f);
  memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  b.add_step(dnnl::matmul(*pd), {{DNNL_ARG_SRC, ones},
                                 {DNNL_ARG_WEIGHTS, b.alias(x.base, weights)},
                                 {DNNL_ARG_DST, b.alias(out, dst_desc)}});
}

}  // namespace

void register_reduce_matmul(Table& t) {
  g_define_sum = t[size_t(OpKind::kReduceSum)].define;
  g_define_mean = t[size_t(OpKind::kReduceMean)].define;
  t[size_t(OpKind::kReduceSum)].define = define_reduce_by_matmul;
  t[size_t(OpKind::kReduceMean)].define = define_reduce_by_matmul;
}

}  // namespace wnn::runtime::onednn
