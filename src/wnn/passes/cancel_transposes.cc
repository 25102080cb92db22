#include "wnn/passes/cancel_transposes.h"

#include <cstring>
#include <optional>

#include "wnn/core/builder.h"
#include "wnn/core/shape.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

bool elementwise_unary(OpKind op) {
  switch (op) {
    case OpKind::kAbs:
    case OpKind::kCeil:
    case OpKind::kClamp:
    case OpKind::kCos:
    case OpKind::kElu:
    case OpKind::kErf:
    case OpKind::kExp:
    case OpKind::kFloor:
    case OpKind::kGelu:
    case OpKind::kHardSigmoid:
    case OpKind::kHardSwish:
    case OpKind::kIdentity:
    case OpKind::kLeakyRelu:
    case OpKind::kLinear:
    case OpKind::kLog:
    case OpKind::kNeg:
    case OpKind::kReciprocal:
    case OpKind::kRelu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
      return true;
    default:
      return false;
  }
}

bool elementwise_binary(OpKind op) {
  return op == OpKind::kAdd || op == OpKind::kSub || op == OpKind::kMul || op == OpKind::kDiv ||
         op == OpKind::kMax || op == OpKind::kMin || op == OpKind::kPow;
}

IntList permutation_of(const Graph& g, const Node& t) {
  IntList perm = t.attrs.get_ints("permutation");
  if (perm.empty()) {  // WebNN's default reverses the axes
    const size_t rank = g.desc(t.inputs[0]).shape.size();
    for (size_t i = 0; i < rank; ++i) perm.push_back(int64_t(rank - 1 - i));
  }
  return perm;
}

// One cancelled pair: the first transpose's node, the chain between, the second transpose.
struct Chain {
  uint32_t first;
  std::vector<uint32_t> ops;
  uint32_t last;
  IntList perm;  // the first transpose's
};

// Whether `n`, reading the chain value `v`, may be recomputed on the untransposed value: an
// elementwise op keeping v's shape, any other operand a bound constant no wider than v.
bool movable(const Graph& g, const Node& n, OperandId v) {
  const auto& shape = g.desc(v).shape;
  if (n.outputs.size() != 1 || g.desc(n.outputs[0]).shape != shape) return false;
  if (elementwise_unary(n.op())) return n.inputs.size() == 1;
  if (!elementwise_binary(n.op()) || n.inputs.size() != 2) return false;
  const OperandId c = other(n, v);
  const ConstantInfo* info =
      g.operand(c).kind == OperandKind::kConstant ? g.constant_of(c) : nullptr;
  return info != nullptr && info->bound() && g.desc(c).shape.size() <= shape.size();
}

std::optional<Chain> chain_from(const Graph& g, const Uses& u, uint32_t first) {
  const Node& t = g.nodes()[first];
  if (t.op() != OpKind::kTranspose) return std::nullopt;
  Chain c{first, {}, 0, permutation_of(g, t)};
  OperandId v = t.outputs[0];
  for (;;) {
    if (u.count[v.index] != 1) return std::nullopt;  // read elsewhere, twice, or an output
    const uint32_t next = uint32_t(u.reader[v.index]);
    const Node& n = g.nodes()[next];
    if (n.op() == OpKind::kTranspose) {
      const IntList q = permutation_of(g, n);
      if (q.size() != c.perm.size()) return std::nullopt;
      for (size_t i = 0; i < q.size(); ++i) {
        if (c.perm[size_t(q[i])] != int64_t(i)) return std::nullopt;
      }
      c.last = next;
      return c;
    }
    if (!movable(g, n, v)) return std::nullopt;
    c.ops.push_back(next);
    v = n.outputs[0];
  }
}

// Constant `c` (aligned from the right to a value of rank `rank` after the transpose by `perm`)
// as the operand of the same op on the untransposed value: left-padded with unit dims, then
// transposed by the inverse permutation.
Tensor untransposed_constant(const Graph& g, OperandId c, const IntList& perm) {
  const auto& desc = g.desc(c);
  const size_t rank = perm.size();
  Shape padded(rank - desc.shape.size(), 1);
  padded.insert(padded.end(), desc.shape.begin(), desc.shape.end());
  // Untransposed axis perm[k] is transposed axis k.
  Shape shape(rank);
  for (size_t k = 0; k < rank; ++k) shape[size_t(perm[k])] = padded[k];
  Tensor t = Tensor::zeros(desc.dtype, shape);
  const size_t elem = dtype_size(desc.dtype);
  const auto* src = g.constant_of(c)->data.data();
  std::byte* dst = t.mutable_view().data;
  const auto dst_strides = contiguous_strides(shape);
  std::vector<int64_t> index(rank, 0);  // over the transposed (source) shape
  for (int64_t i = 0; i < element_count(padded); ++i) {
    int64_t to = 0;
    for (size_t k = 0; k < rank; ++k) to += index[k] * dst_strides[size_t(perm[k])];
    std::memcpy(dst + size_t(to) * elem, src + size_t(i) * elem, elem);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < padded[k]) break;
      index[k] = 0;
    }
  }
  return t;
}

}  // namespace

TransposeCancelling cancel_transposes(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  const size_t num_nodes = g.nodes().size();
  // Per node: its chain's index when it is one's first transpose, op or last transpose.
  std::vector<int64_t> chain_of(num_nodes, -1);
  std::vector<Chain> chains;
  for (size_t n = 0; n < num_nodes; ++n) {
    if (chain_of[n] >= 0) continue;
    auto c = chain_from(g, u, uint32_t(n));
    if (!c) continue;
    // The last transpose of one chain may not start another: chains never overlap.
    bool taken = chain_of[c->last] >= 0;
    for (uint32_t k : c->ops) taken |= chain_of[k] >= 0;
    if (taken) continue;
    const int64_t id = int64_t(chains.size());
    chain_of[n] = chain_of[c->last] = id;
    for (uint32_t k : c->ops) chain_of[k] = id;
    chains.push_back(std::move(*c));
  }
  TransposeCancelling result;
  result.fused = chains.size();
  if (chains.empty()) {
    result.graph = graph;
    return result;
  }
  std::vector<bool> needed(g.operands().size(), false);
  for (size_t n = 0; n < num_nodes; ++n) {
    for (OperandId in : g.nodes()[n].inputs) {
      // Constants of a chain's ops are replaced by their permuted copies.
      if (chain_of[n] < 0 || g.nodes()[n].op() == OpKind::kTranspose ||
          g.operand(in).kind != OperandKind::kConstant)
        needed[in.index] = true;
    }
  }
  for (OperandId out : g.outputs()) needed[out.index] = true;
  GraphBuilder b(result.graph);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = g.nodes()[n];
    if (chain_of[n] < 0) {
      const auto outs = copy_node(g, node, map, b);
      for (size_t i = 0; i < outs.size(); ++i) map[node.outputs[i].index] = outs[i];
      continue;
    }
    const Chain& c = chains[size_t(chain_of[n])];
    const OperandId final_out = g.nodes()[c.last].outputs[0];
    if (n == c.first) {
      // The chain's value is the untransposed x; with no ops, an identity keeps the name.
      map[node.outputs[0].index] = map[node.inputs[0].index];
      if (c.ops.empty()) {
        map[final_out.index] =
            b.add1(OpKind::kIdentity, {map[node.inputs[0].index]}, {}, g.name_of(final_out));
      }
      continue;
    }
    if (n == c.last) continue;  // its value was given to the last op
    // An op of the chain: its constant operand permuted, the last one named as the chain's end.
    // (The map's entry is restored after: other nodes may read the constant as it is.)
    Node copy = node;
    std::vector<std::pair<uint32_t, OperandId>> saved;
    for (OperandId in : node.inputs) {
      if (g.operand(in).kind != OperandKind::kConstant) continue;
      saved.emplace_back(in.index, map[in.index]);
      map[in.index] = b.constant(fresh_name(g, b, g.name_of(in) + "_untransposed"),
                                 untransposed_constant(g, in, c.perm));
    }
    if (n == c.ops.back()) copy.outputs = {final_out};
    const auto outs = copy_node(g, copy, map, b);
    for (const auto& [index, id] : saved) map[index] = id;
    map[node.outputs[0].index] = outs[0];
    if (n == c.ops.back()) map[final_out.index] = outs[0];
  }
  for (OperandId o : g.outputs()) b.output(map[o.index]);
  return result;
}

}  // namespace wnn::passes
