#include "wnn/onnx/registry.h"

#include <algorithm>

#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx {

ValueSlot& ValueTable::slot(const std::string& name) {
  auto it = slots_.find(name);
  check(it != slots_.end(), "value '{}' is used before it is produced", name);
  return it->second;
}

OperandId ValueTable::operand(const std::string& name) {
  ValueSlot& s = slot(name);
  if (!s.operand) {
    check_internal(s.known.has_value(), "value '{}' has neither operand nor data", name);
    s.operand = b_.constant(names_.map(name), *s.known);
  }
  return *s.operand;
}

const std::string& ConvertContext::input_name(size_t i) const {
  check(has_input(i), "input {} of {} is required", i, node_.op_type);
  return node_.input[i];
}

OperandId ConvertContext::in(size_t i) { return values_.operand(input_name(i)); }

const Tensor* ConvertContext::known(size_t i) {
  if (!has_input(i)) return nullptr;
  ValueSlot& s = values_.slot(node_.input[i]);
  if (!s.known) return nullptr;
  // Initializers may view misaligned file bytes (tensor_data's keep_misaligned); a converter
  // reads them typed, so they are realigned here, once, only when a converter asks.
  s.known->data = aligned_copy_if_needed(s.known->data, s.known->dtype);
  return &*s.known;
}

OperandDesc ConvertContext::desc(size_t i) {
  ValueSlot& s = values_.slot(input_name(i));
  if (s.operand) return b().graph().desc(*s.operand);
  return {s.known->dtype, s.known->shape};
}

std::vector<int64_t> ConvertContext::known_ints(size_t i, std::string_view what) {
  const Tensor* t = known(i);
  if (!t) unsupported("{} (input {}) must be a constant; it is computed at run time", what, i);
  std::vector<int64_t> v(size_t(t->size()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = element_as_int64(t->view(), int64_t(k));
  return v;
}

std::vector<double> ConvertContext::known_floats(size_t i, std::string_view what) {
  const Tensor* t = known(i);
  if (!t) unsupported("{} (input {}) must be a constant; it is computed at run time", what, i);
  std::vector<double> v(size_t(t->size()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = element_as_double(t->view(), int64_t(k));
  return v;
}

namespace {
const AttributeProto* typed(const NodeProto& n, std::string_view name, AttributeProto::Type t) {
  const AttributeProto* a = n.find_attribute(name);
  if (!a) return nullptr;
  check(a->type == t || a->type == AttributeProto::Type::kUndefined,
        "attribute '{}' of {} has type {}, expected {}", name, n.op_type, int(a->type), int(t));
  return a;
}
}  // namespace

std::optional<int64_t> ConvertContext::attr_int(std::string_view name) const {
  const auto* a = typed(node_, name, AttributeProto::Type::kInt);
  return a ? std::optional<int64_t>(a->i) : std::nullopt;
}
std::optional<double> ConvertContext::attr_float(std::string_view name) const {
  const auto* a = typed(node_, name, AttributeProto::Type::kFloat);
  return a ? std::optional<double>(a->f) : std::nullopt;
}
std::optional<std::vector<int64_t>> ConvertContext::attr_ints(std::string_view name) const {
  const auto* a = typed(node_, name, AttributeProto::Type::kInts);
  return a ? std::optional(a->ints) : std::nullopt;
}
std::optional<std::vector<double>> ConvertContext::attr_floats(std::string_view name) const {
  const auto* a = typed(node_, name, AttributeProto::Type::kFloats);
  if (!a) return std::nullopt;
  return std::vector<double>(a->floats.begin(), a->floats.end());
}
std::optional<std::string> ConvertContext::attr_string(std::string_view name) const {
  const auto* a = typed(node_, name, AttributeProto::Type::kString);
  return a ? std::optional(a->s) : std::nullopt;
}

std::string ConvertContext::out_name(size_t i) {
  if (!wants_output(i)) return {};
  return values_.names().map(node_.output[i]);
}

void ConvertContext::set(size_t i, OperandId id) {
  if (wants_output(i)) values_.set_operand(node_.output[i], id);
}

void ConvertContext::set_known(size_t i, Tensor t) {
  if (wants_output(i)) values_.set_known(node_.output[i], std::move(t));
}

OperandId ConvertContext::constant(DataType dtype, std::vector<double> values, Shape shape) {
  return constant(make_tensor(dtype, std::move(shape), values));
}

OperandId ConvertContext::constant(const Tensor& t) {
  return b().constant(b().unique_name(node_.name.empty() ? "const" : "const_" + node_.op_type), t);
}

OperandId ConvertContext::reshape(OperandId x, const Shape& shape, std::string name) {
  return op(OpKind::kReshape, {x, RawValue(shape)}, {}, std::move(name));
}

std::string_view convert_kind_name(ConvertKind k) {
  switch (k) {
    case ConvertKind::kDirect:
      return "direct";
    case ConvertKind::kDecomposed:
      return "decomposed";
    case ConvertKind::kFolded:
      return "folded";
    case ConvertKind::kUnsupported:
      return "unsupported";
  }
  return "?";
}

std::string_view canonical_domain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

std::span<const Converter> all_converters() {
  static const std::vector<Converter> table = [] {
    std::vector<Converter> t;
    ops::register_elementwise(t);
    ops::register_activation(t);
    ops::register_conv(t);
    ops::register_pool(t);
    ops::register_normalization(t);
    ops::register_matmul(t);
    ops::register_shape(t);
    ops::register_movement(t);
    ops::register_reduce(t);
    ops::register_gather(t);
    ops::register_misc(t);
    ops::register_inexpressible(t);
    ops::register_loss(t);
    ops::register_onehot(t);
    ops::register_norm_extra(t);
    ops::register_contrib(t);
    ops::register_quantized_matmul(t);
    ops::register_attention(t);
    ops::register_recurrent(t);
    ops::register_resize(t);
    ops::register_signal(t);
    ops::register_grid_sample(t);
    ops::register_roi_align(t);
    ops::register_inverse_trig(t);
    ops::register_topk(t);
    ops::register_einsum(t);
    ops::register_quantized(t);
    ops::register_det(t);
    ops::register_bitwise(t);
    std::stable_sort(t.begin(), t.end(), [](const Converter& a, const Converter& b) {
      return std::tie(a.domain, a.op_type, a.since) < std::tie(b.domain, b.op_type, b.since);
    });
    return t;
  }();
  return table;
}

const Converter* find_converter(std::string_view domain, std::string_view op_type, int64_t opset) {
  domain = canonical_domain(domain);
  for (const Converter& c : all_converters()) {
    if (c.domain == domain && c.op_type == op_type && c.since <= opset && opset <= c.until) {
      return &c;
    }
  }
  return nullptr;
}

int64_t normalize_axis(int64_t axis, size_t rank, std::string_view what) {
  const int64_t r = int64_t(rank);
  if (axis < -r || axis >= std::max<int64_t>(r, 1)) {
    throw UnsupportedError(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  }
  return axis < 0 ? axis + r : axis;
}

int64_t normalize_dim_axis(int64_t axis, const Shape& shape, std::string_view what) {
  if (shape.empty()) {
    throw UnsupportedError(fmt::format("{} {} names no dim: the input is a scalar", what, axis));
  }
  return normalize_axis(axis, shape.size(), what);
}

Tensor make_tensor(DataType dtype, Shape shape, std::span<const double> values) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  check_internal(values.size() == size_t(t.size()) || values.size() == 1,
                 "make_tensor: {} values for {} elements", values.size(), t.size());
  for (int64_t i = 0; i < t.size(); ++i) {
    store_double(t.mutable_view(), i, values[values.size() == 1 ? 0 : size_t(i)]);
  }
  return t;
}

Tensor make_int64_tensor(Shape shape, std::span<const int64_t> values) {
  Tensor t = Tensor::zeros(DataType::kInt64, std::move(shape));
  check_internal(values.size() == size_t(t.size()), "make_int64_tensor: size mismatch");
  std::copy(values.begin(), values.end(), t.mutable_view().as<int64_t>());
  return t;
}

IntList iota(int64_t begin, int64_t end) {
  IntList v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

}  // namespace wnn::onnx
