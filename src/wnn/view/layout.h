// A layered (Sugiyama-style) top-to-bottom layout of a directed acyclic graph of boxes: layer
// assignment, dummy nodes for edges that span layers, crossing reduction by barycenter sweeps,
// coordinate assignment by weighted isotonic regression per layer, and edge routing through
// the gaps between layers. Knows nothing of WebNN: `wnn view` (scene.h) turns a graph into boxes.
// Deterministic: the same input gives the same numbers on every run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wnn::view {

struct LayoutBox {
  int width = 0;  // even, so a box's centre is a whole pixel
  int height = 0;
  // Room the box needs right of its right edge in the zone below it (its edge labels), so
  // that neighbours keep clear of the labels.
  int extra_right = 0;
  // Height of the label zone below the box; edges leave through it.
  int label_height = 0;
  int out_ports = 1;  // output ports, spread evenly along the bottom edge
  // Place the box just above its first successor rather than just below its predecessors.
  // For boxes that only prepare what others read (weights cast and dequantized): their
  // predecessors must be such boxes too.
  bool hug_successors = false;
};

// An edge from output port `from_port` of box `from` to box `to`. Edges of the same
// (from, from_port) are one net: they share their way down until they part.
struct LayoutEdge {
  uint32_t from = 0;
  uint32_t from_port = 0;
  uint32_t to = 0;
};

struct LayoutOptions {
  int margin = 24;
  int box_gap = 16;   // between neighbouring boxes of a layer
  int dummy_gap = 6;  // next to a dummy (an edge passing through a layer)
  int dummy_width = 4;
  int min_layer_gap = 28;  // the vertical gap between two layers where edges change columns
  int max_layer_gap = 96;
  int ordering_sweeps = 24;  // crossing-reduction sweeps at most (stops early when stuck)
  int placement_sweeps = 10;
};

struct Point {
  int x = 0;
  int y = 0;
  bool operator==(const Point&) const = default;
};

struct PlacedBox {
  int x = 0;  // top-left
  int y = 0;
  int layer = 0;
};

// An edge's route: a polyline from the source port (on the source's bottom edge) to the
// target's top edge. Segments alternate: vertical inside a column of a layer (a box's own
// column or a dummy's), then a crossing of the gap between two layers, where no box lies. A
// renderer may draw gap crossings as curves that stay inside the segment's bounding box.
struct RoutedEdge {
  std::vector<Point> points;
  int to_slot = 0;  // position among the target's incoming edges, left to right
};

struct Layout {
  std::vector<PlacedBox> boxes;
  std::vector<RoutedEdge> edges;  // in input order
  int width = 0;
  int height = 0;
  int layers = 0;
  size_t dummies = 0;
  size_t crossings = 0;  // edge crossings between adjacent layers after ordering
};

// Throws wnn::Error when the edges form a cycle or name a box that does not exist.
Layout layout_graph(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                    const LayoutOptions& options = {});

// The x of output port `port` of a box placed at `x` (the same rule the layout routes by).
int out_port_x(const LayoutBox& box, int x, int port);

}  // namespace wnn::view
