#include "wnn/passes/fuse_normalization.h"

#include <optional>

#include "wnn/core/tensor.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

struct Match {
  std::vector<size_t> nodes;  // every node of the pattern; the last is the root
  OperandId x;
  std::vector<int64_t> axes;
  double epsilon = 0;
  std::optional<OperandId> scale, bias;
  bool instance = false;
};

// `s` right-aligned to `rank` dims (as broadcasting reads it), or nullopt when it has more.
std::optional<Shape> padded(const Shape& s, size_t rank) {
  if (s.size() > rank) return std::nullopt;
  Shape p(rank - s.size(), 1);
  p.insert(p.end(), s.begin(), s.end());
  return p;
}

bool contains(const std::vector<int64_t>& axes, size_t i) {
  return std::find(axes.begin(), axes.end(), int64_t(i)) != axes.end();
}

// Whether `v` broadcast against `x` varies only along the normalized axes, in full.
bool fits_layer(const Graph& g, OperandId v, const Shape& x, const std::vector<int64_t>& axes) {
  const auto p = padded(g.desc(v).shape, x.size());
  if (!p) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if ((*p)[i] != (contains(axes, i) ? x[i] : 1)) return false;
  }
  return true;
}

// Whether `v` is per channel ([C, 1, 1] against an NCHW `x`) for a reduction over H and W.
bool fits_instance(const Graph& g, OperandId v, const Shape& x, const std::vector<int64_t>& axes) {
  if (x.size() != 4 || axes != std::vector<int64_t>{2, 3}) return false;
  const auto p = padded(g.desc(v).shape, 4);
  return p && *p == Shape{1, x[1], 1, 1};
}

// The trailing axes of a rank, as a reduction lists them: [rank - k, ..., rank - 1].
bool trailing(const std::vector<int64_t>& axes, size_t rank) {
  if (axes.empty() || axes.size() > rank) return false;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != int64_t(rank - axes.size() + i)) return false;
  }
  return true;
}

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), u_(uses_of(g)), readers_(readers_of(g)) {}

  std::optional<Match> match(size_t mean_node) const {
    const Node& mean = g_.nodes()[mean_node];
    if (mean.op() != OpKind::kReduceMean || !mean.attrs.get_bool("keepDimensions")) return {};
    Match m;
    m.x = mean.inputs[0];
    const Shape& xs = g_.desc(m.x).shape;
    if (g_.desc(m.x).dtype != DataType::kFloat32) return {};
    m.axes = reduced_axes(g_, mean);
    if (!trailing(m.axes, xs.size())) return {};
    m.nodes.push_back(mean_node);
    // d = x - mean.
    const Node* sub = sole_reader(g_, u_, mean.outputs[0], OpKind::kSub);
    if (!sub || sub->inputs[0] != m.x || sub->inputs[1] != mean.outputs[0]) return {};
    const OperandId d = sub->outputs[0];
    if (g_.desc(d).shape != xs || g_.is_output(d)) return {};
    m.nodes.push_back(index(sub));
    // d's readers: the square (pow(d, 2) once or d * d twice) and the normalizing node.
    const Node* square = nullptr;
    for (uint32_t r : readers_[d.index]) {
      const Node& n = g_.nodes()[r];
      if ((n.op() == OpKind::kPow && n.inputs[0] == d &&
           near(scalar_constant(g_, n.inputs[1]), 2)) ||
          (n.op() == OpKind::kMul && n.inputs[0] == d && n.inputs[1] == d)) {
        square = &n;
      }
    }
    if (!square) return {};
    const size_t square_reads = square->op() == OpKind::kMul ? 2 : 1;
    if (readers_[d.index].size() != square_reads + 1) return {};
    m.nodes.push_back(index(square));
    // var = reduceMean(d^2) over the same axes, kept.
    const Node* var = sole_reader(g_, u_, square->outputs[0], OpKind::kReduceMean);
    if (!var || g_.desc(square->outputs[0]).shape != xs || !var->attrs.get_bool("keepDimensions") ||
        reduced_axes(g_, *var) != m.axes)
      return {};
    const Shape& reduced = g_.desc(var->outputs[0]).shape;
    m.nodes.push_back(index(var));
    // var + eps (either order), then sqrt.
    const Node* add = sole_reader(g_, u_, var->outputs[0], OpKind::kAdd);
    if (!add) return {};
    const auto eps = scalar_constant(g_, other(*add, var->outputs[0]));
    if (!eps || !(*eps >= 0) || g_.desc(add->outputs[0]).shape != reduced) return {};
    m.epsilon = double(*eps);
    m.nodes.push_back(index(add));
    const Node* sqrt = sole_reader(g_, u_, add->outputs[0], OpKind::kSqrt);
    if (!sqrt) return {};
    m.nodes.push_back(index(sqrt));
    // d / sqrt(...), or d * reciprocal(sqrt(...)).
    const OperandId s = sqrt->outputs[0];
    const Node* norm = sole_reader(g_, u_, s, OpKind::kDiv);
    if (norm && (norm->inputs[0] != d || norm->inputs[1] != s)) return {};
    if (!norm) {
      const Node* rec = sole_reader(g_, u_, s, OpKind::kReciprocal);
      if (!rec) return {};
      m.nodes.push_back(index(rec));
      norm = sole_reader(g_, u_, rec->outputs[0], OpKind::kMul);
      if (!norm || other(*norm, rec->outputs[0]) != d) return {};
    }
    if (g_.desc(norm->outputs[0]).shape != xs) return {};
    m.nodes.push_back(index(norm));
    // The affine: * gamma, then + beta; each absorbed only when it fits the node's scale.
    OperandId y = norm->outputs[0];
    if (const Node* mul = sole_reader(g_, u_, y, OpKind::kMul)) {
      const OperandId gamma = other(*mul, y);
      const bool layer = fits_layer(g_, gamma, xs, m.axes);
      if (gamma != y && g_.desc(mul->outputs[0]).shape == xs &&
          (layer || fits_instance(g_, gamma, xs, m.axes))) {
        m.scale = gamma;
        m.instance = !layer;
        m.nodes.push_back(index(mul));
        y = mul->outputs[0];
      }
    }
    if (const Node* plus = sole_reader(g_, u_, y, OpKind::kAdd); plus && m.scale) {
      const OperandId beta = other(*plus, y);
      const bool fits =
          m.instance ? fits_instance(g_, beta, xs, m.axes) : fits_layer(g_, beta, xs, m.axes);
      if (beta != y && g_.desc(plus->outputs[0]).shape == xs && fits) {
        m.bias = beta;
        m.nodes.push_back(index(plus));
      }
    }
    return m;
  }

 private:
  size_t index(const Node* n) const { return size_t(n - g_.nodes().data()); }

  const Graph& g_;
  const Uses u_;
  const std::vector<std::vector<uint32_t>> readers_;
};

// `v` with shape `shape` (the same elements): a constant's bytes under a new constant, or a
// reshape node.
OperandId reshaped(const Graph& g, OperandId v, const Shape& shape, GraphBuilder& b,
                   const std::function<OperandId(OperandId)>& map) {
  if (g.desc(v).shape == shape) return map(v);
  const ConstantInfo* c = g.constant_of(v);
  if (c != nullptr && c->bound()) {
    return b.constant(fresh_name(g, b, g.name_of(v)), Tensor{g.desc(v).dtype, shape, c->data});
  }
  return b.add1(OpKind::kReshape, {map(v), RawValue(std::vector<int64_t>(shape))});
}

}  // namespace

PatternFusion fuse_normalization(const Graph& graph) {
  const Graph& g = graph;
  const Matcher matcher(g);
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const auto m = matcher.match(n);
    if (!m || !rw.claim(m->nodes)) continue;
    const Shape& xs = g.desc(m->x).shape;
    Shape affine;  // the scale's and bias's shape
    if (m->instance) {
      affine = {xs[1]};
    } else {
      for (int64_t a : m->axes) affine.push_back(xs[size_t(a)]);
    }
    Replacement r;
    r.reads = {m->x};
    for (const auto& v : {m->scale, m->bias}) {
      // A bound constant of another shape is re-made from its bytes (reshaped), not read.
      const ConstantInfo* c = v ? g.constant_of(*v) : nullptr;
      if (v && (g.desc(*v).shape == affine || c == nullptr || !c->bound())) r.reads.push_back(*v);
    }
    r.emit = [&g, m = *m, affine](GraphBuilder& b, const auto& map, const std::string& name) {
      std::vector<std::pair<std::string, RawValue>> named = {{"epsilon", m.epsilon}};
      if (m.scale) named.emplace_back("scale", reshaped(g, *m.scale, affine, b, map));
      if (m.bias) named.emplace_back("bias", reshaped(g, *m.bias, affine, b, map));
      if (m.instance) {
        named.emplace_back("layout", "nchw");
        return b.add1(OpKind::kInstanceNormalization, {map(m.x)}, std::move(named), name);
      }
      named.emplace_back("axes", m.axes);
      return b.add1(OpKind::kLayerNormalization, {map(m.x)}, std::move(named), name);
    };
    rw.replace(m->nodes.back(), std::move(r));
  }
  return rw.finish();
}

}  // namespace wnn::passes
