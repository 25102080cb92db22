#include "wnn/core/dtype.h"

#include <algorithm>
#include <cctype>

namespace wnn {

namespace {
struct DataTypeNames {
  DataType type;
  std::string_view name;
  std::string_view short_name;
  size_t size;
};
constexpr std::array<DataTypeNames, kNumDataTypes> kNames = {{
    {DataType::kFloat32, "float32", "f32", 4},
    {DataType::kFloat16, "float16", "f16", 2},
    {DataType::kInt32, "int32", "i32", 4},
    {DataType::kUint32, "uint32", "u32", 4},
    {DataType::kInt64, "int64", "i64", 8},
    {DataType::kUint64, "uint64", "u64", 8},
    {DataType::kInt8, "int8", "i8", 1},
    {DataType::kUint8, "uint8", "u8", 1},
    {DataType::kInt4, "int4", "i4", 1},
    {DataType::kUint4, "uint4", "u4", 1},
}};
const DataTypeNames& names(DataType t) { return kNames[static_cast<size_t>(t)]; }
}  // namespace

std::string_view dtype_name(DataType t) { return names(t).name; }
std::string_view dtype_short_name(DataType t) { return names(t).short_name; }
size_t dtype_size(DataType t) { return names(t).size; }

std::optional<DataType> parse_dtype(std::string_view s) {
  for (const auto& n : kNames) {
    if (s == n.name || s == n.short_name) return n.type;
  }
  // Legacy spellings: capitalised ONNX-style names and C-ish aliases.
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& n : kNames) {
    if (lower == n.name) return n.type;
  }
  if (lower == "float") return DataType::kFloat32;
  if (lower == "half") return DataType::kFloat16;
  return std::nullopt;
}

bool is_float(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }
bool is_integer(DataType t) { return !is_float(t); }
bool is_signed(DataType t) {
  switch (t) {
    case DataType::kFloat32:
    case DataType::kFloat16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kInt8:
    case DataType::kInt4:
      return true;
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kUint8:
    case DataType::kUint4:
      return false;
  }
  return false;
}

std::string DataTypeSet::to_string() const {
  std::string out;
  for (DataType t : kAllDataTypes) {
    if (!contains(t)) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(t);
  }
  return out;
}

}  // namespace wnn
