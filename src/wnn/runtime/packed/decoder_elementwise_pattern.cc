#include "wnn/runtime/packed/decoder_elementwise_pattern.h"

#include <algorithm>

namespace wnn::runtime::packed {

namespace {

using passes::producer;

bool is_alias(OpKind op) { return op == OpKind::kReshape || op == OpKind::kIdentity; }

uint32_t index_of(const Graph& g, const Node* n) { return uint32_t(n - g.nodes().data()); }

bool float32(const Graph& g, OperandId id) { return g.desc(id).dtype == DataType::kFloat32; }

// The value read by `n` that is not `value` (binary nodes).
OperandId other_of(const Node& n, OperandId value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

// `value` read only once, by `n`, and no graph output.
bool only_read_by(const Wiring& w, OperandId value, const Graph& g, const Node* n) {
  return w.uses.count[value.index] == 1 && w.uses.reader[value.index] == int64_t(index_of(g, n));
}

// `value`, or what a reshape read only here made it from (the same elements in order).
OperandId before_reshape(const Graph& g, const Wiring& w, OperandId value,
                         std::vector<uint32_t>& nodes) {
  const Node* r = producer(g, value, OpKind::kReshape);
  if (!r || w.uses.count[value.index] != 1 || !float32(g, r->inputs[0])) return value;
  nodes.push_back(index_of(g, r));
  return r->inputs[0];
}

}  // namespace

std::optional<RmsNormPattern> match_rms_norm(const Graph& g, const Wiring& w, OperandId value) {
  RmsNormPattern p;
  p.y = value;
  if (!float32(g, value)) return std::nullopt;
  // Up the reshapes and identities to the gamma mul.
  OperandId v = value;
  const Node* mul_gamma = nullptr;
  for (;;) {
    const Node* n = producer(g, v);
    if (!n) return std::nullopt;
    if (is_alias(n->op()) && only_read_by(w, n->inputs[0], g, n)) {
      p.nodes.push_back(index_of(g, n));
      v = n->inputs[0];
      continue;
    }
    if (n->op() != OpKind::kMul || n->outputs.size() != 1) return std::nullopt;
    mul_gamma = n;
    break;
  }
  const Node* div = producer(g, mul_gamma->inputs[0], OpKind::kDiv);
  if (!div) div = producer(g, mul_gamma->inputs[1], OpKind::kDiv);
  if (!div || !only_read_by(w, div->outputs[0], g, mul_gamma)) return std::nullopt;
  p.gamma = other_of(*mul_gamma, div->outputs[0]);
  const OperandId x = div->inputs[0];
  const Shape& xs = g.desc(x).shape;
  if (!float32(g, x) || xs.empty() || g.desc(mul_gamma->outputs[0]).shape != xs) {
    return std::nullopt;
  }
  p.hidden = xs.back();
  p.rows = p.hidden > 0 ? element_count(xs) / p.hidden : 0;
  const Operand& gamma = g.operand(p.gamma);
  const Shape& gs = gamma.desc.shape;
  if (gamma.kind != OperandKind::kConstant || !g.constant_of(p.gamma)->bound() ||
      !float32(g, p.gamma) || gs.empty() || gs.back() != p.hidden ||
      element_count(gs) != p.hidden || gs.size() > xs.size() || p.hidden == 0) {
    return std::nullopt;
  }
  const Node* sqrt = producer(g, div->inputs[1], OpKind::kSqrt);
  if (!sqrt || !only_read_by(w, sqrt->outputs[0], g, div)) return std::nullopt;
  const Node* add = producer(g, sqrt->inputs[0], OpKind::kAdd);
  if (!add || !only_read_by(w, add->outputs[0], g, sqrt)) return std::nullopt;
  const Node* mean = producer(g, add->inputs[0], OpKind::kReduceMean);
  if (!mean) mean = producer(g, add->inputs[1], OpKind::kReduceMean);
  if (!mean || !only_read_by(w, mean->outputs[0], g, add)) return std::nullopt;
  const auto epsilon = passes::scalar_constant(g, other_of(*add, mean->outputs[0]));
  if (!epsilon || !mean->attrs.get_bool("keepDimensions") ||
      passes::reduced_axes(g, *mean) != std::vector<int64_t>{int64_t(xs.size()) - 1}) {
    return std::nullopt;
  }
  p.epsilon = *epsilon;
  const Node* square = producer(g, mean->inputs[0], OpKind::kMul);
  if (!square || square->inputs[0] != x || square->inputs[1] != x ||
      !only_read_by(w, square->outputs[0], g, mean)) {
    return std::nullopt;
  }
  for (const Node* n : {mul_gamma, div, sqrt, add, mean, square}) p.nodes.push_back(index_of(g, n));
  p.reduce = index_of(g, mean);
  p.a = x;

  // x = a + residual of one shape: the sum is computed (and written) by the step, and
  // identities or reshapes of it become copies.
  if (const Node* sum = producer(g, x, OpKind::kAdd)) {
    std::vector<uint32_t> nodes{index_of(g, sum)};
    const OperandId a = before_reshape(g, w, sum->inputs[0], nodes);
    const OperandId b = before_reshape(g, w, sum->inputs[1], nodes);
    if (g.desc(sum->inputs[0]).shape == xs && g.desc(sum->inputs[1]).shape == xs && float32(g, a) &&
        float32(g, b) && element_count(g.desc(a).shape) == element_count(xs) &&
        element_count(g.desc(b).shape) == element_count(xs)) {
      p.a = a;
      p.residual = b;
      p.sum = x;
      for (uint32_t r : w.readers[x.index]) {
        const Node& copy = g.nodes()[r];
        if (is_alias(copy.op()) && copy.outputs.size() == 1) {
          p.nodes.push_back(r);
          p.sum_copies.push_back(copy.outputs[0]);
        }
      }
      p.nodes.insert(p.nodes.end(), nodes.begin(), nodes.end());
    }
  }
  std::sort(p.nodes.begin(), p.nodes.end());
  p.nodes.erase(std::unique(p.nodes.begin(), p.nodes.end()), p.nodes.end());
  return p;
}

std::optional<SiluMulPattern> match_silu_mul(const Graph& g, const Wiring& w, uint32_t sigmoid,
                                             const std::vector<bool>& stop) {
  const Node& s = g.nodes()[sigmoid];
  if (s.op() != OpKind::kSigmoid || s.outputs.size() != 1) return std::nullopt;
  const OperandId x = s.inputs[0], sig = s.outputs[0];
  if (!float32(g, x) || w.uses.count[sig.index] != 1) return std::nullopt;
  const Node& silu = g.nodes()[size_t(w.uses.reader[sig.index])];
  if (silu.op() != OpKind::kMul || other_of(silu, sig) != x || silu.inputs[0] == silu.inputs[1]) {
    return std::nullopt;
  }
  // x is read by the sigmoid and the silu mul only.
  if (w.uses.count[x.index] != 2) return std::nullopt;
  const Node* gated = passes::sole_reader(g, w.uses, silu.outputs[0], OpKind::kMul);
  if (!gated) return std::nullopt;
  const OperandId up = other_of(*gated, silu.outputs[0]);
  const Shape& shape = g.desc(x).shape;
  if (g.desc(up).shape != shape || g.desc(gated->outputs[0]).shape != shape ||
      g.desc(silu.outputs[0]).shape != shape || !float32(g, up)) {
    return std::nullopt;
  }
  SiluMulPattern p;
  p.sigmoid = sigmoid;
  p.elements = element_count(shape);
  p.nodes = {sigmoid, index_of(g, &silu), index_of(g, gated)};
  // The gate's reshape is read by the sigmoid and the silu mul: both inside.
  p.gate = x;
  if (const Node* r = producer(g, x, OpKind::kReshape); r && float32(g, r->inputs[0])) {
    p.nodes.push_back(index_of(g, r));
    p.gate = r->inputs[0];
  }
  p.up = before_reshape(g, w, up, p.nodes);
  p.y = gated->outputs[0];
  auto next_alias = [&]() -> const Node* {
    const Node* r = passes::sole_reader(g, w.uses, p.y, OpKind::kReshape);
    if (!r) r = passes::sole_reader(g, w.uses, p.y, OpKind::kIdentity);
    return r && !stop[index_of(g, r)] ? r : nullptr;
  };
  for (const Node* r = next_alias(); r; r = next_alias()) {
    p.nodes.push_back(index_of(g, r));
    p.y = r->outputs[0];
  }
  std::sort(p.nodes.begin(), p.nodes.end());
  return p;
}

}  // namespace wnn::runtime::packed
