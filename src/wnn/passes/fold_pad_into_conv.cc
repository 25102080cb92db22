#include "wnn/passes/fold_pad_into_conv.h"

#include <optional>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

// The conv padding [top, bottom, left, right] `pad` adds, when it is a zero pad of the spatial
// dims of a conv input in `layout`.
std::optional<IntList> spatial_zero_padding(const Node& pad, const std::string& layout) {
  const auto& a = pad.attrs;
  if (a.get_enum("mode") != "constant" || a.get_float("value") != 0.0) return std::nullopt;
  const IntList begin = a.get_ints("beginningPadding"), end = a.get_ints("endingPadding");
  if (begin.size() != 4 || end.size() != 4) return std::nullopt;
  const size_t h = layout == "nchw" ? 2 : 1, w = h + 1, c = layout == "nchw" ? 1 : 3;
  for (size_t d : {size_t(0), c}) {
    if (begin[d] != 0 || end[d] != 0) return std::nullopt;
  }
  for (int64_t p : {begin[h], end[h], begin[w], end[w]}) {
    if (p < 0) return std::nullopt;
  }
  return IntList{begin[h], end[h], begin[w], end[w]};
}

}  // namespace

PadFolding fold_pads_into_convs(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  const size_t num_nodes = g.nodes().size();
  // Per conv node folding a pad: its rewritten copy (reading the pad's input).
  std::vector<std::optional<Node>> folded(num_nodes);
  std::vector<int> readers_left(g.operands().size(), 0);
  for (size_t i = 0; i < g.operands().size(); ++i) readers_left[i] = u.count[i];
  PadFolding result;
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& conv = g.nodes()[n];
    if (conv.op() != OpKind::kConv2d) continue;
    const OperandId padded = *conv.attrs.get_operand("input");
    const Operand& op = g.operand(padded);
    if (op.kind != OperandKind::kNodeOutput) continue;
    const Node& pad = g.nodes()[op.producer];
    if (pad.op() != OpKind::kPad || g.desc(padded).dtype != DataType::kFloat32) continue;
    const auto extra = spatial_zero_padding(pad, conv.attrs.get_enum("inputLayout"));
    if (!extra) continue;
    IntList padding = conv.attrs.get_ints("padding");
    for (size_t k = 0; k < 4; ++k) padding[k] += (*extra)[k];
    Node copy = conv;
    copy.attrs.set(*copy.attrs.schema().find_param("padding"), padding);
    copy.attrs.set(*copy.attrs.schema().find_param("input"), pad.inputs[0]);
    folded[n] = std::move(copy);
    --readers_left[padded.index];
    ++result.fused;
  }
  if (result.fused == 0) {
    result.graph = graph;
    return result;
  }
  // A pad nothing reads any more is dropped (graph outputs count as readers in uses_of).
  std::vector<bool> drop(num_nodes, false);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = g.nodes()[n];
    drop[n] = node.op() == OpKind::kPad && readers_left[node.outputs[0].index] == 0;
  }
  std::vector<bool> needed(g.operands().size(), false);
  for (size_t n = 0; n < num_nodes; ++n) {
    if (drop[n]) continue;
    for (OperandId in : (folded[n] ? *folded[n] : g.nodes()[n]).attrs.operands())
      needed[in.index] = true;
  }
  for (OperandId out : g.outputs()) needed[out.index] = true;
  GraphBuilder b(result.graph);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  for (size_t n = 0; n < num_nodes; ++n) {
    if (drop[n]) continue;
    const Node& node = folded[n] ? *folded[n] : g.nodes()[n];
    const auto outs = copy_node(g, node, map, b);
    for (size_t i = 0; i < outs.size(); ++i) map[node.outputs[i].index] = outs[i];
  }
  for (OperandId o : g.outputs()) b.output(map[o.index]);
  return result;
}

}  // namespace wnn::passes
