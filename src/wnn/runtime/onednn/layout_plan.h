// Layout planning for a oneDNN region: the one layout its convolutions hold activations in.
// Left to each primitive (format_tag::any), oneDNN 2.6 on AVX-512 picks NHWC brgemm kernels;
// its blocked kernels (nChw16c: jit_dw, jit_1x1, grouped jit) measured faster on stacks of
// depthwise and grouped convs (docs/benchmarks.md), but only when the whole stack stays
// blocked: a reorder per op costs more than the kernels gain. So the choice is per region:
// blocked when it has grouped convs, or mostly Winograd-ready 3x3 convs, and few ops that need
// row-major data.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string_view>

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::onednn {

enum class ConvLayout {
  kPerPrimitive,  // format_tag::any: each primitive picks (NHWC on AVX-512 in oneDNN 2.6)
  kBlocked,       // channels in blocks of the vector width (nChw16c on AVX-512, nChw8c on AVX2)
};

// WNN_ONEDNN_CONV_LAYOUT=blocked|any overrides the plan (for A/B measurement); unset or
// "auto" plans. Anything else is an error naming the value.
ConvLayout plan_conv_layout(const Graph& graph, const Region& region, std::string_view override_);
// The override from the environment, read once.
std::string_view conv_layout_override();

// Whether oneDNN's Winograd convolution (F(2x2, 3x3), 2.25x fewer multiplies than direct) may
// take conv `n`: a 3x3 filter, stride and dilation 1, one group, and channels in whole blocks of
// 16 (its kernel reads and writes only the blocked layout). Not when input and filter are both
// integer-valued (passes/integer_valued.h): that is an exact integer product carried in float32,
// which the direct conv keeps exact and Winograd's fractional transforms would round.
// WNN_ONEDNN_WINOGRAD=0 turns it off, for A/B measurement.
bool winograd_candidate(const Graph& graph, const Node& n);

// Whether conv `n` (NCHW, one group, 3x3, stride 1, dilation d > 1 with padding d on every
// side, height and width multiples of d, channels in whole blocks of 16, not an integer
// product) runs as d * d undilated Winograd convs over its subsampled images, gathered into
// one batch and scattered back by two reorders (conv.cc): oneDNN 2.6 has no dilated Winograd,
// and its direct kernel ran mlsd-tiny-320's dilation-5 conv at half the Winograd convs' rate.
bool space_to_batch_candidate(const Graph& graph, const Node& n);

// The blocked activation tag of this CPU: aBcd16b with AVX-512, aBcd8b otherwise.
dnnl::memory::format_tag blocked_activation_tag();

}  // namespace wnn::runtime::onednn
