#include "wnn/core/names.h"

#include <fmt/format.h>

#include <array>

#include "wnn/core/error.h"

namespace wnn {

namespace {

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool is_name_start_byte(char c) { return is_ascii_alpha(c) || c == '_' || c == '/' || c == '$'; }

bool is_name_continue_byte(char c) {
  return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_' || c == '.' || c == '/' || c == '$' ||
         c == '-';
}

size_t name_token_length(std::string_view s) {
  if (s.empty() || !is_name_start_byte(s[0])) return 0;
  // A name that is only '/' followed by '/' is no name: the comment starts at its first byte.
  if (s[0] == '/' && s.size() > 1 && s[1] == '/') return 0;
  size_t i = 1;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') break;  // a comment right after a name
    if (is_name_continue_byte(c)) {
      ++i;
    } else if (c == ':' && i + 2 < s.size() && s[i + 1] == ':' && is_name_continue_byte(s[i + 2])) {
      i += 2;
    } else {
      break;
    }
  }
  return i;
}

bool is_reserved_name(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kReserved = {"true", "false", "null", "inf",
                                                                "nan"};
  for (std::string_view r : kReserved) {
    if (name == r) return true;
  }
  return false;
}

bool is_valid_operand_name(std::string_view name) {
  return !name.empty() && name_token_length(name) == name.size() && !is_reserved_name(name);
}

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
  if (!is_valid_operand_name(name) || name.size() > kMaxMappedNameBytes) return;
  taken_.insert(name);
  mapped_[name] = name;
}

const std::string& NameMapper::map(const std::string& name) {
  if (auto it = mapped_.find(name); it != mapped_.end()) return it->second;
  std::string result;
  if (is_valid_operand_name(name) && name.size() <= kMaxMappedNameBytes && !taken(name)) {
    result = name;
  } else {
    // Every byte outside the grammar becomes '_', and so does the second '/' of a '//'; the
    // result is then one name token whatever follows (the suffix starts with '_').
    std::string base;
    const size_t keep = kMaxMappedNameBytes - 9;  // room for "_" + 8 hex digits
    base.reserve(std::min(name.size() + 2, keep));
    if (name.empty() || !is_name_start_byte(name[0])) base = "v_";
    for (char c : name) {
      if (base.size() >= keep) break;
      const bool comment = c == '/' && !base.empty() && base.back() == '/';
      base += is_name_continue_byte(c) && !comment ? c : '_';
    }
    // The suffix hashes the original name, so two names that sanitize alike still differ; a
    // rare collision re-hashes with the next seed.
    for (uint64_t seed = 0;; ++seed) {
      result = fmt::format("{}_{:08x}", base, stable_hash(name, seed) & 0xffffffffu);
      if (!taken(result)) break;
    }
  }
  check_internal(is_valid_operand_name(result) && result.size() <= kMaxMappedNameBytes,
                 "NameMapper produced '{}' for '{}', which the text format cannot hold", result,
                 name);
  taken_.insert(result);
  return mapped_.emplace(name, result).first->second;
}

}  // namespace wnn
