#include "wnn/runtime/onednn/region_builder.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

#include "wnn/core/error.h"
#include "wnn/core/shape.h"
#include "wnn/runtime/onednn/epilogue.h"
#include "wnn/runtime/onednn/kernel_threads.h"
#include "wnn/runtime/onednn/views.h"
#include "wnn/runtime/profile.h"

namespace wnn::runtime::onednn {

namespace {

dnnl::memory::dims dims_of(std::span<const int64_t> shape) {
  if (shape.empty()) return {1};
  return dnnl::memory::dims(shape.begin(), shape.end());
}

// A compiled region: primitives in order over memories owned here; region inputs and outputs
// are bound to the run's buffers. One run at a time per region (the memories hold handles).
class OnednnRegion final : public CompiledRegion {
 public:
  OnednnRegion(dnnl::engine engine, std::vector<std::pair<uint32_t, dnnl::memory>> externals,
               std::vector<Step> steps, std::vector<Buffer> owned, std::vector<SlowNode> slow)
      : owned_(std::move(owned)),
        engine_(std::move(engine)),
        stream_(engine_),
        externals_(std::move(externals)),
        steps_(std::move(steps)),
        slow_(std::move(slow)) {}

  std::vector<SlowNode> slow_nodes() const override { return slow_; }

  void run(OperandData data) const override {
    std::lock_guard lock(mutex_);
    bind(data);
    int team = 0;
    for (const Step& s : steps_) {
      set_team(s, team);
      execute(s);
    }
    stream_.wait();
  }

  std::vector<RegionStepInfo> profile_steps() const override {
    std::vector<RegionStepInfo> out;
    for (const Step& s : steps_) out.push_back(s.info);
    return out;
  }

  void run_profiled(OperandData data, std::span<double> step_ms) const override {
    std::lock_guard lock(mutex_);
    bind(data);
    int team = 0;
    for (size_t i = 0; i < steps_.size(); ++i) {
      set_team(steps_[i], team);
      StepTimer timer(&step_ms[i]);
      execute(steps_[i]);
      stream_.wait();
    }
  }

 private:
  // OpenMP's team size is per calling thread, and oneDNN's reorders and elementwise kernels
  // read it when they run: set it before each kernel whose count differs from the last.
  void execute(const Step& s) const {
    if (!s.function) return s.prim.execute(stream_, s.args);
    stream_.wait();  // the primitives before it have written its input
    s.function();
  }
  static void set_team(const Step& s, int& team) {
    if (s.threads != team) omp_set_num_threads(team = s.threads);
  }

  void bind(OperandData data) const {
    for (auto& [index, mem] : externals_) {
      mem.set_data_handle(const_cast<std::byte*>(data[index]));
    }
  }

  std::vector<Buffer> owned_;  // intermediate and reordered-constant memory
  dnnl::engine engine_;
  mutable dnnl::stream stream_;
  mutable std::mutex mutex_;
  std::vector<std::pair<uint32_t, dnnl::memory>> externals_;
  std::vector<Step> steps_;
  std::vector<SlowNode> slow_;
};

// "add of [1, 8, 24, 96] and a rank-0 constant": what a refusal says the node computes on.
std::string describe_operands(const Graph& g, const Node& n) {
  std::string s = std::string(op_name(n.op())) + " of ";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const OperandId in = n.inputs[i];
    const auto& shape = g.desc(in).shape;
    if (i > 0) s += i + 1 == n.inputs.size() ? " and " : ", ";
    if (g.operand(in).kind != OperandKind::kConstant) {
      s += shape_to_string(shape);
    } else if (shape.empty()) {
      s += "a rank-0 constant";
    } else {
      s += "a constant " + shape_to_string(shape);
    }
  }
  return s;
}

}  // namespace

RegionBuilder::RegionBuilder(const Graph& graph, const Region& region, dnnl::engine engine,
                             int threads)
    : graph_(graph),
      region_(region),
      engine_(std::move(engine)),
      compile_stream_(engine_),
      activations_(find_activation_chains(graph, region)),
      rms_norms_(find_rms_norm_chains(graph, region)),
      epilogues_(plan_epilogues(graph, region, activations_)),
      fused_(graph.nodes().size(), false),
      channel_scales_(plan_channel_scales(graph, region, epilogues_)),
      integer_convs_(plan_integer_convs(
          graph, region,
          [&](const Node& n, const IntegerConv& c) {
            return n.op() == OpKind::kMatmul ? integer_matmul_kernel_refusal(engine_, graph, n, c)
                                             : integer_conv_kernel_refusal(engine_, graph, n, c);
          })),
      conv_layout_(plan_conv_layout(graph, region, conv_layout_override())),
      threads_(std::max(threads, 1)),
      node_threads_(threads_),
      caller_threads_(omp_get_max_threads()) {
  for (const auto& [conv, cs] : channel_scales_) fused_[cs.mul] = true;
  for (uint32_t k : integer_convs_.folded) fused_[k] = true;
  for (size_t k = 0; k < region_.nodes.size(); ++k) position_[region_.nodes[k]] = k;
}

const passes::ActivationChain* RegionBuilder::activation_at(uint32_t node) const {
  auto it = activations_.find(node);
  return it == activations_.end() ? nullptr : &it->second;
}

const passes::RmsNormChain* RegionBuilder::rms_norm_at(uint32_t node) const {
  auto it = rms_norms_.find(node);
  return it == rms_norms_.end() ? nullptr : &it->second;
}

const ChannelScale* RegionBuilder::channel_scale(uint32_t conv) const {
  auto it = channel_scales_.find(conv);
  return it == channel_scales_.end() ? nullptr : &it->second;
}

const IntegerConv* RegionBuilder::integer_conv(uint32_t conv) const {
  auto it = integer_convs_.convs.find(conv);
  return it == integer_convs_.convs.end() ? nullptr : &it->second;
}

uint32_t RegionBuilder::defined_at(uint32_t node) const {
  auto it = integer_convs_.deferred.find(node);
  return it == integer_convs_.deferred.end() ? node : it->second;
}

RegionBuilder::~RegionBuilder() { omp_set_num_threads(caller_threads_); }

void RegionBuilder::begin_node(uint32_t node) {
  current_node_ = node;
  const Node& n = graph_.nodes()[node];
  node_threads_ =
      kernel_threads(estimated_us(node_flops(graph_, n), node_bytes(graph_, n)), threads_);
  omp_set_num_threads(node_threads_);
}

const std::vector<uint32_t>& RegionBuilder::epilogue_candidates(const Node& producer) const {
  static const std::vector<uint32_t> kNone;
  auto it = epilogues_.find(uint32_t(&producer - graph_.nodes().data()));
  return it == epilogues_.end() ? kNone : it->second;
}

dnnl::memory::desc RegionBuilder::plain_desc(OperandId id) const {
  const auto& d = graph_.desc(id);
  using dt = dnnl::memory::data_type;
  // Float32 everywhere but around the int8 convs and casts (integer_conv.h, cast.cc).
  const dt type = d.dtype == DataType::kFloat32 ? dt::f32
                  : d.dtype == DataType::kUint8 ? dt::u8
                  : d.dtype == DataType::kInt8  ? dt::s8
                  : d.dtype == DataType::kInt32 ? dt::s32
                                                : dt::undef;
  check_internal(type != dt::undef, "oneDNN region operand '{}' is {}", graph_.name_of(id),
                 dtype_name(d.dtype));
  const auto dims = dims_of(d.shape);
  return dnnl::memory::desc(dims, type, dnnl::memory::dims(contiguous_strides(dims)));
}

bool RegionBuilder::is_constant(OperandId id) const {
  return graph_.operand(id).kind == OperandKind::kConstant;
}

dnnl::memory RegionBuilder::external(OperandId id, const dnnl::memory::desc& d) {
  dnnl::memory m(d, engine_, DNNL_MEMORY_NONE);
  externals_.emplace_back(id.index, m);
  return m;
}

dnnl::memory RegionBuilder::held(OperandId id) {
  if (auto it = held_.find(id.index); it != held_.end()) return it->second;
  if (auto it = views_.find(id.index); it != views_.end()) {
    const StridedView v = it->second;
    views_.erase(it);
    return held_[id.index] = materialize(v, allocate(plain_desc(id)));
  }
  dnnl::memory m;
  if (is_constant(id)) {
    const ConstantInfo* c = graph_.constant_of(id);
    m = dnnl::memory(plain_desc(id), engine_, const_cast<std::byte*>(c->data.data()));
  } else {
    // A region input produced outside: plain, bound at run time.
    m = external(id, plain_desc(id));
  }
  held_[id.index] = m;
  return m;
}

dnnl::memory::desc RegionBuilder::held_desc(OperandId id) {
  const dnnl::memory::desc d = held(id).get_desc(), plain = plain_desc(id);
  return same_addressing(d, plain) ? plain : d;
}

dnnl::memory::desc RegionBuilder::dense_desc(OperandId id) {
  const dnnl::memory::desc d = held_desc(id), plain = plain_desc(id);
  // A view (broadcast strides, a window) spans fewer or more bytes than its elements.
  return !views_.count(id.index) && d.data_type() == plain.data_type() &&
                 d.get_size() == plain.get_size()
             ? d
             : plain;
}

dnnl::memory RegionBuilder::convert(const dnnl::memory& m, const dnnl::memory::desc& want,
                                    bool at_compile_time) {
  if (m.get_desc() == want) return m;
  dnnl::memory out = allocate(want);
  dnnl::reorder r(m, out);
  if (at_compile_time) {
    r.execute(compile_stream_, const_cast<dnnl::memory&>(m), out);
    compile_stream_.wait();
  } else {
    add_step(r, {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, out}});
  }
  return out;
}

dnnl::memory RegionBuilder::get(OperandId id, const dnnl::memory::desc& want) {
  // A pending view read in another layout is copied straight into it: one reorder, not a
  // row-major copy and then a layout change (shufflenet's split halves before each conv).
  if (auto it = views_.find(id.index);
      it != views_.end() && !same_addressing(want, plain_desc(id))) {
    const StridedView v = it->second;
    views_.erase(it);
    // Already addressed as wanted (a same-order reshape of an NHWC value): no copy at all.
    if (v.scale == 1 && v.desc() == want) return held_[id.index] = memory_of(v);
    return held_[id.index] = materialize(v, allocate(want));
  }
  dnnl::memory m = held(id);
  if (m.get_desc() == want) return m;
  if (same_addressing(m.get_desc(), want)) return alias(m, want);
  // One copy per operand and layout: a dynamic quantization's two reductions and its codes
  // read the same channels-last activation row-major (isnet-quint8: 3 reorders each, 2 saved).
  auto& copies = converted_[id.index];
  for (const dnnl::memory& c : copies) {
    if (c.get_desc() == want) return c;
  }
  copies.push_back(convert(m, want, is_constant(id)));
  return copies.back();
}

dnnl::memory RegionBuilder::view(OperandId id, const dnnl::memory::desc& as) {
  const auto plain = plain_desc(id);
  dnnl::memory m = get(id, plain);
  check_internal(as.get_size() == plain.get_size(), "view of '{}' changes its size",
                 graph_.name_of(id));
  return alias(m, as);
}

bool RegionBuilder::is_external(const dnnl::memory& m) const {
  return std::any_of(externals_.begin(), externals_.end(),
                     [&](const auto& e) { return e.second.get() == m.get(); });
}

dnnl::memory RegionBuilder::alias(const dnnl::memory& m, const dnnl::memory::desc& as) {
  // An external (bound at run time) needs its own binding; anything else shares the handle.
  for (size_t k = 0; k < externals_.size(); ++k) {
    if (externals_[k].second.get() == m.get()) return external(OperandId{externals_[k].first}, as);
  }
  return dnnl::memory(as, engine_, m.get_data_handle());
}

dnnl::memory RegionBuilder::define_output(OperandId id, const dnnl::memory::desc& d) {
  const bool boundary =
      std::find(region_.outputs.begin(), region_.outputs.end(), id) != region_.outputs.end();
  dnnl::memory m = boundary && d == plain_desc(id) ? external(id, d) : allocate(d);
  held_[id.index] = m;
  return m;
}

bool RegionBuilder::overwritable(OperandId id, uint32_t producer, uint32_t last_reader) const {
  if (is_constant(id) || is_region_output(id) || views_.count(id.index)) return false;
  const auto it = held_.find(id.index);
  if (it == held_.end() || is_external(it->second)) return false;
  const auto position = [&](uint32_t node) { return position_.at(node); };
  const auto producer_at = position(producer);
  const auto start = reinterpret_cast<uintptr_t>(it->second.get_data_handle());
  const auto end = start + it->second.get_desc().get_size();
  const auto overlaps = [&](const dnnl::memory& m) {
    // Memory bound per run has no handle yet; it is never the region's own.
    const auto b = reinterpret_cast<uintptr_t>(m.get_data_handle());
    return b != 0 && b < end && start < b + m.get_desc().get_size();
  };
  // Every operand over these bytes must be dead once the producer's kernel starts.
  const auto dead_after = [&](uint32_t operand) {
    if (is_region_output(OperandId{operand})) return false;
    for (uint32_t r : readers(OperandId{operand})) {
      if (operand == id.index && r == last_reader) continue;
      if (position(r) >= producer_at) return false;
    }
    return true;
  };
  for (const auto& [operand, m] : held_) {
    if (overlaps(m) && (is_external(m) || !dead_after(operand))) return false;
  }
  for (const auto& [operand, v] : views_) {
    if (overlaps(v.base) && !dead_after(operand)) return false;
  }
  return true;
}

dnnl::memory RegionBuilder::define_output_over(OperandId id, const dnnl::memory& m,
                                               const dnnl::memory::desc& d) {
  check_internal(!is_region_output(id), "a region output written over another operand");
  return held_[id.index] = alias(m, d);
}

dnnl::memory RegionBuilder::allocate(const dnnl::memory::desc& d) {
  constexpr size_t kSlack = 256;  // past the widest vector store (AVX-512: 64 bytes) with margin
  owned_.push_back(Buffer::allocate_long_lived(d.get_size() + kSlack));
  return dnnl::memory(d, engine_, owned_.back().mutable_data());
}

void RegionBuilder::add_step(dnnl::primitive p, std::unordered_map<int, dnnl::memory> args,
                             std::string label) {
  const bool reorder = p.get_kind() == dnnl::primitive::kind::reorder;
  if (reorder && label.empty()) label = "reorder";
  // A reorder (a layout change, a view's copy, a region output written out) reads its team
  // when it runs, so it gets the count its own bytes are worth, not its node's. It reads as
  // many elements as it writes: the source's desc may be a window (a slice or gather view)
  // whose size spans the whole base.
  int threads = node_threads_;
  if (reorder) {
    threads = kernel_threads(
        estimated_us(0, 2.0 * double(args.at(DNNL_ARG_TO).get_desc().get_size())), threads_);
  }
  // The implementation oneDNN picked, for profiles ("jit_fp32_wino_2x3:avx512_core").
  const char* impl = nullptr;
  dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &impl);
  // A reference implementation is never kept (SlowNode): the node goes back to the partition,
  // which leaves it to wnn's own kernels. Reported once per node, for its first such step.
  if (impl && reference_impl(impl) && current_node_ >= 0 &&
      std::none_of(slow_.begin(), slow_.end(),
                   [&](const SlowNode& s) { return s.node == uint32_t(current_node_); })) {
    const Node& n = graph_.nodes()[size_t(current_node_)];
    slow_.push_back(
        {uint32_t(current_node_), fmt::format("{}{} would run oneDNN's reference implementation {}",
                                              reorder ? "a layout conversion for " : "",
                                              describe_operands(graph_, n), impl)});
  }
  std::string kernel = impl ? impl : "";
  steps_.push_back(
      {std::move(p), std::move(args), {std::move(label), current_node_, {}, kernel}, threads, {}});
}

void RegionBuilder::refuse(std::string reason) {
  check_internal(current_node_ >= 0, "refuse() outside a node's define step");
  if (std::none_of(slow_.begin(), slow_.end(),
                   [&](const SlowNode& s) { return s.node == uint32_t(current_node_); }))
    slow_.push_back({uint32_t(current_node_), std::move(reason)});
}

void RegionBuilder::add_function_step(std::function<void()> f, std::string label,
                                      std::string kernel) {
  Step s;
  s.function = std::move(f);
  s.info = {std::move(label), current_node_, {}, std::move(kernel)};
  s.threads = node_threads_;
  steps_.push_back(std::move(s));
}

std::unique_ptr<CompiledRegion> RegionBuilder::finish() {
  // Region outputs held in a primitive's own layout are reordered into the caller's buffer.
  for (OperandId out : region_.outputs) {
    if (auto it = views_.find(out.index); it != views_.end()) {
      current_node_ = int64_t(graph_.operand(out).producer);
      materialize(it->second, external(out, plain_desc(out)));
      continue;
    }
    dnnl::memory m = held(out);
    bool bound = false;
    for (const auto& [index, ext] : externals_) bound |= index == out.index && ext.get() == m.get();
    if (bound) continue;
    dnnl::memory dst = external(out, plain_desc(out));
    current_node_ = int64_t(graph_.operand(out).producer);
    add_step(dnnl::reorder(m, dst), {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, dst}});
  }
  // Kernels name the nodes fused into them.
  for (Step& st : steps_) {
    if (st.info.label.empty() && st.info.node >= 0) {
      if (const ChannelScale* cs = channel_scale(uint32_t(st.info.node)))
        st.info.fused.push_back(cs->mul);
      for (uint32_t f : epilogue_candidates(graph_.nodes()[size_t(st.info.node)])) {
        if (fused_[f]) st.info.fused.push_back(f);
      }
      // A standalone activation chain's kernel is its first node's step.
      if (const auto* a = activation_at(uint32_t(st.info.node)))
        st.info.fused.insert(st.info.fused.end(), a->nodes.begin() + 1, a->nodes.end());
      if (const auto* r = rms_norm_at(uint32_t(st.info.node)))
        st.info.fused.insert(st.info.fused.end(), r->nodes.begin() + 1, r->nodes.end());
    }
  }
  return std::make_unique<OnednnRegion>(engine_, std::move(externals_), std::move(steps_),
                                        std::move(owned_), std::move(slow_));
}

bool reference_impl(std::string_view impl) {
  // Names are "<kind>:<isa or detail>": "ref:any", "gemm:ref", "jit:avx512_core".
  for (size_t start = 0; start <= impl.size();) {
    const size_t end = std::min(impl.find(':', start), impl.size());
    if (impl.substr(start, end - start).rfind("ref", 0) == 0) return true;
    start = end + 1;
  }
  return false;
}

bool reference_kernel(const dnnl::primitive_desc_base& pd) {
  return reference_impl(pd.impl_info_str());
}

Support require_f32(const Graph& g, const Node& n) {
  for (OperandId id : n.inputs) {
    if (g.desc(id).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, id));
  }
  for (OperandId id : n.outputs) {
    if (g.desc(id).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, id));
  }
  return Support::yes();
}

const Table& table() {
  static const Table t = [] {
    Table t;
    register_conv(t);
    register_matmul(t);
    register_pool(t);
    register_elementwise(t);
    register_movement(t);
    register_normalization(t);
    register_reduce(t);
    register_reduce_matmul(t);
    register_views(t);
    register_cast(t);
    return t;
  }();
  return t;
}

}  // namespace wnn::runtime::onednn
