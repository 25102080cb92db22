#include <algorithm>
#include <map>

#include "wnn/core/error.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {

namespace {

constexpr size_t kAlignment = 64;

size_t aligned(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

// First-fit allocator over one growing arena; freed blocks merge with their neighbours.
class OffsetAllocator {
 public:
  size_t allocate(size_t size) {
    size = std::max(aligned(size), kAlignment);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second >= size) {
        const size_t off = it->first;
        const size_t rest = it->second - size;
        free_.erase(it);
        if (rest > 0) free_[off + size] = rest;
        return off;
      }
    }
    // Grow: reuse a free block at the end of the arena if there is one.
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == end_) {
        const size_t off = last->first;
        free_.erase(last);
        end_ = off + size;
        return off;
      }
    }
    const size_t off = end_;
    end_ += size;
    return off;
  }

  void release(size_t offset, size_t size) {
    size = std::max(aligned(size), kAlignment);
    auto [it, inserted] = free_.emplace(offset, size);
    check_internal(inserted, "double free in buffer plan at {}", offset);
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }

  size_t size() const { return end_; }

 private:
  std::map<size_t, size_t> free_;  // offset -> size
  size_t end_ = 0;
};

}  // namespace

BufferPlan plan_buffers(const Graph& graph) {
  std::vector<StepIO> steps;
  for (const Node& n : graph.nodes()) steps.push_back({n.inputs, n.outputs});
  return plan_buffers(graph, steps);
}

BufferPlan plan_buffers(const Graph& graph, std::span<const StepIO> nodes) {
  const auto operands = graph.operands();
  BufferPlan plan;
  plan.offset.assign(operands.size(), -1);
  // Last node that reads each operand.
  std::vector<int64_t> last_use(operands.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (OperandId in : nodes[n].inputs) last_use[in.index] = int64_t(n);
  }
  auto in_arena = [&](OperandId id) {
    const Operand& op = operands[id.index];
    return op.kind == OperandKind::kNodeOutput && !graph.is_output(id);
  };
  auto bytes_of = [&](OperandId id) { return operands[id.index].desc.byte_size(); };
  OffsetAllocator alloc;
  for (size_t n = 0; n < nodes.size(); ++n) {
    // Outputs are allocated before this node's inputs are released: kernels never run in place.
    for (OperandId out : nodes[n].outputs) {
      if (!in_arena(out)) continue;
      plan.offset[out.index] = int64_t(alloc.allocate(bytes_of(out)));
      plan.total_intermediate_bytes += aligned(bytes_of(out));
    }
    std::vector<OperandId> released;
    auto release = [&](OperandId id) {
      if (!in_arena(id) || plan.offset[id.index] < 0) return;
      if (std::find(released.begin(), released.end(), id) != released.end()) return;
      released.push_back(id);
      alloc.release(size_t(plan.offset[id.index]), bytes_of(id));
    };
    for (OperandId in : nodes[n].inputs) {
      if (last_use[in.index] == int64_t(n)) release(in);
    }
    // Outputs nobody reads die at once.
    for (OperandId out : nodes[n].outputs) {
      if (last_use[out.index] < 0) release(out);
    }
  }
  plan.arena_bytes = alloc.size();
  return plan;
}

}  // namespace wnn::runtime
