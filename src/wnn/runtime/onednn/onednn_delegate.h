// The oneDNN (Debian's 2.6.3) delegate. See docs/delegates.md for what it lowers and why.
#pragma once

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::onednn {

class OnednnDelegate final : public Delegate {
 public:
  std::string_view name() const override;
  Support supports(const Graph& graph, const Node& node) const override;
  std::unique_ptr<CompiledRegion> compile(const Graph& graph, const Region& region,
                                          const DelegateOptions& options) const override;
};

}  // namespace wnn::runtime::onednn
