// The elementwise work between a decoder's packed projections, as the importer writes it: the
// RMS normalization in front of a projection (SimplifiedLayerNormalization,
// SkipSimplifiedLayerNormalization with its residual sum, RMSNormalization), and
// silu(gate) * up behind the gate and up projections. The packed delegate runs each as one
// step of the region that holds the projections (kernels/decoder_elementwise.h), so a
// decoder layer's norms, projections and MLP are one region instead of five. Matched
// structurally (ops, shapes, constants), never by name; every value a pattern computes but
// the ones it writes stays inside it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::runtime::packed {

// y = x / sqrt(reduceMean(x * x, last axis) + epsilon) * gamma, then reshapes or identities;
// x = a + residual when the norm's input is a same-shape add (its sum then also written).
struct RmsNormPattern {
  std::vector<uint32_t> nodes;        // sorted
  uint32_t reduce = 0;                // the reduceMean: the node a profile names
  OperandId a;                        // x, or the first addend (before any reshape)
  std::optional<OperandId> residual;  // the second addend (before any reshape)
  std::optional<OperandId> sum;       // x when it is the add's result
  std::vector<OperandId> sum_copies;  // identities and reshapes of the sum the pattern holds
  OperandId gamma;                    // constant float32 of `hidden` elements
  float epsilon = 0;
  OperandId y;  // the result
  int64_t rows = 0, hidden = 0;
};

// What the matchers read of the graph's wiring, computed once per graph.
struct Wiring {
  passes::Uses uses;
  std::vector<std::vector<uint32_t>> readers;  // passes::readers_of
  explicit Wiring(const Graph& g) : uses(passes::uses_of(g)), readers(passes::readers_of(g)) {}
};

// The RMS norm whose result, through reshapes and identities, is `value`.
std::optional<RmsNormPattern> match_rms_norm(const Graph& g, const Wiring& w, OperandId value);

// y = mul(mul(gate, sigmoid(gate)), up) (operands in either order), gate and up through
// reshapes, then reshapes or identities up to a node `stop` holds (or a value with more than
// one reader).
struct SiluMulPattern {
  std::vector<uint32_t> nodes;  // sorted
  uint32_t sigmoid = 0;
  OperandId gate, up;  // before any reshape
  OperandId y;
  int64_t elements = 0;
};

std::optional<SiluMulPattern> match_silu_mul(const Graph& g, const Wiring& w, uint32_t sigmoid,
                                             const std::vector<bool>& stop);

}  // namespace wnn::runtime::packed
