#include "wnn/format/param_spelling.h"

#include <array>

namespace wnn::format {
namespace {

constexpr std::array<ParamSpelling, 1> kSpellings{{
    {"cast", "dataType", "type", {"to", "dataType"}},
}};

}  // namespace

std::span<const ParamSpelling> param_spellings() { return kSpellings; }

std::string_view file_param_name(std::string_view op, std::string_view param) {
  for (const ParamSpelling& s : kSpellings)
    if (s.op == op && s.table == param) return s.file;
  return param;
}

std::string table_param_name(std::string_view op, std::string_view name) {
  for (const ParamSpelling& s : kSpellings) {
    if (s.op != op) continue;
    if (name == s.file) return std::string(s.table);
    for (std::string_view o : s.older)
      if (!o.empty() && name == o) return std::string(s.table);
  }
  return std::string(name);
}

}  // namespace wnn::format
