// A bounded reader for the protobuf wire format, over bytes that stay where they are (usually a
// memory-mapped .onnx file). It never reads past its span, keeps 64-bit sizes so messages over
// 2 GB work, and names the field path ("graph.initializer[3].dims") in every error. WireWriter
// is the small writing half, for edits of an existing message (extra graph outputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wnn::onnx {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// One step of the path from the outermost message to a field: a linked list on the stack,
// turned into text only when an error is thrown.
struct FieldPath {
  const FieldPath* parent = nullptr;
  std::string_view name;  // empty for the outermost message
  int64_t index = -1;     // the element of a repeated field, or -1

  std::string to_string() const;  // "graph.initializer[3]"
};

// Reads the fields of one message in order:
//   while (r.next()) switch (r.field_number()) { case 1: x = r.read_int64("x"); ... default:
//   r.skip(); }
// Each read_* names its field for errors and checks the wire type.
class WireReader {
 public:
  // `path` must outlive the reader and every reader made from it by message().
  WireReader(std::span<const std::byte> bytes, FieldPath path);

  // Reads the next tag. Returns false at the end of the message.
  bool next();
  uint32_t field_number() const { return field_number_; }
  WireType wire_type() const { return wire_type_; }

  // Skips the current field's value, whatever its wire type (groups included).
  void skip();

  // Scalars. Integer fields use the varint wire type; int32 truncates as protobuf does.
  uint64_t read_uint64(std::string_view name);
  int64_t read_int64(std::string_view name);
  int32_t read_int32(std::string_view name);
  float read_float(std::string_view name);
  double read_double(std::string_view name);
  // The bytes of a length-delimited field, viewed in place.
  std::span<const std::byte> read_bytes(std::string_view name);
  std::string read_string(std::string_view name);
  // A reader over an embedded message; `index` is its position in a repeated field or -1.
  // The returned reader refers to this one's path, so this reader must outlive it.
  WireReader message(std::string_view name, int64_t index = -1);

  // Appends one occurrence of a repeated scalar field, packed (one length-delimited run) or
  // unpacked (one value). Throws when `out` would exceed `max_count` elements.
  void append_int64s(std::string_view name, std::vector<int64_t>& out, size_t max_count);
  void append_uint64s(std::string_view name, std::vector<uint64_t>& out, size_t max_count);
  void append_int32s(std::string_view name, std::vector<int32_t>& out, size_t max_count);
  void append_floats(std::string_view name, std::vector<float>& out, size_t max_count);
  void append_doubles(std::string_view name, std::vector<double>& out, size_t max_count);

  // Throws a wnn::Error "path.name: message".
  [[noreturn]] void fail_field(std::string_view name, std::string_view message) const;
  const FieldPath& path() const { return path_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  // Where the next read starts, in the bytes the reader views (for edits in place).
  const std::byte* cursor() const { return bytes_.data() + pos_; }

 private:
  uint64_t varint(std::string_view name);
  uint64_t fixed(std::string_view name, size_t width);
  void expect(WireType type, std::string_view name) const;
  void skip_value(WireType type, uint32_t number, int group_depth);
  std::span<const std::byte> take(std::string_view name, uint64_t length);
  template <typename T, typename ReadOne>
  void append_repeated(std::string_view name, std::vector<T>& out, size_t max_count,
                       WireType unpacked_type, size_t fixed_width, ReadOne read_one);

  std::span<const std::byte> bytes_;
  size_t pos_ = 0;
  FieldPath path_;
  uint32_t field_number_ = 0;
  WireType wire_type_ = WireType::kVarint;
};

// Appends wire-format fields to a byte string. Writes only what edits need: tags, varints and
// length-delimited fields, plus bytes copied through unchanged.
class WireWriter {
 public:
  void tag(uint32_t field_number, WireType type);
  void varint(uint64_t value);
  void length_delimited(uint32_t field_number, std::span<const std::byte> bytes);
  void length_delimited(uint32_t field_number, std::string_view bytes);
  void raw(std::span<const std::byte> bytes);
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace wnn::onnx
