#include "wnn/runtime/onednn/channel_scale.h"

#include <algorithm>

#include "wnn/core/ops/conv.h"

namespace wnn::runtime::onednn {

namespace {

// The channel vector of an activation of `shape` in `layout`: [1, C, 1, 1] or [1, 1, 1, C].
bool is_channel_vector(const Shape& s, const Shape& activation, std::string_view layout) {
  if (s.size() != 4 || activation.size() != 4) return false;
  const size_t c = layout == "nhwc" ? 3 : 1;
  for (size_t k = 0; k < 4; ++k) {
    if (s[k] != (k == c ? activation[c] : 1)) return false;
  }
  return true;
}

}  // namespace

ChannelScales plan_channel_scales(
    const Graph& g, const Region& r,
    const std::unordered_map<uint32_t, std::vector<uint32_t>>& epilogues) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> readers;  // operand -> region nodes
  std::vector<bool> in_region(g.nodes().size(), false), in_chain(g.nodes().size(), false);
  for (uint32_t k : r.nodes) {
    in_region[k] = true;
    for (OperandId in : g.nodes()[k].inputs) readers[in.index].push_back(k);
  }
  for (const auto& [producer, chain] : epilogues) {
    for (uint32_t f : chain) in_chain[f] = true;
  }
  ChannelScales plan;
  for (uint32_t k : r.nodes) {
    const Node& m = g.nodes()[k];
    if (m.op() != OpKind::kMul || m.inputs.size() != 2 || in_chain[k]) continue;
    const OperandId y = m.outputs[0];
    if (std::find(r.outputs.begin(), r.outputs.end(), y) != r.outputs.end()) continue;
    const auto& ys = readers[y.index];
    if (ys.size() != 1) continue;
    const uint32_t ci = ys[0];
    const Node& c = g.nodes()[ci];
    const auto& a = c.attrs;
    if (c.op() != OpKind::kConv2d || *a.get_operand("input") != y || a.get_int("groups") != 1)
      continue;
    const OperandId filter = *a.get_operand("filter");
    if (!reasons::is_constant(g, filter)) continue;
    const auto f = conv_filter_geometry(g.desc(filter).shape, a.get_enum("filterLayout"));
    if (f.height != 1 || f.width != 1) continue;
    const Shape& out = g.desc(y).shape;
    const std::string_view layout = a.get_enum("inputLayout");
    for (int s = 0; s < 2; ++s) {
      const OperandId x = m.inputs[size_t(1 - s)], scale = m.inputs[size_t(s)];
      if (g.desc(x).shape != out || !is_channel_vector(g.desc(scale).shape, out, layout)) continue;
      if (g.desc(x).dtype != DataType::kFloat32 || g.desc(scale).dtype != DataType::kFloat32)
        continue;
      const int64_t filter_elements = f.output_channels * f.input_channels;
      if (2 * filter_elements >= element_count(out)) break;
      plan[ci] = {k, x, scale};
      break;
    }
  }
  return plan;
}

}  // namespace wnn::runtime::onednn
