// Folding parameter-only subgraphs: every node whose inputs are all constants is evaluated
// once with the reference kernels and its outputs become constants, so a delegate sees static
// weights it can pre-pack (weight_norm's g * v / ||v|| feeding a conv filter, transposes and
// casts of weights). Rules: quantizeLinear/dequantizeLinear are never folded (a delegate may
// consume them as quantized weights), and a fold that would materialise a broadcast (an output
// much larger than its inputs) is skipped. Deterministic.
#pragma once

#include <string>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::passes {

struct FoldOptions {
  // A fold is skipped when its output is more than this many times its inputs' bytes...
  double max_growth = 4.0;
  // ...and larger than this.
  size_t max_grown_bytes = size_t(1) << 20;
};

struct FoldResult {
  Graph graph;
  size_t folded_nodes = 0;
  std::vector<std::string> skipped;  // "expand 'y': output 4 MiB from 16 B of inputs", ...
};

FoldResult fold_constants(const Graph& graph, const FoldOptions& options = {});

}  // namespace wnn::passes
