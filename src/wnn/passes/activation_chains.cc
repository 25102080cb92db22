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
    // swish: x * sigmoid(beta * x)
    {
      Matcher m{g, u, {}};
      const Node* s = m.inner(b, OpKind::kSigmoid);
      const Node* scaled = s ? m.inner(s->inputs[0], OpKind::kMul) : nullptr;
      if (scaled) {
        for (int j : {0, 1}) {
          if (auto c = scalar_constant(g, scaled->inputs[size_t(j)]);
              c && std::isfinite(*c) && scaled->inputs[size_t(1 - j)] == a) {
            auto r = done(m, Activation::kSilu, a);
            if (r) r->beta = *c;
            return r;
          }
        }
      }
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

namespace {

// The match of `match` whose nodes include `start`: its root is looked for among the nodes after
// `start` through sole readers (the longest chain, tanh-gelu from its x^3, has 8 after it).
template <typename Match>
auto containing(const Graph& g, const Uses& u, uint32_t start, Match match)
    -> decltype(match(g.nodes()[start])) {
  uint32_t n = start;
  for (int step = 0; step < 10; ++step) {
    const Node& node = g.nodes()[n];
    if (auto a = match(node); a && std::binary_search(a->nodes.begin(), a->nodes.end(), start))
      return a;
    if (node.outputs.size() != 1) return std::nullopt;
    const OperandId out = node.outputs[0];
    if (u.count[out.index] != 1 || u.reader[out.index] < 0) return std::nullopt;
    n = uint32_t(u.reader[out.index]);
  }
  return std::nullopt;
}

// Shape without its leading 1s.
Shape trimmed(std::span<const int64_t> s) {
  size_t i = 0;
  while (i < s.size() && s[i] == 1) ++i;
  return Shape(s.begin() + long(i), s.end());
}

}  // namespace

std::optional<ActivationChain> activation_containing(const Graph& g, const Uses& u,
                                                     uint32_t start) {
  return containing(g, u, start, [&](const Node& n) { return match_activation(g, u, n); });
}

std::optional<RmsNormChain> match_rms_norm(const Graph& g, const Uses& u, const Node& root) {
  if (root.outputs.size() != 1 || g.desc(root.outputs[0]).dtype != DataType::kFloat32)
    return std::nullopt;
  Matcher m{g, u, {}};
  const uint32_t root_index = uint32_t(&root - g.nodes().data());
  const auto& shape = g.desc(root.outputs[0]).shape;
  // The normalization itself: div(x, s) or x * reciprocal(s) / x * (1 / s). Sets x, s.
  auto core = [&](const Node& n, OperandId& x, OperandId& s) {
    if (n.op() == OpKind::kDiv) {
      x = n.inputs[0];
      s = n.inputs[1];
      return true;
    }
    if (n.op() != OpKind::kMul) return false;
    for (int i : {0, 1}) {
      const OperandId r = n.inputs[size_t(1 - i)];
      const Node* p = producer(g, r);
      if (!p || u.count[r.index] != 1) continue;
      if (p->op() == OpKind::kReciprocal) {
        s = p->inputs[0];
      } else if (p->op() == OpKind::kDiv && near(scalar_constant(g, p->inputs[0]), 1.0)) {
        s = p->inputs[1];
      } else {
        continue;
      }
      m.inner(r, p->op());
      x = n.inputs[size_t(i)];
      return true;
    }
    return false;
  };
  OperandId x, s, gamma_operand;
  std::vector<float> gamma;
  bool matched = core(root, x, s) && producer(g, s) && producer(g, s)->op() == OpKind::kSqrt;
  if (!matched && root.op() == OpKind::kMul) {
    m.nodes.clear();
    for (int i : {0, 1}) {
      const OperandId nv = root.inputs[size_t(i)], gv = root.inputs[size_t(1 - i)];
      const Node* n = producer(g, nv);
      const ConstantInfo* c = g.constant_of(gv);
      if (!n || u.count[nv.index] != 1 || !c || !c->bound() ||
          g.desc(gv).dtype != DataType::kFloat32 || g.desc(nv).shape != shape)
        continue;
      m.nodes.clear();
      if (!core(*n, x, s)) continue;
      m.nodes.push_back(uint32_t(n - g.nodes().data()));
      const float* p = reinterpret_cast<const float*>(c->data.data());
      gamma.assign(p, p + element_count(g.desc(gv).shape));
      gamma.push_back(0);  // marks the shape to check below
      gamma_operand = gv;
      matched = true;
      break;
    }
  }
  if (!matched || g.desc(x).shape != shape || g.operand(x).kind == OperandKind::kConstant)
    return std::nullopt;
  const Node* sqrt = m.inner(s, OpKind::kSqrt);
  if (!sqrt) return std::nullopt;
  const Node* add = m.inner(sqrt->inputs[0], OpKind::kAdd);
  OperandId mean_v;
  if (!add) return std::nullopt;
  std::optional<float> eps;
  for (int i : {0, 1}) {
    if (auto e = scalar_constant(g, add->inputs[size_t(i)]); e && *e >= 0) {
      eps = e;
      mean_v = add->inputs[size_t(1 - i)];
    }
  }
  if (!eps) return std::nullopt;
  const Node* mean = m.inner(mean_v, OpKind::kReduceMean);
  if (!mean || !mean->attrs.get_bool("keepDimensions")) return std::nullopt;
  const OperandId sq = mean->inputs[0];
  const Node* sqn = producer(g, sq);
  if (!sqn || sqn->inputs.size() != 2 || sqn->inputs[0] != x) return std::nullopt;
  const bool square = (sqn->op() == OpKind::kMul && sqn->inputs[1] == x) ||
                      (sqn->op() == OpKind::kPow && near(scalar_constant(g, sqn->inputs[1]), 2.0));
  if (!square || !m.inner(sq, sqn->op()) || g.desc(sq).shape != shape) return std::nullopt;
  // Trailing axes only.
  const std::vector<int64_t> axes = reduced_axes(g, *mean);
  if (axes.empty()) return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != int64_t(shape.size() - axes.size() + i)) return std::nullopt;
  }
  RmsNormChain r;
  r.x = x;
  r.eps = *eps;
  r.cols = 1;
  for (int64_t a : axes) r.cols *= size_t(shape[size_t(a)]);
  r.rows = size_t(element_count(shape)) / std::max<size_t>(r.cols, 1);
  if (!gamma.empty()) {
    gamma.pop_back();
    const Shape normalized(shape.end() - long(axes.size()), shape.end());
    if (trimmed(g.desc(gamma_operand).shape) != trimmed(normalized) || gamma.size() != r.cols)
      return std::nullopt;
    r.gamma = std::move(gamma);
  }
  m.nodes.push_back(root_index);
  std::sort(m.nodes.begin(), m.nodes.end());
  if (std::adjacent_find(m.nodes.begin(), m.nodes.end()) != m.nodes.end()) return std::nullopt;
  r.nodes = std::move(m.nodes);
  return r;
}

std::optional<RmsNormChain> rms_norm_containing(const Graph& g, const Uses& u, uint32_t start) {
  return containing(g, u, start, [&](const Node& n) { return match_rms_norm(g, u, n); });
}

}  // namespace wnn::passes
