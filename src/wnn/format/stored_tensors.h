// What the weights readers share: the element types a file can declare, the index that finds a
// tensor by exact or rustnn-rewritten key, and the conversion of a stored tensor to the memory
// form a constant declares (dtype/shape checks, BF16 widening, 4-bit unpacking).
// Internal to the format module.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wnn/format/weights.h"

namespace wnn::format {

enum class StoredDtype : uint8_t {
  kF32,
  kF16,
  kBF16,
  kI32,
  kU32,
  kI64,
  kU64,
  kI8,
  kU8,
  kBool,
  kI4,
  kU4,  // legacy `.weights` only: packed, with the logical shape
};

// "F32", "BF16", "BOOL", ...: the Safetensors spelling. nullopt for anything else.
std::optional<StoredDtype> parse_safetensors_dtype(std::string_view s);
std::string_view safetensors_dtype_name(StoredDtype d);
// Bytes per element as stored; 0 for the packed 4-bit kinds.
size_t stored_dtype_size(StoredDtype d);
// The stored dtype that holds `t` unchanged in memory form; nullopt for int4/uint4, which are
// stored packed (as U8 in Safetensors, as I4/U4 in legacy files).
std::optional<StoredDtype> direct_stored_dtype(DataType t);

struct StoredEntry {
  StoredTensor tensor;
  StoredDtype dtype;
};

// The key form rustnn and pywebnn look tensors up by: '::' -> '__', then '.' -> '_'.
std::string rustnn_rewrite_key(std::string_view key);

// Tensors in file order, found by exact key first and then by rewritten key.
class TensorIndex {
 public:
  // Adds entries in file order; `path` names the file in errors. A repeated key is an error.
  void add(StoredEntry entry, const std::string& path);
  // Exact key, else the unique entry whose rewritten key equals the rewritten `key`. Throws when
  // the rewritten key is ambiguous (two stored keys rewrite to it). nullptr when absent.
  const StoredEntry* find(const std::string& key, const std::string& path) const;
  std::vector<const StoredTensor*> tensors() const;
  size_t size() const { return entries_.size(); }

 private:
  std::vector<StoredEntry> entries_;
  std::unordered_map<std::string, size_t> exact_;
  std::unordered_map<std::string, std::vector<size_t>> rewritten_;
};

// How the archive marks packed 4-bit U8 tensors: absent, or the marker's value.
using Packed4Marker = std::optional<std::string>;

// The element data of `entry` for a constant of `desc`; see WeightsSource::load. `path` names
// the file in errors.
Buffer load_stored(const StoredEntry& entry, const OperandDesc& desc, const Packed4Marker& marker,
                   const std::string& path);

}  // namespace wnn::format
