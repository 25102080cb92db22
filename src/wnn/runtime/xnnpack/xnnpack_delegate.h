// The XNNPACK (Debian's February 2022 snapshot) delegate, through the subgraph API. Support is
// decided entirely before any XNNPACK call: this version crashes on some inputs it accepts at
// define time. See docs/delegates.md.
#pragma once

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::xnnpack {

class XnnpackDelegate final : public Delegate {
 public:
  std::string_view name() const override;
  Support supports(const Graph& graph, const Node& node) const override;
  std::unique_ptr<CompiledRegion> compile(const Graph& graph, const Region& region,
                                          const DelegateOptions& options) const override;
};

}  // namespace wnn::runtime::xnnpack
