// Argument helpers the graph-file commands (check, fmt, info, convert) share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wnn::cli {

// The one positional a command takes; throws a usage error naming `what` otherwise.
std::string single_positional(const std::vector<std::string>& rest, std::string_view command,
                              std::string_view what);

bool has_extension(std::string_view path, std::string_view ext);

}  // namespace wnn::cli
