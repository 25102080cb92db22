// Matching written-out patterns structurally (ops, shapes, constant values; never names): the
// helpers the fusion passes and the delegates' lowerings share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "wnn/core/builder.h"

#include "wnn/core/graph.h"

namespace wnn::passes {

// What a pattern pass returns: the rewritten graph (a copy when nothing matched).
struct PatternFusion {
  Graph graph;
  size_t fused = 0;  // patterns replaced
};

// The value of a bound float32 constant holding one element (rank 0 or all dims 1), if `id` is
// one.
std::optional<float> scalar_constant(const Graph& g, OperandId id);

// Whether `v` is within a relative 1e-6 of `want` (exported constants are rounded to float32:
// 1/6 is 0.16666667f, sqrt(2) 1.4142135f).
bool near(std::optional<float> v, double want);

struct Uses {
  std::vector<int> count;       // per operand: readers (a node reading twice counts twice)
  std::vector<int64_t> reader;  // per operand: its last reader
};
// Graph outputs count as two extra readers, so they are never an inner value of a pattern.
Uses uses_of(const Graph& g);

// The node reading `value` as its only reader, if `value` has exactly one and it is `op`.
const Node* sole_reader(const Graph& g, const Uses& u, OperandId value, OpKind op);

// For a binary node reading `value`, its other operand.
OperandId other(const Node& n, OperandId value);

// Per operand, every node reading it, in node order (a node reading twice is listed twice).
// Graph outputs are not readers: check them with Uses or Graph::is_output.
std::vector<std::vector<uint32_t>> readers_of(const Graph& g);

// The axes a reduction node reduces (its resolved "axes", all of them when absent), sorted.
std::vector<int64_t> reduced_axes(const Graph& g, const Node& n);

// The node computing `id`, or null when `id` is a graph input or a constant.
const Node* producer(const Graph& g, OperandId id);
// The node computing `id` as its output 0 when it is `op`, else null.
const Node* producer(const Graph& g, OperandId id, OpKind op);

// What one pattern becomes: `emit` adds the nodes computing the pattern's result to `b`, reading
// only the source operands listed in `reads` (mapped to the rebuilt graph through `map`), and
// names its result `name`. The result stands for the source value `result` (by default the
// single output of the node it replaces) and takes its name.
struct Replacement {
  std::vector<OperandId> reads;
  std::function<OperandId(GraphBuilder& b, const std::function<OperandId(OperandId)>& map,
                          const std::string& name)>
      emit;
  std::optional<OperandId> result;
};

// The replacement `op(x)`, keeping the replaced value's name.
Replacement unary(OpKind op, OperandId x);

// `g` rebuilt with patterns replaced: the nodes marked in `dropped` go, and each node keyed in
// `replaced` becomes its replacement, emitted where the node was. Deterministic.
Graph replace_patterns(const Graph& g, const std::vector<bool>& dropped,
                       const std::map<size_t, Replacement>& replaced);

// The bookkeeping every pattern pass shares. A match claims its nodes (a node belongs to one
// match at most: a later match overlapping an earlier one is refused); claimed nodes go, but
// for those given a replacement. finish() rebuilds the graph through replace_patterns.
class PatternRewriter {
 public:
  explicit PatternRewriter(const Graph& g)
      : g_(g), claimed_(g.nodes().size(), false), dropped_(g.nodes().size(), false) {}

  size_t index(const Node* n) const { return size_t(n - g_.nodes().data()); }
  bool claimed(size_t node) const { return claimed_[node]; }

  // Claims a match's nodes, which then go. False, and nothing claimed, when one of them belongs
  // to an earlier match.
  bool claim(const std::vector<size_t>& nodes);
  // A claimed node becomes `r` instead of going.
  void replace(size_t node, Replacement r);
  // claim(nodes), then `root` (one of them) becomes `r`.
  bool replace(const std::vector<size_t>& nodes, size_t root, Replacement r);
  // A node nothing reads any more once the matches are replaced goes too, without being claimed
  // (a value several matches read).
  void drop(size_t node) { dropped_[node] = true; }

  size_t matches() const { return matches_; }
  // The rebuilt graph and the number of matches (a copy of the graph when there were none).
  PatternFusion finish() const;

 private:
  const Graph& g_;
  std::vector<bool> claimed_, dropped_;
  std::map<size_t, Replacement> replaced_;
  size_t matches_ = 0;
};

}  // namespace wnn::passes
