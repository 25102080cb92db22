#include "wnn/onnx/tensor_data.h"

#include <bit>
#include <cstring>
#include <limits>

#include "wnn/core/error.h"
#include "wnn/core/half.h"

namespace wnn::onnx {
namespace {

using T = OnnxType;

std::string describe(const TensorProto& t) {
  return fmt::format("tensor '{}' ({})", t.name, onnx_type_name(t.data_type));
}

// Element i of a little-endian array of Src in `bytes`, read without alignment assumptions.
template <typename Src>
Src load(std::span<const std::byte> bytes, int64_t i) {
  Src v;
  std::memcpy(&v, bytes.data() + size_t(i) * sizeof(Src), sizeof(Src));
  return v;
}

// A fresh buffer of n elements of Dst, element i computed by fn(i).
template <typename Dst, typename Fn>
Buffer generate(int64_t n, Fn fn) {
  Buffer b = Buffer::allocate(size_t(n) * sizeof(Dst));
  auto* out = reinterpret_cast<Dst*>(b.mutable_data());
  for (int64_t i = 0; i < n; ++i) out[i] = fn(i);
  return b;
}

float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

// 4-bit elements, two per byte, the first in the low nibble; signed values sign-extend.
Buffer unpack_4bit(int64_t n, bool is_signed, auto byte_at) {
  return generate<uint8_t>(n, [&](int64_t i) {
    const uint8_t byte = byte_at(i / 2);
    const uint8_t nibble = (i % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
    return is_signed ? uint8_t(int8_t(uint8_t(nibble << 4)) >> 4) : nibble;
  });
}

// The raw bytes as they are when already in wnn's form and aligned for the element type.
Buffer as_is(const Buffer& raw, size_t align, TensorData& out) {
  const bool aligned = reinterpret_cast<uintptr_t>(raw.data()) % align == 0;
  if (aligned || out.misaligned) {  // misaligned is preset when the caller keeps such views
    out.zero_copy = true;
    out.misaligned = !aligned;
    return raw;
  }
  return Buffer::copy_of(raw.bytes());  // a misaligned view would break typed kernels
}

Buffer from_raw(const TensorProto& t, const Buffer& raw, int64_t n, TensorData& out) {
  const auto bytes = raw.bytes();
  switch (T(t.data_type)) {
    case T::kFloat:
    case T::kInt32:
    case T::kUint32:
      return as_is(raw, 4, out);
    case T::kInt64:
    case T::kUint64:
      return as_is(raw, 8, out);
    case T::kFloat16:
      return as_is(raw, 2, out);
    case T::kInt8:
    case T::kUint8:
      return as_is(raw, 1, out);
    case T::kBool: {
      // WebNN holds booleans as uint8 0/1; other nonzero bytes are normalised in a copy.
      for (int64_t i = 0; i < n; ++i) {
        if (uint8_t(bytes[size_t(i)]) > 1) {
          return generate<uint8_t>(
              n, [&](int64_t j) { return uint8_t(bytes[size_t(j)] != std::byte{0}); });
        }
      }
      return as_is(raw, 1, out);
    }
    case T::kDouble:
      return generate<float>(n, [&](int64_t i) { return float(load<double>(bytes, i)); });
    case T::kBfloat16:
      return generate<float>(
          n, [&](int64_t i) { return bfloat16_to_float(load<uint16_t>(bytes, i)); });
    case T::kInt4:
    case T::kUint4:
      return unpack_4bit(n, T(t.data_type) == T::kInt4,
                         [&](int64_t j) { return uint8_t(bytes[size_t(j)]); });
    default:
      break;
  }
  check_internal(false, "{}: no raw form", describe(t));
  return {};
}

template <typename V>
void check_count(const TensorProto& t, const char* field, const std::vector<V>& values,
                 int64_t expected) {
  check(values.size() == uint64_t(expected), "{}: {} has {} values but dims {} need {}",
        describe(t), field, values.size(), shape_to_string(t.dims), expected);
}

// One int32_data entry as the narrower type it carries, range-checked.
uint32_t narrow_int32(const TensorProto& t, int32_t v, int64_t lo, int64_t hi, int64_t i) {
  check(v >= lo && v <= hi, "{}: int32_data[{}] = {} is outside [{}, {}]", describe(t), i, v, lo,
        hi);
  return uint32_t(v);
}

Buffer from_typed(const TensorProto& t, int64_t n) {
  const auto& i32 = t.int32_data;
  const auto copy = [](const auto& values) {
    return Buffer::copy_of(std::as_bytes(std::span(values)));
  };
  switch (T(t.data_type)) {
    case T::kFloat:
      check_count(t, "float_data", t.float_data, n);
      return copy(t.float_data);
    case T::kInt32:
      check_count(t, "int32_data", i32, n);
      return copy(i32);
    case T::kInt64:
      check_count(t, "int64_data", t.int64_data, n);
      return copy(t.int64_data);
    case T::kUint64:
      check_count(t, "uint64_data", t.uint64_data, n);
      return copy(t.uint64_data);
    case T::kUint32:
      check_count(t, "uint64_data", t.uint64_data, n);
      return generate<uint32_t>(n, [&](int64_t i) {
        const uint64_t v = t.uint64_data[size_t(i)];
        check(v <= std::numeric_limits<uint32_t>::max(), "{}: uint64_data[{}] = {} exceeds uint32",
              describe(t), i, v);
        return uint32_t(v);
      });
    case T::kDouble:
      check_count(t, "double_data", t.double_data, n);
      return generate<float>(n, [&](int64_t i) { return float(t.double_data[size_t(i)]); });
    case T::kInt8:
      check_count(t, "int32_data", i32, n);
      return generate<uint8_t>(
          n, [&](int64_t i) { return uint8_t(narrow_int32(t, i32[size_t(i)], -128, 127, i)); });
    case T::kUint8:
      check_count(t, "int32_data", i32, n);
      return generate<uint8_t>(
          n, [&](int64_t i) { return uint8_t(narrow_int32(t, i32[size_t(i)], 0, 255, i)); });
    case T::kBool:
      check_count(t, "int32_data", i32, n);
      return generate<uint8_t>(n, [&](int64_t i) { return uint8_t(i32[size_t(i)] != 0); });
    case T::kFloat16:
      // float16 bit patterns travel as uint16 in int32_data; accept a sign-extended int16 too.
      check_count(t, "int32_data", i32, n);
      return generate<uint16_t>(n, [&](int64_t i) {
        return uint16_t(narrow_int32(t, i32[size_t(i)], -32768, 65535, i));
      });
    case T::kBfloat16:
      check_count(t, "int32_data", i32, n);
      return generate<float>(n, [&](int64_t i) {
        return bfloat16_to_float(uint16_t(narrow_int32(t, i32[size_t(i)], -32768, 65535, i)));
      });
    case T::kInt4:
    case T::kUint4:
      // Each int32_data entry carries one byte: two packed 4-bit elements.
      check_count(t, "int32_data", i32, (n + 1) / 2);
      return unpack_4bit(n, T(t.data_type) == T::kInt4, [&](int64_t j) {
        return uint8_t(narrow_int32(t, i32[size_t(j)], -128, 255, j));
      });
    default:
      break;
  }
  check_internal(false, "{}: no typed form", describe(t));
  return {};
}

}  // namespace

std::optional<DataType> wnn_dtype_for(int32_t onnx_type) {
  switch (T(onnx_type)) {
    case T::kFloat:
    case T::kDouble:
    case T::kBfloat16:
      return DataType::kFloat32;
    case T::kFloat16:
      return DataType::kFloat16;
    case T::kInt32:
      return DataType::kInt32;
    case T::kUint32:
      return DataType::kUint32;
    case T::kInt64:
      return DataType::kInt64;
    case T::kUint64:
      return DataType::kUint64;
    case T::kInt8:
      return DataType::kInt8;
    case T::kUint8:
    case T::kBool:
      return DataType::kUint8;
    case T::kInt4:
      return DataType::kInt4;
    case T::kUint4:
      return DataType::kUint4;
    default:
      return std::nullopt;
  }
}

uint64_t raw_byte_size(int32_t onnx_type, int64_t elements) {
  check(elements >= 0, "negative element count {}", elements);
  const auto n = uint64_t(elements);  // at most kMaxElements (2^48): products cannot overflow
  switch (T(onnx_type)) {
    case T::kInt4:
    case T::kUint4:
      return (n + 1) / 2;
    case T::kUint8:
    case T::kInt8:
    case T::kBool:
      return n;
    case T::kFloat16:
    case T::kBfloat16:
      return n * 2;
    case T::kFloat:
    case T::kInt32:
    case T::kUint32:
      return n * 4;
    case T::kInt64:
    case T::kUint64:
    case T::kDouble:
      return n * 8;
    default:
      fail("data type {} has no raw form in wnn", onnx_type_name(onnx_type));
  }
}

Buffer aligned_copy_if_needed(const Buffer& data, DataType dtype) {
  if (reinterpret_cast<uintptr_t>(data.data()) % dtype_size(dtype) == 0) return data;
  return Buffer::copy_of(data.bytes());
}

TensorData tensor_data(const TensorProto& t, const ExternalDataResolver& external,
                       bool keep_misaligned) {
  TensorData out;
  out.misaligned = keep_misaligned;  // as_is reads it as "may keep", then sets the truth
  const auto dtype = wnn_dtype_for(t.data_type);
  check(dtype.has_value(), "{}: data type {} is not supported by WebNN", describe(t),
        onnx_type_name(t.data_type));
  check(!t.has_segment, "{}: segmented (chunked) tensors are not supported", describe(t));
  out.dtype = *dtype;
  out.shape.assign(t.dims.begin(), t.dims.end());
  // Rank is not limited here: the importer rejects ranks above kMaxRank where it knows why.
  const int64_t n = with_error_context(describe(t), [&] { return element_count(out.shape); });
  if (T(t.data_type) == T::kDouble) out.conversion = "DOUBLE narrowed to float32";
  if (T(t.data_type) == T::kBfloat16) out.conversion = "BFLOAT16 widened to float32";

  const uint64_t raw_size = raw_byte_size(t.data_type, n);
  if (t.is_external()) {
    const Buffer raw = with_error_context(describe(t), [&] { return external.read(t, raw_size); });
    out.data = from_raw(t, raw, n, out);
  } else if (t.raw_data) {
    check(t.raw_data->size() == raw_size, "{}: raw_data has {} bytes but dims {} need {}",
          describe(t), t.raw_data->size(), shape_to_string(t.dims), raw_size);
    out.data = from_raw(t, *t.raw_data, n, out);
  } else if (n == 0) {
    out.data = Buffer::allocate(0);
  } else {
    out.data = from_typed(t, n);
  }
  if (!out.zero_copy) out.misaligned = false;
  check_internal(out.data.size() == size_t(n) * dtype_size(out.dtype),
                 "{}: decoded {} bytes for {} elements", describe(t), out.data.size(), n);
  return out;
}

}  // namespace wnn::onnx
