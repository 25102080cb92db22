// write_safetensors: a header any Safetensors reader accepts (the reference implementation
// requires tensors to tile the data region exactly, with no gaps and no trailing bytes), laid
// out so every tensor is naturally aligned when the file is mapped, and streamed to disk.
//
// Layout: the header JSON lists `__metadata__` then the tensors by key; spaces pad it so the
// data starts at a multiple of 64 bytes. Tensors are stored contiguously, largest element size
// first and then by key: with a 64-aligned start, each tensor's offset is then a multiple of its
// element size. The same input always gives the same bytes.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/packed4.h"
#include "wnn/format/stored_tensors.h"
#include "wnn/format/weights.h"

namespace wnn::format {

namespace {

constexpr size_t kDataAlignment = 64;
// int4/uint4 are packed through a bounded scratch buffer, never a whole-tensor copy.
constexpr size_t kPackChunkElements = size_t(1) << 20;
constexpr size_t kProgressSliceBytes = size_t(64) << 20;

struct Planned {
  const TensorToWrite* tensor;
  StoredDtype stored;
  Shape stored_shape;
  uint64_t bytes;
  uint64_t begin = 0;
};

// int4/uint4 are written packed, two per byte, as U8.
StoredDtype stored_dtype_for(DataType t) {
  return direct_stored_dtype(t).value_or(StoredDtype::kU8);
}

bool is_4bit(DataType t) { return t == DataType::kInt4 || t == DataType::kUint4; }

using Json = nlohmann::json;

std::string json_string(const std::string& s, const std::string& path) {
  try {
    return Json(s).dump();
  } catch (const nlohmann::json::exception&) {
    fail("{}: '{}' is not valid UTF-8 and cannot be written to a Safetensors header", path, s);
  }
}

Planned plan(const TensorToWrite& t, const std::string& path) {
  const std::string what = fmt::format("{}: tensor '{}'", path, t.key);
  validate_shape(t.shape, what.c_str());
  const uint64_t elements = uint64_t(element_count(t.shape));
  check(t.data.size() == elements * dtype_size(t.dtype), "{}: {} bytes of data for {}{}", what,
        t.data.size(), dtype_name(t.dtype), shape_to_string(t.shape));
  Planned p{&t, stored_dtype_for(t.dtype), t.shape, t.data.size()};
  if (is_4bit(t.dtype)) {
    p.bytes = packed4_size(elements);
    p.stored_shape = {int64_t(p.bytes)};
  }
  return p;
}

void write_packed4(AtomicFileWriter& out, const TensorToWrite& t, const std::string& path) {
  const std::string what = fmt::format("{}: tensor '{}'", path, t.key);
  std::vector<std::byte> scratch(packed4_size(kPackChunkElements));
  const std::span<const std::byte> all = t.data.bytes();
  for (size_t start = 0; start < all.size(); start += kPackChunkElements) {
    // Chunks hold an even number of elements, so only the last one may end on a half byte.
    const auto chunk = all.subspan(start, std::min(kPackChunkElements, all.size() - start));
    const std::span<std::byte> packed(scratch.data(), packed4_size(chunk.size()));
    std::fill(packed.begin(), packed.end(), std::byte{0});
    pack4(chunk, t.dtype == DataType::kInt4, packed, what);
    out.write(packed);
  }
}

}  // namespace

void write_safetensors(const std::string& path, std::span<const TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata,
                       const WriteProgress& on_progress) {
  std::vector<Planned> planned;
  planned.reserve(tensors.size());
  std::set<std::string> keys;
  bool any_4bit = false;
  for (const TensorToWrite& t : tensors) {
    check(t.key != "__metadata__", "{}: '__metadata__' cannot name a tensor", path);
    check(keys.insert(t.key).second, "{}: tensor '{}' is given twice", path, t.key);
    planned.push_back(plan(t, path));
    any_4bit = any_4bit || is_4bit(t.dtype);
  }
  std::map<std::string, std::string> meta = metadata;
  if (any_4bit) {
    auto [it, inserted] = meta.emplace(kPacked4MetadataKey, kPacked4Version);
    check(inserted || it->second == kPacked4Version,
          "{}: metadata \"{}\" is \"{}\", but wnn writes packed 4-bit version {}", path,
          kPacked4MetadataKey, it->second, kPacked4Version);
  }

  // Data order: larger elements first, then by key (see the file comment).
  std::sort(planned.begin(), planned.end(), [](const Planned& a, const Planned& b) {
    const size_t sa = stored_dtype_size(a.stored), sb = stored_dtype_size(b.stored);
    return sa != sb ? sa > sb : a.tensor->key < b.tensor->key;
  });
  uint64_t offset = 0;
  for (Planned& p : planned) {
    p.begin = offset;
    offset += p.bytes;
  }

  // Header: __metadata__ first, then the tensors by key.
  std::vector<const Planned*> by_key;
  for (const Planned& p : planned) by_key.push_back(&p);
  std::sort(by_key.begin(), by_key.end(),
            [](const Planned* a, const Planned* b) { return a->tensor->key < b->tensor->key; });
  std::string header = "{";
  if (!meta.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : meta) {
      if (!first) header += ',';
      first = false;
      header += json_string(k, path) + ':' + json_string(v, path);
    }
    header += '}';
  }
  for (const Planned* p : by_key) {
    if (header.size() > 1) header += ',';
    header += fmt::format("{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
                          json_string(p->tensor->key, path), safetensors_dtype_name(p->stored),
                          fmt::join(p->stored_shape, ","), p->begin, p->begin + p->bytes);
  }
  header += '}';
  const size_t unpadded = 8 + header.size();
  header.append((kDataAlignment - unpadded % kDataAlignment) % kDataAlignment, ' ');

  AtomicFileWriter out(path);
  std::array<std::byte, 8> length{};
  for (int i = 0; i < 8; ++i) length[i] = std::byte((uint64_t(header.size()) >> (8 * i)) & 0xff);
  out.write(length);
  out.write(std::as_bytes(std::span(header)));
  uint64_t written = 0;
  for (const Planned& p : planned) {
    if (is_4bit(p.tensor->dtype)) {
      write_packed4(out, *p.tensor, path);
    } else {
      // In slices, so a progress line moves within one large tensor too.
      const auto all = p.tensor->data.bytes();
      for (size_t at = 0; at < all.size(); at += kProgressSliceBytes) {
        out.write(all.subspan(at, std::min(kProgressSliceBytes, all.size() - at)));
        if (on_progress) on_progress(written + at, offset);
      }
    }
    written += p.bytes;
    if (on_progress) on_progress(written, offset);
  }
  out.commit();
}

}  // namespace wnn::format
