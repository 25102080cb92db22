// quantizeLinear (float32 -> int8) and dequantizeLinear (int8 -> float32) on XNNPACK's Convert
// node between an fp32 value and a qint8 value holding the per-tensor scale and zero point.
// A dequantizeLinear of a constant (a weight) becomes static float data instead, computed once
// with the reference kernel, so any scale shape and 8- or 4-bit type is taken there.
//
// Rounding: XNNPACK's f32 -> qs8 conversion computes x * (1 / scale) and rounds half to even
// (its magic-bias trick in the default rounding mode), then saturates to [-128, 127]. WebNN
// rounds x / scale. The two quotients differ by at most one float ulp, so the results differ
// only when x / scale lies within an ulp of a half-way point, and then by one step: accepted
// and documented (docs/delegates.md), and checked element by element in xnnpack_qdq_test.
#include <fmt/format.h>

#include <limits>

#include "wnn/runtime/xnnpack/subgraph_builder.h"

namespace wnn::runtime::xnnpack {

namespace {

Support quantize_supports(const Graph& g, const Node& n) {
  if (auto s = require_rank(g, n); !s.ok) return s;
  const OperandId x = n.inputs[0], y = n.outputs[0];
  if (g.desc(x).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, x));
  if (reasons::is_constant(g, x)) {
    return Support::no(fmt::format(
        "quantizes the constant '{}': XNNPACK's Convert takes no static input", g.name_of(x)));
  }
  QuantParams p;
  if (auto s = per_tensor_params(g, n, &p); !s.ok) return s;
  return value_params(g, y, &p);
}

Support dequantize_supports(const Graph& g, const Node& n) {
  if (auto s = require_rank(g, n); !s.ok) return s;
  const OperandId x = n.inputs[0], y = n.outputs[0];
  if (g.desc(y).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, y));
  if (dequantized_constant(g, y)) return Support::yes();  // static floats, any params
  if (reasons::is_constant(g, x)) {
    return Support::no(reasons::not_constant(g, n.inputs[1], "scale or zero point") +
                       " of a constant dequantization");
  }
  QuantParams p;
  if (auto s = per_tensor_params(g, n, &p); !s.ok) return s;
  return value_params(g, x, &p);
}

void define_convert(SubgraphBuilder& b, const Node& n) {
  const OperandId out = n.outputs[0];
  if (dequantized_constant(b.graph(), out)) {
    // Static data: readers take it through value(). Only a region output needs a node, a
    // copy of the static value into the external one.
    if (!b.is_region_output(out)) return;
    const uint32_t x = b.new_static(out);
    const float inf = std::numeric_limits<float>::infinity();
    check_xnn(xnn_define_clamp(b.subgraph(), -inf, inf, x, b.output(out), 0),
              "xnn_define_clamp (static copy)");
    return;
  }
  const uint32_t x = b.value(n.inputs[0]);
  const uint32_t y = b.output(out);
  check_xnn(xnn_define_convert(b.subgraph(), x, y, 0), "xnn_define_convert");
}

}  // namespace

void register_quantize(Table& t) {
  t[size_t(OpKind::kQuantizeLinear)] = {quantize_supports, define_convert};
  t[size_t(OpKind::kDequantizeLinear)] = {dequantize_supports, define_convert};
}

}  // namespace wnn::runtime::xnnpack
