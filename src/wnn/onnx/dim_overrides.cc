#include "wnn/onnx/dim_overrides.h"

#include <fmt/format.h>

#include "wnn/core/error.h"

namespace wnn::onnx {

std::optional<InputAxis> parse_axis_reference(
    std::string_view key, const std::function<bool(std::string_view)>& is_input) {
  const size_t colon = key.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == key.size()) return std::nullopt;
  const std::string_view digits = key.substr(colon + 1);
  if (digits.size() > 9) return std::nullopt;  // no tensor has a billion axes
  size_t axis = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    axis = axis * 10 + size_t(c - '0');
  }
  const std::string_view input = key.substr(0, colon);
  if (!is_input(input)) return std::nullopt;
  return InputAxis{std::string(input), axis};
}

std::string axis_key(std::string_view input, size_t axis) {
  return fmt::format("{}:{}", input, axis);
}

std::pair<std::string, int64_t> parse_dim_override(std::string_view text, std::string_view option) {
  const size_t eq = text.rfind('=');
  check(eq != std::string_view::npos && eq > 0,
        "{} expects NAME=VALUE or INPUT:AXIS=VALUE, got '{}'", option, text);
  const std::string key(text.substr(0, eq));
  const std::string value(text.substr(eq + 1));
  size_t used = 0;
  int64_t n = -1;
  try {
    n = std::stoll(value, &used);
  } catch (...) {
  }
  check(!value.empty() && value[0] >= '0' && value[0] <= '9' && used == value.size() && n >= 0,
        "{} {}: the value must be a non-negative integer, got '{}'", option, key, value);
  return {key, n};
}

std::string dim_override_flag(std::string_view input, size_t axis, std::string_view param) {
  return fmt::format("--override-dim {}=V", param.empty() ? axis_key(input, axis) : param);
}

DimOverrides classify_dim_overrides(const std::map<std::string, int64_t>& overrides,
                                    const std::function<bool(std::string_view)>& is_input) {
  DimOverrides out;
  for (const auto& [key, value] : overrides) {
    if (auto ref = parse_axis_reference(key, is_input)) {
      auto [it, inserted] = out.axes.emplace(*ref, value);
      check(inserted || it->second == value,
            "dimension override '{}={}': another key gives axis {} of '{}' the value {}", key,
            value, ref->axis, ref->input, it->second);
    } else {
      out.names.emplace(key, value);
    }
  }
  return out;
}

}  // namespace wnn::onnx
