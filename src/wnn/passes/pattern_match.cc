#include "wnn/passes/pattern_match.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

std::optional<float> scalar_constant(const Graph& g, OperandId id) {
  const Operand& op = g.operand(id);
  if (op.kind != OperandKind::kConstant || op.desc.dtype != DataType::kFloat32 ||
      element_count(op.desc.shape) != 1) {
    return std::nullopt;
  }
  const ConstantInfo* c = g.constant_of(id);
  if (c == nullptr || !c->bound()) return std::nullopt;
  float v;
  std::memcpy(&v, c->data.data(), sizeof v);
  return v;
}

bool near(std::optional<float> v, double want) {
  return v && std::abs(double(*v) - want) <= 1e-6 * std::abs(want);
}

Uses uses_of(const Graph& g) {
  Uses u{std::vector<int>(g.operands().size(), 0), std::vector<int64_t>(g.operands().size(), -1)};
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    for (OperandId in : g.nodes()[n].inputs) ++u.count[in.index], u.reader[in.index] = int64_t(n);
  }
  for (OperandId out : g.outputs()) u.count[out.index] += 2;  // never an inner value
  return u;
}

const Node* sole_reader(const Graph& g, const Uses& u, OperandId value, OpKind op) {
  if (u.count[value.index] != 1) return nullptr;
  const Node& n = g.nodes()[size_t(u.reader[value.index])];
  return n.op() == op && n.outputs.size() == 1 ? &n : nullptr;
}

OperandId other(const Node& n, OperandId value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

std::vector<std::vector<uint32_t>> readers_of(const Graph& g) {
  std::vector<std::vector<uint32_t>> r(g.operands().size());
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    for (OperandId in : g.nodes()[n].inputs) r[in.index].push_back(uint32_t(n));
  }
  return r;
}

std::vector<int64_t> reduced_axes(const Graph& g, const Node& n) {
  std::vector<int64_t> axes;
  if (n.attrs.has("axes")) {
    axes = n.attrs.get_ints("axes");
  } else {
    for (size_t i = 0; i < g.desc(n.inputs[0]).shape.size(); ++i) axes.push_back(int64_t(i));
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

const Node* producer(const Graph& g, OperandId id) {
  const Operand& op = g.operand(id);
  return op.kind == OperandKind::kNodeOutput ? &g.nodes()[op.producer] : nullptr;
}

const Node* producer(const Graph& g, OperandId id, OpKind op) {
  const Operand& o = g.operand(id);
  if (o.kind != OperandKind::kNodeOutput || o.output_index != 0) return nullptr;
  const Node& n = g.nodes()[o.producer];
  return n.op() == op ? &n : nullptr;
}

Replacement unary(OpKind op, OperandId x) {
  return {{x}, [x, op](GraphBuilder& b, const auto& map, const std::string& name) {
            return b.add1(op, {map(x)}, {}, name);
          }};
}

Graph replace_patterns(const Graph& g, const std::vector<bool>& dropped,
                       const std::map<size_t, Replacement>& replaced) {
  const size_t num_nodes = g.nodes().size();
  // Operands the rebuilt graph still reads.
  std::vector<bool> needed(g.operands().size(), false);
  for (size_t n = 0; n < num_nodes; ++n) {
    if (const auto it = replaced.find(n); it != replaced.end()) {
      for (OperandId in : it->second.reads) needed[in.index] = true;
    } else if (!dropped[n]) {
      for (OperandId in : g.nodes()[n].inputs) needed[in.index] = true;
    }
  }
  for (OperandId out : g.outputs()) needed[out.index] = true;

  Graph result;
  GraphBuilder b(result);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  const std::function<OperandId(OperandId)> mapped = [&](OperandId id) { return map[id.index]; };
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = g.nodes()[n];
    if (const auto it = replaced.find(n); it != replaced.end()) {
      const OperandId source = it->second.result.value_or(node.outputs[0]);
      map[source.index] = it->second.emit(b, mapped, g.name_of(source));
      continue;
    }
    if (dropped[n]) continue;
    const auto outs = copy_node(g, node, map, b);
    for (size_t i = 0; i < outs.size(); ++i) map[node.outputs[i].index] = outs[i];
  }
  for (OperandId o : g.outputs()) b.output(map[o.index]);
  return result;
}

bool PatternRewriter::claim(const std::vector<size_t>& nodes) {
  if (std::any_of(nodes.begin(), nodes.end(), [&](size_t k) { return claimed_[k]; })) return false;
  for (size_t k : nodes) claimed_[k] = dropped_[k] = true;
  ++matches_;
  return true;
}

void PatternRewriter::replace(size_t node, Replacement r) {
  dropped_[node] = false;
  replaced_[node] = std::move(r);
}

bool PatternRewriter::replace(const std::vector<size_t>& nodes, size_t root, Replacement r) {
  if (!claim(nodes)) return false;
  replace(root, std::move(r));
  return true;
}

PatternFusion PatternRewriter::finish() const {
  return {matches_ == 0 ? g_ : replace_patterns(g_, dropped_, replaced_), matches_};
}

}  // namespace wnn::passes
