// Session: compiles a graph once (schedule, buffer plan with liveness-based reuse, constants
// as zero-copy views) and runs it many times. run() is safe to call from several threads:
// each call works in its own arena.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/runtime/execution_plan.h"
#include "wnn/runtime/profile.h"

namespace wnn::runtime {

struct SessionOptions {
  std::string backend = "auto";  // "ref", "auto" (every delegate by preference) or one delegate
  int threads = 1;
  bool fold = true;           // fold parameter-only subgraphs before partitioning
  bool warn_fallback = true;  // print the one-line fallback warning on stderr
};

// One unit of execution: a node on the reference kernels or a delegate region.
struct StepIO {
  std::vector<OperandId> inputs;
  std::vector<OperandId> outputs;
};

struct NamedView {
  std::string name;
  ConstTensorView view;
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// The compiled memory plan: where each intermediate lives in the per-run arena.
struct BufferPlan {
  std::vector<int64_t> offset;  // per operand: byte offset in the arena, -1 if not in it
  size_t arena_bytes = 0;
  size_t total_intermediate_bytes = 0;  // what the plan would need without reuse
};

// Assigns arena offsets to node outputs that are not graph outputs, reusing the memory of
// operands whose last reader has run. Deterministic.
BufferPlan plan_buffers(const Graph& graph);
// The same over steps in execution order (regions read and write only their boundary).
BufferPlan plan_buffers(const Graph& graph, std::span<const StepIO> steps);

class Session {
 public:
  // The graph's constants must be bound (format::load_model does it). Throws on a graph the
  // runtime cannot execute (unresolved dynamic dims).
  explicit Session(std::shared_ptr<const Graph> graph, SessionOptions options = {});
  ~Session();

  // The executed graph: after folding when a delegate was selected.
  const Graph& graph() const { return *graph_; }
  const ExecutionPlan& execution_plan() const { return exec_; }
  const BufferPlan& plan() const { return plan_; }
  // Runs with inputs matched by name (every graph input exactly once, dtype and shape
  // checked). Returns the graph outputs in graph order.
  std::vector<NamedTensor> run(std::span<const NamedView> inputs) const;

  // While on, run() times every step (reference node, delegate kernel or layout conversion)
  // and profile() returns the accumulated times. For `wnn bench --profile`; off by default
  // because the per-step clock reads cost a little.
  void set_profiling(bool on);
  std::vector<ProfileRow> profile() const;

 private:
  struct Arena;
  std::unique_ptr<Arena> take_arena() const;
  void return_arena(std::unique_ptr<Arena> arena) const;

  struct Step;
  std::shared_ptr<const Graph> graph_;
  SessionOptions options_;
  ExecutionPlan exec_;
  std::vector<Step> steps_;
  BufferPlan plan_;
  mutable std::mutex arenas_mutex_;
  mutable std::vector<std::unique_ptr<Arena>> free_arenas_;
  bool profiling_ = false;
  std::vector<size_t> profile_offset_;  // per step: its first row in profile_
  mutable std::vector<ProfileRow> profile_;
};

}  // namespace wnn::runtime
