#include "wnn/passes/pattern_match.h"

#include <cmath>
#include <cstring>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

std::optional<float> scalar_constant(const Graph& g, OperandId id) {
  const Operand& op = g.operand(id);
  if (op.kind != OperandKind::kConstant || op.desc.dtype != DataType::kFloat32 ||
      element_count(op.desc.shape) != 1) {
    return std::nullopt;
  }
  const ConstantInfo* c = g.constant_of(id);
  if (c == nullptr || !c->bound()) return std::nullopt;
  float v;
  std::memcpy(&v, c->data.data(), sizeof v);
  return v;
}

bool near(std::optional<float> v, double want) {
  return v && std::abs(double(*v) - want) <= 1e-6 * std::abs(want);
}

Uses uses_of(const Graph& g) {
  Uses u{std::vector<int>(g.operands().size(), 0), std::vector<int64_t>(g.operands().size(), -1)};
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    for (OperandId in : g.nodes()[n].inputs) ++u.count[in.index], u.reader[in.index] = int64_t(n);
  }
  for (OperandId out : g.outputs()) u.count[out.index] += 2;  // never an inner value
  return u;
}

const Node* sole_reader(const Graph& g, const Uses& u, OperandId value, OpKind op) {
  if (u.count[value.index] != 1) return nullptr;
  const Node& n = g.nodes()[size_t(u.reader[value.index])];
  return n.op() == op && n.outputs.size() == 1 ? &n : nullptr;
}

OperandId other(const Node& n, OperandId value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

Graph replace_with_unary(const Graph& g, const std::vector<int64_t>& fate, OpKind op) {
  const size_t num_nodes = g.nodes().size();
  // Operands the rebuilt graph still reads.
  std::vector<bool> needed(g.operands().size(), false);
  for (size_t n = 0; n < num_nodes; ++n) {
    if (fate[n] == -1) {
      for (OperandId in : g.nodes()[n].inputs) needed[in.index] = true;
    } else if (fate[n] >= 0) {
      needed[size_t(fate[n])] = true;
    }
  }
  for (OperandId out : g.outputs()) needed[out.index] = true;

  Graph result;
  GraphBuilder b(result);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = g.nodes()[n];
    if (fate[n] == -2) continue;
    if (fate[n] >= 0) {
      map[node.outputs[0].index] =
          b.add1(op, {map[size_t(fate[n])]}, {}, g.name_of(node.outputs[0]));
      continue;
    }
    const auto outs = copy_node(g, node, map, b);
    for (size_t i = 0; i < outs.size(); ++i) map[node.outputs[i].index] = outs[i];
  }
  for (OperandId o : g.outputs()) b.output(map[o.index]);
  return result;
}

}  // namespace wnn::passes
