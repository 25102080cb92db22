// The registry of delegates this build has, in the measured preference order: the packed
// delegate first (it claims block-quantized matmuls only, which neither library runs packed),
// the attention delegate (attention with its rotary and KV cache as one step, which the
// libraries would run as a dozen kernels), then oneDNN (fastest on every conv and GEMM measured on
// this CPU, see docs/delegates.md), then XNNPACK. Also the Delegate interface's defaults.
#include <fmt/format.h>

#include "wnn/core/error.h"
#include "wnn/runtime/attention/attention_delegate.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/onednn/onednn_delegate.h"
#include "wnn/runtime/packed/packed_delegate.h"
#include "wnn/runtime/xnnpack/xnnpack_delegate.h"

namespace wnn::runtime {

std::unique_ptr<const GraphAnalysis> Delegate::analyze(const Graph&) const { return nullptr; }

Support Delegate::supports_in(const Graph& graph, const Node& node, const GraphAnalysis*) const {
  return supports(graph, node);
}

Support pattern_support(const Graph& graph, const Node& node, const GraphAnalysis* analysis) {
  const auto* p = dynamic_cast<const PatternNodes*>(analysis);
  check_internal(p != nullptr && p->in.size() == graph.nodes().size(),
                 "a pattern delegate was asked without its analysis of the graph");
  return p->in[size_t(&node - graph.nodes().data())] ? Support::yes() : Support::not_applicable();
}

std::span<const Delegate* const> available_delegates() {
  static const packed::PackedDelegate packed;
  static const attention::AttentionDelegate attention;
  static const onednn::OnednnDelegate onednn;
  static const xnnpack::XnnpackDelegate xnnpack;
  static const Delegate* const all[] = {&packed, &attention, &onednn, &xnnpack};
  return all;
}

const Delegate* find_delegate(std::string_view name) {
  for (const Delegate* d : available_delegates()) {
    if (d->name() == name) return d;
  }
  return nullptr;
}

std::vector<const Delegate*> delegates_for_backend(std::string_view backend) {
  if (backend == "ref") return {};
  if (backend == "auto") {
    const auto all = available_delegates();
    return {all.begin(), all.end()};
  }
  if (const Delegate* d = find_delegate(backend)) return {d};
  std::string known = "ref, auto";
  for (const Delegate* d : available_delegates()) known += ", " + std::string(d->name());
  fail("unknown backend '{}' (available: {})", backend, known);
}

namespace reasons {

std::string dtype(const Graph& g, const Node&, OperandId id) {
  // float16 would need checking per library and CPU; this build lowers float32 first.
  return fmt::format("data type {} of '{}': only float32 is lowered", dtype_name(g.desc(id).dtype),
                     g.name_of(id));
}

bool is_constant(const Graph& g, OperandId id) {
  return g.operand(id).kind == OperandKind::kConstant;
}

std::string not_constant(const Graph& g, OperandId id, std::string_view what) {
  return fmt::format("{} '{}' is not a constant (computed in the graph; folding may make it one)",
                     what, g.name_of(id));
}

}  // namespace reasons
namespace {
int64_t pool_end_padding(int64_t in, int64_t out, int64_t effective, int64_t begin, int64_t end,
                         int64_t stride) {
  const int64_t span = in + begin + end - effective;
  if (span >= 0 && span / stride + 1 == out) return end;
  return (out - 1) * stride + effective - in - begin;
}
}  // namespace

PoolGeometry pool_geometry(const Graph& g, const Node& n) {
  const auto& a = n.attrs;
  PoolGeometry p;
  p.in = conv_input_geometry(g.desc(n.inputs[0]).shape, a.get_enum("layout"));
  p.out = conv_input_geometry(g.desc(n.outputs[0]).shape, a.get_enum("layout"));
  const IntList win = a.get_ints("windowDimensions");
  p.kh = win.empty() ? p.in.height : win[0];
  p.kw = win.empty() ? p.in.width : win[1];
  p.pad = a.get_ints("padding");
  p.strides = a.get_ints("strides");
  p.dilations = a.get_ints("dilations");
  const int64_t eh = (p.kh - 1) * p.dilations[0] + 1, ew = (p.kw - 1) * p.dilations[1] + 1;
  p.end_h = pool_end_padding(p.in.height, p.out.height, eh, p.pad[0], p.pad[1], p.strides[0]);
  p.end_w = pool_end_padding(p.in.width, p.out.width, ew, p.pad[2], p.pad[3], p.strides[1]);
  return p;
}

}  // namespace wnn::runtime
