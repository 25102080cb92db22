#include "wnn/runtime/xnnpack/xnnpack_delegate.h"

#include <fmt/format.h>

#include "wnn/core/error.h"
#include "wnn/runtime/xnnpack/subgraph_builder.h"

namespace wnn::runtime::xnnpack {

std::string_view XnnpackDelegate::name() const { return "xnnpack"; }

Support XnnpackDelegate::supports(const Graph& graph, const Node& node) const {
  const auto& slot = table()[size_t(node.op())];
  Support s = supports_from_table(table(), name(), graph, node);
  // A slot may declare a reason without a lowering (prelu); it never says yes without one.
  check_internal(!s.ok || slot.define != nullptr, "XNNPACK lowering of {} has no define step",
                 op_name(node.op()));
  return s;
}

std::unique_ptr<CompiledRegion> XnnpackDelegate::compile(const Graph& graph, const Region& region,
                                                         const DelegateOptions& options) const {
  SubgraphBuilder b(graph, region);
  for (uint32_t n : region.nodes) {
    const Node& node = graph.nodes()[n];
    if (b.absorbed(n)) continue;  // done by the quantized node of its QDQ pattern
    with_error_context(fmt::format("{} '{}'", op_name(node.op()), graph.name_of(node.outputs[0])),
                       [&] { table()[size_t(node.op())].define(b, node); });
  }
  return b.finish(options.threads);
}

}  // namespace wnn::runtime::xnnpack
