#include "wnn/passes/fuse_softplus.h"

namespace wnn::passes {

PatternFusion fuse_softplus(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& exp = g.nodes()[n];
    if (exp.op() != OpKind::kExp) continue;
    const OperandId x = exp.inputs[0];
    const Node* add = sole_reader(g, u, exp.outputs[0], OpKind::kAdd);
    if (!add || !near(scalar_constant(g, other(*add, exp.outputs[0])), 1.0)) continue;
    const Node* log = sole_reader(g, u, add->outputs[0], OpKind::kLog);
    if (!log) continue;
    if (g.desc(add->outputs[0]).shape != g.desc(x).shape) continue;  // no broadcast hidden
    rw.replace({n, rw.index(add), rw.index(log)}, rw.index(log), unary(OpKind::kSoftplus, x));
  }
  return rw.finish();
}

}  // namespace wnn::passes
