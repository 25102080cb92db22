// Command-line parsing for wnn commands: GNU long options (--name VALUE or --name=VALUE),
// a few short forms, and positionals. Each command takes what it knows, then finish()
// rejects anything left over, so no flag is silently ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wnn::cli {

class Args {
 public:
  explicit Args(std::vector<std::string> argv) : argv_(std::move(argv)), used_(argv_.size()) {}

  // A boolean flag: --name (or -s).
  bool flag(std::string_view name, char short_name = 0);
  // The value of --name VALUE / --name=VALUE / -s VALUE; the last one given wins.
  std::optional<std::string> value(std::string_view name, char short_name = 0);
  // Every value of a repeatable option, in order.
  std::vector<std::string> values(std::string_view name, char short_name = 0);
  std::optional<int64_t> int_value(std::string_view name, char short_name = 0);
  // Whether any argument not yet consumed ends with `suffix` (dispatch on an input's type).
  bool any_ends_with(std::string_view suffix) const;
  // Everything not consumed. Throws on an unknown option.
  std::vector<std::string> finish();

 private:
  bool matches(size_t i, std::string_view name, char short_name, std::string* inline_value);
  std::vector<std::string> argv_;
  std::vector<bool> used_;
};

}  // namespace wnn::cli
