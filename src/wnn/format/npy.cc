// NumPy .npy files for single tensors (inputs and reference outputs). Reads format versions
// 1.0, 2.0 and 3.0 in C order; writes 1.0 (2.0 only if the header would not fit). The header is
// a Python dict literal, parsed here by a small bounded parser because these files come from
// anywhere and are fuzzed.

#include <array>
#include <cstring>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/core/mapped_file.h"
#include "wnn/format/weights.h"

namespace wnn::format {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy itself refuses headers above 10000 bytes by default; allow more, but stay bounded.
constexpr size_t kMaxHeaderBytes = size_t(1) << 20;

struct NpyDescr {
  std::string_view descr;
  DataType dtype;
};
// What wnn reads. bool ('|b1') reads as uint8; the rest map one to one.
constexpr std::array<NpyDescr, 9> kReadDescrs = {{
    {"<f4", DataType::kFloat32},
    {"<f2", DataType::kFloat16},
    {"<i4", DataType::kInt32},
    {"<u4", DataType::kUint32},
    {"<i8", DataType::kInt64},
    {"<u8", DataType::kUint64},
    {"|i1", DataType::kInt8},
    {"|u1", DataType::kUint8},
    {"|b1", DataType::kUint8},
}};

std::string_view write_descr(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kUint32:
      return "<u4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kUint64:
      return "<u8";
    case DataType::kInt8:
    case DataType::kInt4:
      return "|i1";  // numpy has no 4-bit type: one element per byte
    case DataType::kUint8:
    case DataType::kUint4:
      return "|u1";
  }
  return "|u1";
}

struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<Shape> shape;
};

// Recursive descent over the dict literal numpy writes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  NpyHeader parse() {
    NpyHeader h;
    expect('{');
    while (!peek_is('}')) {
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        h.descr = parse_string();
      } else if (key == "fortran_order") {
        h.fortran_order = parse_bool();
      } else if (key == "shape") {
        h.shape = parse_shape();
      } else {
        fail("{}: .npy header has an unexpected key '{}'", name_, key);
      }
      if (!peek_is('}')) expect(',');
    }
    expect('}');
    skip_space();
    check(pos_ == text_.size(), "{}: .npy header has trailing text at byte {}", name_, pos_);
    return h;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool peek_is(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    check(peek_is(c), "{}: .npy header: expected '{}' at byte {}", name_, c, pos_);
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    check(pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"'),
          "{}: .npy header: expected a string at byte {}", name_, pos_);
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    check(end != std::string_view::npos, "{}: .npy header: unterminated string", name_);
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  bool parse_bool() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("{}: .npy header: expected True or False at byte {}", name_, pos_);
  }
  Shape parse_shape() {
    expect('(');
    Shape shape;
    int64_t count = 1;
    while (!peek_is(')')) {
      check(shape.size() < kMaxRank, "{}: .npy shape has more than {} dims", name_, kMaxRank);
      const int64_t dim = parse_dim();
      check(dim == 0 || count <= kMaxElements / dim, "{}: .npy shape has more than {} elements",
            name_, kMaxElements);
      count *= dim;
      shape.push_back(dim);
      if (!peek_is(')')) expect(',');
    }
    expect(')');
    return shape;
  }
  int64_t parse_dim() {
    skip_space();
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      check(v <= kMaxElements, "{}: .npy shape dim at byte {} is too large", name_, start);
      v = v * 10 + (text_[pos_++] - '0');
    }
    check(pos_ > start, "{}: .npy shape: expected a non-negative integer at byte {}", name_, start);
    check(v <= kMaxElements, "{}: .npy shape dim at byte {} is too large", name_, start);
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long literal
    return v;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

struct ParsedNpy {
  DataType dtype;
  Shape shape;
  size_t data_offset;
  size_t data_size;
};

ParsedNpy parse_npy_layout(std::span<const std::byte> bytes, const std::string& name) {
  check(bytes.size() >= kMagicSize + 2 && std::memcmp(bytes.data(), kMagic, kMagicSize) == 0,
        "{}: not a .npy file (no \\x93NUMPY magic)", name);
  const uint8_t major = uint8_t(bytes[6]);
  const uint8_t minor = uint8_t(bytes[7]);
  check((major == 1 || major == 2 || major == 3) && minor == 0,
        "{}: .npy format version {}.{} is not supported (1.0, 2.0, 3.0)", name, major, minor);
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + length_bytes;
  check(bytes.size() >= prefix, "{}: .npy file is truncated in its header length", name);
  size_t header_len = 0;
  for (size_t i = length_bytes; i-- > 0;) header_len = (header_len << 8) | uint8_t(bytes[8 + i]);
  check(header_len <= kMaxHeaderBytes, "{}: .npy header length {} is above the limit of {}", name,
        header_len, kMaxHeaderBytes);
  check(header_len <= bytes.size() - prefix,
        "{}: .npy header length {} runs past the end of the file ({} bytes)", name, header_len,
        bytes.size());
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + prefix, header_len);
  const NpyHeader h = HeaderParser(text, name).parse();
  check(h.descr && h.fortran_order && h.shape,
        "{}: .npy header must give 'descr', 'fortran_order' and 'shape'", name);
  check(!*h.fortran_order, "{}: .npy data is in Fortran order; only C order is supported", name);
  const NpyDescr* descr = nullptr;
  for (const auto& d : kReadDescrs) {
    if (d.descr == *h.descr) descr = &d;
  }
  check(descr != nullptr,
        "{}: .npy dtype '{}' is not supported (<f4 <f2 <i4 <u4 <i8 <u8 |i1 |u1 |b1)", name,
        *h.descr);
  const size_t data_offset = prefix + header_len;
  const size_t data_size = size_t(element_count(*h.shape)) * dtype_size(descr->dtype);
  check(bytes.size() - data_offset == data_size,
        "{}: .npy data is {} bytes, shape {} of {} needs {}", name, bytes.size() - data_offset,
        shape_to_string(*h.shape), *h.descr, data_size);
  return {descr->dtype, *h.shape, data_offset, data_size};
}

}  // namespace

Tensor parse_npy(std::span<const std::byte> bytes, const std::string& name) {
  ParsedNpy p = parse_npy_layout(bytes, name);
  return Tensor{p.dtype, std::move(p.shape),
                Buffer::copy_of(bytes.subspan(p.data_offset, p.data_size))};
}

Tensor read_npy(const std::string& path) {
  auto file = MappedFile::open(path);
  ParsedNpy p = parse_npy_layout(file->bytes(), path);
  // numpy pads the header to 64 (older: 16) bytes, so the data is usually aligned: keep it in
  // the mapping then, copy otherwise.
  Buffer data = file->slice(p.data_offset, p.data_size);
  if (reinterpret_cast<uintptr_t>(data.data()) % dtype_size(p.dtype) != 0) {
    data = Buffer::copy_of(data.bytes());
  }
  return Tensor{p.dtype, std::move(p.shape), std::move(data)};
}

void write_npy(const std::string& path, const ConstTensorView& tensor) {
  validate_shape(tensor.shape, "write_npy tensor");
  std::string dims;
  for (int64_t d : tensor.shape) dims += fmt::format("{}, ", d);
  if (tensor.shape.size() > 1) dims.resize(dims.size() - 2);  // (3,) keeps its comma
  if (tensor.shape.size() == 1) dims.resize(dims.size() - 1);
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   write_descr(tensor.dtype), dims);
  // numpy pads with spaces and ends with '\n' so the data starts 64-byte aligned.
  const bool v2 = header.size() + 1 + 10 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string preamble(kMagic, kMagicSize);
  preamble += char(v2 ? 2 : 1);
  preamble += char(0);
  for (size_t i = 0; i < prefix - 8; ++i) preamble += char((header.size() >> (8 * i)) & 0xff);

  AtomicFileWriter out(path);
  out.write(std::as_bytes(std::span(preamble)));
  out.write(std::as_bytes(std::span(header)));
  out.write({tensor.data, size_t(tensor.size()) * dtype_size(tensor.dtype)});
  out.commit();
}

}  // namespace wnn::format
