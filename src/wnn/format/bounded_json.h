// JSON from untrusted files (Safetensors headers, weights manifests), parsed with a bound on
// nesting and with duplicate top-level keys reported instead of silently collapsed.
// Internal to the format module.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace wnn::format {

// Parses `text`; `what` names the file in errors ("<what>: ... is not valid JSON: ...").
// Throws when the nesting is deeper than `max_depth` or an object at the top level repeats a
// key. (A depth-checking parser callback would do the same, but nlohmann's callback parser is
// quadratic in the number of keys: 6 s for 16k tensors.)
// The checks parse_bounded_json makes before parsing, in one linear pass over the raw text:
// nesting depth and repeated top-level keys. For callers that parse (and report) themselves.
void check_json_structure(std::string_view text, int max_depth, const std::string& what);

nlohmann::json parse_bounded_json(std::string_view text, int max_depth, const std::string& what);

}  // namespace wnn::format
