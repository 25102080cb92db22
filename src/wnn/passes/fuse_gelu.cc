#include "wnn/passes/fuse_gelu.h"

#include <cmath>

#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

GeluFusion fuse_gelu(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
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
    rw.replace({n, rw.index(erf), rw.index(add), rw.index(mul), rw.index(half)}, rw.index(half),
               unary(OpKind::kGelu, x));
  }
  return rw.finish();
}

}  // namespace wnn::passes
