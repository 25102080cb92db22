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
  if (!is_static(g, B)) {
    return Support::no(reasons::not_constant(g, B, "b") +
                       "; XNNPACK's fully connected needs a static filter");
  }
  if (n.op() == OpKind::kGemm) {
    if (a.get_bool("aTranspose")) return Support::no("aTranspose: XNNPACK reads a as [M, K]");
    if (a.get_float("alpha") != 1.0) return Support::no("alpha other than 1");
    if (auto c = a.get_operand("c")) {
      const auto& cs = g.desc(*c).shape;
      const int64_t N = g.desc(n.outputs[0]).shape[1];
      if (!is_static(g, *c) || a.get_float("beta") != 1.0 ||
          !(cs == Shape{N} || cs == Shape{1, N})) {
        return Support::no("c must be a constant [N] bias with beta 1");
      }
    }
  }
  return Support::yes();
}

// gemm's c as XNNPACK's [N] bias floats, or empty.
std::vector<float> fc_bias(SubgraphBuilder& b, const Node& n) {
  if (n.op() != OpKind::kGemm) return {};
  const auto c = n.attrs.get_operand("c");
  if (!c) return {};
  const auto& p = b.static_floats(*c);
  return {p.begin(), p.begin() + b.graph().desc(n.outputs[0]).shape[1]};
}

bool b_transposed(const Node& n) {
  return n.op() == OpKind::kGemm && n.attrs.get_bool("bTranspose");
}

void define_fc(SubgraphBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (const QdqMatch* m = b.qdq(uint32_t(&n - g.nodes().data()))) return define_qdq_fc(b, n, *m);
  const auto& a = n.attrs;
  const OperandId A = *a.get_operand("a"), B = *a.get_operand("b");
  const uint32_t w = b.new_static(B);
  uint32_t bias = XNN_INVALID_VALUE_ID;
  if (auto c = fc_bias(b, n); !c.empty()) {
    const size_t N = c.size();
    bias = b.static_value(std::move(c), {N});
  }
  const uint32_t x = b.value(A);
  const uint32_t y = b.output(n.outputs[0]);
  // XNNPACK's filter is [N, K]; a WebNN b of [K, N] is its transpose.
  check_xnn(xnn_define_fully_connected(b.subgraph(), -kInf, kInf, x, w, bias, y,
                                       b_transposed(n) ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS),
            "xnn_define_fully_connected");
}

}  // namespace

// The QDQ gemm/matmul as one quantized fully connected node: qint8 input and output, the
// filter qint8 [N, K] (this XNNPACK has no per-channel fully connected), the bias qint32 with
// scale input * filter.
void define_qdq_fc(SubgraphBuilder& b, const Node& n, const QdqMatch& m) {
  const Graph& g = b.graph();
  const Node& dqw = g.nodes()[m.dq_filter];
  const auto& bs = g.desc(n.inputs[1]).shape;
  const bool bt = b_transposed(n);
  const size_t N = size_t(bt ? bs[0] : bs[1]), K = size_t(bt ? bs[1] : bs[0]);
  const int8_t* src = reinterpret_cast<const int8_t*>(g.constant_of(dqw.inputs[0])->data.data());
  std::vector<int8_t> nk(N * K);
  for (size_t i = 0; i < N; ++i)
    for (size_t k = 0; k < K; ++k) nk[i * K + k] = bt ? src[i * K + k] : src[k * N + i];
  const size_t w_dims[2] = {N, K};
  uint32_t w = 0;
  check_xnn(
      xnn_define_quantized_tensor_value(b.subgraph(), xnn_datatype_qint8, 0, m.filter_scales[0], 2,
                                        w_dims, b.keep(std::move(nk)), XNN_INVALID_VALUE_ID, 0, &w),
      "xnn_define_quantized_tensor_value (filter)");
  uint32_t bias = XNN_INVALID_VALUE_ID;
  if (auto c = fc_bias(b, n); !c.empty()) {
    const float scale = m.input.scale * m.filter_scales[0];
    std::vector<int32_t> q(c.size());
    for (size_t i = 0; i < c.size(); ++i) q[i] = quantize_bias(c[i], scale);
    const size_t dims[1] = {c.size()};
    check_xnn(
        xnn_define_quantized_tensor_value(b.subgraph(), xnn_datatype_qint32, 0, scale, 1, dims,
                                          b.keep(std::move(q)), XNN_INVALID_VALUE_ID, 0, &bias),
        "xnn_define_quantized_tensor_value (bias)");
  }
  const uint32_t x = b.value(g.nodes()[m.dq_input].inputs[0]);
  const uint32_t y = b.output(g.nodes()[m.q_output].outputs[0]);
  check_xnn(xnn_define_fully_connected(b.subgraph(), -kInf, kInf, x, w, bias, y, 0),
            "xnn_define_fully_connected (qint8)");
}

void register_matmul(Table& t) {
  t[size_t(OpKind::kGemm)] = {fc_supports, define_fc};
  t[size_t(OpKind::kMatmul)] = {fc_supports, define_fc};
}

}  // namespace wnn::runtime::xnnpack
