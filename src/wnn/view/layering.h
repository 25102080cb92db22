// The steps of layout_graph (layout.h) that work on the proper layered graph: every edge joins
// adjacent layers, long edges run through dummy nodes. Internal to the view module.
#pragma once

#include <cstdint>
#include <vector>

#include "wnn/view/layout.h"

namespace wnn::view::detail {

struct LNode {
  int box = -1;  // index into the boxes, or -1 for a dummy
  int layer = 0;
  int left = 0, right = 0;         // extents from the anchor (a box's centre), whole pixels
  std::vector<uint32_t> up, down;  // indices into LayeredGraph::edges
};

struct LEdge {
  uint32_t upper = 0, lower = 0;
  int upper_port_offset = 0;  // the upper end's port x minus its anchor
  double weight = 1;          // how much the placement wants this edge vertical
};

struct LayeredGraph {
  std::vector<LNode> nodes;  // boxes first (node i is box i), then dummies
  std::vector<LEdge> edges;
  std::vector<std::vector<uint32_t>> layers;  // node indices, in left-to-right order
  // Per input edge: the nodes it passes, from its source box through dummies to its target.
  std::vector<std::vector<uint32_t>> paths;
};

// Layers (longest path from the sources, then nodes with more successors than predecessors
// pulled down towards their successors) and the dummies of every net.
LayeredGraph build_layers(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                          const LayoutOptions& options);

// Reorders every layer to reduce crossings; returns the crossings of the order kept.
size_t order_layers(LayeredGraph& g, int max_sweeps);
size_t count_crossings(const LayeredGraph& g);

// Anchor x of every node: neighbours pulled over each other, layer order and gaps kept.
std::vector<int> place_nodes(const LayeredGraph& g, const LayoutOptions& options);

}  // namespace wnn::view::detail
