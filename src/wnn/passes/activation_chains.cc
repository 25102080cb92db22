#include "wnn/passes/activation_chains.h"

#include <algorithm>
#include <cmath>

namespace wnn::passes {

namespace {

// Matching state: the nodes claimed so far; every helper returns false on a mismatch.
struct Matcher {
  const Graph& g;
  const Uses& u;
  std::vector<uint32_t> nodes;

  // The node computing `v` when it is `op`, read only once (by the chain) and not an output.
  const Node* inner(OperandId v, OpKind op) {
    const Node* n = producer(g, v);
    if (!n || n->op() != op || u.count[v.index] != 1 || n->outputs.size() != 1) return nullptr;
    nodes.push_back(uint32_t(n - g.nodes().data()));
    return n;
  }
  // For binary `n`: its operand that is a one-element constant near `c`, and the other one.
  bool constant_and(const Node& n, double c, OperandId& rest) {
    for (int i : {0, 1}) {
      if (near(scalar_constant(g, n.inputs[size_t(i)]), c)) {
        rest = n.inputs[size_t(1 - i)];
        return true;
      }
    }
    return false;
  }
  // `v` is x^3: pow(x, 3), x * (x * x) or (x * x) * x.
  bool cube_of(OperandId v, OperandId x) {
    const Node* p = producer(g, v);
    if (!p) return false;
    if (p->op() == OpKind::kPow) {
      return inner(v, OpKind::kPow) && p->inputs[0] == x &&
             near(scalar_constant(g, p->inputs[1]), 3.0);
    }
    if (!inner(v, OpKind::kMul)) return false;
    for (int i : {0, 1}) {
      if (p->inputs[size_t(i)] != x) continue;
      const Node* sq = inner(p->inputs[size_t(1 - i)], OpKind::kMul);
      if (sq && sq->inputs[0] == x && sq->inputs[1] == x) return true;
      return false;
    }
    return false;
  }
  // `h` is 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)); sets x.
  bool gelu_tanh_gate(OperandId h, OperandId& x) {
    const Node* add1 = inner(h, OpKind::kAdd);
    OperandId t;
    if (!add1 || !constant_and(*add1, 1.0, t)) return false;
    const Node* tanh = inner(t, OpKind::kTanh);
    if (!tanh) return false;
    const Node* scale = inner(tanh->inputs[0], OpKind::kMul);
    OperandId s;
    if (!scale || !constant_and(*scale, std::sqrt(2.0 / M_PI), s)) return false;
    const Node* sum = inner(s, OpKind::kAdd);
    if (!sum) return false;
    for (int i : {0, 1}) {
      const OperandId cand = sum->inputs[size_t(i)];
      const Node* k = producer(g, sum->inputs[size_t(1 - i)]);
      OperandId cube;
      if (!k || k->op() != OpKind::kMul || !constant_and(*k, 0.044715, cube)) continue;
      if (!inner(sum->inputs[size_t(1 - i)], OpKind::kMul)) return false;
      x = cand;
      return cube_of(cube, x);
    }
    return false;
  }
};

}  // namespace

std::optional<ActivationChain> match_activation(const Graph& g, const Uses& u, const Node& root) {
  if (root.op() != OpKind::kMul || root.outputs.size() != 1) return std::nullopt;
  const auto& shape = g.desc(root.outputs[0]).shape;
  if (g.desc(root.outputs[0]).dtype != DataType::kFloat32) return std::nullopt;
  const uint32_t root_index = uint32_t(&root - g.nodes().data());
  auto done = [&](Matcher& m, Activation kind, OperandId x) -> std::optional<ActivationChain> {
    if (g.desc(x).shape != shape || g.operand(x).kind == OperandKind::kConstant)
      return std::nullopt;
    for (uint32_t n : m.nodes) {  // no value inside broadcasts
      if (g.desc(g.nodes()[n].outputs[0]).shape != shape) return std::nullopt;
    }
    m.nodes.push_back(root_index);
    std::sort(m.nodes.begin(), m.nodes.end());
    if (std::adjacent_find(m.nodes.begin(), m.nodes.end()) != m.nodes.end()) return std::nullopt;
    return ActivationChain{kind, x, std::move(m.nodes)};
  };
  for (int i : {0, 1}) {
    const OperandId a = root.inputs[size_t(i)], b = root.inputs[size_t(1 - i)];
    // silu: x * sigmoid(x)
    {
      Matcher m{g, u, {}};
      if (const Node* s = m.inner(b, OpKind::kSigmoid); s && s->inputs[0] == a)
        return done(m, Activation::kSilu, a);
    }
    // mish: x * tanh(softplus(x))
    {
      Matcher m{g, u, {}};
      if (const Node* t = m.inner(b, OpKind::kTanh)) {
        const Node* sp = m.inner(t->inputs[0], OpKind::kSoftplus);
        if (sp && sp->inputs[0] == a) return done(m, Activation::kMish, a);
      }
    }
    // tanh-gelu: (x * 0.5) * gate, or 0.5 * (x * gate)
    {
      Matcher m{g, u, {}};
      OperandId x, gx;
      const Node* half = m.inner(a, OpKind::kMul);
      if (half && m.constant_and(*half, 0.5, x) && m.gelu_tanh_gate(b, gx) && gx == x)
        return done(m, Activation::kGeluTanh, x);
    }
    {
      Matcher m{g, u, {}};
      OperandId prod;
      if (!near(scalar_constant(g, a), 0.5)) continue;
      prod = b;
      const Node* p = m.inner(prod, OpKind::kMul);
      if (!p) continue;
      for (int j : {0, 1}) {
        Matcher mj = m;
        OperandId gx;
        const OperandId x = p->inputs[size_t(j)];
        if (mj.gelu_tanh_gate(p->inputs[size_t(1 - j)], gx) && gx == x)
          return done(mj, Activation::kGeluTanh, x);
      }
    }
  }
  return std::nullopt;
}

std::optional<ActivationChain> activation_containing(const Graph& g, const Uses& u,
                                                     uint32_t start) {
  // The longest chain (tanh-gelu from its x^3) has 8 nodes after the first.
  uint32_t n = start;
  for (int step = 0; step < 10; ++step) {
    const Node& node = g.nodes()[n];
    if (auto a = match_activation(g, u, node);
        a && std::binary_search(a->nodes.begin(), a->nodes.end(), start))
      return a;
    if (node.outputs.size() != 1) return std::nullopt;
    const OperandId out = node.outputs[0];
    if (u.count[out.index] != 1 || u.reader[out.index] < 0) return std::nullopt;
    n = uint32_t(u.reader[out.index]);
  }
  return std::nullopt;
}

}  // namespace wnn::passes
