#include "wnn/cli/args.h"

#include <charconv>

#include "wnn/core/error.h"

namespace wnn::cli {

bool Args::matches(size_t i, std::string_view name, char short_name, std::string* inline_value) {
  if (used_[i]) return false;
  const std::string& a = argv_[i];
  if (a == "--") return false;
  const std::string long_form = "--" + std::string(name);
  if (a == long_form) return true;
  if (inline_value != nullptr && a.rfind(long_form + "=", 0) == 0) {
    *inline_value = a.substr(long_form.size() + 1);
    return true;
  }
  return short_name != 0 && a.size() == 2 && a[0] == '-' && a[1] == short_name;
}

bool Args::flag(std::string_view name, char short_name) {
  bool found = false;
  for (size_t i = 0; i < argv_.size(); ++i) {
    if (argv_[i] == "--") break;
    if (matches(i, name, short_name, nullptr)) {
      used_[i] = true;
      found = true;
    }
  }
  return found;
}

std::vector<std::string> Args::values(std::string_view name, char short_name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv_.size(); ++i) {
    if (argv_[i] == "--") break;
    std::string inline_value;
    const bool has_inline = argv_[i].find('=') != std::string::npos;
    if (!matches(i, name, short_name, &inline_value)) continue;
    used_[i] = true;
    if (has_inline && argv_[i].rfind("--", 0) == 0) {
      out.push_back(inline_value);
      continue;
    }
    check(i + 1 < argv_.size(), "option --{} needs a value", name);
    used_[i + 1] = true;
    out.push_back(argv_[++i]);
  }
  return out;
}

std::optional<std::string> Args::value(std::string_view name, char short_name) {
  auto all = values(name, short_name);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::optional<int64_t> Args::int_value(std::string_view name, char short_name) {
  const auto v = value(name, short_name);
  if (!v) return std::nullopt;
  int64_t out = 0;
  const auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  check(ec == std::errc() && p == v->data() + v->size(), "option --{} needs an integer, got '{}'",
        name, *v);
  return out;
}

std::vector<std::string> Args::finish() {
  std::vector<std::string> rest;
  bool after_dashes = false;
  for (size_t i = 0; i < argv_.size(); ++i) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (!after_dashes && a == "--") {
      after_dashes = true;
      continue;
    }
    check(after_dashes || a.empty() || a[0] != '-' || a == "-", "unknown option '{}' (see --help)",
          a);
    rest.push_back(a);
  }
  return rest;
}

}  // namespace wnn::cli
