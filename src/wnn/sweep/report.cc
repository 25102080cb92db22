#include "wnn/sweep/report.h"

#include <algorithm>
#include <map>
#include <set>

#include "wnn/core/error.h"
#include "wnn/core/xml_escape.h"

namespace wnn::sweep {
using nlohmann::json;
namespace {

std::string percent(size_t part, size_t whole) {
  return whole == 0 ? "0.0%" : fmt::format("{:.1f}%", 100.0 * double(part) / double(whole));
}

std::string failure_detail(const EntryResult& r) {
  if (r.outcome() == Outcome::kUnexpectedPass) {
    return fmt::format("passed although the manifest expects {}", r.expect);
  }
  return r.message.empty() ? r.stage : r.message;
}

}  // namespace

bool SweepReport::is_red() const {
  return std::any_of(entries.begin(), entries.end(),
                     [](const EntryResult& r) { return r.is_red(); });
}

std::string summary_text(const SweepReport& report) {
  std::vector<const EntryResult*> passed, failed, expected;
  for (const auto& r : report.entries) {
    switch (r.outcome()) {
      case Outcome::kPass:
        passed.push_back(&r);
        break;
      case Outcome::kExpectedFail:
        expected.push_back(&r);
        break;
      default:
        failed.push_back(&r);
        break;
    }
  }
  const size_t n = report.entries.size();
  const size_t on_floor = size_t(std::count_if(
      passed.begin(), passed.end(), [](const auto* r) { return !noise_floor_note(*r).empty(); }));
  std::string out = fmt::format(
      "{} entries: {} passed ({}{}), {} failed ({}), {} expected failures ({})\n", n, passed.size(),
      percent(passed.size(), n),
      on_floor ? fmt::format(", {} within the reference's noise floor", on_floor) : "",
      failed.size(), percent(failed.size(), n), expected.size(), percent(expected.size(), n));
  auto list = [&](const char* title, const std::vector<const EntryResult*>& rs, bool reason) {
    if (rs.empty()) return;
    out += fmt::format("{} ({}):\n", title, rs.size());
    for (const auto* r : rs) {
      out += "  " + r->id;
      if (reason) out += fmt::format(" [{}: {}]", r->expect, r->stage.empty() ? "?" : r->stage);
      if (const std::string note = noise_floor_note(*r); !note.empty()) out += " [" + note + "]";
      out += "\n";
    }
  };
  list("passed", passed, false);
  list("expected failures", expected, true);
  if (!failed.empty()) {
    out += fmt::format("failed ({}), by first blocker:\n", failed.size());
    // Groups in the order their first entry appears in the manifest.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const EntryResult*>> groups;
    for (const auto* r : failed) {
      const std::string key =
          r->outcome() == Outcome::kUnexpectedPass ? "unexpected pass" : r->blocker;
      if (!groups.count(key)) order.push_back(key);
      groups[key].push_back(r);
    }
    for (const auto& key : order) {
      out += fmt::format("  {} ({}):\n", key, groups[key].size());
      for (const auto* r : groups[key]) {
        out += fmt::format("    {}: {}\n", r->id, failure_detail(*r));
      }
    }
  }
  return out;
}

json to_json(const SweepReport& report) {
  json entries = json::array();
  size_t counts[4] = {0, 0, 0, 0};
  for (const auto& r : report.entries) {
    entries.push_back(to_json(r));
    ++counts[int(r.outcome())];
  }
  return json{{"wnn_version", WNN_VERSION},
              {"kind", "wnn validate-models"},
              {"manifest", report.manifest},
              {"weights", report.weights},
              {"selection", report.selection},
              {"shard", report.shard},
              {"manifest_entries", report.manifest_entries},
              {"summary",
               {{"entries", report.entries.size()},
                {"passed", counts[int(Outcome::kPass)]},
                {"passed_within_noise_floor",
                 std::count_if(report.entries.begin(), report.entries.end(),
                               [](const EntryResult& r) { return !noise_floor_note(r).empty(); })},
                {"failed", counts[int(Outcome::kFail)]},
                {"expected_failures", counts[int(Outcome::kExpectedFail)]},
                {"unexpected_passes", counts[int(Outcome::kUnexpectedPass)]},
                {"red", report.is_red()}}},
              {"entries", entries}};
}

SweepReport sweep_report_from_json(const json& j, const std::string& where) {
  check(j.is_object() && j.value("kind", "") == "wnn validate-models" && j.contains("entries") &&
            j["entries"].is_array(),
        "{}: not a wnn validate-models report", where);
  SweepReport r;
  r.manifest = j.value("manifest", "");
  r.weights = j.value("weights", "real");
  r.selection = j.value("selection", "all");
  r.shard = j.value("shard", "1/1");
  r.manifest_entries = j.value("manifest_entries", size_t(0));
  for (size_t i = 0; i < j["entries"].size(); ++i) {
    r.entries.push_back(
        entry_result_from_json(j["entries"][i], fmt::format("{}: entries[{}]", where, i)));
  }
  return r;
}

std::string junit_xml(const SweepReport& report) {
  size_t failures = 0, skipped = 0;
  double seconds = 0;
  for (const auto& r : report.entries) {
    failures += r.is_red();
    skipped += r.outcome() == Outcome::kExpectedFail;
    seconds += r.seconds;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"wnn validate-models\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      report.entries.size(), failures, skipped, seconds);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      xml_escape(report.manifest), report.entries.size(), failures, skipped, seconds);
  for (const auto& r : report.entries) {
    out += fmt::format("    <testcase classname=\"validate-models\" name=\"{}\" time=\"{:.3f}\"",
                       xml_escape(r.id), r.seconds);
    const Outcome o = r.outcome();
    const std::string note = noise_floor_note(r);
    if (o == Outcome::kPass && note.empty()) {
      out += "/>\n";
      continue;
    }
    if (o == Outcome::kPass) {
      out += fmt::format(
          ">\n      <properties><property name=\"within_noise_floor\" value=\"{}\"/></properties>\n"
          "      <system-out>{}</system-out>\n    </testcase>\n",
          xml_escape(fmt::format("{}", fmt::join(r.within_noise_floor, ","))), xml_escape(note));
      continue;
    }
    out += ">\n";
    if (o == Outcome::kExpectedFail) {
      out += fmt::format("      <skipped message=\"expected failure ({}): {}\"/>\n",
                         xml_escape(r.expect), xml_escape(failure_detail(r)));
    } else {
      const std::string type = o == Outcome::kUnexpectedPass ? "unexpected-pass" : r.stage;
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}\n{}</failure>\n",
                         xml_escape(type), xml_escape(failure_detail(r)),
                         xml_escape(r.blocker.empty() ? type : r.blocker), xml_escape(r.source));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

SweepReport merge_reports(const std::vector<std::pair<std::string, SweepReport>>& reports) {
  check(!reports.empty(), "wnn report merge: no reports given");
  SweepReport merged = reports.front().second;
  merged.entries.clear();
  merged.shard = "merged";
  std::map<std::string, std::string> seen;  // id -> file
  for (const auto& [file, r] : reports) {
    check(r.manifest == merged.manifest,
          "{}: report of manifest '{}', but {} is of '{}'; merge shards of one manifest", file,
          r.manifest, reports.front().first, merged.manifest);
    check(r.weights == merged.weights, "{}: weights mode '{}' differs from {}'s '{}'", file,
          r.weights, reports.front().first, merged.weights);
    for (const auto& e : r.entries) {
      const auto [it, fresh] = seen.emplace(e.id, file);
      check(fresh, "{}: entry '{}' is also in {}", file, e.id, it->second);
      merged.entries.push_back(e);
    }
  }
  std::stable_sort(merged.entries.begin(), merged.entries.end(),
                   [](const EntryResult& a, const EntryResult& b) { return a.index < b.index; });
  return merged;
}

}  // namespace wnn::sweep
