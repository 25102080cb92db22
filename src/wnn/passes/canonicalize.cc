#include "wnn/passes/canonicalize.h"

#include "wnn/passes/cancel_transposes.h"
#include "wnn/passes/fold_pad_into_conv.h"
#include "wnn/passes/frame_strided_conv.h"
#include "wnn/passes/fuse_gelu.h"
#include "wnn/passes/fuse_hard_sigmoid.h"
#include "wnn/passes/fuse_hard_swish.h"
#include "wnn/passes/fuse_l2.h"
#include "wnn/passes/fuse_normalization.h"
#include "wnn/passes/fuse_softmax.h"
#include "wnn/passes/fuse_softplus.h"
#include "wnn/passes/share_values.h"

namespace wnn::passes {

namespace {

struct PatternPass {
  std::string_view pattern;
  PatternFusion (*run)(const Graph&);
};

// Run once each, in this order (the audio front end was measured in it): computations repeated
// from the same operands (a decoder's per-layer mask and cache indices) are computed once,
// inverse transposes around elementwise chains (tf2onnx's NHWC wrappers) cancel, an STFT written
// as a strided long-filter Conv1d becomes framing and one matmul, and a zero pad before a conv
// (tf2onnx's ZeroPadding2D) becomes the conv's padding.
constexpr PatternPass kStructural[] = {
    {"sharedValues", share_common_values},
    {"cancelTransposes", cancel_transposes},
    {"frameStridedConv", frame_strided_convs},
    {"padIntoConv", fold_pads_into_convs},
};

// Run until a round replaces nothing.
constexpr PatternPass kPatterns[] = {
    {"gelu", fuse_gelu},
    // Before hardSwish: x * clamp(x / 6 + 0.5, 0, 1) becomes x * hardSigmoid(x, 1/6, 0.5), which
    // fuse_hard_swish reads in its next run.
    {"hardSigmoid", fuse_hard_sigmoid},
    {"hardSwish", fuse_hard_swish},
    {"softmax", fuse_softmax},
    {"normalization", fuse_normalization},
    // Before mish: x * tanh(log(1 + exp(x))) is matched by the oneDNN delegate on softplus.
    {"softplus", fuse_softplus},
    // reduceSum(x * x) becomes reduceSumSquare, which the next round's reduceL2 reads when a
    // sqrt follows (an l2-normalization's norm).
    {"reduceSumSquare", fuse_sum_square},
    {"reduceL2", fuse_l2_norm},
};

}  // namespace

size_t replaced(std::span<const PatternCount> counts) {
  size_t total = 0;
  for (const PatternCount& c : counts) total += c.replaced;
  return total;
}

Canonical canonicalize(const Graph& graph) {
  Canonical result;
  result.graph = graph;
  // Replaces result.graph when pass `p` (counted at `count`) matched; whether it did.
  auto apply = [&](const PatternPass& p, PatternCount& count) {
    PatternFusion f = p.run(result.graph);
    if (f.fused == 0) return false;
    result.graph = std::move(f.graph);
    count.replaced += f.fused;
    return true;
  };
  for (const PatternPass& p : kStructural) {
    result.counts.push_back({p.pattern, 0});
    apply(p, result.counts.back());
  }
  const size_t first = result.counts.size();
  for (const PatternPass& p : kPatterns) result.counts.push_back({p.pattern, 0});
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < std::size(kPatterns); ++i)
      changed |= apply(kPatterns[i], result.counts[first + i]);
  }
  return result;
}

}  // namespace wnn::passes
