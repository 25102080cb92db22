// The packed delegate: block-quantized matmuls (packed_matmul_pattern.h) run as one kernel
// that reads the 4- or 8-bit weight packed, dequantizes in registers and accumulates
// (kernels/block_quantized_matmul.h), with ONNX Runtime's int8 activations for
// accuracy_level 4. The RMS norms producing their A and silu(gate) * up over the gate and up
// projections run as steps of the same region (decoder_elementwise_pattern.h). It claims
// nothing else, so it goes first in the preference order.
#pragma once

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::packed {

class PackedDelegate final : public Delegate {
 public:
  std::string_view name() const override;
  // Matches every pattern of `graph` (supports() alone does so on each call).
  std::unique_ptr<const GraphAnalysis> analyze(const Graph& graph) const override;
  Support supports_in(const Graph& graph, const Node& node,
                      const GraphAnalysis* analysis) const override;
  Support supports(const Graph& graph, const Node& node) const override;
  std::unique_ptr<CompiledRegion> compile(const Graph& graph, const Region& region,
                                          const DelegateOptions& options) const override;
};

}  // namespace wnn::runtime::packed
