#include "wnn/format/stored_tensors.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "wnn/core/derived_buffer.h"
#include "wnn/core/error.h"
#include "wnn/format/packed4.h"

namespace wnn::format {

namespace {

struct StoredDtypeInfo {
  StoredDtype dtype;
  std::string_view name;
  size_t size;
};
constexpr std::array<StoredDtypeInfo, 12> kStoredDtypes = {{
    {StoredDtype::kF32, "F32", 4},
    {StoredDtype::kF16, "F16", 2},
    {StoredDtype::kBF16, "BF16", 2},
    {StoredDtype::kI32, "I32", 4},
    {StoredDtype::kU32, "U32", 4},
    {StoredDtype::kI64, "I64", 8},
    {StoredDtype::kU64, "U64", 8},
    {StoredDtype::kI8, "I8", 1},
    {StoredDtype::kU8, "U8", 1},
    {StoredDtype::kBool, "BOOL", 1},
    {StoredDtype::kI4, "int4", 0},
    {StoredDtype::kU4, "uint4", 0},
}};

const StoredDtypeInfo& info(StoredDtype d) { return kStoredDtypes[size_t(d)]; }

}  // namespace

std::optional<StoredDtype> direct_stored_dtype(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return StoredDtype::kF32;
    case DataType::kFloat16:
      return StoredDtype::kF16;
    case DataType::kInt32:
      return StoredDtype::kI32;
    case DataType::kUint32:
      return StoredDtype::kU32;
    case DataType::kInt64:
      return StoredDtype::kI64;
    case DataType::kUint64:
      return StoredDtype::kU64;
    case DataType::kInt8:
      return StoredDtype::kI8;
    case DataType::kUint8:
      return StoredDtype::kU8;
    case DataType::kInt4:
    case DataType::kUint4:
      return std::nullopt;
  }
  return std::nullopt;
}

namespace {

Buffer widen_bf16(const Buffer& bytes, size_t elements) {
  Buffer out = Buffer::allocate(elements * sizeof(float));
  auto* dst = reinterpret_cast<float*>(out.mutable_data());
  const std::byte* src = bytes.data();
  for (size_t i = 0; i < elements; ++i) {
    uint16_t bits;
    std::memcpy(&bits, src + 2 * i, 2);  // the stored data may be unaligned
    const uint32_t wide = uint32_t(bits) << 16;
    std::memcpy(&dst[i], &wide, 4);
  }
  return out;
}

// 4-bit data unpacked once per process while any graph holds it: every graph over one weights
// file (a decoder's phases) shares the unpacked copy.
Buffer unpacked4(const Buffer& packed, size_t elements, bool is_signed) {
  return derived_buffer(packed, unpacked4_kind(is_signed, elements),
                        [&] { return unpack4(packed.bytes(), elements, is_signed); });
}

Buffer load_packed4(const StoredEntry& entry, const OperandDesc& desc, const Packed4Marker& marker,
                    const std::string& what) {
  const StoredTensor& t = entry.tensor;
  const size_t elements = size_t(element_count(desc.shape));
  const bool is_signed = desc.dtype == DataType::kInt4;
  if (entry.dtype == StoredDtype::kI4 || entry.dtype == StoredDtype::kU4) {
    // Legacy `.weights`: the manifest names the 4-bit type and the logical shape.
    const DataType stored = entry.dtype == StoredDtype::kI4 ? DataType::kInt4 : DataType::kUint4;
    check(stored == desc.dtype, "{}: stored as {}, the graph declares {}", what, dtype_name(stored),
          desc.to_string());
    check(t.shape == desc.shape, "{}: stored shape {} differs from the declared {}", what,
          shape_to_string(t.shape), desc.to_string());
    check(t.bytes.size() == packed4_size(elements), "{}: {} bytes, packed {} needs {} bytes", what,
          t.bytes.size(), desc.to_string(), packed4_size(elements));
    return unpacked4(t.bytes, elements, is_signed);
  }
  check(entry.dtype == StoredDtype::kU8,
        "{}: the graph declares {}, which must be stored packed as U8, but the file stores {}",
        what, desc.to_string(), t.file_dtype);
  check(marker.has_value(),
        "{}: U8 tensor declared {} but the file has no \"{}\": \"{}\" metadata marker for "
        "packed 4-bit data",
        what, desc.to_string(), kPacked4MetadataKey, kPacked4Version);
  check(*marker == kPacked4Version,
        "{}: unknown packed 4-bit marker version \"{}\" (metadata \"{}\"); wnn reads version {}",
        what, *marker, kPacked4MetadataKey, kPacked4Version);
  const Shape packed_shape = {int64_t(packed4_size(elements))};
  check(t.shape == packed_shape,
        "{}: packed {} must be stored with shape {}, the file has {} ({} bytes)", what,
        desc.to_string(), shape_to_string(packed_shape), shape_to_string(t.shape), t.bytes.size());
  return unpacked4(t.bytes, elements, is_signed);
}

}  // namespace

std::optional<StoredDtype> parse_safetensors_dtype(std::string_view s) {
  for (const auto& d : kStoredDtypes) {
    if (d.size != 0 && d.name == s) return d.dtype;
  }
  return std::nullopt;
}

std::string_view safetensors_dtype_name(StoredDtype d) { return info(d).name; }
size_t stored_dtype_size(StoredDtype d) { return info(d).size; }

std::string rustnn_rewrite_key(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == ':' && i + 1 < key.size() && key[i + 1] == ':') {
      out += "__";
      ++i;
    } else {
      out += key[i] == '.' ? '_' : key[i];
    }
  }
  return out;
}

void TensorIndex::add(StoredEntry entry, const std::string& path) {
  const size_t index = entries_.size();
  const auto [it, inserted] = exact_.emplace(entry.tensor.key, index);
  check(inserted, "{}: tensor '{}' is declared twice", path, entry.tensor.key);
  rewritten_[rustnn_rewrite_key(entry.tensor.key)].push_back(index);
  entries_.push_back(std::move(entry));
}

const StoredEntry* TensorIndex::find(const std::string& key, const std::string& path) const {
  if (auto it = exact_.find(key); it != exact_.end()) return &entries_[it->second];
  const std::string rewritten = rustnn_rewrite_key(key);
  auto it = rewritten_.find(rewritten);
  if (it == rewritten_.end()) return nullptr;
  const std::vector<size_t>& matches = it->second;
  if (matches.size() > 1) {  // not check(): its arguments would index matches[1] eagerly
    fail("{}: weights key '{}' is ambiguous: stored keys '{}' and '{}' both rewrite to '{}'", path,
         key, entries_[matches[0]].tensor.key, entries_[matches[1]].tensor.key, rewritten);
  }
  return &entries_[matches[0]];
}

std::vector<const StoredTensor*> TensorIndex::tensors() const {
  std::vector<const StoredTensor*> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(&e.tensor);
  return out;
}

Buffer load_stored(const StoredEntry& entry, const OperandDesc& desc, const Packed4Marker& marker,
                   const std::string& path) {
  const StoredTensor& t = entry.tensor;
  const std::string what = fmt::format("{}: weights '{}'", path, t.key);
  if (desc.dtype == DataType::kInt4 || desc.dtype == DataType::kUint4) {
    return load_packed4(entry, desc, marker, what);
  }
  const StoredDtype direct = *direct_stored_dtype(desc.dtype);
  const bool widen = entry.dtype == StoredDtype::kBF16 && desc.dtype == DataType::kFloat32;
  const bool bool_as_u8 = entry.dtype == StoredDtype::kBool && desc.dtype == DataType::kUint8;
  check(entry.dtype == direct || widen || bool_as_u8,
        "{}: stored as {} {}, the graph declares {} (expected {}{})", what, t.file_dtype,
        shape_to_string(t.shape), desc.to_string(), safetensors_dtype_name(direct),
        desc.dtype == DataType::kFloat32 ? " or BF16" : "");
  check(t.shape == desc.shape,
        "{}: stored shape {} differs from the declared {} (shapes must match exactly)", what,
        shape_to_string(t.shape), desc.to_string());
  const size_t elements = size_t(element_count(desc.shape));
  const size_t stored_size = stored_dtype_size(entry.dtype);
  check(t.bytes.size() == elements * stored_size, "{}: {} bytes, {} needs {}", what, t.bytes.size(),
        desc.to_string(), elements * stored_size);
  if (widen) return widen_bf16(t.bytes, elements);
  // Safetensors data may start at any offset; kernels need naturally aligned elements.
  if (reinterpret_cast<uintptr_t>(t.bytes.data()) % stored_size != 0) {
    return Buffer::copy_of(t.bytes.bytes());
  }
  return t.bytes;
}

}  // namespace wnn::format
