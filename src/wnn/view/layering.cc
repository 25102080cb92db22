#include "wnn/view/layering.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

#include "wnn/core/error.h"

namespace wnn::view::detail {

namespace {

// Kahn's algorithm, smallest index first, so the order is the same on every run.
std::vector<uint32_t> topological_order(size_t n, const std::vector<std::vector<uint32_t>>& succ) {
  std::vector<int> indegree(n, 0);
  for (const auto& s : succ) {
    for (uint32_t v : s) ++indegree[v];
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push(v);
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const uint32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (uint32_t s : succ[v]) {
      if (--indegree[s] == 0) ready.push(s);
    }
  }
  check(order.size() == n, "the graph has a cycle: {} of {} boxes cannot be layered",
        n - order.size(), n);
  return order;
}

std::vector<int> assign_layers(const std::vector<LayoutBox>& boxes,
                               const std::vector<LayoutEdge>& edges) {
  const size_t n = boxes.size();
  std::vector<std::vector<uint32_t>> succ(n), pred(n);
  for (const auto& e : edges) {
    succ[e.from].push_back(e.to);
    pred[e.to].push_back(e.from);
  }
  for (size_t v = 0; v < n; ++v) {
    for (auto* list : {&succ[v], &pred[v]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  const auto order = topological_order(n, succ);
  std::vector<int> layer(n, 0);
  for (uint32_t v : order) {
    for (uint32_t p : pred[v]) layer[v] = std::max(layer[v], layer[p] + 1);
  }
  // A node feeding more boxes than it reads from shortens more edges than it lengthens by
  // sitting just above its first successor (graph inputs most of all), and so does a node
  // that asks to. Successors come first in reverse topological order, so each is final.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t v = *it;
    if (succ[v].empty()) continue;
    if (!boxes[v].hug_successors && pred[v].size() >= succ[v].size()) continue;
    int lowest = INT32_MAX;
    for (uint32_t s : succ[v]) lowest = std::min(lowest, layer[s]);
    layer[v] = std::max(layer[v], lowest - 1);
  }
  return layer;
}

}  // namespace

LayeredGraph build_layers(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                          const LayoutOptions& options) {
  const size_t n = boxes.size();
  for (const auto& e : edges) {
    check(e.from < n && e.to < n, "an edge joins box {} to box {}, but there are {} boxes", e.from,
          e.to, n);
    check(e.from_port < uint32_t(std::max(boxes[e.from].out_ports, 1)),
          "an edge leaves port {} of box {}, which has {} output ports", e.from_port, e.from,
          boxes[e.from].out_ports);
  }
  const std::vector<int> layer = assign_layers(boxes, edges);
  LayeredGraph g;
  g.nodes.resize(n);
  int layers = 0;
  for (size_t v = 0; v < n; ++v) {
    LNode& node = g.nodes[v];
    node.box = int(v);
    node.layer = layer[v];
    node.left = boxes[v].width / 2;
    node.right = boxes[v].width - node.left + boxes[v].extra_right;
    layers = std::max(layers, layer[v] + 1);
  }
  auto add_edge = [&](uint32_t upper, uint32_t lower, int port_offset) {
    const bool upper_dummy = g.nodes[upper].box < 0, lower_dummy = g.nodes[lower].box < 0;
    const double weight = upper_dummy && lower_dummy ? 8.0 : upper_dummy || lower_dummy ? 2.0 : 1.0;
    g.edges.push_back({upper, lower, port_offset, weight});
    g.nodes[upper].down.push_back(uint32_t(g.edges.size() - 1));
    g.nodes[lower].up.push_back(uint32_t(g.edges.size() - 1));
  };
  // Nets in order of first appearance; each gets one chain of dummies down to its deepest
  // consumer, and every consumer branches off the chain one layer above itself.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> nets;
  std::vector<std::pair<uint32_t, uint32_t>> net_order;
  for (uint32_t i = 0; i < edges.size(); ++i) {
    const auto key = std::make_pair(edges[i].from, edges[i].from_port);
    auto [it, inserted] = nets.try_emplace(key);
    if (inserted) net_order.push_back(key);
    it->second.push_back(i);
  }
  g.paths.resize(edges.size());
  for (const auto& key : net_order) {
    const auto& members = nets[key];
    const uint32_t source = key.first;
    const LayoutBox& box = boxes[source];
    const int port_offset = out_port_x(box, -box.width / 2, int(key.second));
    int deepest = layer[source];
    for (uint32_t i : members) deepest = std::max(deepest, layer[edges[i].to]);
    std::vector<uint32_t> chain;  // chain[k] sits at layer source + 1 + k
    uint32_t above = source;
    for (int l = layer[source] + 1; l < deepest; ++l) {
      LNode d;
      d.layer = l;
      d.left = options.dummy_width / 2;
      d.right = options.dummy_width - d.left;
      g.nodes.push_back(d);
      const uint32_t id = uint32_t(g.nodes.size() - 1);
      add_edge(above, id, above == source ? port_offset : 0);
      chain.push_back(id);
      above = id;
    }
    for (uint32_t i : members) {
      const int target_layer = layer[edges[i].to];
      std::vector<uint32_t>& path = g.paths[i];
      path.push_back(source);
      for (int l = layer[source] + 1; l < target_layer; ++l) {
        path.push_back(chain[size_t(l - layer[source] - 1)]);
      }
      const uint32_t upper = path.back();
      add_edge(upper, edges[i].to, upper == source ? port_offset : 0);
      path.push_back(edges[i].to);
    }
  }
  g.layers.resize(size_t(layers));
  for (uint32_t v = 0; v < g.nodes.size(); ++v) g.layers[size_t(g.nodes[v].layer)].push_back(v);
  return g;
}

}  // namespace wnn::view::detail
