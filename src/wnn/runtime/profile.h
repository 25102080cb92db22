// Per-step timing of a session (`wnn bench --profile`): where a run's time goes, per reference
// node and per delegate kernel, with the arithmetic rate of convolutions and matrix products.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::runtime {

// Floating-point operations of one node (a multiply-add counts 2) for conv2d,
// convTranspose2d, gemm and matmul; 0 for every other op.
double node_flops(const Graph& graph, const Node& node);

struct ProfileRow {
  std::string label;        // "conv2d+relu 'x'", "reorder in conv2d 'y'"
  std::string where;        // "ref", or the delegate and region ("onednn#3")
  std::string op;           // the op name of the computed node ("reorder" for conversions)
  double flops = 0;         // per run, including fused nodes' (elementwise count as 0)
  std::string kernel = {};  // the library's implementation, if it names one ("brgconv:avx512_core")
  double total_ms = 0;
  int64_t runs = 0;
  // The graph nodes the step computes (a fused step several, a region without inner steps all
  // of its nodes; a helper step such as a reorder those of the kernel it serves).
  std::vector<uint32_t> nodes = {};
};

}  // namespace wnn::runtime
