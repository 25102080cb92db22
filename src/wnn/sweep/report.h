// What a sweep tells its readers: the summary text in manifest order (passed, failed and
// expected-failure lists, failures grouped by first blocker), the JSON report that shards write
// and `wnn report merge` combines, and JUnit XML for CI systems.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wnn/sweep/result.h"

namespace wnn::sweep {

struct SweepReport {
  std::string manifest;  // the manifest path as given
  std::string weights;   // "real" or "zeros"
  std::string selection, shard;
  size_t manifest_entries = 0;
  std::vector<EntryResult> entries;  // kept in manifest order

  // True when any entry failed unexpectedly or passed unexpectedly.
  bool is_red() const;
};

std::string summary_text(const SweepReport& report);
nlohmann::json to_json(const SweepReport& report);
SweepReport sweep_report_from_json(const nlohmann::json& j, const std::string& where);
std::string junit_xml(const SweepReport& report);

// Shard reports of one manifest merged into one, in manifest order. Different manifests or
// weights modes, or one id in two reports, are errors naming the files.
SweepReport merge_reports(const std::vector<std::pair<std::string, SweepReport>>& reports);

}  // namespace wnn::sweep
