#include "wnn/format/bounded_json.h"

#include <algorithm>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::format {

// One linear pass over the raw text: tracks nesting outside strings and collects the raw text
// of every key of the top-level object. Malformed JSON is left for the parser to report.
void check_json_structure(std::string_view text, int max_depth, const std::string& what) {
  int depth = 0;
  std::vector<std::string_view> top_keys;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t start = i + 1;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (i >= text.size()) return;  // unterminated: the parser says so
      if (depth != 1) continue;
      size_t next = i + 1;
      while (next < text.size() && (text[next] == ' ' || text[next] == '\n' || text[next] == '\t' ||
                                    text[next] == '\r')) {
        ++next;
      }
      if (next < text.size() && text[next] == ':') {
        top_keys.push_back(text.substr(start, i - start));
      }
    } else if (c == '{' || c == '[') {
      check(++depth <= max_depth, "{}: JSON nests deeper than {} levels", what, max_depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  std::sort(top_keys.begin(), top_keys.end());
  const auto dup = std::adjacent_find(top_keys.begin(), top_keys.end());
  check(dup == top_keys.end(), "{}: JSON declares '{}' twice", what,
        dup == top_keys.end() ? std::string_view() : *dup);
}

nlohmann::json parse_bounded_json(std::string_view text, int max_depth, const std::string& what) {
  check_json_structure(text, max_depth, what);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message names the byte position; drop its "[json.exception...]" prefix.
    std::string message = e.what();
    if (const size_t p = message.find("] "); p != std::string::npos) {
      message = message.substr(p + 2);
    }
    fail("{}: not valid JSON: {}", what, message);
  }
}

}  // namespace wnn::format
