#include "wnn/onnx/topo_order.h"

#include <fmt/format.h>

#include <map>
#include <queue>

#include "wnn/core/error.h"

namespace wnn::onnx {

namespace {

std::string node_label(const NodeProto& n) {
  return fmt::format("'{}' ({})", n.name.empty() ? "(unnamed)" : n.name, n.op_type);
}

// What `n` reads: its inputs, then its subgraphs' outer reads (in name order: deterministic).
std::vector<std::string> reads_of(const NodeProto& n) {
  std::vector<std::string> reads;
  for (const auto& in : n.input) {
    if (!in.empty()) reads.push_back(in);
  }
  for (const auto& a : n.attribute) {
    if (a.g) {
      for (const auto& r : outer_reads(*a.g)) reads.push_back(r);
    }
    for (const auto& sub : a.graphs) {
      for (const auto& r : outer_reads(*sub)) reads.push_back(r);
    }
  }
  return reads;
}

}  // namespace

std::set<std::string> outer_reads(const GraphProto& g) {
  std::set<std::string> own;
  for (const auto& t : g.initializer) own.insert(t.name);
  for (const auto& in : g.input) own.insert(in.name);
  for (const auto& n : g.node) own.insert(n.output.begin(), n.output.end());
  std::set<std::string> reads;
  for (const auto& n : g.node) {
    for (const auto& r : reads_of(n)) {
      if (!own.count(r)) reads.insert(r);
    }
  }
  for (const auto& out : g.output) {
    if (!own.count(out.name)) reads.insert(out.name);
  }
  return reads;
}

std::vector<size_t> topo_order(const std::vector<NodeProto>& nodes,
                               const std::function<bool(const std::string&)>& available) {
  // The first producer of each value (a valid model has one; SSA is ONNX's rule, not ours).
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& o : nodes[i].output) {
      if (!o.empty()) producer.emplace(o, i);
    }
  }
  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::vector<size_t> waiting(nodes.size(), 0);
  std::vector<std::vector<std::string>> reads(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    reads[i] = reads_of(nodes[i]);
    std::set<size_t> deps;
    for (const auto& r : reads[i]) {
      if (available(r)) continue;
      const auto p = producer.find(r);
      check(p != producer.end(), "node {} reads '{}', which nothing produced", node_label(nodes[i]),
            r);
      deps.insert(p->second);
    }
    waiting[i] = deps.size();
    for (size_t d : deps) consumers[d].push_back(i);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i]) {
      if (--waiting[c] == 0) ready.push(c);
    }
  }
  if (order.size() == nodes.size()) return order;
  // Every node left waits on another left: follow the first unmet read of the first one until a
  // node repeats, and name that cycle.
  std::vector<bool> done(nodes.size(), false);
  for (size_t i : order) done[i] = true;
  size_t at = 0;
  while (done[at]) ++at;
  std::vector<size_t> path;
  std::map<size_t, size_t> seen;
  std::vector<std::string> via;
  while (!seen.count(at)) {
    seen[at] = path.size();
    path.push_back(at);
    for (const auto& r : reads[at]) {
      if (available(r)) continue;
      const size_t p = producer.at(r);
      if (!done[p]) {
        via.push_back(r);
        at = p;
        break;
      }
    }
  }
  std::string cycle;
  for (size_t k = seen[at]; k < path.size(); ++k) {
    cycle += fmt::format("node {} reads '{}' from ", node_label(nodes[path[k]]), via[k]);
  }
  cycle += "node " + node_label(nodes[at]);
  fail("the nodes form a cycle: {}", cycle);
}

}  // namespace wnn::onnx
