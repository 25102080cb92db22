// A minimal protobuf encoder for tests: builds the byte sequences the reader is tested on, by
// the wire format's rules written out independently of the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace wnn::onnx::testing {

class ProtoWriter {
 public:
  ProtoWriter& raw(std::string_view b) {
    bytes_ += b;
    return *this;
  }
  ProtoWriter& varint(uint64_t v) {
    while (v >= 0x80) {
      bytes_ += char((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes_ += char(v);
    return *this;
  }
  ProtoWriter& tag(uint32_t field, int wire_type) {
    return varint((uint64_t(field) << 3) | uint64_t(wire_type));
  }
  ProtoWriter& int_field(uint32_t field, int64_t v) { return tag(field, 0).varint(uint64_t(v)); }
  ProtoWriter& fixed32_field(uint32_t field, uint32_t v) { return tag(field, 5).little(v, 4); }
  ProtoWriter& fixed64_field(uint32_t field, uint64_t v) { return tag(field, 1).little(v, 8); }
  ProtoWriter& float_field(uint32_t field, float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    return fixed32_field(field, v);
  }
  ProtoWriter& bytes_field(uint32_t field, std::string_view b) {
    return tag(field, 2).varint(b.size()).raw(b);
  }
  ProtoWriter& message(uint32_t field, const ProtoWriter& m) { return bytes_field(field, m.str()); }
  // A packed run of varints.
  ProtoWriter& packed_varints(uint32_t field, std::initializer_list<int64_t> values) {
    ProtoWriter run;
    for (int64_t v : values) run.varint(uint64_t(v));
    return bytes_field(field, run.str());
  }
  ProtoWriter& little(uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes_ += char((v >> (8 * i)) & 0xff);
    return *this;
  }

  const std::string& str() const { return bytes_; }
  std::span<const std::byte> span() const {
    return std::as_bytes(std::span(bytes_.data(), bytes_.size()));
  }

 private:
  std::string bytes_;
};

// A StringStringEntryProto.
inline ProtoWriter string_pair(std::string_view key, std::string_view value) {
  ProtoWriter p;
  p.bytes_field(1, key).bytes_field(2, value);
  return p;
}

}  // namespace wnn::onnx::testing
