// The delegate interface: a kernel library (oneDNN, XNNPACK) that runs regions of a graph.
// Support is decided per node, with a reason for every refusal, before any library call; the
// partitioner, `wnn partition` and the session's fallback warning all print that reason.
// A delegate compiles each region once, at session creation, into a CompiledRegion.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/core/ops/conv.h"
#include "wnn/kernels/kernel.h"
#include "wnn/passes/partition.h"

namespace wnn::runtime {

using passes::Region;
using passes::Support;

// The per-operand data pointers of one run, indexed by operand index. Region inputs (including
// constants) are readable, region outputs are writable, row-major contiguous.
using OperandData = std::span<const std::byte* const>;

// One timed unit inside a compiled region, for `wnn bench --profile`.
struct RegionStepInfo {
  std::string label;  // empty: the node's kernel; else a helper step ("reorder", "filter scale")
  int64_t node = -1;  // the graph node it computes, -1 for layout conversions
  std::vector<uint32_t> fused;  // further nodes computed by the same kernel
  std::string kernel;           // the library's implementation of it, if it names one
};

// A node a delegate claimed whose kernel, as the library chose it when the region was
// compiled, is a slow path wnn does not keep (oneDNN's reference implementations): the plan
// re-partitions with the node refused for `reason`, so it runs on wnn's own kernels instead.
struct SlowNode {
  uint32_t node = 0;
  std::string reason;  // "add of [1,8,24,96] and a rank-0 constant would run ... ref:any"
};

class CompiledRegion {
 public:
  virtual ~CompiledRegion() = default;
  // Safe to call from several threads at once.
  virtual void run(OperandData data) const = 0;
  // The steps run_profiled() times one by one; empty when the region is timed as a whole.
  virtual std::vector<RegionStepInfo> profile_steps() const { return {}; }
  // run() that adds each step's wall time in milliseconds to `step_ms` (sized as
  // profile_steps(), or 1 when that is empty).
  virtual void run_profiled(OperandData data, std::span<double> step_ms) const;
  // The nodes whose kernel the library picked is a slow path (SlowNode); empty for a region
  // that runs only fast kernels, the only kind a session keeps.
  virtual std::vector<SlowNode> slow_nodes() const { return {}; }
};

// Adds the wall time from its construction to its destruction, in milliseconds, to *ms when
// `ms` is not null: how run_profiled() times a step.
class StepTimer {
 public:
  explicit StepTimer(double* ms) : ms_(ms) {
    if (ms_) start_ = std::chrono::steady_clock::now();
  }
  ~StepTimer() {
    if (ms_) {
      *ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                  .count();
    }
  }
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

 private:
  double* ms_;
  std::chrono::steady_clock::time_point start_{};
};

struct DelegateOptions {
  int threads = 1;
};

// What a delegate learns from a whole graph before it is asked about its nodes one by one. The
// delegates that claim patterns (packed, attention) match every pattern here once, and
// supports_in() looks a node up, instead of matching around each node it is asked about (the
// graph's size per question).
class GraphAnalysis {
 public:
  virtual ~GraphAnalysis() = default;
};

// The analysis of a delegate that claims whole patterns: per node, whether one holds it.
struct PatternNodes final : GraphAnalysis {
  std::vector<bool> in;
};
// supports_in() of such a delegate: yes for a node a pattern holds, else not applicable.
// `analysis` is the delegate's PatternNodes for `graph`.
Support pattern_support(const Graph& graph, const Node& node, const GraphAnalysis* analysis);

class Delegate {
 public:
  virtual ~Delegate() = default;
  virtual std::string_view name() const = 0;
  // Pure: reads only the graph. Never calls the library. What the library decides only when it
  // creates a kernel (which implementation runs) comes back as the compiled region's
  // slow_nodes(), and plan_execution re-partitions.
  virtual Support supports(const Graph& graph, const Node& node) const = 0;
  // Once per graph, before the partitioner asks about its nodes; null when the delegate keeps
  // nothing (the default).
  virtual std::unique_ptr<const GraphAnalysis> analyze(const Graph& graph) const;
  // supports() with what analyze(graph) returned; by default supports() itself.
  virtual Support supports_in(const Graph& graph, const Node& node,
                              const GraphAnalysis* analysis) const;
  // Compiles a region of nodes that all answered supports() == ok.
  virtual std::unique_ptr<CompiledRegion> compile(const Graph& graph, const Region& region,
                                                  const DelegateOptions& options) const = 0;
};

// A per-op lowering table, the shape both delegates use: each family file fills the slots of
// its ops; an empty slot means "no lowering" and supports() says so. Define is the delegate's
// own per-op build step, so its signature is a template parameter.
template <typename DefineFn>
struct OpLowering {
  std::function<Support(const Graph&, const Node&)> supports;
  DefineFn define;
};
template <typename DefineFn>
using LoweringTable = std::array<OpLowering<DefineFn>, kNumOps>;

// Looks up `node` in `table`; an empty slot is refused naming the op and the delegate.
template <typename DefineFn>
Support supports_from_table(const LoweringTable<DefineFn>& table, std::string_view delegate,
                            const Graph& graph, const Node& node) {
  // The reference kernel is the fast path for this node: every delegate leaves it there.
  if (auto why = kernels::faster_on_reference(graph, node)) return Support::no(*why);
  const auto& slot = table[size_t(node.op())];
  if (!slot.supports) {
    return Support::no(std::string(delegate) + " has no lowering for " +
                       std::string(op_name(node.op())));
  }
  return slot.supports(graph, node);
}

// The delegates this build has, by name ("onednn", "xnnpack"), in preference order.
std::span<const Delegate* const> available_delegates();
// nullptr when unknown.
const Delegate* find_delegate(std::string_view name);
// The delegates a backend name selects, in preference order: "ref" none, "auto" all, else one.
// Throws on an unknown name, listing the known ones.
std::vector<const Delegate*> delegates_for_backend(std::string_view backend);

// A pooling node's geometry as pooling libraries want it. Libraries that round the output size
// down get, as end padding, the declared one when floor rounding gives the output size (it may
// leave input rows unread), else the larger one that ceil rounding or explicit output sizes
// imply. Both libraries exclude padding from the result.
struct PoolGeometry {
  Conv2dGeometry in, out;
  int64_t kh, kw;
  IntList pad, strides, dilations;
  int64_t end_h, end_w;
};
PoolGeometry pool_geometry(const Graph& g, const Node& n);

// Common reasons, so refusals read the same across delegates.
namespace reasons {
std::string dtype(const Graph& g, const Node& n, OperandId id);  // "dtype float16 of 'x' ..."
std::string not_constant(const Graph& g, OperandId id, std::string_view what);
bool is_constant(const Graph& g, OperandId id);
}  // namespace reasons

}  // namespace wnn::runtime
