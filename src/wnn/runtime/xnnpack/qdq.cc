#include "wnn/runtime/xnnpack/qdq.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"

namespace wnn::runtime::xnnpack {

namespace {

bool is_qdq(OpKind op) { return op == OpKind::kQuantizeLinear || op == OpKind::kDequantizeLinear; }

template <typename T>
std::vector<T> constant_values(const Graph& g, OperandId id) {
  const T* p = reinterpret_cast<const T*>(g.constant_of(id)->data.data());
  return {p, p + element_count(g.desc(id).shape)};
}

// The 8-bit operand of a Q/DQ node: quantizeLinear's output, dequantizeLinear's input.
OperandId quantized_side(const Node& n) {
  return n.op() == OpKind::kQuantizeLinear ? n.outputs[0] : n.inputs[0];
}

// XNNPACK's quantized values take a positive, normal, finite scale.
Support check_scale(float s, std::string_view what) {
  if (!(s > 0) || !std::isnormal(s)) {
    return Support::no(fmt::format("{} scale {}: XNNPACK needs a positive normal scale", what, s));
  }
  return Support::yes();
}

std::optional<uint32_t> producer_of(const Graph& g, OperandId id) {
  const Operand& o = g.operand(id);
  if (o.kind != OperandKind::kNodeOutput) return std::nullopt;
  return o.producer;
}

}  // namespace

int32_t quantize_bias(float bias, float scale) {
  const double q = std::nearbyint(double(bias) / scale);
  return int32_t(std::clamp(q, double(INT32_MIN), double(INT32_MAX)));
}

std::vector<uint32_t> readers(const Graph& g, OperandId id) {
  std::vector<uint32_t> out;
  const auto nodes = g.nodes();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    for (OperandId in : nodes[n].inputs) {
      if (in == id) {
        out.push_back(n);
        break;
      }
    }
  }
  return out;
}

Support per_tensor_params(const Graph& g, const Node& n, QuantParams* out) {
  const OperandId scale = *n.attrs.get_operand("scale"), zero = *n.attrs.get_operand("zeroPoint");
  for (OperandId id : {scale, zero}) {
    if (!reasons::is_constant(g, id)) return Support::no(reasons::not_constant(g, id, "scale"));
  }
  if (element_count(g.desc(scale).shape) != 1) {
    return Support::no(fmt::format(
        "scale '{}' of shape {} is per-axis or blockwise: XNNPACK's int8 values take one "
        "scale and zero point",
        g.name_of(scale), shape_to_string(g.desc(scale).shape)));
  }
  if (g.desc(scale).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, scale));
  const DataType q = g.desc(zero).dtype;
  if (q != DataType::kInt8) {
    return Support::no(fmt::format(
        "zero point dtype {}: only int8 is lowered (this XNNPACK's Convert node rejects "
        "quint8 with invalid_parameter, measured; int4 and uint4 have no XNNPACK type)",
        dtype_name(q)));
  }
  out->scale = constant_values<float>(g, scale)[0];
  out->zero_point = constant_values<int8_t>(g, zero)[0];
  out->dtype = q;
  return check_scale(out->scale, op_name(n.op()));
}

Support value_params(const Graph& g, OperandId v, QuantParams* out) {
  std::vector<uint32_t> touching = readers(g, v);
  if (auto p = producer_of(g, v)) touching.insert(touching.begin(), *p);
  bool have = false;
  for (uint32_t n : touching) {
    const Node& node = g.nodes()[n];
    if (!is_qdq(node.op()) || quantized_side(node) != v) continue;
    QuantParams p;
    if (auto s = per_tensor_params(g, node, &p); !s.ok) return s;
    if (have && !(p == *out)) {
      return Support::no(
          fmt::format("int8 value '{}' is quantized with different scales or zero points by its "
                      "quantizeLinear/dequantizeLinear nodes; XNNPACK holds one per value",
                      g.name_of(v)));
    }
    *out = p;
    have = true;
  }
  check_internal(have, "'{}' has no quantizeLinear/dequantizeLinear node", g.name_of(v));
  return Support::yes();
}

const Node* dequantized_constant(const Graph& g, OperandId id) {
  const auto p = producer_of(g, id);
  if (!p) return nullptr;
  const Node& n = g.nodes()[*p];
  if (n.op() != OpKind::kDequantizeLinear) return nullptr;
  for (OperandId in : n.inputs) {
    if (!reasons::is_constant(g, in)) return nullptr;
  }
  return &n;
}

bool is_static(const Graph& g, OperandId id) {
  return reasons::is_constant(g, id) || dequantized_constant(g, id) != nullptr;
}

std::optional<QdqMatch> match_qdq(const Graph& g, uint32_t node, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<QdqMatch> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const Node& n = g.nodes()[node];
  const auto& a = n.attrs;
  const bool conv = n.op() == OpKind::kConv2d;
  if (!conv && n.op() != OpKind::kGemm && n.op() != OpKind::kMatmul) return fail("not conv/gemm");
  const OperandId x = n.inputs[0], w = n.inputs[1];
  QdqMatch m;
  // The data input: dequantized from an int8 value with one scale.
  const auto px = producer_of(g, x);
  if (!px || g.nodes()[*px].op() != OpKind::kDequantizeLinear) {
    return fail("input not dequantized");
  }
  m.dq_input = *px;
  if (auto s = value_params(g, g.nodes()[*px].inputs[0], &m.input); !s.ok) return fail(s.reason);
  // The filter: dequantized from an int8 constant with zero point 0.
  const Node* dqw = dequantized_constant(g, w);
  if (!dqw) return fail("filter not dequantized from a constant");
  m.dq_filter = *producer_of(g, w);
  const OperandId wq = dqw->inputs[0], ws = dqw->inputs[1], wz = dqw->inputs[2];
  if (g.desc(wq).dtype != DataType::kInt8) return fail("filter not int8");
  for (int8_t z : constant_values<int8_t>(g, wz)) {
    if (z != 0) return fail("filter zero point not 0 (XNNPACK's int8 filters are symmetric)");
  }
  if (g.desc(ws).dtype != DataType::kFloat32) return fail("filter scale not float32");
  m.filter_scales = constant_values<float>(g, ws);
  if (m.filter_scales.size() != 1) {
    // Per output channel: the scale varies along the filter's O axis only.
    if (!conv) return fail("per-channel fully connected filter (this XNNPACK has no qc8 FC)");
    const std::string layout(a.get_enum("filterLayout"));
    const auto& fs = g.desc(w).shape;
    Shape want(fs.size(), 1);
    want[layout.find('o')] = fs[layout.find('o')];
    Shape got = g.desc(ws).shape;
    got.insert(got.begin(), fs.size() - got.size(), 1);
    if (got != want) return fail("filter scale neither per-tensor nor per output channel");
  }
  for (float s : m.filter_scales) {
    if (auto c = check_scale(s, "filter"); !c.ok) return fail(c.reason);
  }
  // The bias: a float constant (quantized to int32 at compile time).
  if (conv) {
    if (auto b = a.get_operand("bias"); b && !reasons::is_constant(g, *b)) {
      return fail("bias not a float constant");
    }
  } else if (auto c = n.op() == OpKind::kGemm ? a.get_operand("c") : std::nullopt;
             c && !reasons::is_constant(g, *c)) {
    return fail("c not a float constant");
  }
  // The output: read only by one quantizeLinear to int8.
  const OperandId y = n.outputs[0];
  const auto ry = readers(g, y);
  if (g.is_output(y) || ry.size() != 1 || g.nodes()[ry[0]].op() != OpKind::kQuantizeLinear) {
    return fail("output not read by exactly one quantizeLinear");
  }
  m.q_output = ry[0];
  if (auto s = value_params(g, g.nodes()[ry[0]].outputs[0], &m.output); !s.ok) {
    return fail(s.reason);
  }
  if (m.filter_scales.size() == 1 && conv) {
    const int64_t oc =
        conv_filter_geometry(g.desc(w).shape, a.get_enum("filterLayout")).output_channels;
    m.filter_scales.assign(size_t(oc), m.filter_scales[0]);
  }
  // XNNPACK rejects a requantization scale (input * filter / output) of 256 or more.
  for (float s : m.filter_scales) {
    const double r = double(m.input.scale) * s / m.output.scale;
    if (!(r < 256.0)) return fail(fmt::format("requantization scale {} not below 256", r));
  }
  return m;
}

}  // namespace wnn::runtime::xnnpack
