// Values for the free dimensions of an ONNX model's inputs (`--override-dim`, the Python
// binding's `override_dims`, `--override-dims-file`, the sweep manifest). A key is either a
// dimension name ("batch") or one axis of one graph input ("input:1", "input:0:1" for axis 1
// of the input called "input:0"): the only definition of that form, shared by every reader.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace wnn::onnx {

// One axis of one graph input.
struct InputAxis {
  std::string input;
  size_t axis = 0;
  auto operator<=>(const InputAxis&) const = default;
};

// The axis `key` refers to when it ends in ":<digits>" and the text before that is a graph
// input (`is_input`); nullopt when it is a dimension name.
std::optional<InputAxis> parse_axis_reference(
    std::string_view key, const std::function<bool(std::string_view)>& is_input);

// The key of one input's axis: parse_axis_reference reads it back as that axis.
std::string axis_key(std::string_view input, size_t axis);

// Splits "KEY=V" at its last '=' (a name may hold '=') and parses V as a non-negative integer;
// `option` names the flag in errors.
std::pair<std::string, int64_t> parse_dim_override(std::string_view text, std::string_view option);

// The flag that gives a value to `input`'s axis `axis`, whose dimension is named `param` (empty
// when unnamed): "--override-dim batch=V" or "--override-dim x:1=V".
std::string dim_override_flag(std::string_view input, size_t axis, std::string_view param);

// The keys of `overrides` split into axis references and dimension names.
struct DimOverrides {
  std::map<InputAxis, int64_t> axes;
  std::map<std::string, int64_t, std::less<>> names;
};
DimOverrides classify_dim_overrides(const std::map<std::string, int64_t>& overrides,
                                    const std::function<bool(std::string_view)>& is_input);

}  // namespace wnn::onnx
