// The attention delegate: scaled dot-product attention in its graph form
// (attention_pattern.h), with the rotary embedding of Q and K and the KV cache's
// concat/placement around it, runs as one step: the new keys are rotated and placed into the
// present buffers, and every query row is scored, normalized and weighted in one pass
// (kernels/attention.h), reading Q, K and V at strides (no head transposes or copies). It
// claims nothing else, and goes before the libraries, which would run the pattern as a dozen
// separate kernels.
#pragma once

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::attention {

class AttentionDelegate final : public Delegate {
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

}  // namespace wnn::runtime::attention
