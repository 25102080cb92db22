#include "wnn/passes/canonicalize.h"

#include "wnn/passes/fuse_gelu.h"
#include "wnn/passes/fuse_hard_sigmoid.h"
#include "wnn/passes/fuse_hard_swish.h"
#include "wnn/passes/fuse_normalization.h"
#include "wnn/passes/fuse_softmax.h"

namespace wnn::passes {

namespace {

struct PatternPass {
  std::string_view pattern;
  PatternFusion (*run)(const Graph&);
};

constexpr PatternPass kPasses[] = {
    {"gelu", fuse_gelu},
    // Before hardSwish: x * clamp(x / 6 + 0.5, 0, 1) becomes x * hardSigmoid(x, 1/6, 0.5), which
    // fuse_hard_swish reads in its next run.
    {"hardSigmoid", fuse_hard_sigmoid},
    {"hardSwish", fuse_hard_swish},
    {"softmax", fuse_softmax},
    {"normalization", fuse_normalization},
};

}  // namespace

size_t Canonical::replaced() const {
  size_t total = 0;
  for (const PatternCount& c : counts) total += c.replaced;
  return total;
}

Canonical canonicalize(const Graph& graph) {
  Canonical result;
  for (const PatternPass& p : kPasses) result.counts.push_back({p.pattern, 0});
  result.graph = graph;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < std::size(kPasses); ++i) {
      PatternFusion f = kPasses[i].run(result.graph);
      if (f.fused == 0) continue;
      result.graph = std::move(f.graph);
      result.counts[i].replaced += f.fused;
      changed = true;
    }
  }
  return result;
}

}  // namespace wnn::passes
