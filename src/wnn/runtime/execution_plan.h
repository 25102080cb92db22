// What a session will execute: the graph after folding parameter-only subgraphs and
// canonicalizing written-out patterns, and its partition among the selected delegates.
// `wnn partition` prints this; Session compiles it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/passes/canonicalize.h"
#include "wnn/passes/partition.h"

namespace wnn::runtime {

struct SessionOptions;
class CompiledRegion;

struct ExecutionPlan {
  std::shared_ptr<const Graph> graph;  // the folded graph (the input graph when not folded)
  passes::Partition partition;
  // Per region of `partition`: its compiled form. None of its kernels is a slow path: such a
  // node is refused and the graph partitioned again (delegate.h, SlowNode).
  std::vector<std::shared_ptr<const CompiledRegion>> compiled;
  size_t slow_refused = 0;  // nodes refused that way (their reasons are in ref_reason)
  bool delegated = false;   // a delegate was selected (backend other than ref)
  size_t folded_nodes = 0;
  // Per pass of passes::canonicalize, when a delegate was selected: the patterns it replaced.
  std::vector<passes::PatternCount> pattern_counts;
  size_t fused_patterns() const { return passes::replaced(pattern_counts); }
  std::vector<std::string> fold_skipped;
};

// Folds, fuses, partitions and compiles each region; a node whose compiled kernel turns out to
// be a slow path is refused and the graph partitioned again, until no region has one.
ExecutionPlan plan_execution(std::shared_ptr<const Graph> graph, const SessionOptions& options);

// The one-line warning when a compute-heavy node (conv2d, convTranspose2d, gemm, matmul) falls
// back to the reference kernels while a delegate was asked for; nullopt when none does.
std::optional<std::string> fallback_warning(const ExecutionPlan& plan);

}  // namespace wnn::runtime
