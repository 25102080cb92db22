#include "wnn/runtime/onednn/layout_plan.h"

#include <cstdlib>
#include <string>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"

namespace wnn::runtime::onednn {

bool is_depthwise(const Graph& g, const Node& n) {
  if (n.op() != OpKind::kConv2d) return false;
  const auto& a = n.attrs;
  const int64_t groups = a.get_int("groups");
  const auto in =
      conv_input_geometry(g.desc(*a.get_operand("input")).shape, a.get_enum("inputLayout"));
  return groups > 1 && groups == in.channels;
}

ConvLayout plan_conv_layout(const Graph& g, const Region& r, std::string_view override_) {
  if (override_ == "blocked") return ConvLayout::kBlocked;
  if (override_ == "any") return ConvLayout::kPerPrimitive;
  check(override_.empty() || override_ == "auto",
        "WNN_ONEDNN_CONV_LAYOUT is '{}'; expected auto, blocked or any", override_);
  // Measured on the zoo (docs/benchmarks.md): depthwise-separable stacks run faster blocked;
  // dense-conv regions (resnet, regnet's grouped convs) do not gain, and keep NHWC.
  for (uint32_t k : r.nodes) {
    if (is_depthwise(g, g.nodes()[k])) return ConvLayout::kBlocked;
  }
  return ConvLayout::kPerPrimitive;
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
