// Constant nodes (their tensors become known values, stored as weights only when a graph
// operation reads them) and QuantizeLinear/DequantizeLinear, which are never folded.
#include "wnn/onnx/registry.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void constant(ConvertContext& c) {
  const NodeProto& n = c.node();
  check(n.attribute.size() == 1, "Constant has {} attributes, expected one", n.attribute.size());
  const AttributeProto& a = n.attribute[0];
  if (a.name == "value") {
    check(a.t.has_value(), "Constant 'value' is not a tensor");
    if (a.t->data_type == int32_t(OnnxType::kString)) c.unsupported("string constants");
    TensorData d = tensor_data(*a.t, ExternalDataResolver());
    return c.set_known(0, Tensor{d.dtype, d.shape, d.data});
  }
  if (a.name == "value_float")
    return c.set_known(0, make_tensor(DataType::kFloat32, {}, std::vector<double>{a.f}));
  if (a.name == "value_int") {
    return c.set_known(0, make_int64_tensor({}, std::vector<int64_t>{a.i}));
  }
  if (a.name == "value_floats") {
    std::vector<double> v(a.floats.begin(), a.floats.end());
    return c.set_known(0, make_tensor(DataType::kFloat32, {int64_t(v.size())}, v));
  }
  if (a.name == "value_ints") {
    return c.set_known(0, make_int64_tensor({int64_t(a.ints.size())}, a.ints));
  }
  c.unsupported("Constant '{}' (strings and sparse tensors have no WebNN form)", a.name);
}

// Scale and zero point broadcast against the input: per-tensor (scalar), per-axis (1-D along
// `axis`, reshaped so it lines up) or blocked (same rank as the input; WebNN repeats blocks).
OperandId align_param(ConvertContext& c, OperandId p, const Shape& x, int64_t axis) {
  const Shape ps = c.b().graph().desc(p).shape;
  if (ps.size() != 1 || x.size() <= 1) return p;
  Shape s(x.size(), 1);
  s[size_t(axis)] = ps[0];
  return c.reshape(p, s);
}

void quantize(ConvertContext& c, bool dequantize) {
  const Shape x = c.shape(0);
  // The axis matters only for a per-axis (1-D) scale; per-tensor ignores it.
  const bool per_axis = c.shape(1).size() == 1 && x.size() > 1;
  const int64_t axis = per_axis ? normalize_axis(c.attr_int("axis", 1), x.size(), "axis") : 0;
  if (c.attr_int("saturate", 1) != 1) c.unsupported("saturate=0 (float8 only)");
  OperandId scale = align_param(c, c.in(1), x, axis);
  OperandId zp;
  if (c.has_input(2)) {
    zp = align_param(c, c.in(2), x, axis);
  } else {
    // The default zero point is 0 of uint8 (or of output_dtype where given).
    DataType zdt = DataType::kUint8;
    if (dequantize) zdt = c.dtype(0);
    if (auto od = c.attr_int("output_dtype"); od && *od != 0) {
      auto d = wnn_dtype_for(int32_t(*od));
      if (!d) c.unsupported("output_dtype {}", onnx_type_name(int32_t(*od)));
      zdt = *d;
    }
    zp = c.op(K::kExpand, {c.constant(zdt, {0.0}), RawValue(c.b().graph().desc(scale).shape)});
  }
  c.set(0, c.op(dequantize ? K::kDequantizeLinear : K::kQuantizeLinear, {c.in(0), scale, zp}, {},
                c.out_name(0)));
}

}  // namespace

void register_misc(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect;
  t.push_back({"", "Constant", 1, kMaxOpset, constant, ConvertKind::kFolded, false});
  t.push_back({"", "QuantizeLinear", 10, kMaxOpset, [](ConvertContext& c) { quantize(c, false); },
               D, false});
  t.push_back({"", "DequantizeLinear", 10, kMaxOpset, [](ConvertContext& c) { quantize(c, true); },
               D, false});
}

}  // namespace wnn::onnx::ops
