#include "wnn/view/overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "wnn/core/error.h"
#include "wnn/passes/partition.h"
#include "wnn/runtime/profile.h"

namespace wnn::view {

namespace {

// The graph node that computes the operand named `name`, if any.
std::optional<uint32_t> node_of(const Graph& g, const std::string& name) {
  const auto id = g.find(name);
  if (!id || g.operand(*id).kind != OperandKind::kNodeOutput) return std::nullopt;
  return g.operand(*id).producer;
}

// Four significant digits: what a reader compares, and short in the page.
double rounded(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

std::string unmatched_warning(const std::vector<std::string>& names, size_t total,
                              std::string_view what) {
  return fmt::format(
      "{} of {} {} name no node of this graph (first: '{}'); was it made from another "
      "conversion?",
      names.size(), total, what, names.front());
}

}  // namespace

Overlay partition_overlay(const Graph& g, const runtime::ExecutionPlan& plan) {
  Overlay o{"partition", "delegates", {}, {}, {}, ordered_json::object(), {}};
  o.nodes.resize(g.nodes().size());
  const Graph& executed = *plan.graph;
  const passes::Partition& p = plan.partition;
  std::map<std::string, std::set<int>> delegates;  // delegate -> its regions, for the legend
  bool folded = false, fused = false, reference = false;
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    const Node& node = g.nodes()[n];
    const std::string& name = g.name_of(node.outputs[0]);
    const auto id = executed.find(name);
    NodeMark m;
    if (id && executed.operand(*id).kind == OperandKind::kConstant) {
      m = {"part-folded",
           {{"runs",
             "nowhere: folded into a constant when the session is created (every input "
             "is a constant)"}}};
      folded = true;
    } else if (!id || executed.operand(*id).kind != OperandKind::kNodeOutput) {
      m = {"part-fused",
           {{"runs",
             "inside a fused node: a pass replaced it and its neighbours with one node "
             "(passes/canonicalize)"}}};
      fused = true;
    } else {
      const uint32_t en = executed.operand(*id).producer;
      const Node& enode = executed.nodes()[en];
      const int r = p.region_of[en];
      if (r >= 0) {
        const passes::Region& region = p.regions[size_t(r)];
        m.css_class = fmt::format("part-{} shade-{}", region.delegate, r % 4);
        m.detail = {{"runs", fmt::format("on {}", region.delegate)},
                    {"region",
                     fmt::format("{} of {}: {} nodes ({})", r, p.regions.size(),
                                 region.nodes.size(), passes::op_counts(executed, region.nodes))}};
        delegates[region.delegate].insert(r);
      } else {
        m.css_class = "part-ref";
        m.detail = {{"runs", "on the reference kernels"}, {"reasons", p.ref_reason[en]}};
        reference = true;
      }
      if (enode.op() != node.op()) m.detail["runs as"] = std::string(op_name(enode.op()));
    }
    o.nodes[n] = std::move(m);
  }
  for (const auto& [delegate, regions] : delegates) {
    o.legend.push_back(
        {"part-" + delegate, fmt::format("{} ({} region{})", delegate, regions.size(),
                                         regions.size() == 1 ? "" : "s")});
  }
  if (reference) o.legend.push_back({"part-ref", "reference kernels (click for the reasons)"});
  if (folded) o.legend.push_back({"part-folded", "folded into a constant"});
  if (fused) o.legend.push_back({"part-fused", "fused into another node"});
  size_t on_ref = 0;
  for (int r : p.region_of) on_ref += r < 0;
  o.summary["executed nodes"] = executed.nodes().size();
  o.summary["folded nodes"] = plan.folded_nodes;
  o.summary["fused patterns"] = plan.fused_patterns();
  o.summary["on the reference kernels"] = on_ref;
  ordered_json regions = ordered_json::array();
  for (size_t r = 0; r < p.regions.size(); ++r) {
    regions.push_back({{"region", r},
                       {"delegate", p.regions[r].delegate},
                       {"nodes", p.regions[r].nodes.size()},
                       {"ops", passes::op_counts(executed, p.regions[r].nodes)}});
  }
  o.summary["regions"] = regions;
  if (!plan.fold_skipped.empty()) o.summary["not folded"] = plan.fold_skipped;
  return o;
}

namespace {

// max_normalized as the report writes it: a number, null, or a string for the infinities JSON
// cannot hold.
std::optional<double> normalized_error(const nlohmann::json& entry) {
  const auto it = entry.find("max_normalized");
  if (it == entry.end() || it->is_null()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

// 0 err-low, 1 err-pass, 2 err-fail, 3 err-high: within a tenth of the tolerance, within it,
// beyond it, a hundred times beyond it (or by an infinite margin).
int error_level(const nlohmann::json& entry) {
  const auto e = normalized_error(entry);
  bool pass = e && *e <= 1;
  if (entry.contains("pass") && entry["pass"].is_boolean()) pass = entry["pass"].get<bool>();
  if (pass) return e && *e < 0.1 ? 0 : 1;
  return e && std::isfinite(*e) && *e < 100 ? 2 : 3;
}

std::string entry_text(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Overlay report_overlay(const Graph& g, const nlohmann::json& report) {
  check(report.is_object() && (report.contains("per_node") || report.contains("outputs")),
        "not a wnn validate report: it has neither \"per_node\" nor \"outputs\"");
  Overlay o{"report", "error against ONNX Runtime", {}, {}, {}, ordered_json::object(), {}};
  o.nodes.resize(g.nodes().size());
  o.outputs.resize(g.outputs().size());
  for (const char* key : {"model", "status", "stage", "message"}) {
    if (report.contains(key) && !report[key].is_null()) o.summary[key] = report[key];
  }
  const nlohmann::json* per_node = nullptr;
  if (report.contains("per_node") && report["per_node"].is_object()) per_node = &report["per_node"];
  if (per_node == nullptr) {
    o.warnings.push_back(
        "the report has no per_node section (made without wnn validate --per-node): only the "
        "graph outputs are coloured");
  } else {
    const nlohmann::json& p = *per_node;
    for (const char* key : {"compared", "skipped"}) {
      if (p.contains(key)) o.summary[key] = p[key];
    }
    // {"onnx_node", "op_type", "value", "operand"} of the first value beyond tolerance, or null.
    const auto fd = p.find("first_divergent");
    const bool has_first = fd != p.end() && fd->is_object();
    const std::string first_operand = has_first ? entry_text(*fd, "operand") : std::string();
    const std::string first = has_first ? entry_text(*fd, "onnx_node") : std::string();
    std::vector<int> level(g.nodes().size(), -1);
    std::vector<std::string> unmatched;
    size_t total = 0;
    std::optional<uint32_t> first_node;
    if (p.contains("nodes") && p["nodes"].is_array()) {
      for (const auto& entry : p["nodes"]) {
        if (!entry.is_object()) continue;
        ++total;
        const std::string operand = entry_text(entry, "operand");
        const auto n = node_of(g, operand);
        if (!n) {
          unmatched.push_back(operand);
          continue;
        }
        if (has_first && !first_node && operand == first_operand) first_node = *n;
        if (!o.nodes[*n]) o.nodes[*n] = NodeMark{"", {{"compared", ordered_json::array()}}};
        o.nodes[*n]->detail["compared"].push_back(ordered_json::parse(entry.dump()));
        level[*n] = std::max(level[*n], error_level(entry));
      }
    }
    for (size_t n = 0; n < g.nodes().size(); ++n) {
      if (o.nodes[n]) o.nodes[n]->css_class = kReportClasses[level[n]];
    }
    if (first_node) {
      o.nodes[*first_node]->css_class += " err-first";
      o.nodes[*first_node]->detail["first divergent"] = true;
      o.summary["first divergent"] = {{"node", first},
                                      {"op_type", entry_text(*fd, "op_type")},
                                      {"value", entry_text(*fd, "value")},
                                      {"at", *first_node}};
    } else if (has_first) {
      o.warnings.push_back(fmt::format(
          "the first divergent node '{}' (operand '{}') is not among the compared nodes that "
          "match this graph",
          first, first_operand));
    } else {
      o.summary["first divergent"] = "none: every compared node is within tolerance";
    }
    if (!unmatched.empty())
      o.warnings.push_back(unmatched_warning(unmatched, total, "per-node entries"));
  }
  if (report.contains("outputs") && report["outputs"].is_array()) {
    o.summary["outputs"] = ordered_json::parse(report["outputs"].dump());
    for (const auto& out : report["outputs"]) {
      const std::string name = entry_text(out, "name");
      for (size_t i = 0; i < g.outputs().size(); ++i) {
        if (g.name_of(g.outputs()[i]) != name) continue;
        o.outputs[i] = NodeMark{kReportClasses[error_level(out)], ordered_json::parse(out.dump())};
      }
    }
  }
  o.legend = {{"err-low", "within a tenth of the tolerance"},
              {"err-pass", "within the tolerance"},
              {"err-fail", "beyond the tolerance"},
              {"err-high", "100 times beyond it, or infinitely"},
              {"err-first", "the first divergent node"}};
  return o;
}

Overlay profile_overlay(const Graph& g, const nlohmann::json& bench) {
  check(bench.is_object() && bench.contains("profile") && bench["profile"].is_array(),
        "not the output of wnn bench --profile --json: no \"profile\" array");
  Overlay o{"profile", "time per node", {}, {}, {}, ordered_json::object(), {}};
  o.nodes.resize(g.nodes().size());
  std::vector<double> node_ms(g.nodes().size(), 0.0);
  std::vector<ordered_json> steps(g.nodes().size(), ordered_json::array());
  std::vector<bool> timed(g.nodes().size(), false);
  std::vector<std::string> unmatched;
  size_t names = 0;
  double total = 0, unattributed = 0;
  ordered_json unattributed_steps = ordered_json::array();
  for (const auto& row : bench["profile"]) {
    check(row.is_object() && row.contains("ms") && row["ms"].is_number(),
          "a profile row has no \"ms\"");
    check(row.contains("nodes") && row["nodes"].is_array(),
          "profile row '{}' lists no \"nodes\" (written by a wnn bench older than wnn view)",
          entry_text(row, "label"));
    const double ms = row["ms"].get<double>();
    total += ms;
    std::vector<uint32_t> covered;
    for (const auto& name : row["nodes"]) {
      ++names;
      const std::string s = name.is_string() ? name.get<std::string>() : name.dump();
      if (const auto n = node_of(g, s)) {
        covered.push_back(*n);
      } else {
        unmatched.push_back(s);
      }
    }
    if (covered.empty()) {
      unattributed += ms;
      unattributed_steps.push_back({{"step", entry_text(row, "label")}, {"ms", rounded(ms)}});
      continue;
    }
    double flops = 0;
    for (uint32_t n : covered) flops += runtime::node_flops(g, g.nodes()[n]);
    for (uint32_t n : covered) {
      const double share =
          flops > 0 ? runtime::node_flops(g, g.nodes()[n]) / flops : 1.0 / double(covered.size());
      node_ms[n] += ms * share;
      timed[n] = true;
      steps[n].push_back({{"step", entry_text(row, "label")},
                          {"where", entry_text(row, "where")},
                          {"step ms", rounded(ms)},
                          {"charged", rounded(share)}});
    }
  }
  const double hottest = node_ms.empty() ? 0.0 : *std::max_element(node_ms.begin(), node_ms.end());
  std::vector<uint32_t> order;
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    if (!timed[n]) {
      o.nodes[n] = NodeMark{
          "heat-none",
          {{"time", "not timed: folded, fused, or free (a reshape a delegate runs as a view)"}}};
      continue;
    }
    const double r = hottest > 0 ? node_ms[n] / hottest : 0;
    const int level = r >= 0.5 ? 5 : r >= 0.2 ? 4 : r >= 0.05 ? 3 : r >= 0.01 ? 2 : r > 0 ? 1 : 0;
    o.nodes[n] = NodeMark{fmt::format("heat-{}", level),
                          {{"ms per run", rounded(node_ms[n])},
                           {"share of the run", rounded(total > 0 ? node_ms[n] / total : 0)},
                           {"steps", steps[n]}}};
    order.push_back(n);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return node_ms[a] > node_ms[b]; });
  o.summary["ms per run in steps"] = rounded(total);
  if (unattributed > 0) {
    o.summary["not charged to a node"] = rounded(unattributed);
    o.summary["uncharged steps"] = unattributed_steps;
  }
  ordered_json top = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(order.size(), 12); ++i) {
    const uint32_t n = order[i];
    top.push_back({{"node", g.name_of(g.nodes()[n].outputs[0])},
                   {"op", std::string(op_name(g.nodes()[n].op()))},
                   {"ms", rounded(node_ms[n])},
                   {"at", n}});
  }
  o.summary["hottest"] = top;
  if (!unmatched.empty())
    o.warnings.push_back(unmatched_warning(unmatched, names, "profiled nodes"));
  o.legend = {{"heat-5", "at least half the hottest node's time"},
              {"heat-4", "a fifth of it or more"},
              {"heat-3", "5% of it or more"},
              {"heat-2", "1% of it or more"},
              {"heat-1", "less"},
              {"heat-0", "no measurable time"},
              {"heat-none", "not timed"}};
  return o;
}

}  // namespace wnn::view
