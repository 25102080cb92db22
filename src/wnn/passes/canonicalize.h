// One canonical form before partitioning: the activations and normalizations exporters write
// out as several nodes become the one WebNN op that computes them (gelu, hardSigmoid,
// hardSwish, softmax, layerNormalization, instanceNormalization), so every delegate sees one form
// and runs it as one kernel. docs/delegates.md ("Written-out patterns") lists each pattern, the
// exporters that write it, the look-alikes left alone, and the forms kept on purpose.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::passes {

struct PatternCount {
  std::string_view pattern;  // "gelu", "hardSwish", ...: the op the pattern becomes
  size_t replaced = 0;
};

// All patterns replaced.
size_t replaced(std::span<const PatternCount> counts);

struct Canonical {
  Graph graph;                       // a copy of the input when nothing matched
  std::vector<PatternCount> counts;  // one entry per pass, in table order
  size_t replaced() const { return passes::replaced(counts); }
};

// Runs the structural rewrites (transposes cancelled, strided long-filter convs framed, zero
// pads folded into convs) once each, then the pattern passes, in table order, until a full round
// replaces nothing. One pattern pass feeds another: fuse_hard_sigmoid's node is what
// fuse_hard_swish reads in x * hardSigmoid(x), and it runs first, so a round usually finishes the
// job and the next finds nothing; the loop makes the result independent of that order.
// Deterministic.
Canonical canonicalize(const Graph& graph);

}  // namespace wnn::passes
