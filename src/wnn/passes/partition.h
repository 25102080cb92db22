// Partitioning a graph among delegates: each node goes to the first delegate (in the given
// preference order) that supports it, and supported nodes form maximal connected regions that
// stay convex (no path leaves a region and re-enters it), so every region can run as one unit.
// Every node left on the reference kernels keeps the reasons each delegate gave.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::passes {

// A delegate's answer for one node. `reason` is empty when ok or not_applicable().
struct Support {
  bool ok = false;
  std::string reason;
  static Support yes() { return {true, {}}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
  // Not a node of the kind the delegate looks at (one that claims a few patterns only): left
  // out of the reasons a node on the reference kernels lists.
  static Support not_applicable() { return {false, {}}; }
};

// A set of nodes one delegate runs as a unit. Nodes are in graph (topological) order.
struct Region {
  std::string delegate;
  std::vector<uint32_t> nodes;
  std::vector<OperandId> inputs;   // operands read by the region and produced outside it
  std::vector<OperandId> outputs;  // region results read outside it or that are graph outputs
};

// What the partitioner needs of a delegate: its name and its per-node answer.
struct Candidate {
  std::string name;
  std::function<Support(const Graph&, const Node&)> supports;
};

struct Partition {
  std::vector<Region> regions;          // ordered by first node
  std::vector<int> region_of;           // per node: index into regions, -1 on reference
  std::vector<std::string> ref_reason;  // per node on reference: "onednn: ...; xnnpack: ..."
};

Partition partition_graph(const Graph& graph, const std::vector<Candidate>& candidates);

// The ops of `nodes`, by name with counts: "add, conv2d x3, relu x2" (what `wnn partition` and
// `wnn view --partition` say a region holds).
std::string op_counts(const Graph& graph, const std::vector<uint32_t>& nodes);

// Region boundary operands, computed from its node set.
void compute_region_io(const Graph& graph, Region& region);

}  // namespace wnn::passes
