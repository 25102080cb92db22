// `wnn partition GRAPH`: how a graph would run. Prints each delegate region (delegate, ops,
// boundary sizes) and every node left on the reference kernels with its reason.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/cli/session_args.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/runtime/execution_plan.h"

namespace wnn::cli {
namespace {

int run_partition(Args& args) {
  format::LoadOptions load;
  load.weights_path = args.value("weights");
  const runtime::SessionOptions options = session_options(args);
  const bool json = args.flag("json");
  const auto rest = args.finish();
  check(rest.size() == 1, "expected one graph file (see wnn partition --help)");
  format::Model model = format::load_model(rest[0], load);
  const auto plan =
      runtime::plan_execution(std::make_shared<const Graph>(std::move(model.graph)), options);
  const Graph& g = *plan.graph;
  const auto& p = plan.partition;
  auto names = [&](const std::vector<OperandId>& ids) {
    std::vector<std::string> out;
    for (OperandId id : ids) out.push_back(g.name_of(id) + ": " + g.desc(id).to_string());
    return out;
  };
  size_t on_ref = 0;
  for (int r : p.region_of) on_ref += r < 0;
  if (json) {
    nlohmann::json j = {{"graph", rest[0]},
                        {"backend", options.backend},
                        {"fold", options.fold},
                        {"folded_nodes", plan.folded_nodes},
                        {"fold_skipped", plan.fold_skipped},
                        {"fused_patterns", plan.fused_patterns()},
                        {"nodes", g.nodes().size()},
                        {"reference_nodes", on_ref},
                        {"slow_kernels_refused", plan.slow_refused}};
    j["patterns"] = nlohmann::json::object();
    for (const auto& c : plan.pattern_counts) j["patterns"][std::string(c.pattern)] = c.replaced;
    j["regions"] = nlohmann::json::array();
    for (const auto& r : p.regions) {
      nlohmann::json ops = nlohmann::json::array();
      for (uint32_t n : r.nodes) ops.push_back(op_name(g.nodes()[n].op()));
      j["regions"].push_back({{"delegate", r.delegate},
                              {"nodes", r.nodes.size()},
                              {"ops", ops},
                              {"inputs", names(r.inputs)},
                              {"outputs", names(r.outputs)}});
    }
    j["reference"] = nlohmann::json::array();
    for (size_t n = 0; n < g.nodes().size(); ++n) {
      if (p.region_of[n] >= 0) continue;
      const Node& node = g.nodes()[n];
      j["reference"].push_back({{"op", op_name(node.op())},
                                {"output", g.name_of(node.outputs[0])},
                                {"reason", p.ref_reason[n]}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%zu nodes (%zu folded into constants), %zu regions, %zu on the reference kernels\n",
              g.nodes().size(), plan.folded_nodes, p.regions.size(), on_ref);
  for (const auto& s : plan.fold_skipped) std::printf("not folded: %s\n", s.c_str());
  if (plan.fused_patterns() > 0) {
    std::string list;
    for (const auto& c : plan.pattern_counts) {
      if (c.replaced > 0)
        list += (list.empty() ? "" : ", ") + fmt::format("{} x{}", c.pattern, c.replaced);
    }
    std::printf("written-out patterns replaced by one node: %s\n", list.c_str());
  }
  for (size_t i = 0; i < p.regions.size(); ++i) {
    const auto& r = p.regions[i];
    std::printf("region %zu on %s: %zu nodes (%s)\n", i, r.delegate.c_str(), r.nodes.size(),
                passes::op_counts(g, r.nodes).c_str());
    for (const auto& s : names(r.inputs)) std::printf("  in  %s\n", s.c_str());
    for (const auto& s : names(r.outputs)) std::printf("  out %s\n", s.c_str());
  }
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (p.region_of[n] >= 0) continue;
    const Node& node = g.nodes()[n];
    std::printf("reference %s '%s': %s\n", std::string(op_name(node.op())).c_str(),
                g.name_of(node.outputs[0]).c_str(), p.ref_reason[n].c_str());
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "partition",
    "show which delegate runs each part of a graph, and why the rest does not",
    "usage: wnn partition GRAPH [--backend NAME] [--no-fold] [--weights PATH] [--json]\n\n"
    "Folds parameter-only subgraphs (unless --no-fold), replaces written-out patterns (gelu,\n"
    "hardSigmoid, hardSwish, softmax, layer and instance normalization, softplus,\n"
    "reduceSumSquare, reduceL2) by their one op\n"
    "(counted per pattern), asks each selected delegate, node by node, whether it runs it,\n"
    "and prints the resulting regions (delegate, ops, boundary operands) and every node left\n"
    "on the reference kernels with each delegate's reason.\n"
    "Each region is compiled: a node whose kernel would be a slow path (one of oneDNN's\n"
    "reference implementations, ref:any) is refused with that reason and the graph\n"
    "partitioned again.\n\n"
    "options:\n" WNN_SESSION_OPTIONS_HELP
    "  --weights PATH         the weights file (default: found beside the graph)\n"
    "  --json                 the same as a JSON object",
    run_partition,
}};

}  // namespace
}  // namespace wnn::cli
