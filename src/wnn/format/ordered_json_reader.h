// Parses JSON into nlohmann::ordered_json (members in document order) in linear time.
// nlohmann's own ordered_json parse checks every new key against all earlier ones, so an
// object of n keys costs n^2 / 2 comparisons: 17 s of CPU for a graph of 80k constants.
// Internal to the format module.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace wnn::format {

// Parses `text`. A key repeated within one object is an error naming it and `what`; malformed
// JSON throws nlohmann::json::parse_error (with its byte position) for the caller to report.
nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& what);

}  // namespace wnn::format
