// The `per_node` section of the validation report and its summary lines (report.h).
#include <fmt/format.h>

#include <map>

#include "wnn/validate/report.h"

namespace wnn::validate {

namespace {

constexpr size_t kNamesShown = 6;  // skipped values named per reason in the summary

nlohmann::json nullable(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

nlohmann::json node_json(const NodeRecord& n) {
  nlohmann::json j = metrics_json(n.metrics, n.has_metrics(), n.floor);
  j.update({{"onnx_node", n.node},
            {"op_type", n.op_type},
            {"value", n.value},
            {"operand", nullable(n.operand)},
            {"inputs", n.inputs},
            {"dtype", n.compared() ? nlohmann::json(dtype_name(n.dtype)) : nullptr},
            {"shape", n.compared() ? nlohmann::json(n.shape) : nullptr},
            {"skipped", nullable(n.skipped)},
            {"mismatch", nullable(n.mismatch)},
            {"pass", n.compared() ? nlohmann::json(n.pass) : nullptr},
            {"atol", n.has_metrics() ? nlohmann::json(n.tol.atol) : nullptr},
            {"rtol", n.has_metrics() ? nlohmann::json(n.tol.rtol) : nullptr}});
  return j;
}

std::string node_label(const NodeRecord& n) {
  return fmt::format("'{}' ({}) -> {}", n.node.empty() ? "(unnamed)" : n.node, n.op_type, n.value);
}

std::string node_metrics(const NodeRecord& n) {
  return n.mismatch.empty() ? metrics_text(n.metrics, n.dtype, n.floor) : n.mismatch;
}

}  // namespace

nlohmann::json per_node_json(const PerNodeReport& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : r.nodes) nodes.push_back(node_json(n));
  nlohmann::json worst = nlohmann::json::array();
  for (size_t i : r.worst) worst.push_back(r.nodes[i].value);
  nlohmann::json first = nullptr;
  if (r.first_divergent) {
    const NodeRecord& n = r.nodes[*r.first_divergent];
    first = {
        {"onnx_node", n.node}, {"op_type", n.op_type}, {"value", n.value}, {"operand", n.operand}};
  }
  return {{"compared", r.compared},
          {"skipped", r.skipped},
          {"failing", r.failing},
          {"first_divergent", first},
          {"worst", worst},
          {"batches", r.batches},
          {"memory_budget_mb", double(r.memory_budget) / (1 << 20)},
          {"noise_floor_batches", r.noise_floor_batches},
          {"noise_floor_error", nullable(r.noise_floor_error)},
          {"error", nullable(r.error)},
          {"error_stage", nullable(r.error_stage)},
          {"ms", r.ms},
          {"nodes", nodes}};
}

std::string per_node_summary(const PerNodeReport& r) {
  std::string s = fmt::format(
      "per-node: {} value(s) compared in {} batch(es), {} skipped, {} beyond tolerance ({:.1f} "
      "s)\n",
      r.compared, r.batches, r.skipped, r.failing, r.ms / 1000);
  // Skipped values grouped by reason, in order of first appearance.
  std::vector<std::string> reasons;
  std::map<std::string, std::vector<const NodeRecord*>> by_reason;
  for (const auto& n : r.nodes) {
    if (n.compared()) continue;
    if (!by_reason.count(n.skipped)) reasons.push_back(n.skipped);
    by_reason[n.skipped].push_back(&n);
  }
  for (const auto& reason : reasons) {
    const auto& group = by_reason[reason];
    std::string names;
    for (size_t i = 0; i < group.size() && i < kNamesShown; ++i) {
      names += (i ? ", " : "") + group[i]->value;
    }
    if (group.size() > kNamesShown)
      names += fmt::format(", ... ({} more)", group.size() - kNamesShown);
    s += fmt::format("  skipped {}: {}: {}\n", group.size(), reason, names);
  }
  if (!r.error.empty()) s += fmt::format("  stopped at {}: {}\n", r.error_stage, r.error);
  if (!r.noise_floor_error.empty()) {
    s += fmt::format("  noise floor not measured: {}\n", r.noise_floor_error);
  }
  if (!r.first_divergent) {
    if (r.error.empty()) s += "  every compared value is within tolerance\n";
    return s;
  }
  const NodeRecord& f = r.nodes[*r.first_divergent];
  s += fmt::format("first divergent: {} {}{}\n", node_label(f), dtype_name(f.dtype),
                   shape_to_string(f.shape));
  s += fmt::format("  inputs: {}\n", fmt::join(f.inputs, ", "));
  s += fmt::format("  {}  (atol {:g} rtol {:g})\n", node_metrics(f), f.tol.atol, f.tol.rtol);
  s += "worst:\n";
  for (size_t i : r.worst) {
    const NodeRecord& n = r.nodes[i];
    s += fmt::format("  {} {}  {}\n", n.pass ? "✓" : "✗", node_label(n), node_metrics(n));
  }
  return s;
}

}  // namespace wnn::validate
