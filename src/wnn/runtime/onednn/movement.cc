// reshape, identity, transpose, slice and concat as oneDNN reorders and concat: a transpose is a
// reorder from a permuted view of the input into the row-major output.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;

Support movement_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  for (OperandId id : n.inputs) {
    if (g.desc(id).shape.size() > DNNL_MAX_NDIMS) return Support::no("rank above oneDNN's 12");
    if (element_count(g.desc(id).shape) == 0) return Support::no("an empty tensor");
  }
  return Support::yes();
}

// reshape and identity: the same row-major bytes, copied into the output.
void define_copy(RegionBuilder& b, const Node& n) {
  const memory::desc out = b.plain_desc(n.outputs[0]);
  memory src = b.view(n.inputs[0], out);
  memory dst = b.define_output(n.outputs[0], out);
  b.add_step(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

void define_transpose(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& shape = g.desc(n.inputs[0]).shape;
  IntList perm = n.attrs.get_ints("permutation");
  if (perm.empty()) {
    for (size_t i = 0; i < shape.size(); ++i) perm.push_back(int64_t(shape.size() - 1 - i));
  }
  // Output axis k reads input axis perm[k]; permute_axes moves input axis j to inverse[j].
  std::vector<int> inverse(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inverse[size_t(perm[k])] = int(k);
  const memory::desc in_plain = b.plain_desc(n.inputs[0]);
  memory src = shape.empty() ? b.get(n.inputs[0], in_plain)
                             : b.view(n.inputs[0], in_plain.permute_axes(inverse));
  memory dst = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  b.add_step(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

// Concat in the layout its inputs are held in (a fire module's convs write NHWC or blocked
// activations): forcing row-major cost two reorders in and one out per concat, a third of
// squeezenet's time. Where oneDNN cannot concat those layouts (a blocked channel dimension
// padded at the seam), it runs row-major as before.
//
// oneDNN 2.6 runs a concat as one parallel copy ("simple:any") where it can; otherwise its
// general concat ("ref:any") is one reorder per input into that input's window of the output.
// wnn writes the second out itself: each step is then a jit reorder the profile names, and the
// rule that no reference implementation is kept (add_step) needs no exception. Inputs held in
// channel blocks take that form too: oneDNN's parallel copy of them took 2-3x as long as one
// reorder per input (mlsd-tiny-320's decoder concats, 1 thread: 3.2-4.8 ms against 1.4-1.7).
void define_concat(RegionBuilder& b, const Node& n) {
  const int axis = int(n.attrs.get_int("axis"));
  const memory::desc out_plain = b.plain_desc(n.outputs[0]);
  std::vector<memory::desc> held;
  for (OperandId id : n.inputs) held.push_back(b.held_desc(id));
  std::optional<dnnl::concat::primitive_desc> pd;
  try {
    const memory::desc out_any(out_plain.dims(), memory::data_type::f32, memory::format_tag::any);
    pd.emplace(out_any, axis, held, b.engine());
  } catch (const dnnl::error&) {
    held.clear();
  }
  std::vector<memory::desc> srcs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    srcs.push_back(held.empty() ? b.plain_desc(n.inputs[i]) : held[i]);
  }
  if (held.empty()) pd.emplace(out_plain, axis, srcs, b.engine());
  const bool blocked = !held.empty() && std::all_of(held.begin(), held.end(), [](const auto& d) {
    return d.data.format_kind == dnnl_blocked && d.data.format_desc.blocking.inner_nblks > 0;
  });
  if (!reference_kernel(*pd) && !blocked) {
    std::unordered_map<int, memory> args;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      args[DNNL_ARG_MULTIPLE_SRC + int(i)] = b.get(n.inputs[i], srcs[i]);
    }
    args[DNNL_ARG_DST] = b.define_output(n.outputs[0], pd->dst_desc());
    b.add_step(dnnl::concat(*pd), std::move(args));
    return;
  }
  // Each input's window of the output (the output's layout as oneDNN chose it).
  const memory::desc out = pd->dst_desc();
  const memory dst = b.define_output(n.outputs[0], out);
  memory::dims offsets(out.dims().size(), 0);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const memory::dims dims = b.plain_desc(n.inputs[i]).dims();
    if (dims[size_t(axis)] == 0) continue;  // nothing to copy
    const memory src = b.get(n.inputs[i], srcs[i]);
    const memory window = b.alias(dst, out.submemory_desc(dims, offsets));
    b.add_step(dnnl::reorder(src, window), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, window}}, "concat");
    offsets[size_t(axis)] += dims[size_t(axis)];
  }
}

// slice with unit strides: a reorder from a window (submemory) of the row-major input.
Support slice_supports(const Graph& g, const Node& n) {
  if (auto s = movement_supports(g, n); !s.ok) return s;
  if (g.desc(n.inputs[0]).shape.empty()) return Support::no("a scalar slice");
  if (element_count(g.desc(n.outputs[0]).shape) == 0) return Support::no("an empty slice");
  for (int64_t st : n.attrs.get_ints("strides")) {
    if (st != 1) return Support::no(fmt::format("stride {}: only unit strides are lowered", st));
  }
  return Support::yes();
}

void define_slice(RegionBuilder& b, const Node& n) {
  const memory::desc in_plain = b.plain_desc(n.inputs[0]);
  const auto starts = n.attrs.get_ints("starts");
  const auto& out_shape = b.graph().desc(n.outputs[0]).shape;
  const memory::dims sizes(out_shape.begin(), out_shape.end());
  const memory::dims offsets(starts.begin(), starts.end());
  memory src = b.alias(b.get(n.inputs[0], in_plain), in_plain.submemory_desc(sizes, offsets));
  memory dst = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  b.add_step(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

Support concat_supports(const Graph& g, const Node& n) {
  if (auto s = movement_supports(g, n); !s.ok) return s;
  if (g.desc(n.outputs[0]).shape.empty()) return Support::no("a scalar concat");
  return Support::yes();
}

}  // namespace

void register_movement(Table& t) {
  t[size_t(OpKind::kReshape)] = {movement_supports, define_copy};
  t[size_t(OpKind::kIdentity)] = {movement_supports, define_copy};
  t[size_t(OpKind::kTranspose)] = {movement_supports, define_transpose};
  t[size_t(OpKind::kConcat)] = {concat_supports, define_concat};
  t[size_t(OpKind::kSlice)] = {slice_supports, define_slice};
}

}  // namespace wnn::runtime::onednn
