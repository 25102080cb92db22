// The WebNN operand data types, their names in every spelling wnn reads, and their sizes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wnn {

enum class DataType : uint8_t {
  kFloat32,
  kFloat16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kInt8,
  kUint8,
  kInt4,
  kUint4,
};
inline constexpr int kNumDataTypes = 10;
inline constexpr std::array<DataType, kNumDataTypes> kAllDataTypes = {
    DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32, DataType::kInt64,
    DataType::kUint64,  DataType::kInt8,    DataType::kUint8, DataType::kInt4,   DataType::kUint4};

// "float32", the WebNN MLOperandDataType spelling.
std::string_view dtype_name(DataType t);
// "f32", the .webnn text spelling.
std::string_view dtype_short_name(DataType t);
// Accepts the WebNN name ("float32"), the short name ("f32") and the legacy spellings other
// tools write ("Float32", "float", "int"). Returns nullopt for anything else.
std::optional<DataType> parse_dtype(std::string_view s);

// Bytes per element in memory. int4 and uint4 are held unpacked, one byte per element.
size_t dtype_size(DataType t);
bool is_float(DataType t);
bool is_signed(DataType t);  // float types and the signed integers
bool is_integer(DataType t);

// A set of data types, for the operator table's dtype constraints.
class DataTypeSet {
 public:
  constexpr DataTypeSet() = default;
  constexpr DataTypeSet(std::initializer_list<DataType> types) {
    for (DataType t : types) bits_ |= bit(t);
  }
  constexpr bool contains(DataType t) const { return (bits_ & bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DataTypeSet operator|(DataTypeSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr bool operator==(const DataTypeSet&) const = default;
  std::string to_string() const;  // "float32, float16"

 private:
  static constexpr uint16_t bit(DataType t) { return uint16_t(1u << static_cast<int>(t)); }
  static constexpr DataTypeSet from_bits(uint16_t b) {
    DataTypeSet s;
    s.bits_ = b;
    return s;
  }
  uint16_t bits_ = 0;
};

namespace dtypes {
inline constexpr DataTypeSet kFloat = {DataType::kFloat32, DataType::kFloat16};
inline constexpr DataTypeSet kSignedNumeric = {DataType::kFloat32, DataType::kFloat16,
                                               DataType::kInt32, DataType::kInt64, DataType::kInt8};
inline constexpr DataTypeSet kAll = {
    DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32, DataType::kInt64,
    DataType::kUint64,  DataType::kInt8,    DataType::kUint8, DataType::kInt4,   DataType::kUint4};
inline constexpr DataTypeSet kNoInt4 = {DataType::kFloat32, DataType::kFloat16, DataType::kInt32,
                                        DataType::kUint32,  DataType::kInt64,   DataType::kUint64,
                                        DataType::kInt8,    DataType::kUint8};
inline constexpr DataTypeSet kFloatAndInt32_64 = {DataType::kFloat32, DataType::kFloat16,
                                                  DataType::kInt32,   DataType::kUint32,
                                                  DataType::kInt64,   DataType::kUint64};
inline constexpr DataTypeSet kIndices = {DataType::kInt32, DataType::kUint32, DataType::kInt64};
inline constexpr DataTypeSet kUint8 = {DataType::kUint8};
inline constexpr DataTypeSet kQuantized = {DataType::kInt4, DataType::kUint4, DataType::kInt8,
                                           DataType::kUint8, DataType::kInt32};
}  // namespace dtypes

}  // namespace wnn
