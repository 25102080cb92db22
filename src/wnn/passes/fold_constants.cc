#include "wnn/passes/fold_constants.h"

#include <fmt/format.h>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

bool never_folded(OpKind op) {
  return op == OpKind::kQuantizeLinear || op == OpKind::kDequantizeLinear;
}

}  // namespace

FoldResult fold_constants(const Graph& graph, const FoldOptions& options) {
  const auto operands = graph.operands();
  const auto nodes = graph.nodes();
  // The value of every operand known at compile time.
  std::vector<std::optional<Tensor>> value(operands.size());
  for (const ConstantInfo& c : graph.constants()) {
    value[c.id.index] = Tensor{graph.desc(c.id).dtype, graph.desc(c.id).shape, c.data};
  }
  FoldResult result;
  std::vector<bool> folded(nodes.size(), false);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (never_folded(node.op()) || node.inputs.empty()) continue;
    bool all_const = true;
    size_t in_bytes = 0, out_bytes = 0;
    for (OperandId in : node.inputs) {
      all_const = all_const && value[in.index].has_value();
      in_bytes += graph.desc(in).byte_size();
    }
    if (!all_const) continue;
    for (OperandId out : node.outputs) out_bytes += graph.desc(out).byte_size();
    const std::string what =
        fmt::format("{} '{}'", op_name(node.op()), graph.name_of(node.outputs.front()));
    if (out_bytes > options.max_grown_bytes &&
        double(out_bytes) > options.max_growth * double(in_bytes)) {
      result.skipped.push_back(
          fmt::format("{}: output of {} bytes from {} bytes of inputs is not materialised", what,
                      out_bytes, in_bytes));
      continue;
    }
    std::vector<ConstTensorView> ins;
    for (OperandId in : node.inputs) ins.push_back(value[in.index]->view());
    std::vector<Tensor> outs;
    for (OperandId out : node.outputs)
      outs.push_back(Tensor::zeros(graph.desc(out).dtype, graph.desc(out).shape));
    std::vector<TensorView> out_views;
    for (Tensor& t : outs) out_views.push_back(t.mutable_view());
    try {
      kernels::run_node(node, ins, out_views);
    } catch (const Error& e) {
      result.skipped.push_back(fmt::format("{}: {}", what, e.what()));
      continue;
    }
    for (size_t i = 0; i < outs.size(); ++i) value[node.outputs[i].index] = std::move(outs[i]);
    folded[n] = true;
    ++result.folded_nodes;
  }

  // Which operands the rebuilt graph still reads.
  std::vector<bool> needed(operands.size(), false);
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (folded[n]) continue;
    for (OperandId in : nodes[n].inputs) needed[in.index] = true;
  }
  for (OperandId out : graph.outputs()) needed[out.index] = true;

  GraphBuilder b(result.graph);
  std::vector<OperandId> map = copy_inputs_and_constants(graph, needed, b);
  // Folded results become weights constants under their operand's name, in node order.
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!folded[n]) continue;
    for (OperandId out : nodes[n].outputs) {
      if (needed[out.index]) map[out.index] = b.constant(graph.name_of(out), *value[out.index]);
    }
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (folded[n]) continue;
    const auto outs = copy_node(graph, nodes[n], map, b);
    for (size_t i = 0; i < outs.size(); ++i) map[nodes[n].outputs[i].index] = outs[i];
  }
  for (OperandId out : graph.outputs()) b.output(map[out.index]);
  return result;
}

}  // namespace wnn::passes
