#include "wnn/passes/fuse_gelu.h"

#include <cmath>

#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

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
  result.graph = result.fused == 0 ? graph : replace_with_unary(g, fate, OpKind::kGelu);
  return result;
}

}  // namespace wnn::passes
