// Crossing reduction: layer by layer, nodes sorted by the barycentre of their neighbours in the
// layer just fixed, sweeping down then up; the order with the fewest crossings is kept.
#include <algorithm>
#include <numeric>

#include "wnn/view/layering.h"

namespace wnn::view::detail {

namespace {

// A port's place within its box as a fraction of one position, so that edges leaving the left
// port of a box sort left of those leaving its right port.
double port_fraction(const LayeredGraph& g, const LEdge& e) {
  const LNode& u = g.nodes[e.upper];
  const int span = u.left + u.right;
  return span > 0 ? 0.8 * (double(e.upper_port_offset) / double(span)) : 0.0;
}

void sort_layer(LayeredGraph& g, std::vector<uint32_t>& pos, size_t layer, bool downward) {
  auto& nodes = g.layers[layer];
  std::vector<std::pair<double, uint32_t>> keyed;
  keyed.reserve(nodes.size());
  for (uint32_t v : nodes) {
    const auto& incident = downward ? g.nodes[v].up : g.nodes[v].down;
    double sum = 0;
    for (uint32_t e : incident) {
      const LEdge& edge = g.edges[e];
      sum += downward ? double(pos[edge.upper]) + port_fraction(g, edge)
                      : double(pos[edge.lower]) - port_fraction(g, edge);
    }
    // A node with no neighbours on that side keeps its place.
    keyed.push_back({incident.empty() ? double(pos[v]) : sum / double(incident.size()), v});
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < keyed.size(); ++i) {
    nodes[i] = keyed[i].second;
    pos[keyed[i].second] = uint32_t(i);
  }
}

// Inversions between the layer pair (upper, upper + 1), counted with a Fenwick tree.
size_t crossings_below(const LayeredGraph& g, const std::vector<uint32_t>& pos, size_t upper) {
  std::vector<std::pair<uint32_t, uint32_t>> ends;
  for (uint32_t v : g.layers[upper]) {
    for (uint32_t e : g.nodes[v].down) ends.push_back({pos[v], pos[g.edges[e].lower]});
  }
  std::sort(ends.begin(), ends.end());
  const size_t width = g.layers[upper + 1].size();
  std::vector<size_t> tree(width + 1, 0);
  size_t crossings = 0, seen = 0;
  for (const auto& [u, l] : ends) {
    // Edges seen so far ending strictly right of l cross this one.
    size_t at_most = 0;
    for (size_t i = l + 1; i > 0; i -= i & (~i + 1)) at_most += tree[i];
    crossings += seen - at_most;
    for (size_t i = l + 1; i <= width; i += i & (~i + 1)) ++tree[i];
    ++seen;
  }
  return crossings;
}

std::vector<uint32_t> positions(const LayeredGraph& g) {
  std::vector<uint32_t> pos(g.nodes.size(), 0);
  for (const auto& layer : g.layers) {
    for (size_t i = 0; i < layer.size(); ++i) pos[layer[i]] = uint32_t(i);
  }
  return pos;
}

size_t total_crossings(const LayeredGraph& g, const std::vector<uint32_t>& pos) {
  size_t total = 0;
  for (size_t l = 0; l + 1 < g.layers.size(); ++l) total += crossings_below(g, pos, l);
  return total;
}

}  // namespace

size_t count_crossings(const LayeredGraph& g) { return total_crossings(g, positions(g)); }

size_t order_layers(LayeredGraph& g, int max_sweeps) {
  std::vector<uint32_t> pos = positions(g);
  // A first downward pass places each layer under its parents before any comparison.
  for (size_t l = 1; l < g.layers.size(); ++l) sort_layer(g, pos, l, true);
  size_t best = total_crossings(g, pos);
  auto best_layers = g.layers;
  int stale = 0;
  for (int sweep = 0; sweep < max_sweeps && best > 0 && stale < 4; ++sweep) {
    if (sweep % 2 == 0) {
      for (size_t l = g.layers.size(); l-- > 1;) sort_layer(g, pos, l - 1, false);
    } else {
      for (size_t l = 1; l < g.layers.size(); ++l) sort_layer(g, pos, l, true);
    }
    const size_t c = total_crossings(g, pos);
    if (c < best) {
      best = c;
      best_layers = g.layers;
      stale = 0;
    } else {
      ++stale;
    }
  }
  g.layers = std::move(best_layers);
  return best;
}

}  // namespace wnn::view::detail
