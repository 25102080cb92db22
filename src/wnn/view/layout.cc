#include "wnn/view/layout.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "wnn/view/layering.h"

namespace wnn::view {

int out_port_x(const LayoutBox& box, int x, int port) {
  const int ports = std::max(box.out_ports, 1);
  return x + (2 * port + 1) * box.width / (2 * ports);
}

namespace {

using detail::LayeredGraph;

struct Bands {
  std::vector<int> top;     // y of the layer's top: every box of the layer starts here
  std::vector<int> bottom;  // below the tallest box and label zone: the gap starts here
};

// Layer heights from their boxes and label zones; each gap grows with the horizontal distance
// its edges cover, so steep crossings stay readable.
Bands band_positions(const LayeredGraph& g, const std::vector<LayoutBox>& boxes,
                     const std::vector<int>& anchor, const LayoutOptions& options) {
  const size_t layers = g.layers.size();
  std::vector<int> height(layers, 0), zone(layers, 0), reach(layers, 0);
  for (size_t l = 0; l < layers; ++l) {
    for (uint32_t v : g.layers[l]) {
      const int box = g.nodes[v].box;
      if (box >= 0) {
        height[l] = std::max(height[l], boxes[size_t(box)].height);
        zone[l] = std::max(zone[l], boxes[size_t(box)].label_height);
      }
      for (uint32_t e : g.nodes[v].down) {
        const auto& edge = g.edges[e];
        reach[l] = std::max(
            reach[l], std::abs(anchor[edge.upper] + edge.upper_port_offset - anchor[edge.lower]));
      }
    }
  }
  Bands b;
  int y = options.margin;
  for (size_t l = 0; l < layers; ++l) {
    b.top.push_back(y);
    b.bottom.push_back(y + height[l] + zone[l]);
    y = b.bottom.back() + std::clamp(reach[l] / 4, options.min_layer_gap, options.max_layer_gap);
  }
  return b;
}

}  // namespace

Layout layout_graph(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                    const LayoutOptions& options) {
  LayeredGraph g = detail::build_layers(boxes, edges, options);
  Layout out;
  out.layers = int(g.layers.size());
  out.dummies = g.nodes.size() - boxes.size();
  out.crossings = detail::order_layers(g, options.ordering_sweeps);
  const std::vector<int> anchor = detail::place_nodes(g, options);
  const Bands bands = band_positions(g, boxes, anchor, options);

  out.boxes.resize(boxes.size());
  for (size_t b = 0; b < boxes.size(); ++b) {
    const int layer = g.nodes[b].layer;
    out.boxes[b] = {anchor[b] - boxes[b].width / 2, bands.top[size_t(layer)], layer};
    out.width = std::max(out.width, anchor[b] - g.nodes[b].left + boxes[b].width +
                                        boxes[b].extra_right + options.margin);
  }
  for (size_t v = boxes.size(); v < g.nodes.size(); ++v) {
    out.width = std::max(out.width, anchor[v] + g.nodes[v].right + options.margin);
  }
  out.height = (bands.bottom.empty() ? options.margin : bands.bottom.back()) + options.margin;

  // Routes: down the source's column to its band's bottom, then per layer passed, across the
  // gap to the dummy's column and down it, and last across the gap to the target's top.
  out.edges.resize(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    const auto& path = g.paths[i];
    const uint32_t source = path.front();
    const LayoutBox& sb = boxes[source];
    const int px = out_port_x(sb, out.boxes[source].x, int(edges[i].from_port));
    const int sl = g.nodes[source].layer;
    auto& pts = out.edges[i].points;
    pts.push_back({px, bands.top[size_t(sl)] + sb.height});
    pts.push_back({px, bands.bottom[size_t(sl)]});
    for (size_t k = 1; k + 1 < path.size(); ++k) {
      const size_t l = size_t(g.nodes[path[k]].layer);
      pts.push_back({anchor[path[k]], bands.top[l]});
      pts.push_back({anchor[path[k]], bands.bottom[l]});
    }
    pts.push_back({0, bands.top[size_t(g.nodes[path.back()].layer)]});  // x: the slot, below
  }
  // Target slots: a box's incoming edges spread along its top edge in the order they arrive,
  // so the last crossing of the gap adds no crossing of its own.
  std::vector<std::vector<uint32_t>> incoming(boxes.size());
  for (uint32_t i = 0; i < edges.size(); ++i) incoming[edges[i].to].push_back(i);
  for (size_t b = 0; b < boxes.size(); ++b) {
    auto& in = incoming[b];
    std::stable_sort(in.begin(), in.end(), [&](uint32_t a, uint32_t c) {
      const auto &pa = out.edges[a].points, &pc = out.edges[c].points;
      return pa[pa.size() - 2].x < pc[pc.size() - 2].x;
    });
    for (size_t s = 0; s < in.size(); ++s) {
      auto& route = out.edges[in[s]];
      route.to_slot = int(s);
      route.points.back().x =
          out.boxes[b].x + int((2 * s + 1) * size_t(boxes[b].width) / (2 * in.size()));
    }
  }
  for (auto& route : out.edges) {
    auto& pts = route.points;
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  }
  return out;
}

}  // namespace wnn::view
