// What a session will execute: the graph after folding parameter-only subgraphs, and its
// partition among the selected delegates. `wnn partition` prints this; Session compiles it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/passes/partition.h"

namespace wnn::runtime {

struct SessionOptions;

struct ExecutionPlan {
  std::shared_ptr<const Graph> graph;  // the folded graph (the input graph when not folded)
  passes::Partition partition;
  bool delegated = false;  // a delegate was selected (backend other than ref)
  size_t folded_nodes = 0;
  size_t fused_patterns = 0;  // written-out gelu replaced by one node (passes/fuse_gelu)
  std::vector<std::string> fold_skipped;
};

ExecutionPlan plan_execution(std::shared_ptr<const Graph> graph, const SessionOptions& options);

// The one-line warning when a compute-heavy node (conv2d, convTranspose2d, gemm, matmul) falls
// back to the reference kernels while a delegate was asked for; nullopt when none does.
std::optional<std::string> fallback_warning(const ExecutionPlan& plan);

}  // namespace wnn::runtime
