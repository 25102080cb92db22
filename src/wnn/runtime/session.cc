#include "wnn/runtime/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/kernel_context.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/onednn/kernel_threads.h"

namespace wnn::runtime {

struct Session::Arena {
  Buffer memory;
  std::vector<const std::byte*> data;  // per operand
  std::vector<ConstTensorView> in_views;
  std::vector<TensorView> out_views;
};

struct Session::Step {
  int64_t node = -1;                             // a node on the reference kernels, or
  kernels::KernelContext kernel_context;         // what the node's kernel may assume
  std::shared_ptr<const CompiledRegion> region;  // compiled by plan_execution
  int64_t region_index = -1;
};

namespace {

// Orders nodes and regions topologically, regions contracted to one unit each; ties go to the
// unit with the smallest first node, so a graph with no regions keeps its node order.
std::vector<int64_t> schedule_units(const Graph& g, const passes::Partition& p) {
  const size_t num_nodes = g.nodes().size();
  // Unit ids: nodes on reference are their index; region r is num_nodes + r.
  auto unit_of = [&](size_t n) -> int64_t {
    return p.region_of[n] >= 0 ? int64_t(num_nodes) + p.region_of[n] : int64_t(n);
  };
  const size_t num_units = num_nodes + p.regions.size();
  std::vector<std::vector<int64_t>> succ(num_units);
  std::vector<int> indegree(num_units, 0);
  std::vector<bool> present(num_units, false);
  for (size_t n = 0; n < num_nodes; ++n) {
    const int64_t u = unit_of(n);
    present[size_t(u)] = true;
    for (OperandId in : g.nodes()[n].inputs) {
      const Operand& op = g.operand(in);
      if (op.kind != OperandKind::kNodeOutput) continue;
      const int64_t pu = unit_of(op.producer);
      if (pu == u) continue;
      succ[size_t(pu)].push_back(u);
      ++indegree[size_t(u)];
    }
  }
  auto first_node = [&](int64_t u) -> int64_t {
    return u < int64_t(num_nodes) ? u : int64_t(p.regions[size_t(u) - num_nodes].nodes.front());
  };
  auto later = [&](int64_t a, int64_t b) { return first_node(a) > first_node(b); };
  std::vector<int64_t> ready, order;
  for (size_t u = 0; u < num_units; ++u) {
    if (present[u] && indegree[u] == 0) ready.push_back(int64_t(u));
  }
  std::make_heap(ready.begin(), ready.end(), later);
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    const int64_t u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (int64_t v : succ[size_t(u)]) {
      if (--indegree[size_t(v)] == 0) {
        ready.push_back(v);
        std::push_heap(ready.begin(), ready.end(), later);
      }
    }
  }
  check_internal(order.size() == size_t(std::count(present.begin(), present.end(), true)),
                 "the partition has a cycle between regions");
  return order;
}

}  // namespace

Session::Session(std::shared_ptr<const Graph> graph, SessionOptions options)
    : graph_(std::move(graph)), options_(std::move(options)) {
  check(options_.threads >= 1, "threads must be at least 1, got {}", options_.threads);
  check(!graph_->has_dynamic_inputs(),
        "the graph has dynamic input dimensions; resolve them before running");
  check(!graph_->outputs().empty(), "the graph has no outputs");
  // Inline constants (@scalar fills) stay unmaterialised in a built graph; the session fills
  // its own copy so every front end can hand graphs over as built.
  bool inline_unbound = false;
  for (const auto& c : graph_->constants()) {
    inline_unbound |= !c.bound() && c.init != ConstantInitKind::kWeights;
  }
  if (inline_unbound) {
    auto bound = std::make_shared<Graph>(*graph_);
    bound->bind_inline_constants();
    graph_ = std::move(bound);
  }
  for (const auto& c : graph_->constants()) {
    const auto& d = graph_->desc(c.id);
    check(c.bound() || element_count(d.shape) == 0, "constant '{}' has no data bound",
          graph_->name_of(c.id));
  }
  exec_ = plan_execution(graph_, options_);
  graph_ = exec_.graph;
  if (options_.warn_fallback) {
    if (auto w = fallback_warning(exec_)) std::fprintf(stderr, "wnn: warning: %s\n", w->c_str());
  }
  const auto& part = exec_.partition;
  const size_t num_nodes = graph_->nodes().size();
  std::vector<StepIO> io;
  for (int64_t u : schedule_units(*graph_, part)) {
    Step step;
    if (u < int64_t(num_nodes)) {
      step.node = u;
      const Node& n = graph_->nodes()[size_t(u)];
      // Granted like a oneDNN kernel's team: only work worth the hand-off to the workers.
      step.kernel_context.threads = onednn::kernel_threads(
          onednn::estimated_us(node_flops(*graph_, n), onednn::node_bytes(*graph_, n)),
          options_.threads);
      for (size_t i = 0; i < n.inputs.size() && i < 64; ++i) {
        if (graph_->operand(n.inputs[i]).kind == OperandKind::kConstant) {
          step.kernel_context.constant_inputs |= uint64_t(1) << i;
        }
      }
      io.push_back({n.inputs, n.outputs});
    } else {
      const passes::Region& r = part.regions[size_t(u) - num_nodes];
      step.region_index = u - int64_t(num_nodes);
      step.region = exec_.compiled[size_t(step.region_index)];
      io.push_back({r.inputs, r.outputs});
    }
    steps_.push_back(std::move(step));
  }
  plan_ = plan_buffers(*graph_, io);

  // Profile rows: one per reference node, one per region step (or per region).
  auto node_label = [&](int64_t node, std::span<const uint32_t> fused) {
    const Node& n = graph_->nodes()[size_t(node)];
    std::string label(op_name(n.op()));
    for (uint32_t f : fused) label += "+" + std::string(op_name(graph_->nodes()[f].op()));
    // Named by the value the kernel writes: the last fused node's.
    const Node& last = fused.empty() ? n : graph_->nodes()[fused.back()];
    return label + " '" + graph_->name_of(last.outputs[0]) + "'";
  };
  for (size_t i = 0; i < steps_.size(); ++i) {
    profile_offset_.push_back(profile_.size());
    const Step& step = steps_[i];
    if (!step.region) {
      const Node& n = graph_->nodes()[size_t(step.node)];
      profile_.push_back(
          {node_label(step.node, {}), "ref", std::string(op_name(n.op())), node_flops(*graph_, n)});
      profile_.back().nodes = {uint32_t(step.node)};
      continue;
    }
    const passes::Region& region = exec_.partition.regions[size_t(step.region_index)];
    const std::string where = region.delegate + "#" + std::to_string(step.region_index);
    const auto inner = step.region->profile_steps();
    if (inner.empty()) {
      profile_.push_back(
          {where + " (" + std::to_string(region.nodes.size()) + " nodes)", where, "region"});
      for (uint32_t n : region.nodes)
        profile_.back().flops += node_flops(*graph_, graph_->nodes()[n]);
      profile_.back().nodes = region.nodes;
      continue;
    }
    for (const RegionStepInfo& st : inner) {
      ProfileRow row{st.label, where, st.label};
      row.kernel = st.kernel;
      if (st.node >= 0) {
        const Node& n = graph_->nodes()[size_t(st.node)];
        row.label = node_label(st.node, st.fused);
        row.nodes.push_back(uint32_t(st.node));
        row.nodes.insert(row.nodes.end(), st.fused.begin(), st.fused.end());
        if (st.label.empty()) {
          row.op = op_name(n.op());
          row.flops = node_flops(*graph_, n);
        } else {
          // A helper step of the node's kernel: a reorder, a filter scale.
          row.label = st.label + " for " + row.label;
        }
      }
      profile_.push_back(std::move(row));
    }
  }
}

Session::~Session() = default;

void Session::set_profiling(bool on) {
  // Turning it on starts a fresh profile; turning it off keeps the one gathered.
  if (on && !profiling_) {
    for (auto& row : profile_) row.total_ms = 0, row.runs = 0;
  }
  profiling_ = on;
}

std::vector<ProfileRow> Session::profile() const {
  std::lock_guard lock(arenas_mutex_);
  return profile_;
}

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
  a->memory = Buffer::allocate_long_lived(plan_.arena_bytes);
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
  using clock = std::chrono::steady_clock;
  std::vector<double> step_ms(profiling_ ? profile_.size() : 0, 0.0);
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    if (step.region) {
      if (profiling_) {
        const size_t end = i + 1 < steps_.size() ? profile_offset_[i + 1] : profile_.size();
        step.region->run_profiled(
            data, std::span(step_ms).subspan(profile_offset_[i], end - profile_offset_[i]));
      } else {
        step.region->run(data);
      }
      continue;
    }
    const auto start = profiling_ ? clock::now() : clock::time_point{};
    const Node& node = g.nodes()[size_t(step.node)];
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
    const kernels::ScopedKernelContext context(step.kernel_context);
    kernels::run_node(node, ins, outs);
    if (profiling_) {
      step_ms[profile_offset_[i]] +=
          std::chrono::duration<double, std::milli>(clock::now() - start).count();
    }
  }
  if (profiling_) {
    std::lock_guard lock(arenas_mutex_);
    for (size_t k = 0; k < step_ms.size(); ++k) {
      profile_[k].total_ms += step_ms[k];
      ++profile_[k].runs;
    }
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
