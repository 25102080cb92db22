#include "wnn/format/param_spelling.h"

#include <array>

namespace wnn::format {
namespace {

struct Spelling {
  std::string_view op;
  std::string_view table;     // the operator table's (IDL's) name
  std::string_view file;      // what writers print
  std::string_view older[2];  // also read
};

constexpr std::array<Spelling, 1> kSpellings{{
    {"cast", "dataType", "type", {"to", "dataType"}},
}};

}  // namespace

std::string_view file_param_name(std::string_view op, std::string_view param) {
  for (const Spelling& s : kSpellings)
    if (s.op == op && s.table == param) return s.file;
  return param;
}

std::string table_param_name(std::string_view op, std::string_view name) {
  for (const Spelling& s : kSpellings) {
    if (s.op != op) continue;
    if (name == s.file) return std::string(s.table);
    for (std::string_view o : s.older)
      if (!o.empty() && name == o) return std::string(s.table);
  }
  return std::string(name);
}

}  // namespace wnn::format
