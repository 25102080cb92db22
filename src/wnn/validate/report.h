// The validation report as JSON (the contract `wnn validate-models` reads; docs/validation.md)
// and as the human summary: one line per output with ✓ or ✗ and the key numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "wnn/validate/validate.h"

namespace wnn::validate {

nlohmann::json report_json(const Report& report);
// The parts the per-output and per-node sections share: a floor as JSON (null when none was
// measured) and the summary's floor annotation ("  floor 0.00266 (x2)  within noise floor ...").
nlohmann::json noise_floor_json(const std::optional<NoiseFloor>& floor);
std::string floor_text(const OutputMetrics& metrics, DataType dtype,
                       const std::optional<NoiseFloor>& floor);
// The `per_node` section and its summary lines (per_node_report.cc).
nlohmann::json per_node_json(const PerNodeReport& report);
std::string per_node_summary(const PerNodeReport& report);
std::string report_summary(const Report& report);
// Writes report_json to `path` atomically.
void write_report(const std::string& path, const Report& report);

}  // namespace wnn::validate
