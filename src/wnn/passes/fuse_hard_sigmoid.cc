#include "wnn/passes/fuse_hard_sigmoid.h"

#include <tuple>

namespace wnn::passes {

namespace {

struct Affine {
  OperandId x;
  double alpha = 1, beta = 0;
  std::vector<const Node*> nodes;  // the scale (if any) and the add
};

// t = x * a + b (or its variants) when `add` computes it and the scale is private to it.
std::optional<Affine> affine_of(const Graph& g, const Uses& u, const Node& add) {
  if (add.op() != OpKind::kAdd) return std::nullopt;
  const bool constant_first = scalar_constant(g, add.inputs[0]).has_value();
  const OperandId t = add.inputs[constant_first ? 1 : 0];
  const auto b = scalar_constant(g, add.inputs[constant_first ? 0 : 1]);
  if (!b || g.operand(t).kind == OperandKind::kConstant) return std::nullopt;
  Affine r{t, 1, double(*b), {&add}};
  const Operand& op = g.operand(t);
  if (op.kind != OperandKind::kNodeOutput || u.count[t.index] != 1) return r;
  const Node& scale = g.nodes()[op.producer];
  if (scale.op() == OpKind::kMul) {
    const bool k_first = scalar_constant(g, scale.inputs[0]).has_value();
    const auto a = scalar_constant(g, scale.inputs[k_first ? 0 : 1]);
    const OperandId x = scale.inputs[k_first ? 1 : 0];
    if (!a || g.operand(x).kind == OperandKind::kConstant) return r;
    return Affine{x, double(*a), r.beta, {&scale, &add}};
  }
  if (scale.op() == OpKind::kDiv) {
    const auto c = scalar_constant(g, scale.inputs[1]);
    if (!c || *c == 0 || g.operand(scale.inputs[0]).kind == OperandKind::kConstant) return r;
    return Affine{scale.inputs[0], 1.0 / double(*c), r.beta, {&scale, &add}};
  }
  return r;
}

// The node ending clamp(t, 0, 1) of `t`, and the nodes of that clamp.
const Node* clamp_to_unit(const Graph& g, const Uses& u, OperandId t,
                          std::vector<const Node*>& nodes) {
  if (const Node* c = sole_reader(g, u, t, OpKind::kClamp)) {
    if (c->attrs.get_float("minValue") != 0 || c->attrs.get_float("maxValue") != 1) return nullptr;
    nodes.push_back(c);
    return c;
  }
  // min(max(t, 0), 1) or max(min(t, 1), 0), the constant on either side.
  for (const auto& [first, bound, second, other_bound] :
       {std::tuple{OpKind::kMax, 0.0, OpKind::kMin, 1.0},
        std::tuple{OpKind::kMin, 1.0, OpKind::kMax, 0.0}}) {
    const Node* a = sole_reader(g, u, t, first);
    if (!a || !near(scalar_constant(g, other(*a, t)), bound)) continue;
    const Node* b = sole_reader(g, u, a->outputs[0], second);
    if (!b || !near(scalar_constant(g, other(*b, a->outputs[0])), other_bound)) continue;
    nodes.push_back(a);
    nodes.push_back(b);
    return b;
  }
  return nullptr;
}

}  // namespace

PatternFusion fuse_hard_sigmoid(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    auto affine = affine_of(g, u, g.nodes()[n]);
    if (!affine || g.desc(affine->x).dtype != DataType::kFloat32) continue;
    std::vector<const Node*> nodes = affine->nodes;
    const Node* root = clamp_to_unit(g, u, g.nodes()[n].outputs[0], nodes);
    if (!root) continue;
    // No operand broadcasts: every value of the pattern has x's shape.
    bool same_shape = true;
    for (const Node* p : nodes)
      same_shape &= g.desc(p->outputs[0]).shape == g.desc(affine->x).shape;
    if (!same_shape) continue;
    std::vector<size_t> indices;
    for (const Node* p : nodes) indices.push_back(rw.index(p));
    rw.replace(
        indices, rw.index(root),
        {{affine->x}, [a = *affine](GraphBuilder& b, const auto& map, const std::string& name) {
           return b.add1(OpKind::kHardSigmoid, {map(a.x)}, {{"alpha", a.alpha}, {"beta", a.beta}},
                         name);
         }});
  }
  return rw.finish();
}

}  // namespace wnn::passes
