// Reading a graph file of either form: the first significant character decides.
#include <filesystem>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {

namespace {

// Skips whitespace, a byte order mark and both comment styles to find how the file starts.
char first_significant_char(std::string_view text) {
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      return c;
    }
  }
  return '\0';
}

}  // namespace

Graph parse_graph(std::string_view text, const std::string& filename) {
  if (first_significant_char(text) == '{') return parse_json(text, filename);
  return parse_text(text, filename);
}

Graph read_graph_file(const std::string& path) { return parse_graph(read_file(path), path); }

}  // namespace wnn::format
