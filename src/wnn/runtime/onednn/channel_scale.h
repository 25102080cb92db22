// A per-channel scale in front of a 1x1 conv, folded into the conv's filter at run time.
//
// Squeeze-and-excitation blocks (efficientnet, mobilenet_v3) end in `mul(x, s)`, with `s` a
// computed [1, C, 1, 1] vector, read by one 1x1 conv. conv(x * s) = conv'(x) with the filter's
// input channel c scaled by s[c], so the region scales the small filter on every run (a binary
// step, then the reorder into the conv's layout) and never writes or reads the scaled
// activation: the mul was a full pass over x (10% of efficientnet_b0's time on oneDNN).
#pragma once

#include <unordered_map>

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::onednn {

struct ChannelScale {
  uint32_t mul;  // the node folded away
  OperandId activation, scale;
};

// Per 1x1 conv node index, the mul folded into it. Only where scaling the filter moves fewer
// bytes than the mul: twice the filter's elements (scale, then reorder) below the activation's.
using ChannelScales = std::unordered_map<uint32_t, ChannelScale>;
ChannelScales plan_channel_scales(
    const Graph& g, const Region& r,
    const std::unordered_map<uint32_t, std::vector<uint32_t>>& epilogues);

}  // namespace wnn::runtime::onednn
