// The packed delegate: block-quantized matmuls (packed_matmul_pattern.h) run as one kernel
// that reads the 4- or 8-bit weight packed, dequantizes in registers and accumulates
// (kernels/block_quantized_matmul.h), with ONNX Runtime's int8 activations for
// accuracy_level 4. It claims nothing else, so it goes first in the preference order.
#pragma once

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::packed {

class PackedDelegate final : public Delegate {
 public:
  std::string_view name() const override;
  Support supports(const Graph& graph, const Node& node) const override;
  std::unique_ptr<CompiledRegion> compile(const Graph& graph, const Region& region,
                                          const DelegateOptions& options) const override;
};

}  // namespace wnn::runtime::packed
