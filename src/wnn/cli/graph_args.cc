#include "wnn/cli/graph_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "wnn/core/error.h"

namespace wnn::cli {

std::string single_positional(const std::vector<std::string>& rest, std::string_view command,
                              std::string_view what) {
  check(!rest.empty(), "wnn {}: missing {} (see wnn {} --help)", command, what, command);
  check(rest.size() == 1, "wnn {}: expected one {}, got {} arguments: {}", command, what,
        rest.size(), fmt::join(rest, " "));
  return rest[0];
}

bool has_extension(std::string_view path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  return std::equal(ext.begin(), ext.end(), path.end() - long(ext.size()), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace wnn::cli
