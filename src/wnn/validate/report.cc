#include "wnn/validate/report.h"

#include <fmt/format.h>

#include <algorithm>

#include "wnn/core/atomic_file.h"

namespace wnn::validate {

namespace {

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json nullable_string(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

std::string input_dtype(const InputRecord& in) {
  return in.onnx_bool ? "bool" : std::string(dtype_name(in.dtype));
}

size_t within_floor_count(const Report& r) {
  return size_t(std::count_if(r.outputs.begin(), r.outputs.end(), [](const OutputRecord& o) {
    return o.compared && o.metrics.within_floor_only();
  }));
}

nlohmann::json noise_floor_section(const Report& r) {
  nlohmann::json within = nlohmann::json::array();
  for (const auto& o : r.outputs) {
    if (o.compared && o.metrics.within_floor_only()) within.push_back(o.name);
  }
  return {{"mode", noise_floor_mode_name(r.noise_floor.mode)},
          {"k", kNoiseFloorFactor},
          {"k_int8_activations", kInt8ActivationsFactor},
          {"measured", r.noise_floor.measured},
          {"runs", r.noise_floor.runs},
          {"error", nullable_string(r.noise_floor.error)},
          {"within_floor", within}};
}

}  // namespace

nlohmann::json noise_floor_json(const std::optional<NoiseFloor>& floor) {
  if (!floor) return nullptr;
  return {{"max_abs", floor->value},
          {"per_run", floor->per_run},
          {"differing", floor->differing},
          {"int8_activations_max_abs",
           floor->int8_activations ? nlohmann::json(*floor->int8_activations) : nullptr},
          {"int8_activations_differing",
           floor->int8_activations ? nlohmann::json(floor->int8_differing) : nullptr}};
}

nlohmann::json metrics_json(const OutputMetrics& m, bool compared,
                            const std::optional<NoiseFloor>& floor) {
  auto metric = [&](auto v) { return compared ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"failing", metric(m.failing)},
          {"failing_fraction", metric(m.failing_fraction)},
          {"failing_without_floor", metric(m.failing_without_floor)},
          {"max_abs", metric(m.max_abs)},
          {"mean_abs", metric(m.mean_abs)},
          {"rmse", metric(m.rmse)},
          {"max_normalized", metric(m.max_normalized)},
          {"cosine", compared && m.cosine ? nlohmann::json(*m.cosine) : nullptr},
          {"top1_agreement",
           compared && m.top1_agreement ? nlohmann::json(*m.top1_agreement) : nullptr},
          {"noise_floor", noise_floor_json(floor)},
          {"within_noise_floor", compared && m.within_floor_only()}};
}

std::string metrics_text(const OutputMetrics& m, DataType dtype,
                         const std::optional<NoiseFloor>& floor) {
  std::string s = fmt::format("max_abs {:.3g}  mean_abs {:.3g}  max_norm {:.3g}", m.max_abs,
                              m.mean_abs, m.max_normalized);
  if (m.cosine) s += fmt::format("  cos {:.6f}", *m.cosine);
  if (m.top1_agreement) s += fmt::format("  top1 {:.1f}%", *m.top1_agreement * 100);
  if (m.failing > 0) {
    s += fmt::format("  failing {}/{} ({:.2f}%)", m.failing, m.elements, m.failing_fraction * 100);
  }
  if (floor && is_float(dtype)) {
    s += fmt::format("  floor {:.3g} (x{:g})", floor->value, kNoiseFloorFactor);
    if (floor->int8_activations) {
      s += fmt::format(", int8 activations {:.3g} (x{:g})", *floor->int8_activations,
                       kInt8ActivationsFactor);
    }
  } else if (floor) {
    s += fmt::format("  floor {} differing (x{:g})", floor->differing, kNoiseFloorFactor);
    if (floor->int8_activations) {
      s += fmt::format(", int8 activations {} differing (x{:g})", floor->int8_differing,
                       kInt8ActivationsFactor);
    }
  }
  if (m.within_floor_only()) {
    s += fmt::format("  within noise floor ({} beyond {})", m.failing_without_floor,
                     is_float(dtype) ? "atol/rtol" : "exact");
  }
  return s;
}

nlohmann::json report_json(const Report& r) {
  nlohmann::json j = nlohmann::json::object();
  j["wnn_version"] = WNN_VERSION;
  j["model"] = r.model;
  j["sha256"] = nullable_string(r.sha256);
  j["status"] = r.pass ? "pass" : "fail";
  j["stage"] = nullable_string(r.stage);
  j["message"] = nullable_string(r.message);
  j["unsupported"] = nlohmann::json::array();
  for (const auto& u : r.unsupported) {
    j["unsupported"].push_back({{"node", u.node},
                                {"op_type", u.op_type},
                                {"domain", u.domain},
                                {"opset", u.opset},
                                {"reason", u.reason}});
  }
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : r.inputs) {
    j["inputs"].push_back({{"name", in.name},
                           {"dtype", input_dtype(in)},
                           {"shape", in.shape},
                           {"source", in.source}});
  }
  j["outputs"] = nlohmann::json::array();
  for (const auto& o : r.outputs) {
    nlohmann::json out = metrics_json(o.metrics, o.compared, o.floor);
    out.update({{"name", o.name},
                {"dtype", dtype_name(o.dtype)},
                {"shape", o.shape},
                {"pass", o.pass},
                {"atol", o.tol.atol},
                {"rtol", o.tol.rtol},
                {"profile", dtype_name(o.profile)}});
    j["outputs"].push_back(std::move(out));
  }
  j["noise_floor"] = noise_floor_section(r);
  j["arithmetic"] = r.arithmetic;
  j["per_node"] = r.per_node ? per_node_json(*r.per_node) : nlohmann::json(nullptr);
  j["timings_ms"] = {{"convert", optional_number(r.timings.convert)},
                     {"load", optional_number(r.timings.load)},
                     {"wnn_run", optional_number(r.timings.wnn_run)},
                     {"ort_run", optional_number(r.timings.ort_run)},
                     {"noise_floor", optional_number(r.timings.noise_floor)},
                     {"per_node", optional_number(r.timings.per_node)}};
  return j;
}

std::string report_summary(const Report& r) {
  std::string s;
  for (const auto& o : r.outputs) {
    const auto& m = o.metrics;
    s += fmt::format("{} {} {}{}", o.pass ? "✓" : "✗", o.name, dtype_name(o.dtype),
                     shape_to_string(o.shape));
    if (o.compared) {
      s += "  " + metrics_text(m, o.dtype, o.floor);
      s += fmt::format("  (atol {:g} rtol {:g}{})", o.tol.atol, o.tol.rtol,
                       o.profile != o.dtype
                           ? fmt::format(", {} profile: computed in {}", dtype_name(o.profile),
                                         dtype_name(o.profile))
                           : std::string());
    } else {
      s += "  not compared (shape or dtype differs)";
    }
    s += "\n";
  }
  if (!r.noise_floor.error.empty()) {
    s += fmt::format("noise floor not measured: {}\n", r.noise_floor.error);
  }
  if (r.per_node) s += per_node_summary(*r.per_node);
  for (const auto& line : r.arithmetic) s += line + "\n";
  if (r.pass) {
    s += fmt::format("PASS {}: {} output(s) match ONNX Runtime", r.model, r.outputs.size());
    if (const size_t n = within_floor_count(r); n > 0) {
      const bool int8 = std::any_of(r.outputs.begin(), r.outputs.end(), [](const auto& o) {
        return o.floor && o.floor->int8_activations;
      });
      s += fmt::format(
          " ({} within {:g}x the reference's noise floor{})", n, kNoiseFloorFactor,
          int8 ? fmt::format(" or {:g}x its int8 activation quantization", kInt8ActivationsFactor)
               : "");
    }
  } else {
    s += fmt::format("FAIL {} at {}: {}", r.model, r.stage, r.message);
  }
  auto ms = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.1f} ms", *v) : std::string("-");
  };
  s +=
      fmt::format("\ntimings: convert {}, load {}, wnn run {}, ORT run {}\n", ms(r.timings.convert),
                  ms(r.timings.load), ms(r.timings.wnn_run), ms(r.timings.ort_run));
  return s;
}

void write_report(const std::string& path, const Report& report) {
  write_file_atomic(path, report_json(report).dump(2) + "\n");
}

}  // namespace wnn::validate
