#include "wnn/core/graph.h"

#include <cstring>

#include "wnn/core/error.h"

namespace wnn {

bool InputInfo::is_dynamic() const {
  for (const auto& d : dynamic_dims) {
    if (d) return true;
  }
  return false;
}

std::optional<OperandId> Graph::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

bool Graph::is_output(OperandId id) const {
  for (OperandId o : outputs_) {
    if (o == id) return true;
  }
  return false;
}

const ConstantInfo* Graph::constant_of(OperandId id) const {
  const Operand& op = operand(id);
  if (op.kind != OperandKind::kConstant) return nullptr;
  return &constants_[op.decl_index];
}

bool Graph::has_dynamic_inputs() const {
  for (const auto& in : inputs_) {
    if (in.is_dynamic()) return true;
  }
  return false;
}

void Graph::bind_constant(size_t constant_index, Buffer data) {
  ConstantInfo& c = constants_.at(constant_index);
  const OperandDesc& d = desc(c.id);
  const size_t expected = d.byte_size();
  check(data.size() == expected, "constant '{}' ({}) needs {} bytes, got {}", name_of(c.id),
        d.to_string(), expected, data.size());
  c.data = std::move(data);
}

void Graph::bind_inline_constants() {
  for (size_t i = 0; i < constants_.size(); ++i) {
    const ConstantInfo& c = constants_[i];
    if (c.init == ConstantInitKind::kWeights) continue;
    with_error_context(fmt::format("constant '{}'", name_of(c.id)),
                       [&] { bind_constant(i, materialize_inline_constant(c, desc(c.id))); });
  }
}

Buffer materialize_inline_constant(const ConstantInfo& c, const OperandDesc& desc) {
  const int64_t n = element_count(desc.shape);
  if (c.init == ConstantInitKind::kScalar) {
    const uint64_t bytes = uint64_t(n) * dtype_size(desc.dtype);
    check(bytes <= kMaxScalarFillBytes,
          "@scalar constant {} would fill {} bytes, above the limit of {} bytes for inline "
          "constants (store it as weights instead)",
          desc.to_string(), bytes, kMaxScalarFillBytes);
    Tensor t = Tensor::zeros(desc.dtype, desc.shape);
    const TensorView v = t.mutable_view();
    const double value = std::holds_alternative<int64_t>(c.scalar)
                             ? double(std::get<int64_t>(c.scalar))
                             : std::get<double>(c.scalar);
    if (std::holds_alternative<int64_t>(c.scalar) &&
        (desc.dtype == DataType::kInt64 || desc.dtype == DataType::kUint64)) {
      const int64_t iv = std::get<int64_t>(c.scalar);  // exact for 64-bit integers
      for (int64_t i = 0; i < n; ++i) std::memcpy(v.data + i * 8, &iv, 8);
    } else {
      for (int64_t i = 0; i < n; ++i) store_double(v, i, value);
    }
    return t.data;
  }
  check_internal(c.init == ConstantInitKind::kBytes, "constant is not inline");
  // Inline bytes are the packed storage form: int4/uint4 hold two elements per byte.
  if (desc.dtype == DataType::kInt4 || desc.dtype == DataType::kUint4) {
    check(c.bytes.size() == size_t((n + 1) / 2), "@bytes of a {} constant needs {} bytes, got {}",
          desc.to_string(), (n + 1) / 2, c.bytes.size());
    Buffer b = Buffer::allocate(size_t(n));
    auto* out = reinterpret_cast<uint8_t*>(b.mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      uint8_t nib = (c.bytes[size_t(i / 2)] >> ((i % 2) * 4)) & 0xf;
      out[i] = (desc.dtype == DataType::kInt4 && nib >= 8) ? uint8_t(nib | 0xf0) : nib;
    }
    return b;
  }
  const size_t expected = size_t(n) * dtype_size(desc.dtype);
  check(c.bytes.size() == expected, "@bytes of a {} constant needs {} bytes, got {}",
        desc.to_string(), expected, c.bytes.size());
  return Buffer::copy_of(std::as_bytes(std::span(c.bytes)));
}

}  // namespace wnn
