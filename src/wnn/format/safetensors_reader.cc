// SafetensorsReader: maps the file and validates every byte of the header before any tensor is
// handed out, so a hostile or truncated file fails with one line naming the file and the fault.

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "wnn/core/error.h"
#include "wnn/format/bounded_json.h"
#include "wnn/format/packed4.h"
#include "wnn/format/stored_tensors.h"
#include "wnn/format/weights.h"

namespace wnn::format {

namespace {

// The reference implementation's bound: larger headers are rejected before parsing.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// {"key": {"shape": [..]}} is depth 3; anything much deeper is not a Safetensors header.
constexpr int kMaxHeaderDepth = 8;

using Json = nlohmann::json;

Json parse_header(std::string_view text, const std::string& path) {
  Json header = parse_bounded_json(text, kMaxHeaderDepth, path + ": header");
  check(header.is_object(), "{}: header is JSON {} but must be an object", path,
        header.type_name());
  return header;
}

uint64_t non_negative_integer(const Json& v, const std::string& what) {
  check(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0),
        "{} must be a non-negative integer, got {}", what, v.dump());
  return v.get<uint64_t>();
}

Shape parse_shape(const Json& v, const std::string& what) {
  check(v.is_array(), "{}: \"shape\" must be an array, got {}", what, v.dump());
  check(v.size() <= kMaxRank, "{}: shape has rank {}, above the maximum {}", what, v.size(),
        kMaxRank);
  Shape shape;
  uint64_t count = 1;
  for (size_t i = 0; i < v.size(); ++i) {
    const uint64_t dim = non_negative_integer(v[i], fmt::format("{}: shape[{}]", what, i));
    // Multiply in 128 bits so [2^40, 2^40] is caught, not wrapped.
    const unsigned __int128 product = (unsigned __int128)count * dim;
    check(product <= uint64_t(kMaxElements), "{}: shape {} has more than {} elements", what,
          v.dump(), kMaxElements);
    count = uint64_t(product);
    shape.push_back(int64_t(dim));
  }
  return shape;
}

std::map<std::string, std::string> parse_metadata(const Json& v, const std::string& path) {
  check(v.is_object(), "{}: \"__metadata__\" must be an object of strings, got {}", path,
        v.type_name());
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : v.items()) {
    check(value.is_string(), "{}: \"__metadata__\" entry '{}' must be a string, got {}", path, key,
          value.dump());
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

struct Range {
  uint64_t begin, end;
};

StoredEntry parse_entry(const std::string& key, const Json& v, uint64_t data_size,
                        const std::string& path, Range& range) {
  const std::string what = fmt::format("{}: tensor '{}'", path, key);
  check(v.is_object(), "{} must be an object, got {}", what, v.type_name());
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    check(v.contains(field), "{} has no \"{}\"", what, field);
  }
  const Json& dtype_json = v["dtype"];
  check(dtype_json.is_string(), "{}: \"dtype\" must be a string, got {}", what, dtype_json.dump());
  const std::string file_dtype = dtype_json.get<std::string>();
  const auto dtype = parse_safetensors_dtype(file_dtype);
  check(dtype.has_value(),
        "{}: unsupported dtype \"{}\" (wnn reads F32, F16, BF16, I32, U32, I64, U64, I8, U8, "
        "BOOL)",
        what, file_dtype);
  Shape shape = parse_shape(v["shape"], what);
  const Json& offsets = v["data_offsets"];
  check(offsets.is_array() && offsets.size() == 2,
        "{}: \"data_offsets\" must be [begin, end], got {}", what, offsets.dump());
  range.begin = non_negative_integer(offsets[0], what + ": data_offsets begin");
  range.end = non_negative_integer(offsets[1], what + ": data_offsets end");
  check(range.begin <= range.end, "{}: data_offsets [{}, {}] end before they begin", what,
        range.begin, range.end);
  check(range.end <= data_size, "{}: data_offsets [{}, {}] run past the end of the data ({} bytes)",
        what, range.begin, range.end, data_size);
  const uint64_t expected = uint64_t(element_count(shape)) * stored_dtype_size(*dtype);
  check(range.end - range.begin == expected,
        "{}: byte length {} (data_offsets [{}, {}]) does not match {} {} ({} bytes)", what,
        range.end - range.begin, range.begin, range.end, file_dtype, shape_to_string(shape),
        expected);
  return StoredEntry{StoredTensor{key, file_dtype, std::move(shape), {}}, *dtype};
}

}  // namespace

struct SafetensorsReader::State {
  std::string path;
  Buffer file;  // the whole file; tensors are slices of it
  TensorIndex index;
  std::map<std::string, std::string> metadata;
  Packed4Marker packed4_marker;
};

std::unique_ptr<SafetensorsReader> SafetensorsReader::open(const std::string& path) {
  const auto mapped = MappedFile::open(path);
  return from_bytes(mapped->slice(0, mapped->size()), path);
}

std::unique_ptr<SafetensorsReader> SafetensorsReader::from_bytes(Buffer bytes,
                                                                 const std::string& path) {
  auto state = std::make_shared<State>();
  state->path = path;
  state->file = std::move(bytes);
  const Buffer& file = state->file;
  check(file.size() >= 8, "{}: file is {} bytes, shorter than the 8-byte header length", path,
        file.size());
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | uint8_t(file.data()[i]);
  check(header_size <= kMaxHeaderBytes, "{}: header length {} is above the limit of {} bytes", path,
        header_size, kMaxHeaderBytes);
  check(header_size <= file.size() - 8,
        "{}: header length {} runs past the end of the file ({} bytes)", path, header_size,
        file.size());
  const std::string_view text(reinterpret_cast<const char*>(file.data()) + 8, header_size);
  const Json header = parse_header(text, path);

  const uint64_t data_start = 8 + header_size;
  const uint64_t data_size = file.size() - data_start;
  std::vector<std::pair<Range, StoredEntry>> entries;
  entries.reserve(header.size());
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      state->metadata = parse_metadata(value, path);
      continue;
    }
    Range range{};
    StoredEntry entry = parse_entry(key, value, data_size, path, range);
    entries.emplace_back(range, std::move(entry));
  }
  // File order is data order; sorted neighbours are the only ones that can overlap.
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.begin, a.first.end) < std::tie(b.first.begin, b.first.end);
  });
  for (size_t i = 1; i < entries.size(); ++i) {
    const auto& [prev_range, prev] = entries[i - 1];
    const auto& [range, entry] = entries[i];
    check(range.begin >= prev_range.end,
          "{}: tensors '{}' [{}, {}] and '{}' [{}, {}] overlap in the data", path, prev.tensor.key,
          prev_range.begin, prev_range.end, entry.tensor.key, range.begin, range.end);
  }
  for (auto& [range, entry] : entries) {
    entry.tensor.bytes = file.slice(data_start + range.begin, range.end - range.begin);
    state->index.add(std::move(entry), path);
  }
  if (auto it = state->metadata.find(kPacked4MetadataKey); it != state->metadata.end()) {
    state->packed4_marker = it->second;
  }
  std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader());
  reader->state_ = std::move(state);
  return reader;
}

const std::string& SafetensorsReader::path() const { return state_->path; }

const StoredTensor* SafetensorsReader::find(const std::string& key) const {
  const StoredEntry* e = state_->index.find(key, state_->path);
  return e ? &e->tensor : nullptr;
}

Buffer SafetensorsReader::load(const std::string& key, const OperandDesc& desc) const {
  const StoredEntry* e = state_->index.find(key, state_->path);
  check(e != nullptr, "{}: no tensor '{}' (declared {}) in the weights file", state_->path, key,
        desc.to_string());
  return load_stored(*e, desc, state_->packed4_marker, state_->path);
}

std::vector<const StoredTensor*> SafetensorsReader::tensors() const {
  return state_->index.tensors();
}

const std::map<std::string, std::string>& SafetensorsReader::metadata() const {
  return state_->metadata;
}

bool SafetensorsReader::packed4() const {
  return state_->packed4_marker == std::optional<std::string>(kPacked4Version);
}

}  // namespace wnn::format
