#include "wnn/runtime/execution_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/passes/canonicalize.h"
#include "wnn/passes/fold_constants.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {

ExecutionPlan plan_execution(std::shared_ptr<const Graph> graph, const SessionOptions& options) {
  ExecutionPlan plan;
  const auto delegates = delegates_for_backend(options.backend);
  plan.delegated = !delegates.empty();
  if (!delegates.empty() && options.fold) {
    auto folded = passes::fold_constants(*graph);
    plan.folded_nodes = folded.folded_nodes;
    plan.fold_skipped = std::move(folded.skipped);
    plan.graph = std::make_shared<const Graph>(std::move(folded.graph));
  } else {
    plan.graph = std::move(graph);
  }
  if (!delegates.empty()) {
    // Written-out patterns become the one op a delegate runs as one kernel (or a post-op of the
    // matmul or conv before it).
    auto canonical = passes::canonicalize(*plan.graph);
    if (canonical.replaced() > 0)
      plan.graph = std::make_shared<const Graph>(std::move(canonical.graph));
    plan.pattern_counts = std::move(canonical.counts);
  }
  // Per delegate, the nodes refused once their kernel was known (SlowNode), with the reason.
  std::vector<std::map<uint32_t, std::string>> slow(delegates.size());
  // Each delegate analyzes the graph once; every partition round asks about the same graph.
  std::vector<std::unique_ptr<const GraphAnalysis>> analyses;
  std::vector<passes::Candidate> candidates;
  for (size_t k = 0; k < delegates.size(); ++k) {
    const Delegate* d = delegates[k];
    const auto& refused = slow[k];
    analyses.push_back(d->analyze(*plan.graph));
    const GraphAnalysis* analysis = analyses.back().get();
    const Graph* planned = plan.graph.get();
    candidates.push_back(
        {std::string(d->name()), [d, &refused, analysis, planned](const Graph& g, const Node& n) {
           check_internal(&g == planned, "the partitioner asked about another graph");
           const auto it = refused.find(uint32_t(&n - g.nodes().data()));
           return it != refused.end() ? Support::no(it->second) : d->supports_in(g, n, analysis);
         }});
  }
  // Regions are compiled once per (delegate, node set): a re-partition recompiles only the
  // regions it changed. Each round refuses at least one node, so the loop ends.
  std::map<std::pair<std::string, std::vector<uint32_t>>, std::shared_ptr<const CompiledRegion>>
      compiled;
  for (;;) {
    plan.partition = passes::partition_graph(*plan.graph, candidates);
    plan.compiled.clear();
    bool refused = false;
    for (const passes::Region& r : plan.partition.regions) {
      auto& c = compiled[{r.delegate, r.nodes}];
      if (!c) c = find_delegate(r.delegate)->compile(*plan.graph, r, {options.threads});
      plan.compiled.push_back(c);
      const size_t k =
          size_t(std::find_if(delegates.begin(), delegates.end(),
                              [&](const Delegate* d) { return d->name() == r.delegate; }) -
                 delegates.begin());
      for (SlowNode& s : c->slow_nodes()) {
        refused |= slow[k].emplace(s.node, std::move(s.reason)).second;
      }
    }
    if (!refused) break;
  }
  for (const auto& s : slow) plan.slow_refused += s.size();
  if (delegates.empty()) {
    for (auto& r : plan.partition.ref_reason) r = "backend ref selected";
  }
  return plan;
}

std::optional<std::string> fallback_warning(const ExecutionPlan& plan) {
  if (!plan.delegated) return std::nullopt;
  const Graph& g = *plan.graph;
  size_t count = 0;
  std::string first;
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& node = g.nodes()[n];
    const OpKind op = node.op();
    const bool heavy = op == OpKind::kConv2d || op == OpKind::kConvTranspose2d ||
                       op == OpKind::kGemm || op == OpKind::kMatmul;
    // A long 1-D conv left on the reference kernels runs their fast FFT path on purpose.
    if (!heavy || plan.partition.region_of[n] >= 0 || kernels::faster_on_reference(g, node)) {
      continue;
    }
    if (count++ == 0) {
      first = fmt::format("{} '{}': {}", op_name(op), g.name_of(node.outputs[0]),
                          plan.partition.ref_reason[n]);
    }
  }
  if (count == 0) return std::nullopt;
  return fmt::format(
      "{} conv2d/convTranspose2d/gemm/matmul node{} run on the slow reference kernels; first: {}",
      count, count == 1 ? "" : "s", first);
}

}  // namespace wnn::runtime
