// The validation report as JSON (the contract `wnn validate-models` reads; docs/validation.md)
// and as the human summary: one line per output with ✓ or ✗ and the key numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "wnn/validate/validate.h"

namespace wnn::validate {

nlohmann::json report_json(const Report& report);
std::string report_summary(const Report& report);
// Writes report_json to `path` atomically.
void write_report(const std::string& path, const Report& report);

}  // namespace wnn::validate
