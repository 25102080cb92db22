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

// What one pattern becomes: `emit` adds the nodes computing the pattern's result to `b`, reading
// only the source operands listed in `reads` (mapped to the rebuilt graph through `map`), and
// names its result `name` (the name of the pattern's last value).
struct Replacement {
  std::vector<OperandId> reads;
  std::function<OperandId(GraphBuilder& b, const std::function<OperandId(OperandId)>& map,
                          const std::string& name)>
      emit;
};

// `g` rebuilt with patterns replaced: the nodes marked in `dropped` go, and each node keyed in
// `replaced` (its single output is the pattern's result) becomes its replacement, emitted where
// the node was. Deterministic.
Graph replace_patterns(const Graph& g, const std::vector<bool>& dropped,
                       const std::map<size_t, Replacement>& replaced);

// `g` rebuilt with patterns replaced: per node, `fate` is -1 (kept), -2 (dropped: inside a
// pattern) or the index of the operand x that the pattern computes `op(x)` of; that node
// becomes one `op` node keeping its result's name. Deterministic.
Graph replace_with_unary(const Graph& g, const std::vector<int64_t>& fate, OpKind op);

}  // namespace wnn::passes
