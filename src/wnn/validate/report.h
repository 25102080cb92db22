// The validation report as JSON (the contract `wnn validate-models` reads; docs/validation.md)
// and as the human summary: one line per output with ✓ or ✗ and the key numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "wnn/validate/validate.h"

namespace wnn::validate {

nlohmann::json report_json(const Report& report);
// What the per-output and per-node sections share: the metrics as JSON (null when not
// compared; the floor null when none was measured) and as the summary's text ("max_abs ...
// floor 0.00266 (x4)  within noise floor (...)").
nlohmann::json metrics_json(const OutputMetrics& metrics, bool compared,
                            const std::optional<NoiseFloor>& floor);
std::string metrics_text(const OutputMetrics& metrics, DataType dtype,
                         const std::optional<NoiseFloor>& floor);
// The `per_node` section and its summary lines (per_node_report.cc).
nlohmann::json per_node_json(const PerNodeReport& report);
std::string per_node_summary(const PerNodeReport& report);
std::string report_summary(const Report& report);
// Writes report_json to `path` atomically.
void write_report(const std::string& path, const Report& report);

}  // namespace wnn::validate
