#include "wnn/passes/fuse_l2.h"

namespace wnn::passes {

namespace {

// `op(x)` with reduction node `r`'s axes and keepDimensions.
Replacement reduction(const Graph& g, OpKind op, OperandId x, const Node& r) {
  const std::vector<int64_t> axes = reduced_axes(g, r);
  const bool keep = r.attrs.get_bool("keepDimensions");
  return {{x},
          [=](GraphBuilder& b, const auto& map, const std::string& name) {
            return b.add1(op, {map(x)}, {{"axes", axes}, {"keepDimensions", keep}}, name);
          },
          std::nullopt};
}

}  // namespace

PatternFusion fuse_sum_square(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& square = g.nodes()[n];
    OperandId x;
    if (square.op() == OpKind::kPow && near(scalar_constant(g, square.inputs[1]), 2.0)) {
      x = square.inputs[0];
    } else if (square.op() == OpKind::kMul && square.inputs[0] == square.inputs[1]) {
      x = square.inputs[0];
    } else {
      continue;
    }
    if (g.desc(x).dtype != DataType::kFloat32 || g.desc(square.outputs[0]).shape != g.desc(x).shape)
      continue;  // float32 only, no broadcast hidden
    const Node* sum = sole_reader(g, u, square.outputs[0], OpKind::kReduceSum);
    if (!sum) continue;
    rw.replace({n, rw.index(sum)}, rw.index(sum), reduction(g, OpKind::kReduceSumSquare, x, *sum));
  }
  return rw.finish();
}

PatternFusion fuse_l2_norm(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& sum = g.nodes()[n];
    if (sum.op() != OpKind::kReduceSumSquare) continue;
    const Node* sqrt = sole_reader(g, u, sum.outputs[0], OpKind::kSqrt);
    if (!sqrt) continue;
    rw.replace({n, rw.index(sqrt)}, rw.index(sqrt),
               reduction(g, OpKind::kReduceL2, sum.inputs[0], sum));
  }
  return rw.finish();
}

}  // namespace wnn::passes
