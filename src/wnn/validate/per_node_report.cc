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
  const auto& m = n.metrics;
  auto metric = [&](auto v) {
    return n.has_metrics() ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"onnx_node", n.node},
          {"op_type", n.op_type},
          {"value", n.value},
          {"operand", nullable(n.operand)},
          {"inputs", n.inputs},
          {"dtype", n.compared() ? nlohmann::json(dtype_name(n.dtype)) : nlohmann::json(nullptr)},
          {"shape", n.compared() ? nlohmann::json(n.shape) : nlohmann::json(nullptr)},
          {"skipped", nullable(n.skipped)},
          {"mismatch", nullable(n.mismatch)},
          {"pass", n.compared() ? nlohmann::json(n.pass) : nlohmann::json(nullptr)},
          {"atol", metric(n.tol.atol)},
          {"rtol", metric(n.tol.rtol)},
          {"failing", metric(m.failing)},
          {"failing_fraction", metric(m.failing_fraction)},
          {"failing_without_floor", metric(m.failing_without_floor)},
          {"max_abs", metric(m.max_abs)},
          {"mean_abs", metric(m.mean_abs)},
          {"max_normalized", metric(m.max_normalized)},
          {"cosine", n.has_metrics() && m.cosine ? nlohmann::json(*m.cosine) : nullptr},
          {"noise_floor", noise_floor_json(n.floor)},
          {"within_noise_floor", n.has_metrics() && m.within_floor_only()}};
}

std::string node_label(const NodeRecord& n) {
  return fmt::format("'{}' ({}) -> {}", n.node.empty() ? "(unnamed)" : n.node, n.op_type, n.value);
}

std::string metrics_text(const NodeRecord& n) {
  if (!n.mismatch.empty()) return n.mismatch;
  const auto& m = n.metrics;
  std::string s = fmt::format("max_abs {:.3g}  mean_abs {:.3g}  max_norm {:.3g}", m.max_abs,
                              m.mean_abs, m.max_normalized);
  if (m.cosine) s += fmt::format("  cos {:.6f}", *m.cosine);
  if (m.failing > 0) {
    s += fmt::format("  failing {}/{} ({:.2f}%)", m.failing, m.elements, m.failing_fraction * 100);
  }
  return s + floor_text(m, n.dtype, n.floor);
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
  s += fmt::format("  {}  (atol {:g} rtol {:g})\n", metrics_text(f), f.tol.atol, f.tol.rtol);
  s += "worst:\n";
  for (size_t i : r.worst) {
    const NodeRecord& n = r.nodes[i];
    s += fmt::format("  {} {}  {}\n", n.pass ? "✓" : "✗", node_label(n), metrics_text(n));
  }
  return s;
}

}  // namespace wnn::validate
