#include "wnn/hub/safe_names.h"

#include <string_view>

#include "wnn/core/error.h"

namespace wnn::hub {
namespace {

void check_component(std::string_view part, const std::string& name, const std::string& what) {
  check(!part.empty(), "{}: '{}' has an empty path component", what, name);
  check(part != "." && part != "..", "{}: '{}' contains '{}'; names must stay inside the cache",
        what, name, part);
}

}  // namespace

void check_relative_name(const std::string& name, const std::string& what) {
  check(!name.empty(), "{}: the file name is empty", what);
  check(name.front() != '/', "{}: '{}' is an absolute path; it must be relative", what, name);
  check(name.find('\\') == std::string::npos && name.find('\0') == std::string::npos,
        "{}: '{}' contains a backslash or NUL", what, name);
  size_t start = 0;
  while (true) {
    const size_t slash = name.find('/', start);
    check_component(std::string_view(name).substr(start, slash - start), name, what);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

void check_single_component(const std::string& name, const std::string& what) {
  check_relative_name(name, what);
  check(name.find('/') == std::string::npos, "{}: '{}' must be a single file name", what, name);
}

void check_repo_id(const std::string& repo) {
  const std::string what = "repository id";
  check_relative_name(repo, what);
  int slashes = 0;
  for (char c : repo) {
    if (c == '/') {
      ++slashes;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    check(ok, "repository id '{}': character '{}' is not allowed", repo, c);
  }
  check(slashes <= 1, "repository id '{}' must be ORG/NAME", repo);
}

}  // namespace wnn::hub
