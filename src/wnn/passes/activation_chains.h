// Activations that WebNN has no op for, written out as elementwise chains, matched on
// structure (ops, shapes, constants; never names) so that a delegate with a kernel for one runs
// the chain as that one kernel. WebNN has no silu, mish or tanh-approximated gelu, so these stay
// chains in the graph (rewriting into another op would change values) and only a delegate's
// lowering reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

enum class Activation {
  kSilu,      // x * sigmoid(x), or swish x * sigmoid(beta * x)
  kMish,      // x * tanh(softplus(x)) (canonicalize writes log(1 + exp(x)) as softplus)
  kGeluTanh,  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
};

struct ActivationChain {
  Activation kind;
  OperandId x;                  // the chain's input
  std::vector<uint32_t> nodes;  // ascending; the last one computes the result
  float beta = 1;               // swish's
};

// The chain whose result `root` computes, if it is one: float32, no operand broadcasts x, and
// every value inside has one reader (in the chain) and is not a graph output. x may have other
// readers. Swish's beta x as `x * b` or `b * x`, b a one-element constant (the importer's
// QuickGelu, b = 1.702). Forms of tanh-gelu: x^3 as pow(x, 3), x * (x * x) or (x * x) * x; 0.5
// applied to x first or to the product last; constants in either operand order.
std::optional<ActivationChain> match_activation(const Graph& g, const Uses& u, const Node& root);

// The chain that node `n` is part of, if any (the root is looked for among the few nodes after
// `n`, through sole readers).
std::optional<ActivationChain> activation_containing(const Graph& g, const Uses& u, uint32_t n);

// RMS normalization written out over the trailing `axes` of x (WebNN has no op for it):
//   n = x / sqrt(reduceMean(x * x, axes) + eps)   (also pow(x, 2), eps + mean,
//       x * reciprocal(sqrt(...)) and x * (1 / sqrt(...)), the optimum Llama export)
//   y = n * gamma  (either order; absent when nothing multiplies n)
// as the ONNX importer writes SimplifiedLayerNormalization and SkipSimplifiedLayerNormalization.
struct RmsNormChain {
  OperandId x;
  std::vector<float> gamma;  // one per normalized element (row-major over the axes); empty: 1
  float eps = 0;
  size_t rows = 0, cols = 0;    // x as [rows, cols]: cols the product of the normalized dims
  std::vector<uint32_t> nodes;  // ascending; the last one computes y
};

// The chain whose result `root` computes, if it is one: float32, the mean over trailing axes
// with dims kept, eps a one-element constant >= 0, gamma a bound constant whose shape is the
// normalized dims (leading 1s aside), every value inside read once (in the chain) and not a
// graph output.
std::optional<RmsNormChain> match_rms_norm(const Graph& g, const Uses& u, const Node& root);
std::optional<RmsNormChain> rms_norm_containing(const Graph& g, const Uses& u, uint32_t n);

}  // namespace wnn::passes
