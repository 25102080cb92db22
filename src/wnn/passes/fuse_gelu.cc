#include "wnn/passes/fuse_gelu.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

// The value of a float32 constant holding one element, if `id` is one.
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

struct Uses {
  std::vector<int> count;       // per operand: readers (a node reading twice counts twice)
  std::vector<int64_t> reader;  // per operand: its last reader
};

Uses uses_of(const Graph& g) {
  Uses u{std::vector<int>(g.operands().size(), 0), std::vector<int64_t>(g.operands().size(), -1)};
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    for (OperandId in : g.nodes()[n].inputs) ++u.count[in.index], u.reader[in.index] = int64_t(n);
  }
  for (OperandId out : g.outputs()) u.count[out.index] += 2;  // never an inner value
  return u;
}

// The node reading `value` as its only reader, if `value` has exactly one and it is `op`.
const Node* sole_reader(const Graph& g, const Uses& u, OperandId value, OpKind op) {
  if (u.count[value.index] != 1) return nullptr;
  const Node& n = g.nodes()[size_t(u.reader[value.index])];
  return n.op() == op && n.outputs.size() == 1 ? &n : nullptr;
}

// For a binary node reading `value`, its other operand.
OperandId other(const Node& n, OperandId value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

}  // namespace

GeluFusion fuse_gelu(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  const size_t num_nodes = g.nodes().size();
  // Per node: -1 keep, -2 drop (inside a pattern), else the x operand of the gelu it becomes.
  std::vector<int64_t> fate(num_nodes, -1);
  GeluFusion result;
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& div = g.nodes()[n];
    if (div.op() != OpKind::kDiv || !near(scalar_constant(g, div.inputs[1]), std::sqrt(2.0)))
      continue;
    const OperandId x = div.inputs[0];
    const Node* erf = sole_reader(g, u, div.outputs[0], OpKind::kErf);
    if (!erf) continue;
    const Node* add = sole_reader(g, u, erf->outputs[0], OpKind::kAdd);
    if (!add || !near(scalar_constant(g, other(*add, erf->outputs[0])), 1.0)) continue;
    const Node* mul = sole_reader(g, u, add->outputs[0], OpKind::kMul);
    if (!mul || other(*mul, add->outputs[0]) != x) continue;
    const Node* half = sole_reader(g, u, mul->outputs[0], OpKind::kMul);
    if (!half || !near(scalar_constant(g, other(*half, mul->outputs[0])), 0.5)) continue;
    if (g.desc(half->outputs[0]).shape != g.desc(x).shape) continue;  // no broadcast hidden
    auto index = [&](const Node* p) { return size_t(p - g.nodes().data()); };
    fate[n] = fate[index(erf)] = fate[index(add)] = fate[index(mul)] = -2;
    fate[index(half)] = int64_t(x.index);
    ++result.fused;
  }
  if (result.fused == 0) {
    result.graph = graph;
    return result;
  }

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

  GraphBuilder b(result.graph);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = g.nodes()[n];
    if (fate[n] == -2) continue;
    if (fate[n] >= 0) {
      map[node.outputs[0].index] =
          b.add1(OpKind::kGelu, {map[size_t(fate[n])]}, {}, g.name_of(node.outputs[0]));
      continue;
    }
    const auto outs = copy_node(g, node, map, b);
    for (size_t i = 0; i < outs.size(); ++i) map[node.outputs[i].index] = outs[i];
  }
  for (OperandId o : g.outputs()) b.output(map[o.index]);
  return result;
}

}  // namespace wnn::passes
