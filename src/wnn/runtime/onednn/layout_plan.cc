#include "wnn/runtime/onednn/layout_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/core/shape.h"
#include "wnn/passes/integer_valued.h"

namespace wnn::runtime::onednn {

namespace {

bool winograd_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("WNN_ONEDNN_WINOGRAD");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return enabled;
}

}  // namespace

bool winograd_candidate(const Graph& g, const Node& n) {
  if (!winograd_enabled() || n.op() != OpKind::kConv2d) return false;
  const auto& a = n.attrs;
  const auto f =
      conv_filter_geometry(g.desc(*a.get_operand("filter")).shape, a.get_enum("filterLayout"));
  const auto st = a.get_ints("strides"), dil = a.get_ints("dilations");
  const bool shape_fits = a.get_int("groups") == 1 && f.height == 3 && f.width == 3 && st[0] == 1 &&
                          st[1] == 1 && dil[0] == 1 && dil[1] == 1 && f.input_channels % 16 == 0 &&
                          f.output_channels % 16 == 0;
  return shape_fits && !(passes::integer_valued(g, *a.get_operand("input")) &&
                         passes::integer_valued(g, *a.get_operand("filter")));
}

bool space_to_batch_candidate(const Graph& g, const Node& n) {
  if (n.op() != OpKind::kConv2d || n.attrs.get_enum("inputLayout") != "nchw") return false;
  const auto& a = n.attrs;
  const auto f =
      conv_filter_geometry(g.desc(*a.get_operand("filter")).shape, a.get_enum("filterLayout"));
  const auto in = conv_input_geometry(g.desc(*a.get_operand("input")).shape, "nchw");
  const auto st = a.get_ints("strides"), dil = a.get_ints("dilations"), pad = a.get_ints("padding");
  const int64_t d = dil[0];
  const bool same = std::all_of(pad.begin(), pad.end(), [&](int64_t p) { return p == d; });
  return d > 1 && dil[1] == d && same && st[0] == 1 && st[1] == 1 && a.get_int("groups") == 1 &&
         f.height == 3 && f.width == 3 && in.height % d == 0 && in.width % d == 0 &&
         f.input_channels % 16 == 0 && f.output_channels % 16 == 0 && winograd_enabled() &&
         !(passes::integer_valued(g, *a.get_operand("input")) &&
           passes::integer_valued(g, *a.get_operand("filter")));
}

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
  // A region whose convs are mostly 3x3 Winograd candidates (resnet) runs blocked too: the
  // Winograd kernel needs it, and took resnet18 from 13.7 to 10.8 ms; squeezenet, with a third
  // of its convs 3x3 and a concat per block, measured faster row-major (2.9 against 3.6 ms).
  // Row-major ops are weighed by their size: one as large as the region's mean conv output
  // counts 1, so a detector's small tail (the reshapes, slices and transposes of its score map
  // and offsets, mlsd-tiny-320's) does not take the blocked kernels from its backbone.
  size_t convs = 0, grouped = 0, winograd = 0;
  double conv_elements = 0, row_major_elements = 0;
  for (uint32_t k : r.nodes) {
    const Node& n = g.nodes()[k];
    const double elements = double(element_count(g.desc(n.outputs[0]).shape));
    switch (n.op()) {
      case OpKind::kConv2d:
        ++convs;
        grouped += n.attrs.get_int("groups") > 1;
        winograd += winograd_candidate(g, n);
        conv_elements += elements;
        break;
      case OpKind::kTranspose:
      case OpKind::kReshape:
      case OpKind::kSlice:
      case OpKind::kSplit:
      case OpKind::kConcat:
      case OpKind::kLayerNormalization:
      case OpKind::kSoftmax:
      case OpKind::kMatmul:
        row_major_elements += elements;
        break;
      default:
        break;
    }
  }
  // One row-major op per 8 convs at most (the classifier's flatten is the usual one).
  const bool blocked_kernels = grouped > 0 || (winograd > 0 && winograd * 2 >= convs);
  const double row_major = convs > 0 ? row_major_elements / (conv_elements / double(convs)) : 0;
  return blocked_kernels && row_major * 8 <= double(std::max<size_t>(convs, 8))
             ? ConvLayout::kBlocked
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
