#include "wnn/core/file_names.h"

#include <fmt/format.h>

#include <cstdint>

namespace wnn {

namespace {

constexpr size_t kMaxComponent = 200;

bool kept(char c, bool first) {
  if (c == '.') return !first;
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

}  // namespace

std::string file_name_component(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (kept(c, i == 0)) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", unsigned(static_cast<unsigned char>(c)));
    }
  }
  if (out.empty()) out = "%";  // an empty name; no other name encodes to a lone '%'
  if (out.size() > kMaxComponent) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the original name
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    out = fmt::format("{}~{:016x}", out.substr(0, kMaxComponent - 17), h);
  }
  return out;
}

}  // namespace wnn
