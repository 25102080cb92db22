#include "wnn/runtime/onednn/layout_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "wnn/core/error.h"

namespace wnn::runtime::onednn {

ConvLayout plan_conv_layout(const Graph& g, const Region& r, std::string_view override_) {
  if (override_ == "blocked") return ConvLayout::kBlocked;
  if (override_ == "any") return ConvLayout::kPerPrimitive;
  check(override_.empty() || override_ == "auto",
        "WNN_ONEDNN_CONV_LAYOUT is '{}'; expected auto, blocked or any", override_);
  // Measured on the zoo (docs/benchmarks.md): stacks of grouped and depthwise convs
  // (mobilenets, efficientnet, regnet) run faster blocked; dense-conv regions (resnet,
  // squeezenet) gain nothing. Ops that read row-major (a channel shuffle's reshape and
  // transpose, convnext's permutes around layerNormalization) each cost a reorder out of and
  // back into the blocked layout, which outweighed the kernels' gain on shufflenet_v2.
  size_t convs = 0, grouped = 0, row_major = 0;
  for (uint32_t k : r.nodes) {
    const Node& n = g.nodes()[k];
    switch (n.op()) {
      case OpKind::kConv2d:
        ++convs;
        grouped += n.attrs.get_int("groups") > 1;
        break;
      case OpKind::kTranspose:
      case OpKind::kReshape:
      case OpKind::kSlice:
      case OpKind::kSplit:
      case OpKind::kConcat:
      case OpKind::kLayerNormalization:
      case OpKind::kSoftmax:
      case OpKind::kMatmul:
        ++row_major;
        break;
      default:
        break;
    }
  }
  // One row-major op per 8 convs at most (the classifier's flatten is the usual one).
  return grouped > 0 && row_major * 8 <= std::max<size_t>(convs, 8) ? ConvLayout::kBlocked
                                                                    : ConvLayout::kPerPrimitive;
}

std::string_view conv_layout_override() {
  static const std::string value = [] {
    const char* v = std::getenv("WNN_ONEDNN_CONV_LAYOUT");
    return std::string(v ? v : "");
  }();
  return value;
}

dnnl::memory::format_tag blocked_activation_tag() {
  // cpu_isa values are bit sets: AVX-512 core's bits within the effective ISA's.
  const auto isa = unsigned(dnnl::get_effective_cpu_isa());
  const auto core = unsigned(dnnl::cpu_isa::avx512_core);
  const bool avx512 = (isa & core) == core;
  return avx512 ? dnnl::memory::format_tag::aBcd16b : dnnl::memory::format_tag::aBcd8b;
}

}  // namespace wnn::runtime::onednn
