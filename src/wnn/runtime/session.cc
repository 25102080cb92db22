#include "wnn/runtime/session.h"

#include <cstring>
#include <unordered_map>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"

namespace wnn::runtime {

struct Session::Arena {
  Buffer memory;
  std::vector<const std::byte*> data;  // per operand
  std::vector<ConstTensorView> in_views;
  std::vector<TensorView> out_views;
};

Session::Session(std::shared_ptr<const Graph> graph, SessionOptions options)
    : graph_(std::move(graph)), options_(std::move(options)) {
  check(options_.backend == "ref", "unknown backend '{}' (available: ref)", options_.backend);
  check(options_.threads >= 1, "threads must be at least 1, got {}", options_.threads);
  check(!graph_->has_dynamic_inputs(),
        "the graph has dynamic input dimensions; resolve them before running");
  check(!graph_->outputs().empty(), "the graph has no outputs");
  for (const auto& c : graph_->constants()) {
    const auto& d = graph_->desc(c.id);
    check(c.bound() || element_count(d.shape) == 0, "constant '{}' has no data bound",
          graph_->name_of(c.id));
  }
  plan_ = plan_buffers(*graph_);
}

Session::~Session() = default;

std::unique_ptr<Session::Arena> Session::take_arena() const {
  {
    std::lock_guard lock(arenas_mutex_);
    if (!free_arenas_.empty()) {
      auto a = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return a;
    }
  }
  auto a = std::make_unique<Arena>();
  a->memory = Buffer::allocate(plan_.arena_bytes);
  a->data.resize(graph_->operands().size());
  return a;
}

void Session::return_arena(std::unique_ptr<Arena> arena) const {
  std::lock_guard lock(arenas_mutex_);
  free_arenas_.push_back(std::move(arena));
}

std::vector<NamedTensor> Session::run(std::span<const NamedView> inputs) const {
  const Graph& g = *graph_;
  auto arena = take_arena();
  auto& data = arena->data;
  std::fill(data.begin(), data.end(), nullptr);

  // Bind inputs by name.
  std::vector<bool> given(g.inputs().size(), false);
  for (const NamedView& in : inputs) {
    const auto id = g.find(in.name);
    check(id.has_value() && g.operand(*id).kind == OperandKind::kInput,
          "'{}' is not an input of the graph", in.name);
    const Operand& op = g.operand(*id);
    check(!given[op.decl_index], "input '{}' given twice", in.name);
    given[op.decl_index] = true;
    check(in.view.dtype == op.desc.dtype, "input '{}' has data type {}, the graph expects {}",
          in.name, dtype_name(in.view.dtype), dtype_name(op.desc.dtype));
    check(std::equal(in.view.shape.begin(), in.view.shape.end(), op.desc.shape.begin(),
                     op.desc.shape.end()),
          "input '{}' has shape {}, the graph expects {}", in.name, shape_to_string(in.view.shape),
          shape_to_string(op.desc.shape));
    data[id->index] = in.view.data;
  }
  for (size_t i = 0; i < given.size(); ++i) {
    check(given[i], "input '{}' is missing", g.name_of(g.inputs()[i].id));
  }
  for (const auto& c : g.constants()) data[c.id.index] = c.data.data();

  // Graph outputs get their own tensors, returned to the caller.
  std::vector<NamedTensor> outputs;
  std::unordered_map<uint32_t, size_t> output_slot;
  for (OperandId id : g.outputs()) {
    const Operand& op = g.operand(id);
    outputs.push_back({op.name, Tensor::zeros(op.desc.dtype, op.desc.shape)});
    output_slot[id.index] = outputs.size() - 1;
    if (op.kind == OperandKind::kNodeOutput) data[id.index] = outputs.back().tensor.data.data();
  }
  for (size_t i = 0; i < plan_.offset.size(); ++i) {
    if (plan_.offset[i] >= 0) data[i] = arena->memory.data() + plan_.offset[i];
  }

  const auto operands = g.operands();
  for (const Node& node : g.nodes()) {
    auto& ins = arena->in_views;
    auto& outs = arena->out_views;
    ins.clear();
    outs.clear();
    for (OperandId in : node.inputs) {
      const auto& d = operands[in.index].desc;
      ins.push_back({d.dtype, d.shape, data[in.index]});
    }
    for (OperandId out : node.outputs) {
      const auto& d = operands[out.index].desc;
      outs.push_back({d.dtype, d.shape, const_cast<std::byte*>(data[out.index])});
    }
    kernels::run_node(node, ins, outs);
  }

  // Outputs that are inputs or constants themselves are copied.
  for (OperandId id : g.outputs()) {
    const Operand& op = g.operand(id);
    if (op.kind == OperandKind::kNodeOutput) continue;
    Tensor& t = outputs[output_slot[id.index]].tensor;
    if (t.byte_size() > 0) std::memcpy(t.data.mutable_data(), data[id.index], t.byte_size());
  }
  return_arena(std::move(arena));
  return outputs;
}

}  // namespace wnn::runtime
