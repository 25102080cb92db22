// Deterministic, injective mapping of ONNX value names to .webnn operand names: valid names are
// kept, others get invalid characters replaced and a stable hash suffix, re-suffixed on any
// collision with a name already taken.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace wnn::onnx {

class NameMapper {
 public:
  // `in_use` tells whether the target graph already has a name (builder-generated names).
  explicit NameMapper(std::function<bool(const std::string&)> in_use = nullptr)
      : in_use_(std::move(in_use)) {}
  // Claims `name` exactly (graph inputs and outputs keep their names when the .webnn text
  // format can write them; others are mapped, and the import result records the mapping).
  void reserve(const std::string& name);
  // The mapped name of `onnx_name`; the same answer every time for the same name.
  const std::string& map(const std::string& onnx_name);

 private:
  bool taken(const std::string& n) const;
  std::function<bool(const std::string&)> in_use_;
  std::map<std::string, std::string> mapped_;
  std::set<std::string> taken_;
};

// FNV-1a 64-bit: stable across runs and platforms, unlike std::hash.
uint64_t stable_hash(std::string_view s, uint64_t seed = 0);

}  // namespace wnn::onnx
