// Coordinate assignment. Each layer in turn: every node wants the x that lines its edges up
// with its neighbours in the layer just placed (weighted: long edges through dummies most), and
// the layer's order with its gaps must stay. The best such x's, in least squares, are a
// weighted isotonic regression, solved exactly by pool-adjacent-violators: with
// y_i = x_i - o_i, o_i the sum of the minimum separations left of node i, the constraint
// x_{i+1} - x_i >= s_i becomes y nondecreasing.
#include <algorithm>
#include <cmath>

#include "wnn/view/layering.h"

namespace wnn::view::detail {

namespace {

// Minimises sum w_i (y_i - t_i)^2 subject to y nondecreasing.
std::vector<double> isotonic(const std::vector<double>& target, const std::vector<double>& weight) {
  struct Block {
    double mean, weight;
    size_t count;
  };
  std::vector<Block> blocks;
  blocks.reserve(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    blocks.push_back({target[i], weight[i], 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean >= blocks.back().mean) {
      const Block b = blocks.back();
      blocks.pop_back();
      Block& a = blocks.back();
      const double w = a.weight + b.weight;
      a.mean = (a.mean * a.weight + b.mean * b.weight) / w;
      a.weight = w;
      a.count += b.count;
    }
  }
  std::vector<double> y;
  y.reserve(target.size());
  for (const Block& b : blocks) y.insert(y.end(), b.count, b.mean);
  return y;
}

class Placer {
 public:
  Placer(const LayeredGraph& g, const LayoutOptions& options)
      : g_(g), options_(options), x_(g.nodes.size(), 0.0) {
    for (const auto& layer : g.layers) {
      const auto offsets = separation_offsets(layer);
      for (size_t i = 0; i < layer.size(); ++i) {
        x_[layer[i]] = offsets[i] - offsets.back() / 2;  // packed, centred on 0
      }
    }
  }

  // `from_above` / `from_below`: which neighbours pull.
  void place_layer(size_t l, bool from_above, bool from_below) {
    const auto& layer = g_.layers[l];
    if (layer.empty()) return;
    const auto offsets = separation_offsets(layer);
    std::vector<double> target(layer.size()), weight(layer.size());
    for (size_t i = 0; i < layer.size(); ++i) {
      const LNode& v = g_.nodes[layer[i]];
      double sum = 0, w = 0;
      if (from_above) {
        for (uint32_t e : v.up) {
          const LEdge& edge = g_.edges[e];
          sum += edge.weight * (x_[edge.upper] + edge.upper_port_offset);
          w += edge.weight;
        }
      }
      if (from_below) {
        for (uint32_t e : v.down) {
          const LEdge& edge = g_.edges[e];
          sum += edge.weight * (x_[edge.lower] - edge.upper_port_offset);
          w += edge.weight;
        }
      }
      // A node nothing pulls stays where it is, yielding to any node that is pulled.
      target[i] = (w > 0 ? sum / w : x_[layer[i]]) - offsets[i];
      weight[i] = w > 0 ? w : 1e-3;
    }
    const auto y = isotonic(target, weight);
    for (size_t i = 0; i < layer.size(); ++i) x_[layer[i]] = y[i] + offsets[i];
  }

  // Whole pixels, the leftmost extent at the margin. Offsets are whole, and rounding y (which
  // is nondecreasing) keeps it nondecreasing, so every separation survives the rounding.
  std::vector<int> finish() const {
    double min_left = 0;
    bool first = true;
    for (size_t v = 0; v < x_.size(); ++v) {
      const double left = x_[v] - g_.nodes[v].left;
      if (first || left < min_left) min_left = left;
      first = false;
    }
    std::vector<int> out(x_.size(), 0);
    for (const auto& layer : g_.layers) {
      const auto offsets = separation_offsets(layer);
      for (size_t i = 0; i < layer.size(); ++i) {
        const double y = x_[layer[i]] - offsets[i] - min_left;
        out[layer[i]] = int(std::lround(y)) + int(offsets[i]) + options_.margin;
      }
    }
    return out;
  }

 private:
  // o_i: the least distance from node 0's anchor to node i's.
  std::vector<double> separation_offsets(const std::vector<uint32_t>& layer) const {
    std::vector<double> o(layer.size(), 0.0);
    for (size_t i = 1; i < layer.size(); ++i) {
      const LNode& a = g_.nodes[layer[i - 1]];
      const LNode& b = g_.nodes[layer[i]];
      const int gap = a.box >= 0 && b.box >= 0 ? options_.box_gap : options_.dummy_gap;
      o[i] = o[i - 1] + a.right + gap + b.left;
    }
    return o;
  }

  const LayeredGraph& g_;
  const LayoutOptions& options_;
  std::vector<double> x_;
};

}  // namespace

std::vector<int> place_nodes(const LayeredGraph& g, const LayoutOptions& options) {
  Placer p(g, options);
  const size_t layers = g.layers.size();
  for (int sweep = 0; sweep < options.placement_sweeps; ++sweep) {
    for (size_t l = 1; l < layers; ++l) p.place_layer(l, true, false);
    for (size_t l = layers; l-- > 1;) p.place_layer(l - 1, false, true);
  }
  // Last, each node between both sides, so neither the top nor the bottom has the last word.
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (size_t l = 0; l < layers; ++l) p.place_layer(l, true, true);
  }
  return p.finish();
}

}  // namespace wnn::view::detail
