#include "wnn/onnx/wire.h"

#include <bit>
#include <cstring>

#include "wnn/core/error.h"

namespace wnn::onnx {

static_assert(std::endian::native == std::endian::little,
              "the wire reader copies fixed-width little-endian values directly");

namespace {

// Groups are a deprecated proto2 feature no ONNX writer emits; skipping them is still bounded so
// a hostile file cannot recurse without limit.
constexpr int kMaxGroupDepth = 32;
constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;

void append_path(const FieldPath* p, std::string& out) {
  if (p == nullptr) return;
  append_path(p->parent, out);
  if (p->name.empty()) return;
  if (!out.empty()) out += '.';
  out += p->name;
  if (p->index >= 0) out += fmt::format("[{}]", p->index);
}

}  // namespace

std::string FieldPath::to_string() const {
  std::string out;
  append_path(this, out);
  return out;
}

WireReader::WireReader(std::span<const std::byte> bytes, FieldPath path)
    : bytes_(bytes), path_(path) {}

void WireReader::fail_field(std::string_view name, std::string_view message) const {
  std::string where = path_.to_string();
  if (!name.empty()) {
    if (!where.empty()) where += '.';
    where += name;
  }
  if (where.empty()) where = "message";
  fail("{}: {}", where, message);
}

uint64_t WireReader::varint(std::string_view name) {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= bytes_.size()) fail_field(name, "truncated varint");
    const auto b = uint8_t(bytes_[pos_++]);
    if (i == 9 && (b & 0x7f) > 1) fail_field(name, "varint overflows 64 bits");
    value |= uint64_t(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  fail_field(name, "varint longer than 10 bytes");
}

uint64_t WireReader::fixed(std::string_view name, size_t width) {
  if (remaining() < width) {
    fail_field(name,
               fmt::format("truncated fixed{} value ({} bytes left)", width * 8, remaining()));
  }
  uint64_t value = 0;
  std::memcpy(&value, bytes_.data() + pos_, width);
  pos_ += width;
  return value;
}

std::span<const std::byte> WireReader::take(std::string_view name, uint64_t length) {
  if (length > remaining()) {
    fail_field(name, fmt::format("length {} exceeds the {} remaining bytes", length, remaining()));
  }
  const auto out = bytes_.subspan(pos_, size_t(length));
  pos_ += size_t(length);
  return out;
}

bool WireReader::next() {
  if (pos_ >= bytes_.size()) return false;
  const uint64_t tag = varint("<tag>");
  const uint64_t number = tag >> 3;
  const auto type = uint8_t(tag & 7);
  if (number == 0 || number > kMaxFieldNumber) {
    fail_field("", fmt::format("invalid field number {} at byte {}", number, pos_));
  }
  if (type > 5) {
    fail_field("", fmt::format("invalid wire type {} for field {}", type, number));
  }
  if (WireType(type) == WireType::kEndGroup) {
    fail_field("", fmt::format("end-group tag for field {} without a start-group", number));
  }
  field_number_ = uint32_t(number);
  wire_type_ = WireType(type);
  return true;
}

void WireReader::skip() { skip_value(wire_type_, field_number_, 0); }

void WireReader::skip_value(WireType type, uint32_t number, int group_depth) {
  const std::string name = fmt::format("<field {}>", number);
  switch (type) {
    case WireType::kVarint:
      varint(name);
      return;
    case WireType::kFixed64:
      fixed(name, 8);
      return;
    case WireType::kFixed32:
      fixed(name, 4);
      return;
    case WireType::kLengthDelimited:
      take(name, varint(name));
      return;
    case WireType::kEndGroup:
      fail_field(name, "unexpected end-group tag");
    case WireType::kStartGroup:
      break;
  }
  if (group_depth >= kMaxGroupDepth) fail_field(name, "groups nested too deeply");
  for (;;) {
    if (pos_ >= bytes_.size()) fail_field(name, "group has no end-group tag");
    const uint64_t tag = varint(name);
    const uint64_t inner = tag >> 3;
    const auto inner_type = uint8_t(tag & 7);
    if (inner == 0 || inner > kMaxFieldNumber || inner_type > 5) {
      fail_field(name, fmt::format("invalid tag {} inside group", tag));
    }
    if (WireType(inner_type) == WireType::kEndGroup) {
      if (inner != number) {
        fail_field(name, fmt::format("group ends with the end-group tag of field {}", inner));
      }
      return;
    }
    skip_value(WireType(inner_type), uint32_t(inner), group_depth + 1);
  }
}

void WireReader::expect(WireType type, std::string_view name) const {
  if (wire_type_ != type) {
    fail_field(name, fmt::format("wire type {} where {} was expected", int(wire_type_), int(type)));
  }
}

uint64_t WireReader::read_uint64(std::string_view name) {
  expect(WireType::kVarint, name);
  return varint(name);
}

int64_t WireReader::read_int64(std::string_view name) { return int64_t(read_uint64(name)); }

// protobuf writes a negative int32 as its sign-extended 64-bit varint; parsers keep the low
// 32 bits.
int32_t WireReader::read_int32(std::string_view name) {
  return int32_t(uint32_t(read_uint64(name)));
}

float WireReader::read_float(std::string_view name) {
  expect(WireType::kFixed32, name);
  return std::bit_cast<float>(uint32_t(fixed(name, 4)));
}

double WireReader::read_double(std::string_view name) {
  expect(WireType::kFixed64, name);
  return std::bit_cast<double>(fixed(name, 8));
}

std::span<const std::byte> WireReader::read_bytes(std::string_view name) {
  expect(WireType::kLengthDelimited, name);
  return take(name, varint(name));
}

std::string WireReader::read_string(std::string_view name) {
  const auto b = read_bytes(name);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

WireReader WireReader::message(std::string_view name, int64_t index) {
  const auto b = read_bytes(index >= 0 ? fmt::format("{}[{}]", name, index) : std::string(name));
  return WireReader(b, FieldPath{&path_, name, index});
}

template <typename T, typename ReadOne>
void WireReader::append_repeated(std::string_view name, std::vector<T>& out, size_t max_count,
                                 WireType unpacked_type, size_t fixed_width, ReadOne read_one) {
  const auto too_many = [&] { fail_field(name, fmt::format("more than {} elements", max_count)); };
  if (wire_type_ == unpacked_type) {
    if (out.size() >= max_count) too_many();
    out.push_back(read_one(*this));
    return;
  }
  expect(WireType::kLengthDelimited, name);
  const auto run = take(name, varint(name));
  WireReader packed(run, path_);
  packed.wire_type_ = unpacked_type;
  if (fixed_width != 0) {
    if (run.size() % fixed_width != 0) {
      fail_field(name, fmt::format("packed run of {} bytes is not a multiple of {}", run.size(),
                                   fixed_width));
    }
    const size_t count = run.size() / fixed_width;
    if (count > max_count - out.size()) too_many();
    out.reserve(out.size() + count);
  }
  while (packed.remaining() > 0) {
    if (out.size() >= max_count) too_many();
    out.push_back(read_one(packed));
  }
}

void WireReader::append_int64s(std::string_view name, std::vector<int64_t>& out, size_t max_count) {
  append_repeated(name, out, max_count, WireType::kVarint, 0,
                  [&](WireReader& r) { return int64_t(r.varint(name)); });
}

void WireReader::append_uint64s(std::string_view name, std::vector<uint64_t>& out,
                                size_t max_count) {
  append_repeated(name, out, max_count, WireType::kVarint, 0,
                  [&](WireReader& r) { return r.varint(name); });
}

void WireReader::append_int32s(std::string_view name, std::vector<int32_t>& out, size_t max_count) {
  append_repeated(name, out, max_count, WireType::kVarint, 0,
                  [&](WireReader& r) { return int32_t(uint32_t(r.varint(name))); });
}

void WireReader::append_floats(std::string_view name, std::vector<float>& out, size_t max_count) {
  append_repeated(name, out, max_count, WireType::kFixed32, 4,
                  [&](WireReader& r) { return std::bit_cast<float>(uint32_t(r.fixed(name, 4))); });
}

void WireReader::append_doubles(std::string_view name, std::vector<double>& out, size_t max_count) {
  append_repeated(name, out, max_count, WireType::kFixed64, 8,
                  [&](WireReader& r) { return std::bit_cast<double>(r.fixed(name, 8)); });
}

void WireWriter::tag(uint32_t field_number, WireType type) {
  check_internal(field_number >= 1 && field_number <= kMaxFieldNumber, "field number {}",
                 field_number);
  varint((uint64_t(field_number) << 3) | uint64_t(type));
}

void WireWriter::varint(uint64_t value) {
  while (value >= 0x80) {
    out_ += char((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out_ += char(value);
}

void WireWriter::length_delimited(uint32_t field_number, std::span<const std::byte> bytes) {
  tag(field_number, WireType::kLengthDelimited);
  varint(bytes.size());
  raw(bytes);
}

void WireWriter::length_delimited(uint32_t field_number, std::string_view bytes) {
  length_delimited(field_number, std::as_bytes(std::span(bytes.data(), bytes.size())));
}

void WireWriter::raw(std::span<const std::byte> bytes) {
  out_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace wnn::onnx
