#include "wnn/onnx/names.h"

#include <fmt/format.h>

#include "wnn/core/builder.h"

namespace wnn::onnx {

uint64_t stable_hash(std::string_view s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool NameMapper::taken(const std::string& n) const {
  return taken_.count(n) > 0 || (in_use_ && in_use_(n));
}

void NameMapper::reserve(const std::string& name) {
  // A name the text format cannot write is mapped like any other.
  if (!is_valid_operand_name(name)) return;
  taken_.insert(name);
  mapped_[name] = name;
}

const std::string& NameMapper::map(const std::string& onnx_name) {
  if (auto it = mapped_.find(onnx_name); it != mapped_.end()) return it->second;
  std::string result;
  if (is_valid_operand_name(onnx_name) && !taken(onnx_name)) {
    result = onnx_name;
  } else {
    std::string base;
    for (char c : onnx_name) {
      const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                      c == '/' || c == '$' || c == ':' || c == '-';
      base += ok ? c : '_';
    }
    if (base.empty() || !is_valid_operand_name(base)) base = "v_" + base;
    // The suffix hashes the original name, so two names that sanitize alike still differ;
    // a rare collision re-hashes with the next seed.
    for (uint64_t seed = 0;; ++seed) {
      result = fmt::format("{}_{:08x}", base, stable_hash(onnx_name, seed) & 0xffffffffu);
      if (!taken(result)) break;
    }
  }
  taken_.insert(result);
  return mapped_.emplace(onnx_name, result).first->second;
}

}  // namespace wnn::onnx
