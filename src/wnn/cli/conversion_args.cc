#include "wnn/cli/conversion_args.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/cli/progress_line.h"
#include "wnn/cli/session_args.h"
#include "wnn/core/error.h"
#include "wnn/onnx/dim_overrides.h"
#include "wnn/validate/report.h"

namespace wnn::cli {

namespace {

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     std::string_view option) {
  const size_t eq = text.find('=');
  check(eq != std::string::npos && eq > 0, "{} expects NAME=VALUE, got '{}'", option, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void read_dims_file(const std::string& path, std::map<std::string, int64_t>& dims) {
  std::ifstream f(path);
  check(f.good(), "--override-dims-file: cannot read '{}'", path);
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  check(!j.is_discarded() && j.is_object(), "{}: expected a JSON object", path);
  if (j.contains("freeDimensionOverrides")) j = j["freeDimensionOverrides"];
  check(j.is_object(), "{}: freeDimensionOverrides must be an object", path);
  for (auto& [name, v] : j.items()) {
    check(v.is_number_integer() && v.get<int64_t>() >= 0,
          "{}: dimension '{}' must be a non-negative integer", path, name);
    dims[name] = v.get<int64_t>();
  }
}

double parse_tolerance(const std::string& v, std::string_view option) {
  size_t used = 0;
  double d = -1;
  try {
    d = std::stod(v, &used);
  } catch (...) {
  }
  check(used == v.size() && d >= 0, "{} must be a non-negative number, got '{}'", option, v);
  return d;
}

}  // namespace

onnx::ImportOptions conversion_options(Args& args) {
  onnx::ImportOptions options;
  if (auto f = args.value("override-dims-file")) read_dims_file(*f, options.override_dims);
  for (const auto& d : args.values("override-dim")) {
    auto [key, v] = onnx::parse_dim_override(d, "--override-dim");
    options.override_dims[key] = v;
  }
  for (const auto& p : args.values("pin-input")) {
    auto [name, v] = split_assignment(p, "--pin-input");
    options.pin_inputs[name] = v;
  }
  const std::string weights = args.value("weights").value_or("real");
  check(weights == "real" || weights == "zeros", "--weights must be real or zeros, got '{}'",
        weights);
  options.zero_missing_weights = weights == "zeros";
  return options;
}

void read_validation_options(Args& args, validate::ValidateOptions& options) {
  for (const auto& spec : args.values("input")) {
    options.input_files.push_back(split_assignment(spec, "--input"));
  }
  if (auto a = args.value("atol")) options.atol = parse_tolerance(*a, "--atol");
  if (auto r = args.value("rtol")) options.rtol = parse_tolerance(*r, "--rtol");
  const int64_t timeout = args.int_value("ort-timeout").value_or(600);
  check(timeout >= 1 && timeout <= 86400, "--ort-timeout must be in [1, 86400] seconds, got {}",
        timeout);
  options.reference.timeout_seconds = int(timeout);
  if (auto mode = args.value("noise-floor")) {
    const auto parsed = validate::parse_noise_floor_mode(*mode);
    check(parsed.has_value(), "--noise-floor must be auto, always or off, got '{}'", *mode);
    options.noise_floor = *parsed;
  }
  options.per_node.enabled = args.flag("per-node");
  if (auto mb = args.int_value("per-node-memory")) {
    check(*mb >= 1 && *mb <= (int64_t(1) << 30), "--per-node-memory must be at least 1 MB, got {}",
          *mb);
    check(options.per_node.enabled, "--per-node-memory needs --per-node");
    options.per_node.memory_budget = uint64_t(*mb) << 20;
  }
  options.session = session_options(args);
  options.session.warn_fallback = false;
  options.reference.threads = options.session.threads;
}

validate::Report run_validation(const std::string& onnx_path, validate::ValidateOptions options,
                                bool quiet, bool json) {
  ProgressLine progress(!json && !quiet && ::isatty(2) != 0);
  if (progress.enabled()) {
    options.progress = [&](const std::string& line) { progress.show("wnn validate " + line); };
  }
  validate::Report report = validate::validate_onnx_model(onnx_path, options);
  progress.done();
  return report;
}

int finish_validation(const validate::Report& report, const std::optional<std::string>& report_path,
                      bool quiet, bool json) {
  for (const auto& w : report.warnings) std::fprintf(stderr, "wnn: warning: %s\n", w.c_str());
  if (!report.cache_note.empty() && !quiet) {
    std::fprintf(stderr, "wnn: %s\n", report.cache_note.c_str());
  }
  if (report_path) validate::write_report(*report_path, report);
  if (json) {
    std::printf("%s\n", validate::report_json(report).dump(2).c_str());
  } else {
    std::fputs(validate::report_summary(report).c_str(), stdout);
  }
  if (!report.pass) {
    std::fflush(stdout);
    std::fprintf(stderr, "wnn: error: %s: %s\n", report.stage.c_str(), report.message.c_str());
  }
  return report.exit_code;
}

}  // namespace wnn::cli
