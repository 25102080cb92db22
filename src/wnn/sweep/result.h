// One sweep entry's result and how it counts: its own pass/fail, the stage that first blocked
// it, and its outcome against the manifest's `expect`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wnn/sweep/manifest.h"

namespace wnn::sweep {

enum class Outcome {
  kPass,            // passed, as expected
  kFail,            // failed although expected to pass: turns the run red
  kExpectedFail,    // failed, as "fail:<reason>" expected
  kUnexpectedPass,  // passed although expected to fail: turns the run red (update the manifest)
};

struct EntryResult {
  size_t index = 0;
  std::string id, source, expect;
  bool expect_pass = true;
  std::string model_path;  // local path after download ("" when the download failed)
  std::string commit;      // the resolved Hub commit, when the source is "hf"
  bool passed = false;
  // When failed: download | conversion | runtime | reference | numerical | crash.
  std::string stage;
  std::string message;  // one line on what failed
  std::string blocker;  // the summary's group: "conversion: unsupported op X", "numerical", ...
  double seconds = 0;
  // Outputs that passed only within the reference's noise floor (the report's
  // noise_floor.within_floor): a pass the summaries mark as such.
  std::vector<std::string> within_noise_floor;
  nlohmann::json report;  // `wnn validate`'s report, or null

  Outcome outcome() const;
  bool is_red() const {
    return outcome() == Outcome::kFail || outcome() == Outcome::kUnexpectedPass;
  }
};

const char* outcome_name(Outcome o);

// A result for `e` before it ran: identity and expectation filled in.
EntryResult result_for(const ManifestEntry& e);

// Fills passed/stage/message/blocker from `wnn validate --report`'s JSON.
void classify_validate_report(EntryResult& r, const nlohmann::json& report);
// A failure at `stage` with `message`; the blocker is the stage.
void mark_failed(EntryResult& r, const std::string& stage, const std::string& message);
// Convert-only (--weights zeros) failures: `stderr_text` is `wnn convert`'s stderr; listed
// unsupported nodes name the blocker.
void classify_convert_failure(EntryResult& r, int exit_code, const std::string& stderr_text);

// "within the reference's noise floor: a, b" for a pass that relied on it, else "".
std::string noise_floor_note(const EntryResult& r);

// EntryResult <-> the JSON entry of a sweep report (merge reads reports back).
nlohmann::json to_json(const EntryResult& r);
EntryResult entry_result_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace wnn::sweep
