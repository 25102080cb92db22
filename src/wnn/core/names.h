// The grammar of a .webnn operand name, defined once: the text lexer scans names with
// name_token_length, and is_valid_operand_name is "the lexer reads the whole string as one name
// token and it is not a value literal", so the reader and every writer (printer, NameMapper)
// agree by construction. The format has no quoting: a name outside the grammar is mapped by
// NameMapper (docs/formats.md, "Operand names").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace wnn {

// The longest operand name the IR accepts, in bytes (text and JSON alike).
inline constexpr size_t kMaxOperandNameBytes = 4096;

// A name starts with an ASCII letter, '_', '/' or '$'.
bool is_name_start_byte(char c);
// It continues with ASCII letters, digits, '_', '.', '/', '$' and '-'.
bool is_name_continue_byte(char c);

// The length of the name token the lexer reads at the start of `s`: 0 when `s` does not start
// with a name start byte. After the first byte come continue bytes, and '::' when a continue
// byte follows it (onnx::MatMul_12; a single ':' ends the name, so `x: f32[1]` splits there).
// A '/' followed by '/' ends the name: a `//` comment starts there. (`/*` is no comment in the
// format, and '*' is no name byte.)
size_t name_token_length(std::string_view s);

// Names the parser reads as value literals where a value may stand (`bias=true`, `x=inf`):
// true, false, null, inf, nan.
bool is_reserved_name(std::string_view name);

// Whether the text format can write `name` as is: the lexer reads all of it as one name token
// and it is not a reserved word. The IR accepts more (any 1..kMaxOperandNameBytes bytes without
// control characters); the printer refuses the rest, which NameMapper maps.
bool is_valid_operand_name(std::string_view name);

// FNV-1a 64-bit: stable across runs and platforms, unlike std::hash.
uint64_t stable_hash(std::string_view s, uint64_t seed = 0);

// Deterministic, injective mapping of free-form names (ONNX values, JSON operands) to operand
// names the text format can write. A valid name is kept; any other gets each byte outside the
// grammar replaced by '_' (and 'v_' in front when it cannot start a name), is cut to
// kMaxMappedNameBytes, and gets '_' + 8 hex digits of stable_hash(original); a collision with a
// name already taken re-hashes with the next seed. Every result is valid (checked).
class NameMapper {
 public:
  // Kept names and mapped results are at most this long, leaving room for the suffixes an
  // importer adds (`const_<name>_value`) under kMaxOperandNameBytes.
  static constexpr size_t kMaxMappedNameBytes = kMaxOperandNameBytes - 64;

  // `in_use` tells whether the target graph already has a name (builder-generated names).
  explicit NameMapper(std::function<bool(const std::string&)> in_use = nullptr)
      : in_use_(std::move(in_use)) {}
  // Claims `name` exactly when the text format can write it (graph inputs and outputs keep
  // their names); any other is mapped like every name, and the caller records the mapping.
  void reserve(const std::string& name);
  // The mapped name of `name`; the same answer every time for the same name.
  const std::string& map(const std::string& name);

 private:
  bool taken(const std::string& n) const;
  std::function<bool(const std::string&)> in_use_;
  std::map<std::string, std::string> mapped_;
  std::set<std::string> taken_;
};

}  // namespace wnn
