#include "wnn/passes/fuse_softmax.h"

namespace wnn::passes {

namespace {

// The single axis a kept-dimensions reduction `n` of op `op` reduces, if it is one.
std::optional<int64_t> single_kept_axis(const Graph& g, const Node* n, OpKind op) {
  if (n == nullptr || n->op() != op || !n->attrs.get_bool("keepDimensions")) return std::nullopt;
  const auto axes = reduced_axes(g, *n);
  if (axes.size() != 1) return std::nullopt;
  return axes[0];
}

}  // namespace

PatternFusion fuse_softmax(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  const auto readers = readers_of(g);
  PatternRewriter rw(g);
  auto index = [&](const Node* p) { return rw.index(p); };
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& exp = g.nodes()[n];
    if (exp.op() != OpKind::kExp || g.desc(exp.inputs[0]).dtype != DataType::kFloat32) continue;
    const OperandId e = exp.outputs[0];
    // e's two readers: reduceSum(e, [a]) and the division by it.
    if (readers[e.index].size() != 2 || g.is_output(e)) continue;
    const Node* sum = nullptr;
    for (uint32_t r : readers[e.index]) {
      if (g.nodes()[r].op() == OpKind::kReduceSum) sum = &g.nodes()[r];
    }
    const auto axis = single_kept_axis(g, sum, OpKind::kReduceSum);
    if (!axis) continue;
    std::vector<size_t> nodes = {n, index(sum)};
    const OperandId s = sum->outputs[0];
    const Node* div = sole_reader(g, u, s, OpKind::kDiv);
    if (div && (div->inputs[0] != e || div->inputs[1] != s)) continue;
    if (!div) {
      const Node* rec = sole_reader(g, u, s, OpKind::kReciprocal);
      if (!rec) continue;
      nodes.push_back(index(rec));
      div = sole_reader(g, u, rec->outputs[0], OpKind::kMul);
      if (!div || other(*div, rec->outputs[0]) != e) continue;
    }
    // The other reader of e is that division.
    if (readers[e.index][0] != index(div) && readers[e.index][1] != index(div)) continue;
    nodes.push_back(index(div));
    // x - reduceMax(x, [a]) before the exp, when private to the pattern.
    OperandId x = exp.inputs[0];
    const Node* shift = producer(g, x);
    if (shift && shift->op() == OpKind::kSub && u.count[x.index] == 1) {
      const Node* max = producer(g, shift->inputs[1]);
      if (max && max->inputs[0] == shift->inputs[0] && u.count[shift->inputs[1].index] == 1 &&
          single_kept_axis(g, max, OpKind::kReduceMax) == axis) {
        nodes.insert(nodes.begin(), {index(max), index(shift)});
        x = shift->inputs[0];
      }
    }
    const Shape& xs = g.desc(x).shape;
    if (g.desc(exp.inputs[0]).shape != xs || g.desc(div->outputs[0]).shape != xs) continue;
    rw.replace(nodes, nodes.back(),
               {{x}, [x, a = *axis](GraphBuilder& b, const auto& map, const std::string& name) {
                  return b.add1(OpKind::kSoftmax, {map(x), a}, {}, name);
                }});
  }
  return rw.finish();
}

}  // namespace wnn::passes
