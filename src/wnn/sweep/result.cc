#include "wnn/sweep/result.h"

#include <regex>

#include "wnn/core/error.h"

namespace wnn::sweep {
using nlohmann::json;
namespace {

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 297) + "..." : line;
}

std::string op_label(const json& u) {
  const std::string op = u.value("op_type", "?");
  const std::string domain = u.value("domain", "");
  return domain.empty() || domain == "ai.onnx" ? op : domain + "::" + op;
}

std::string string_or(const json& j, const char* key, const std::string& fallback) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

}  // namespace

Outcome EntryResult::outcome() const {
  if (expect_pass) return passed ? Outcome::kPass : Outcome::kFail;
  return passed ? Outcome::kUnexpectedPass : Outcome::kExpectedFail;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kExpectedFail:
      return "expected-fail";
    case Outcome::kUnexpectedPass:
      return "unexpected-pass";
  }
  return "?";
}

EntryResult result_for(const ManifestEntry& e) {
  EntryResult r;
  r.index = e.index;
  r.id = e.id;
  r.source = e.source_text();
  r.expect = e.expect_text();
  r.expect_pass = e.expect_pass;
  return r;
}

void mark_failed(EntryResult& r, const std::string& stage, const std::string& message) {
  r.passed = false;
  r.stage = stage;
  r.message = first_line(message);
  r.blocker = stage;
}

std::vector<std::string> strings_at(const json& j, const char* object, const char* key) {
  std::vector<std::string> out;
  if (!j.is_object() || !j.contains(object) || !j[object].is_object()) return out;
  const json& list = j[object].value(key, json::array());
  if (!list.is_array()) return out;
  for (const auto& s : list) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

void classify_validate_report(EntryResult& r, const json& report) {
  r.report = report;
  r.within_noise_floor = strings_at(report, "noise_floor", "within_floor");
  if (report.value("status", "") == "pass") {
    r.passed = true;
    r.stage.clear();
    r.message.clear();
    r.blocker.clear();
    return;
  }
  const std::string stage = string_or(report, "stage", "runtime");
  mark_failed(r, stage, string_or(report, "message", "failed"));
  if (stage == "conversion" && report.contains("unsupported") && report["unsupported"].is_array() &&
      !report["unsupported"].empty()) {
    r.blocker = "conversion: unsupported op " + op_label(report["unsupported"][0]);
  }
  if (stage == "numerical" && report.contains("outputs") && report["outputs"].is_array()) {
    for (const auto& o : report["outputs"]) {
      if (o.value("pass", true)) continue;
      const double max_abs =
          o.contains("max_abs") && o["max_abs"].is_number() ? o["max_abs"].get<double>() : 0.0;
      const bool counted = o.contains("failing") && o["failing"].is_number();
      r.message =
          fmt::format("output '{}': max error {:.3g} ({} elements off)", string_or(o, "name", "?"),
                      max_abs, counted ? o["failing"].dump() : std::string("?"));
      break;
    }
  }
}

void classify_convert_failure(EntryResult& r, int exit_code, const std::string& stderr_text) {
  std::string message;
  const size_t at = stderr_text.rfind("wnn: ");
  message = at == std::string::npos ? fmt::format("wnn convert exited with status {}", exit_code)
                                    : stderr_text.substr(at);
  mark_failed(r, "conversion", message);
  // The importer lists each unsupported node as "  node 'NAME': OP (domain 'D', opset N)".
  static const std::regex node_line(R"(node '[^']*': (\S+) \(domain '([^']*)')");
  std::smatch m;
  if (std::regex_search(stderr_text, m, node_line)) {
    r.blocker = "conversion: unsupported op " +
                op_label(json{{"op_type", m[1].str()}, {"domain", m[2].str()}});
  }
}

std::string noise_floor_note(const EntryResult& r) {
  if (!r.passed || r.within_noise_floor.empty()) return "";
  return fmt::format("within the reference's noise floor: {}",
                     fmt::join(r.within_noise_floor, ", "));
}

json to_json(const EntryResult& r) {
  return json{{"index", r.index},
              {"id", r.id},
              {"source", r.source},
              {"expect", r.expect},
              {"model", r.model_path},
              {"commit", r.commit.empty() ? json(nullptr) : json(r.commit)},
              {"status", r.passed ? "pass" : "fail"},
              {"outcome", outcome_name(r.outcome())},
              {"stage", r.stage.empty() ? json(nullptr) : json(r.stage)},
              {"message", r.message.empty() ? json(nullptr) : json(r.message)},
              {"blocker", r.blocker.empty() ? json(nullptr) : json(r.blocker)},
              {"seconds", r.seconds},
              {"within_noise_floor", r.within_noise_floor},
              {"validate_report", r.report}};
}

EntryResult entry_result_from_json(const json& j, const std::string& where) {
  check(j.is_object() && j.contains("index") && j["index"].is_number_unsigned() &&
            j.contains("id") && j["id"].is_string() && j.contains("status") &&
            j.contains("expect") && j["expect"].is_string(),
        "{}: not an entry of a wnn validate-models report", where);
  EntryResult r;
  r.index = j["index"].get<size_t>();
  r.id = j["id"].get<std::string>();
  r.source = string_or(j, "source", "");
  r.expect = j["expect"].get<std::string>();
  r.expect_pass = r.expect == "pass";
  r.model_path = string_or(j, "model", "");
  r.commit = string_or(j, "commit", "");
  r.passed = j["status"] == "pass";
  r.stage = string_or(j, "stage", "");
  r.message = string_or(j, "message", "");
  r.blocker = string_or(j, "blocker", "");
  r.seconds = j.value("seconds", 0.0);
  for (const auto& o : j.value("within_noise_floor", json::array())) {
    if (o.is_string()) r.within_noise_floor.push_back(o.get<std::string>());
  }
  r.report = j.value("validate_report", json(nullptr));
  return r;
}

}  // namespace wnn::sweep
