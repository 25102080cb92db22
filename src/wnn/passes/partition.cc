#include "wnn/passes/partition.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace wnn::passes {

namespace {

// Union-find over region ids, so merged regions answer to one representative.
struct RegionSets {
  std::vector<uint32_t> parent;
  std::vector<int> delegate;
  std::vector<std::set<uint32_t>> bad;  // regions that reach this one through an outside node
  uint32_t find(uint32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
  }
  uint32_t make(int d) {
    parent.push_back(uint32_t(parent.size()));
    delegate.push_back(d);
    bad.emplace_back();
    return parent.back();
  }
  bool bad_contains(uint32_t region, uint32_t other) {
    for (uint32_t b : bad[region]) {
      if (find(b) == other) return true;
    }
    return false;
  }
};

}  // namespace

void compute_region_io(const Graph& graph, Region& region) {
  std::set<uint32_t> members(region.nodes.begin(), region.nodes.end());
  std::set<uint32_t> produced;
  region.inputs.clear();
  region.outputs.clear();
  for (uint32_t n : region.nodes) {
    for (OperandId in : graph.nodes()[n].inputs) {
      const Operand& op = graph.operand(in);
      const bool inside = op.kind == OperandKind::kNodeOutput && members.count(op.producer);
      if (!inside &&
          std::find(region.inputs.begin(), region.inputs.end(), in) == region.inputs.end()) {
        region.inputs.push_back(in);
      }
    }
    for (OperandId out : graph.nodes()[n].outputs) produced.insert(out.index);
  }
  std::set<uint32_t> read_outside;
  for (uint32_t n = 0; n < graph.nodes().size(); ++n) {
    if (members.count(n)) continue;
    for (OperandId in : graph.nodes()[n].inputs) read_outside.insert(in.index);
  }
  for (uint32_t n : region.nodes) {
    for (OperandId out : graph.nodes()[n].outputs) {
      if (read_outside.count(out.index) || graph.is_output(out)) region.outputs.push_back(out);
    }
  }
}

Partition partition_graph(const Graph& graph, const std::vector<Candidate>& candidates) {
  const auto nodes = graph.nodes();
  Partition p;
  p.region_of.assign(nodes.size(), -1);
  p.ref_reason.assign(nodes.size(), {});

  // 1. Assign each node to the first delegate that supports it.
  std::vector<int> chosen(nodes.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::string why;
    for (size_t d = 0; d < candidates.size(); ++d) {
      Support s = candidates[d].supports(graph, nodes[n]);
      if (s.ok) {
        chosen[n] = int(d);
        break;
      }
      if (s.reason.empty()) continue;
      if (!why.empty()) why += "; ";
      why += candidates[d].name + ": " + s.reason;
    }
    if (chosen[n] < 0) p.ref_reason[n] = candidates.empty() ? "reference backend selected" : why;
  }

  // 2. Grow regions in topological order. For each node: `anc` holds the (raw) region ids with
  // a node upstream of it, `bad` those that reach it through a node outside themselves. A node
  // may join region R only when R is not in its bad set; two regions merge through a node only
  // when neither reaches the other through an outside node.
  RegionSets sets;
  std::vector<std::set<uint32_t>> anc(nodes.size()), bad(nodes.size());
  std::vector<int64_t> node_region(nodes.size(), -1);  // raw region id
  // Bad sets keep each region convex, but convex regions can still form a cycle: region A
  // feeding B through one node while B feeds A through another. So the graph of units (nodes
  // on the reference, and regions) built so far is kept, and a join or merge that would let a
  // region reach one of the node's other producers is refused. succ is indexed by unit id:
  // node n is n, raw region r is N + r (its list absorbs merged regions' lists).
  const uint32_t N = uint32_t(nodes.size());
  std::vector<std::vector<uint32_t>> succ(N);
  std::vector<uint32_t> stamp(N, 0), stack;
  uint32_t epoch = 0;
  auto canon = [&](uint32_t u) { return u >= N ? N + sets.find(u - N) : u; };
  auto unit_of = [&](uint32_t node) {
    return node_region[node] >= 0 ? N + sets.find(uint32_t(node_region[node])) : node;
  };
  auto reaches = [&](uint32_t from, uint32_t to) {
    ++epoch;
    stack.assign(1, from);
    stamp[from] = epoch;
    while (!stack.empty()) {
      const uint32_t u = stack.back();
      stack.pop_back();
      for (uint32_t v : succ[u]) {
        v = canon(v);
        if (v == to) return true;
        if (stamp[v] != epoch) {
          stamp[v] = epoch;
          stack.push_back(v);
        }
      }
    }
    return false;
  };
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::vector<uint32_t> producer_regions, producer_units;
    for (OperandId in : nodes[n].inputs) {
      const Operand& op = graph.operand(in);
      if (op.kind != OperandKind::kNodeOutput) continue;
      const uint32_t pn = op.producer;
      const int64_t pr = node_region[pn] >= 0 ? int64_t(sets.find(uint32_t(node_region[pn]))) : -1;
      bad[n].insert(bad[pn].begin(), bad[pn].end());
      for (uint32_t r : anc[pn]) {
        if (int64_t(sets.find(r)) != pr) bad[n].insert(r);
      }
      anc[n].insert(anc[pn].begin(), anc[pn].end());
      if (pr >= 0) {
        anc[n].insert(uint32_t(pr));
        producer_regions.push_back(uint32_t(pr));
      }
      producer_units.push_back(unit_of(pn));
    }
    auto add_edges = [&]() {
      const uint32_t v = unit_of(uint32_t(n));
      for (uint32_t u : producer_units) {
        u = canon(u);
        if (u != v) succ[u].push_back(v);
      }
    };
    if (chosen[n] < 0) {
      add_edges();
      continue;
    }
    auto in_bad = [&](uint32_t r) {
      for (uint32_t b : bad[n]) {
        if (sets.find(b) == r) return true;
      }
      return false;
    };
    // Whether region unit `u` reaches a producer of n other than the units in `except`.
    auto reaches_other_producer = [&](uint32_t u, uint32_t except) {
      for (uint32_t p : producer_units) {
        p = canon(p);
        if (p != u && p != except && reaches(u, p)) return true;
      }
      return false;
    };
    int64_t joined = -1;
    for (uint32_t r : producer_regions) {
      r = sets.find(r);
      if (sets.delegate[r] != chosen[n] || in_bad(r)) continue;
      if (joined < 0) {
        if (reaches_other_producer(N + r, N + r)) continue;
        joined = r;
        continue;
      }
      if (uint32_t(joined) == r) continue;
      if (sets.bad_contains(r, uint32_t(joined)) || sets.bad_contains(uint32_t(joined), r))
        continue;
      const uint32_t ju = N + uint32_t(joined), ru = N + r;
      if (reaches(ju, ru) || reaches(ru, ju) || reaches_other_producer(ru, ju)) continue;
      sets.parent[r] = uint32_t(joined);
      sets.bad[joined].insert(sets.bad[r].begin(), sets.bad[r].end());
      succ[ju].insert(succ[ju].end(), succ[ru].begin(), succ[ru].end());
    }
    if (joined < 0) {
      joined = sets.make(chosen[n]);
      succ.emplace_back();
      stamp.push_back(0);
    }
    node_region[n] = joined;
    sets.bad[joined].insert(bad[n].begin(), bad[n].end());
    add_edges();
  }

  // 3. Number the final regions by first node.
  std::vector<int> final_index(sets.parent.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (node_region[n] < 0) continue;
    const uint32_t r = sets.find(uint32_t(node_region[n]));
    if (final_index[r] < 0) {
      final_index[r] = int(p.regions.size());
      p.regions.push_back({candidates[size_t(sets.delegate[r])].name, {}, {}, {}});
    }
    p.region_of[n] = final_index[r];
    p.regions[size_t(final_index[r])].nodes.push_back(uint32_t(n));
  }
  for (Region& r : p.regions) compute_region_io(graph, r);
  return p;
}

std::string op_counts(const Graph& graph, const std::vector<uint32_t>& nodes) {
  std::map<std::string, int> counts;
  for (uint32_t n : nodes) ++counts[std::string(op_name(graph.nodes()[n].op()))];
  std::string s;
  for (const auto& [op, c] : counts) {
    s += (s.empty() ? "" : ", ") + op + (c > 1 ? " x" + std::to_string(c) : "");
  }
  return s;
}

}  // namespace wnn::passes
