// gemm and 2-D matmul with a constant second operand on XNNPACK's fully connected node
// (its filter must be static; it has no matmul with a runtime second operand).
#include <fmt/format.h>

#include <limits>

#include "wnn/runtime/xnnpack/subgraph_builder.h"

namespace wnn::runtime::xnnpack {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Support fc_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32_rank(g, n); !s.ok) return s;
  const auto& a = n.attrs;
  const OperandId A = *a.get_operand("a"), B = *a.get_operand("b");
  if (g.desc(A).shape.size() != 2 || g.desc(B).shape.size() != 2) {
    return Support::no("only 2-D operands: XNNPACK has no batched matmul");
  }
  if (!reasons::is_constant(g, B)) {
    return Support::no(reasons::not_constant(g, B, "b") +
                       "; XNNPACK's fully connected needs a static filter");
  }
  if (n.op() == OpKind::kGemm) {
    if (a.get_bool("aTranspose")) return Support::no("aTranspose: XNNPACK reads a as [M, K]");
    if (a.get_float("alpha") != 1.0) return Support::no("alpha other than 1");
    if (auto c = a.get_operand("c")) {
      const auto& cs = g.desc(*c).shape;
      const int64_t N = g.desc(n.outputs[0]).shape[1];
      if (!reasons::is_constant(g, *c) || a.get_float("beta") != 1.0 ||
          !(cs == Shape{N} || cs == Shape{1, N})) {
        return Support::no("c must be a constant [N] bias with beta 1");
      }
    }
  }
  return Support::yes();
}

void define_fc(SubgraphBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& a = n.attrs;
  const OperandId A = *a.get_operand("a"), B = *a.get_operand("b");
  const bool b_transposed = n.op() == OpKind::kGemm && a.get_bool("bTranspose");
  const uint32_t w = b.value(B);
  uint32_t bias = XNN_INVALID_VALUE_ID;
  if (n.op() == OpKind::kGemm) {
    if (auto c = a.get_operand("c")) {
      const float* p = reinterpret_cast<const float*>(g.constant_of(*c)->data.data());
      const size_t N = size_t(g.desc(n.outputs[0]).shape[1]);
      bias = b.static_value(std::vector<float>(p, p + N), {N});
    }
  }
  const uint32_t x = b.value(A);
  const uint32_t y = b.output(n.outputs[0]);
  // XNNPACK's filter is [N, K]; a WebNN b of [K, N] is its transpose.
  check_xnn(xnn_define_fully_connected(b.subgraph(), -kInf, kInf, x, w, bias, y,
                                       b_transposed ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS),
            "xnn_define_fully_connected");
}

}  // namespace

void register_matmul(Table& t) {
  t[size_t(OpKind::kGemm)] = {fc_supports, define_fc};
  t[size_t(OpKind::kMatmul)] = {fc_supports, define_fc};
}

}  // namespace wnn::runtime::xnnpack
