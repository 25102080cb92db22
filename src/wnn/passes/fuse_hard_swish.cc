#include "wnn/passes/fuse_hard_swish.h"

#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

namespace {

// Whether `n` divides `value` by 6 or multiplies it by 1/6 (a one-element constant).
bool divides_by_six(const Graph& g, const Node& n, OperandId value) {
  if (n.op() == OpKind::kDiv)
    return n.inputs[0] == value && near(scalar_constant(g, n.inputs[1]), 6);
  return n.op() == OpKind::kMul && near(scalar_constant(g, other(n, value)), 1.0 / 6);
}

// The node reading `value` as its only reader when it is a division by 6 (divides_by_six).
const Node* sole_division_by_six(const Graph& g, const Uses& u, OperandId value) {
  for (OpKind op : {OpKind::kDiv, OpKind::kMul}) {
    const Node* n = sole_reader(g, u, value, op);
    if (n && divides_by_six(g, *n, value)) return n;
  }
  return nullptr;
}

// The mul(x, value) reading `value` as its only reader, if there is one.
const Node* sole_mul_by(const Graph& g, const Uses& u, OperandId value, OperandId x) {
  const Node* n = sole_reader(g, u, value, OpKind::kMul);
  return n && other(*n, value) == x ? n : nullptr;
}

}  // namespace

HardSwishFusion fuse_hard_swish(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& first = g.nodes()[n];
    OperandId x;
    const Node* gate = nullptr;  // the node computing clamp(x + 3, 0, 6) / 6, or its clamp
    std::vector<const Node*> inner = {&first};
    if (first.op() == OpKind::kHardSigmoid) {
      if (!near(first.attrs.get_float("alpha"), 1.0 / 6) ||
          !near(first.attrs.get_float("beta"), 0.5))
        continue;
      x = first.inputs[0];
      gate = &first;
    } else if (first.op() == OpKind::kAdd) {
      const bool constant_first = scalar_constant(g, first.inputs[0]).has_value();
      x = first.inputs[constant_first ? 1 : 0];
      if (!near(scalar_constant(g, other(first, x)), 3)) continue;
      const Node* clamp = sole_reader(g, u, first.outputs[0], OpKind::kClamp);
      if (!clamp || clamp->attrs.get_float("minValue") != 0 ||
          !near(clamp->attrs.get_float("maxValue"), 6))
        continue;
      inner.push_back(clamp);
      gate = clamp;
      // x * (clamp(x + 3, 0, 6) / 6): the division is part of the gate.
      if (const Node* d = sole_division_by_six(g, u, clamp->outputs[0])) {
        inner.push_back(d);
        gate = d;
      }
    } else {
      continue;
    }
    if (g.operand(x).kind == OperandKind::kConstant) continue;
    const Node* mul = sole_mul_by(g, u, gate->outputs[0], x);
    if (!mul) continue;
    const Node* root = mul;
    // x * clamp(x + 3, 0, 6), then / 6.
    if (gate->op() == OpKind::kClamp) {
      root = sole_division_by_six(g, u, mul->outputs[0]);
      if (!root) continue;
      inner.push_back(mul);
    }
    // No operand broadcasts: every value of the pattern has x's shape.
    bool same_shape = true;
    for (const Node* p : inner) same_shape &= g.desc(p->outputs[0]).shape == g.desc(x).shape;
    if (!same_shape || g.desc(root->outputs[0]).shape != g.desc(x).shape) continue;
    std::vector<size_t> nodes = {rw.index(root)};
    for (const Node* p : inner) nodes.push_back(rw.index(p));
    rw.replace(nodes, rw.index(root), unary(OpKind::kHardSwish, x));
  }
  return rw.finish();
}

}  // namespace wnn::passes
