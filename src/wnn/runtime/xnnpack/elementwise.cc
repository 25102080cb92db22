// Elementwise ops on XNNPACK: binary arithmetic with broadcasting, the clamp and relu family,
// sigmoid, hardSwish, elu, leakyRelu, prelu with a constant slope (as clamps, mul and add),
// rounding, softmax on the last axis, constant pad and reshape. Layout-sensitive ones (softmax,
// pad, reshape) are declined on 4-D tensors, which a region may hold channels-last.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "wnn/core/error.h"
#include "wnn/runtime/xnnpack/subgraph_builder.h"

namespace wnn::runtime::xnnpack {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Support supported(const Graph& g, const Node& n) { return require_f32_rank(g, n); }

// XNNPACK validates these parameters at define time; decide first, with the reason.
Support unary_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  // XNNPACK's unary subgraph nodes assert at define time on 0-D values.
  if (g.desc(n.outputs[0]).shape.empty()) return Support::no("a 0-D value");
  const auto& a = n.attrs;
  if (n.op() == OpKind::kClamp) {
    const double lo = a.get_float("minValue"), hi = a.get_float("maxValue");
    if (!(lo < hi)) {
      return Support::no(fmt::format("clamp to [{}, {}]: XNNPACK needs min < max", lo, hi));
    }
  }
  if (n.op() == OpKind::kElu) {
    const double alpha = a.get_float("alpha");
    if (!(alpha > 0) || !std::isnormal(float(alpha))) {
      return Support::no(fmt::format("elu alpha {}: XNNPACK needs a positive normal alpha", alpha));
    }
  }
  if (n.op() == OpKind::kLeakyRelu && !std::isfinite(float(a.get_float("alpha")))) {
    return Support::no("leakyRelu alpha not finite");
  }
  return Support::yes();
}

void define_unary(SubgraphBuilder& b, const Node& n) {
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t y = b.output(n.outputs[0]);
  xnn_subgraph_t s = b.subgraph();
  const auto& a = n.attrs;
  xnn_status st = xnn_status_invalid_parameter;
  switch (n.op()) {
    case OpKind::kAbs:
      st = xnn_define_abs(s, x, y, 0);
      break;
    case OpKind::kCeil:
      st = xnn_define_ceiling(s, x, y, 0);
      break;
    case OpKind::kFloor:
      st = xnn_define_floor(s, x, y, 0);
      break;
    case OpKind::kRoundEven:
      st = xnn_define_bankers_rounding(s, x, y, 0);
      break;
    case OpKind::kNeg:
      st = xnn_define_negate(s, x, y, 0);
      break;
    case OpKind::kSigmoid:
      st = xnn_define_sigmoid(s, x, y, 0);
      break;
    case OpKind::kSqrt:
      st = xnn_define_square_root(s, x, y, 0);
      break;
    case OpKind::kHardSwish:
      st = xnn_define_hardswish(s, x, y, 0);
      break;
    case OpKind::kRelu:
      st = xnn_define_clamp(s, 0.0f, kInf, x, y, 0);
      break;
    case OpKind::kClamp:
      st = xnn_define_clamp(s, float(a.get_float("minValue")), float(a.get_float("maxValue")), x, y,
                            0);
      break;
    case OpKind::kElu:
      st = xnn_define_elu(s, float(a.get_float("alpha")), x, y, 0);
      break;
    case OpKind::kLeakyRelu:
      st = xnn_define_leaky_relu(s, float(a.get_float("alpha")), x, y, 0);
      break;
    case OpKind::kSoftmax:
      st = xnn_define_softmax(s, x, y, 0);
      break;
    default:
      check_internal(false, "no XNNPACK unary for {}", op_name(n.op()));
  }
  check_xnn(st, "xnn_define (unary)");
}

Support softmax_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  const size_t rank = g.desc(n.inputs[0]).shape.size();
  if (size_t(n.attrs.get_int("axis")) + 1 != rank) {
    return Support::no("softmax on an axis other than the last: XNNPACK's is last-axis only");
  }
  if (rank == 4) return Support::no("a 4-D softmax: the region may hold 4-D values channels-last");
  return Support::yes();
}

void define_binary(SubgraphBuilder& b, const Node& n) {
  const uint32_t x = b.value(n.inputs[0]), z = b.value(n.inputs[1]);
  const uint32_t y = b.output(n.outputs[0]);
  xnn_subgraph_t s = b.subgraph();
  xnn_status st = xnn_status_invalid_parameter;
  switch (n.op()) {
    case OpKind::kAdd:
      st = xnn_define_add2(s, -kInf, kInf, x, z, y, 0);
      break;
    case OpKind::kSub:
      st = xnn_define_subtract(s, -kInf, kInf, x, z, y, 0);
      break;
    case OpKind::kMul:
      st = xnn_define_multiply2(s, -kInf, kInf, x, z, y, 0);
      break;
    case OpKind::kDiv:
      st = xnn_define_divide(s, -kInf, kInf, x, z, y, 0);
      break;
    case OpKind::kMax:
      st = xnn_define_maximum2(s, x, z, y, 0);
      break;
    case OpKind::kMin:
      st = xnn_define_minimum2(s, x, z, y, 0);
      break;
    default:
      check_internal(false, "no XNNPACK binary for {}", op_name(n.op()));
  }
  check_xnn(st, "xnn_define (binary)");
}

Support binary_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  for (OperandId id : n.inputs) {
    if (g.desc(id).shape.size() > 4 && g.desc(n.outputs[0]).shape.size() == 4) {
      return Support::no("operand rank above the output's");
    }
  }
  return Support::yes();
}

Support prelu_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  const OperandId slope = n.inputs[1];
  // Debian's XNNPACK crashes creating a runtime whose PReLU slope is not static.
  if (!reasons::is_constant(g, slope)) {
    return Support::no(reasons::not_constant(g, slope, "slope") +
                       "; this XNNPACK crashes on a non-static PReLU slope");
  }
  if (g.desc(slope).shape.size() > 4 && g.desc(n.outputs[0]).shape.size() == 4) {
    return Support::no("slope rank above the output's");
  }
  return Support::yes();
}

// prelu(x, slope) = max(x, 0) + slope * min(x, 0): XNNPACK's PReLU node takes only a [C] slope
// on the last axis, while WebNN's slope broadcasts in any shape; this form takes any.
void define_prelu(SubgraphBuilder& b, const Node& n) {
  const uint32_t x = b.value(n.inputs[0]), slope = b.value(n.inputs[1]);
  const auto dims = b.held_dims(n.outputs[0]);
  const uint32_t pos = b.temporary(dims), neg = b.temporary(dims), scaled = b.temporary(dims);
  const uint32_t y = b.output(n.outputs[0]);
  xnn_subgraph_t s = b.subgraph();
  check_xnn(xnn_define_clamp(s, 0.0f, kInf, x, pos, 0), "xnn_define_clamp (prelu)");
  check_xnn(xnn_define_clamp(s, -kInf, 0.0f, x, neg, 0), "xnn_define_clamp (prelu)");
  check_xnn(xnn_define_multiply2(s, -kInf, kInf, neg, slope, scaled, 0),
            "xnn_define_multiply2 (prelu)");
  check_xnn(xnn_define_add2(s, -kInf, kInf, pos, scaled, y, 0), "xnn_define_add2 (prelu)");
}

Support reshape_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  if (g.desc(n.inputs[0]).shape.size() == 4 || g.desc(n.outputs[0]).shape.size() == 4) {
    return Support::no("a 4-D reshape: the region may hold 4-D values channels-last");
  }
  return Support::yes();
}

void define_reshape(SubgraphBuilder& b, const Node& n) {
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t y = b.output(n.outputs[0]);
  const auto dims = b.held_dims(n.outputs[0]);
  check_xnn(xnn_define_static_reshape(b.subgraph(), dims.size(), dims.data(), x, y, 0),
            "xnn_define_static_reshape");
}

Support pad_supports(const Graph& g, const Node& n) {
  if (auto s = supported(g, n); !s.ok) return s;
  if (n.attrs.get_enum("mode") != "constant") {
    return Support::no(
        fmt::format("pad mode '{}': XNNPACK pads with a constant only", n.attrs.get_enum("mode")));
  }
  if (g.desc(n.inputs[0]).shape.size() == 4) {
    return Support::no("a 4-D pad: the region may hold 4-D values channels-last");
  }
  return Support::yes();
}

void define_pad(SubgraphBuilder& b, const Node& n) {
  const auto begin = n.attrs.get_ints("beginningPadding"), end = n.attrs.get_ints("endingPadding");
  const std::vector<size_t> pre(begin.begin(), begin.end()), post(end.begin(), end.end());
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t y = b.output(n.outputs[0]);
  check_xnn(xnn_define_static_constant_pad(b.subgraph(), pre.data(), post.data(),
                                           float(n.attrs.get_float("value")), x, y, 0),
            "xnn_define_static_constant_pad");
}

}  // namespace

void register_elementwise(Table& t) {
  for (OpKind op : {OpKind::kAbs, OpKind::kCeil, OpKind::kFloor, OpKind::kRoundEven, OpKind::kNeg,
                    OpKind::kSigmoid, OpKind::kSqrt, OpKind::kHardSwish, OpKind::kRelu,
                    OpKind::kClamp, OpKind::kElu, OpKind::kLeakyRelu}) {
    t[size_t(op)] = {unary_supports, define_unary};
  }
  t[size_t(OpKind::kSoftmax)] = {softmax_supports, define_unary};
  for (OpKind op :
       {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kDiv, OpKind::kMax, OpKind::kMin}) {
    t[size_t(op)] = {binary_supports, define_binary};
  }
  t[size_t(OpKind::kPrelu)] = {prelu_supports, define_prelu};
  t[size_t(OpKind::kReshape)] = {reshape_supports, define_reshape};
  t[size_t(OpKind::kPad)] = {pad_supports, define_pad};
}

}  // namespace wnn::runtime::xnnpack
