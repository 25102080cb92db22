// The oneDNN delegate: answers support from its lowering table and compiles a region by
// running each node's define step in order on one CPU engine.
#include "wnn/runtime/onednn/onednn_delegate.h"

#include <fmt/format.h>

#include "wnn/core/error.h"
#include "wnn/runtime/onednn/epilogue.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

std::string_view OnednnDelegate::name() const { return "onednn"; }

Support OnednnDelegate::supports(const Graph& graph, const Node& node) const {
  return supports_from_table(table(), name(), graph, node);
}

std::unique_ptr<CompiledRegion> OnednnDelegate::compile(const Graph& graph, const Region& region,
                                                        const DelegateOptions& options) const {
  try {
    RegionBuilder b(graph, region, dnnl::engine(dnnl::engine::kind::cpu, 0), options.threads);
    for (uint32_t k : region.nodes) {
      if (b.fused(k)) continue;  // runs as a post-op of the primitive before it
      const uint32_t n = b.defined_at(k);
      const Node& node = graph.nodes()[n];
      b.begin_node(n);
      with_error_context(fmt::format("{} '{}'", op_name(node.op()), graph.name_of(node.outputs[0])),
                         [&] {
                           // A written-out activation: one eltwise kernel from its first node.
                           if (const auto* a = b.activation_at(n)) return define_activation(b, *a);
                           if (const auto* r = b.rms_norm_at(n)) return define_rms_norm(b, *r);
                           table()[size_t(node.op())].define(b, node);
                         });
    }
    return b.finish();
  } catch (const dnnl::error& e) {
    // supports() said yes, so a library refusal here is a gap in wnn's checks.
    throw Error(fmt::format("oneDNN refused a node it was checked to support: {} (status {})",
                            e.what(), int(e.status)),
                ErrorKind::kInternal);
  }
}

}  // namespace wnn::runtime::onednn
