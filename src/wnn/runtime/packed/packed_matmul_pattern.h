// The graph form of a block-quantized matmul (ONNX's MatMulNBits as onnx/ops/quantized_matmul.cc
// writes it): gemm(A, dequantizeLinear(W, scale, zeroPoint) [sliced to K], bTranspose) with W a
// uint4/uint8 constant [N, K padded to blocks], scale [N, blocks], and, for accuracy_level 4,
// A quantized per block to int8 in front of it. Matched structurally (ops, shapes, constants).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::runtime::packed {

struct PackedMatmulPattern {
  uint32_t gemm = 0;
  std::vector<uint32_t> nodes;          // every node of the pattern, the gemm included, sorted
  OperandId a;                          // float32 [M, K]: A before any quantization
  OperandId weight;                     // constant uint4 or uint8 [N, blocks * block]
  OperandId scale;                      // constant float32 [N, blocks]
  std::optional<OperandId> zero_point;  // constant [N, blocks], or nullopt with uniform_zero
  int uniform_zero = 0;
  std::optional<OperandId> bias;  // float32 [N] or [1, N]
  int64_t m = 0, n = 0, k = 0, blocks = 0, block = 0;
  int bits = 4;
  bool int8_activations = false;  // accuracy_level 4
};

// The pattern ending at `gemm`, if it is one whose inner values nothing outside reads.
std::optional<PackedMatmulPattern> match_packed_matmul(const Graph& g, uint32_t gemm);

// The pattern `node` belongs to, if any: follows sole readers down to a gemm, then matches.
std::optional<PackedMatmulPattern> pattern_containing(const Graph& g, uint32_t node);

}  // namespace wnn::runtime::packed
