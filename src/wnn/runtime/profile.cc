#include "wnn/runtime/profile.h"

#include <numeric>

#include "wnn/core/ops/conv.h"
#include "wnn/runtime/delegate.h"

namespace wnn::runtime {

namespace {

double product(std::span<const int64_t> s) {
  return std::accumulate(s.begin(), s.end(), 1.0, [](double a, int64_t b) { return a * b; });
}

}  // namespace

double node_flops(const Graph& g, const Node& n) {
  const auto& a = n.attrs;
  switch (n.op()) {
    case OpKind::kConv2d: {
      const auto f =
          conv_filter_geometry(g.desc(*a.get_operand("filter")).shape, a.get_enum("filterLayout"));
      return 2.0 * product(g.desc(n.outputs[0]).shape) * double(f.input_channels) *
             double(f.height * f.width);
    }
    case OpKind::kConvTranspose2d: {
      // Every input element scatters into output_channels / groups * kh * kw outputs.
      const auto f =
          conv_filter_geometry(g.desc(*a.get_operand("filter")).shape, a.get_enum("filterLayout"));
      return 2.0 * product(g.desc(*a.get_operand("input")).shape) * double(f.output_channels) *
             double(f.height * f.width);  // per group
    }
    case OpKind::kGemm: {
      const auto& as = g.desc(*a.get_operand("a")).shape;
      const int64_t k = a.get_bool("aTranspose") ? as[0] : as[1];
      return 2.0 * product(g.desc(n.outputs[0]).shape) * double(k);
    }
    case OpKind::kMatmul: {
      const auto& as = g.desc(*a.get_operand("a")).shape;
      return as.empty() ? 0.0 : 2.0 * product(g.desc(n.outputs[0]).shape) * double(as.back());
    }
    default:
      return 0.0;
  }
}

void CompiledRegion::run_profiled(OperandData data, std::span<double> step_ms) const {
  StepTimer timer(&step_ms[0]);
  run(data);
}

}  // namespace wnn::runtime
