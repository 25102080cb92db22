// What `wnn view` paints over a graph: per node a CSS class (the colour) and the facts the side
// panel shows when the node is clicked, from one of three sources: the partition among the
// delegates (--partition), a `wnn validate --per-node` report (--report) or a
// `wnn bench --profile --json` profile (--profile). Nodes are matched by operand name, so an
// overlay computed on the executed graph (folded, fused) lands on the graph as the file holds
// it, and nodes the executed graph no longer has are marked as such.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/runtime/execution_plan.h"

namespace wnn::view {

using ordered_json = nlohmann::ordered_json;

struct NodeMark {
  std::string css_class;  // "part-onednn shade-1", "err-fail err-first", "heat-4"
  ordered_json detail;    // an object for the side panel
};

struct Overlay {
  std::string name;   // "partition", "report", "profile": the page's colour modes
  std::string title;  // "delegates", "error against ONNX Runtime", "time per node"
  std::vector<std::optional<NodeMark>> nodes;  // per graph node
  // Marks of graph output boxes (the report's per-output verdicts), by output index.
  std::vector<std::optional<NodeMark>> outputs;
  std::vector<std::pair<std::string, std::string>> legend;  // (css class, what it means)
  ordered_json summary;  // shown in the side panel while no node is selected
  std::vector<std::string> warnings;
};

// Regions and delegates of `plan` (made from `graph` by runtime::plan_execution): each node
// coloured by its delegate (shades tell neighbouring regions apart), each node on the reference
// kernels with every delegate's reason, as `wnn partition` prints them.
Overlay partition_overlay(const Graph& graph, const runtime::ExecutionPlan& plan);

// A `wnn validate --per-node` report (docs/real-models.md section 7): each compared node
// coloured by its largest normalized error, the first divergent node marked, the per-output
// table (docs/validation.md) as the summary.
Overlay report_overlay(const Graph& graph, const nlohmann::json& report);

// `wnn bench --profile --json`: each node's share of the time as a heat colour. A step's time
// is charged to the nodes it computes in proportion to their FLOPs (runtime::node_flops), evenly
// when none has any, so a fused conv2d+relu step counts for the conv2d.
Overlay profile_overlay(const Graph& graph, const nlohmann::json& bench);

// The class names each overlay uses, for the page's style sheet and the tests.
inline constexpr const char* kReportClasses[] = {"err-low", "err-pass", "err-fail", "err-high"};
inline constexpr int kHeatLevels = 6;  // heat-0 .. heat-5

}  // namespace wnn::view
