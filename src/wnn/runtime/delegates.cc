// The registry of delegates this build has, in the measured preference order: oneDNN first
// (fastest on every conv and GEMM measured on this CPU, see docs/delegates.md), then XNNPACK.
#include <fmt/format.h>

#include "wnn/core/error.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/onednn/onednn_delegate.h"
#include "wnn/runtime/xnnpack/xnnpack_delegate.h"

namespace wnn::runtime {

std::span<const Delegate* const> available_delegates() {
  static const onednn::OnednnDelegate onednn;
  static const xnnpack::XnnpackDelegate xnnpack;
  static const Delegate* const all[] = {&onednn, &xnnpack};
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
}  // namespace wnn::runtime
