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
  PatternRewriter rw(g);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (rw.claimed(n)) continue;
    auto c = chain_from(g, u, uint32_t(n));
    if (!c) continue;
    // Chains never overlap: the last transpose of one may not start another.
    std::vector<size_t> nodes = {c->first, c->last};
    nodes.insert(nodes.end(), c->ops.begin(), c->ops.end());
    if (!rw.claim(nodes)) continue;
    const OperandId x = g.nodes()[c->first].inputs[0];
    const OperandId transposed = g.nodes()[c->first].outputs[0];
    const OperandId final_out = g.nodes()[c->last].outputs[0];
    // With no ops between, an identity of x keeps the second transpose's name.
    if (c->ops.empty()) {
      rw.replace(c->last, unary(OpKind::kIdentity, x));
      continue;
    }
    // Each op of the chain on the untransposed x, its constant operand permuted; the last one
    // stands for the second transpose's value.
    for (uint32_t k : c->ops) {
      const Node& node = g.nodes()[k];
      Replacement r;
      for (OperandId in : node.inputs) {
        if (in == transposed) {
          r.reads.push_back(x);
        } else if (g.operand(in).kind != OperandKind::kConstant) {
          r.reads.push_back(in);  // the chain's previous op
        }
      }
      const OperandId out = k == c->ops.back() ? final_out : node.outputs[0];
      r.result = out;
      r.emit = [&g, node, out, transposed, x, perm = c->perm](GraphBuilder& b, const auto& map,
                                                              const std::string&) {
        std::map<uint32_t, OperandId> permuted;
        for (OperandId in : node.inputs) {
          if (g.operand(in).kind != OperandKind::kConstant) continue;
          permuted[in.index] = b.constant(fresh_name(g, b, g.name_of(in) + "_untransposed"),
                                          untransposed_constant(g, in, perm));
        }
        Node copy = node;
        copy.outputs = {out};
        return copy_node(
            g, copy,
            [&](OperandId in) {
              if (in == transposed) return map(x);
              const auto it = permuted.find(in.index);
              return it != permuted.end() ? it->second : map(in);
            },
            b)[0];
      };
      rw.replace(k, std::move(r));
    }
  }
  return rw.finish();
}

}  // namespace wnn::passes
