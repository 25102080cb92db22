#include "wnn/runtime/xnnpack/subgraph_builder.h"

#include <fmt/format.h>
#include <pthreadpool.h>

#include <cstring>
#include <mutex>
#include <numeric>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/runtime/xnnpack/thread_pool.h"

namespace wnn::runtime::xnnpack {

namespace {

// `shape` padded with leading 1s to rank 4.
std::array<int64_t, 4> as_nchw(std::span<const int64_t> shape) {
  std::array<int64_t, 4> d{1, 1, 1, 1};
  std::copy(shape.begin(), shape.end(), d.begin() + (4 - shape.size()));
  return d;
}

// NCHW <-> NHWC copies for the region boundary, of `size`-byte elements (fp32 or int8).
template <typename T>
void permute_typed(const void* src_v, void* dst_v, std::array<int64_t, 4> d, bool to_last) {
  const T* src = static_cast<const T*>(src_v);
  T* dst = static_cast<T*>(dst_v);
  const int64_t N = d[0], C = d[1], HW = d[2] * d[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) {
        const int64_t nchw = (n * C + c) * HW + i, nhwc = (n * HW + i) * C + c;
        if (to_last)
          dst[nhwc] = src[nchw];
        else
          dst[nchw] = src[nhwc];
      }
}
void permute(const void* src, void* dst, std::array<int64_t, 4> d, size_t size, bool to_last) {
  if (size == 1)
    permute_typed<uint8_t>(src, dst, d, to_last);
  else
    permute_typed<float>(src, dst, d, to_last);
}

struct RuntimeDeleter {
  void operator()(xnn_runtime_t r) const { xnn_delete_runtime(r); }
};

class XnnpackRegion final : public CompiledRegion {
 public:
  struct Boundary {
    uint32_t operand, value;
    bool input;
    std::array<int64_t, 4> nchw;  // when staged
    size_t element_size;
    std::unique_ptr<std::vector<float>> staging;  // channels-last copy, or null
  };
  XnnpackRegion(std::shared_ptr<pthreadpool> pool,
                std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime,
                std::vector<Boundary> boundaries, std::vector<std::shared_ptr<void>> owned)
      : pool_(std::move(pool)),
        runtime_(std::move(runtime)),
        boundaries_(std::move(boundaries)),
        owned_(std::move(owned)) {
    ext_.reserve(boundaries_.size());
  }

  void run(OperandData data) const override {
    std::lock_guard lock(mutex_);
    std::vector<xnn_external_value>& ext = ext_;  // reused: no allocation on the run path
    ext.clear();
    for (const Boundary& b : boundaries_) {
      void* p = const_cast<std::byte*>(data[b.operand]);
      if (b.staging) {
        if (b.input) permute(p, b.staging->data(), b.nchw, b.element_size, true);
        p = b.staging->data();
      }
      ext.push_back({b.value, p});
    }
    check_xnn(xnn_setup_runtime(runtime_.get(), ext.size(), ext.data()), "xnn_setup_runtime");
    check_xnn(xnn_invoke_runtime(runtime_.get()), "xnn_invoke_runtime");
    for (const Boundary& b : boundaries_) {
      if (b.staging && !b.input) {
        permute(b.staging->data(), const_cast<std::byte*>(data[b.operand]), b.nchw, b.element_size,
                false);
      }
    }
  }

 private:
  std::shared_ptr<pthreadpool> pool_;  // the process's pool (thread_pool.h)
  std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime_;
  std::vector<Boundary> boundaries_;
  std::vector<std::shared_ptr<void>> owned_;
  mutable std::vector<xnn_external_value> ext_;  // guarded by mutex_
  mutable std::mutex mutex_;
};

}  // namespace

void check_xnn(xnn_status status, const char* what) {
  check_internal(status == xnn_status_success, "XNNPACK {} failed with status {}", what,
                 int(status));
}

SubgraphBuilder::SubgraphBuilder(const Graph& graph, const Region& region)
    : graph_(graph), region_(region) {
  static const xnn_status init = xnn_initialize(nullptr);
  check_xnn(init, "xnn_initialize");
  const uint32_t externals = uint32_t(region.inputs.size() + region.outputs.size());
  check_xnn(xnn_create_subgraph(externals, 0, &subgraph_), "xnn_create_subgraph");
  plan_layouts();
  plan_qdq();
}

SubgraphBuilder::~SubgraphBuilder() {
  if (subgraph_) xnn_delete_subgraph(subgraph_);
}

void SubgraphBuilder::plan_layouts() {
  // Union-find over 4-D non-constant operands that elementwise ops tie together.
  std::map<uint32_t, uint32_t> parent;
  auto find = [&](uint32_t x) {
    if (!parent.count(x)) parent[x] = x;
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto tracked = [&](OperandId id) {
    return graph_.operand(id).kind != OperandKind::kConstant && graph_.desc(id).shape.size() == 4;
  };
  std::map<uint32_t, int> seed;  // operand -> 1 channels-last, 2 as-is
  for (uint32_t n : region_.nodes) {
    const Node& node = graph_.nodes()[n];
    const LayoutRule rule = layout_rule(node);
    std::vector<OperandId> ops = node.inputs;
    ops.insert(ops.end(), node.outputs.begin(), node.outputs.end());
    for (OperandId id : ops) {
      if (!tracked(id)) continue;
      if (rule == LayoutRule::kFollow) {
        parent[find(id.index)] = find(node.outputs[0].index);
      } else {
        // Spatial ops constrain their data input and output only (not filters or biases).
        const bool data = id == node.inputs[0] || id == node.outputs[0];
        if (data) seed[id.index] |= rule == LayoutRule::kChannelsLast ? 1 : 2;
      }
    }
  }
  std::map<uint32_t, int> cls;
  for (auto [op, s] : seed) cls[find(op)] |= s;
  for (auto [root, s] : cls) {
    check_internal(s != 3, "an XNNPACK region needs '{}' both channels-last and as laid out",
                   graph_.name_of(OperandId{root}));
  }
  for (uint32_t n : region_.nodes) {
    const Node& node = graph_.nodes()[n];
    const bool out_p = tracked(node.outputs[0]) && cls[find(node.outputs[0].index)] == 1;
    for (OperandId id : node.outputs) permuted_[id.index] = tracked(id) && cls[find(id.index)] == 1;
    for (OperandId id : node.inputs) {
      if (tracked(id)) {
        permuted_[id.index] = cls[find(id.index)] == 1;
      } else if (layout_rule(node) == LayoutRule::kFollow && out_p &&
                 graph_.desc(id).shape.size() <= 4) {
        // Lower-rank and constant operands broadcast against a channels-last value.
        permuted_[id.index] = true;
      }
    }
  }
}

bool SubgraphBuilder::permuted(OperandId id) const {
  auto it = permuted_.find(id.index);
  return it != permuted_.end() && it->second;
}

std::vector<size_t> SubgraphBuilder::held_dims(OperandId id) const {
  const auto& shape = graph_.desc(id).shape;
  if (!permuted(id)) return {shape.begin(), shape.end()};
  const auto d = as_nchw(shape);
  return {size_t(d[0]), size_t(d[2]), size_t(d[3]), size_t(d[1])};
}

uint32_t SubgraphBuilder::static_value(std::vector<float> data, std::vector<size_t> dims) {
  const float* p = keep(std::move(data));
  uint32_t id = 0;
  check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), p,
                                    XNN_INVALID_VALUE_ID, 0, &id),
            "xnn_define_tensor_value (static)");
  return id;
}

const std::vector<float>& SubgraphBuilder::static_floats(OperandId id) {
  if (auto it = static_floats_.find(id.index); it != static_floats_.end()) return it->second;
  const auto& desc = graph_.desc(id);
  std::vector<float> data(size_t(element_count(desc.shape)));
  if (const ConstantInfo* c = graph_.constant_of(id)) {
    std::memcpy(data.data(), c->data.data(), data.size() * sizeof(float));
  } else {
    const Node* dq = dequantized_constant(graph_, id);
    check_internal(dq != nullptr, "'{}' is not static", graph_.name_of(id));
    std::vector<ConstTensorView> ins;
    for (OperandId in : dq->inputs) {
      ins.push_back(ConstTensorView{graph_.desc(in).dtype, graph_.desc(in).shape,
                                    graph_.constant_of(in)->data.data()});
    }
    const TensorView out{desc.dtype, desc.shape, reinterpret_cast<std::byte*>(data.data())};
    kernels::run_node(*dq, ins, std::span<const TensorView>(&out, 1));
  }
  return static_floats_[id.index] = std::move(data);
}

void SubgraphBuilder::plan_qdq() {
  std::set<uint32_t> in_region(region_.nodes.begin(), region_.nodes.end());
  for (uint32_t n : region_.nodes) {
    auto m = match_qdq(graph_, n);
    if (!m || !in_region.count(m->dq_input) || !in_region.count(m->dq_filter) ||
        !in_region.count(m->q_output)) {
      continue;
    }
    absorbed_.insert(m->q_output);
    qdq_.emplace(n, std::move(*m));
  }
  // A dequantizeLinear all of whose readers consume its int8 input directly is not needed.
  for (uint32_t n : region_.nodes) {
    const Node& node = graph_.nodes()[n];
    if (node.op() != OpKind::kDequantizeLinear || is_region_output(node.outputs[0])) continue;
    bool all = true;
    for (uint32_t r : readers(graph_, node.outputs[0])) all = all && qdq_.count(r) > 0;
    if (all) absorbed_.insert(n);
  }
}

bool SubgraphBuilder::is_region_output(OperandId id) const {
  return std::find(region_.outputs.begin(), region_.outputs.end(), id) != region_.outputs.end();
}

uint32_t SubgraphBuilder::new_static(OperandId id) {
  check_internal(graph_.desc(id).dtype == DataType::kFloat32, "XNNPACK static '{}' is not float32",
                 graph_.name_of(id));
  const auto& src = static_floats(id);
  std::vector<float> data = src;
  if (permuted(id)) {
    permute(src.data(), data.data(), as_nchw(graph_.desc(id).shape), sizeof(float), true);
  }
  return static_value(std::move(data), held_dims(id));
}

const QdqMatch* SubgraphBuilder::qdq(uint32_t node) const {
  auto it = qdq_.find(node);
  return it == qdq_.end() ? nullptr : &it->second;
}

uint32_t SubgraphBuilder::define_value(OperandId id, const void* data, uint32_t external,
                                       uint32_t flags) {
  const auto dims = held_dims(id);
  uint32_t v = 0;
  if (graph_.desc(id).dtype == DataType::kInt8) {
    QuantParams q;
    const Support s = value_params(graph_, id, &q);
    check_internal(s.ok, "{}", s.reason);
    check_xnn(
        xnn_define_quantized_tensor_value(subgraph_, xnn_datatype_qint8, q.zero_point, q.scale,
                                          dims.size(), dims.data(), data, external, flags, &v),
        "xnn_define_quantized_tensor_value");
  } else {
    check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), data,
                                      external, flags, &v),
              "xnn_define_tensor_value");
  }
  return v;
}

uint32_t SubgraphBuilder::value(OperandId id) {
  if (auto it = values_.find(id.index); it != values_.end()) return it->second;
  uint32_t v = 0;
  if (is_static(graph_, id)) {
    v = new_static(id);
  } else {
    // A region input: an external value, staged through a channels-last copy when permuted.
    v = define_value(id, nullptr, next_external_++, XNN_VALUE_FLAG_EXTERNAL_INPUT);
    boundaries_.push_back({id.index, v, true, permuted(id)});
  }
  values_[id.index] = v;
  return v;
}

uint32_t SubgraphBuilder::temporary(const std::vector<size_t>& dims) {
  uint32_t v = 0;
  check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), nullptr,
                                    XNN_INVALID_VALUE_ID, 0, &v),
            "xnn_define_tensor_value (temporary)");
  return v;
}

uint32_t SubgraphBuilder::output(OperandId id) {
  const bool boundary = is_region_output(id);
  const uint32_t v = define_value(id, nullptr, boundary ? next_external_++ : XNN_INVALID_VALUE_ID,
                                  boundary ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : 0);
  if (boundary) boundaries_.push_back({id.index, v, false, permuted(id)});
  values_[id.index] = v;
  return v;
}

std::unique_ptr<CompiledRegion> SubgraphBuilder::finish(int threads) {
  std::shared_ptr<pthreadpool> pool = shared_pool(threads);
  xnn_runtime_t rt = nullptr;
  check_xnn(xnn_create_runtime_v2(subgraph_, pool.get(), 0, &rt), "xnn_create_runtime_v2");
  std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime(rt);
  std::vector<XnnpackRegion::Boundary> bounds;
  for (const Boundary& b : boundaries_) {
    const OperandId id{b.operand};
    const size_t size = dtype_size(graph_.desc(id).dtype);
    XnnpackRegion::Boundary rb{b.operand, b.value, b.input, {}, size, nullptr};
    if (b.permuted) {
      rb.nchw = as_nchw(graph_.desc(id).shape);
      // Floats, rounded up: also holds int8 elements, with float alignment.
      const size_t count = size_t(element_count(graph_.desc(id).shape));
      rb.staging = std::make_unique<std::vector<float>>((count * size + 3) / 4);
    }
    bounds.push_back(std::move(rb));
  }
  return std::make_unique<XnnpackRegion>(std::move(pool), std::move(runtime), std::move(bounds),
                                         std::move(owned_));
}

Support require_f32_rank(const Graph& g, const Node& n) {
  for (const auto& ids : {n.inputs, n.outputs}) {
    for (OperandId id : ids) {
      if (g.desc(id).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, id));
    }
  }
  return require_rank(g, n);
}

Support require_rank(const Graph& g, const Node& n) {
  for (const auto& ids : {n.inputs, n.outputs}) {
    for (OperandId id : ids) {
      if (g.desc(id).shape.size() > XNN_MAX_TENSOR_DIMS) {
        return Support::no(fmt::format("rank {} of '{}' above XNNPACK's {}",
                                       g.desc(id).shape.size(), g.name_of(id),
                                       XNN_MAX_TENSOR_DIMS));
      }
      // XNNPACK asserts on null data pointers, which zero-element values have.
      if (element_count(g.desc(id).shape) == 0) {
        return Support::no(fmt::format("'{}' has no elements", g.name_of(id)));
      }
    }
  }
  return Support::yes();
}

LayoutRule layout_rule(const Node& n) {
  switch (n.op()) {
    case OpKind::kConv2d:
    case OpKind::kConvTranspose2d:
      return n.attrs.get_enum("inputLayout") == "nchw" ? LayoutRule::kChannelsLast
                                                       : LayoutRule::kAsIs;
    case OpKind::kAveragePool2d:
    case OpKind::kMaxPool2d:
      return n.attrs.get_enum("layout") == "nchw" ? LayoutRule::kChannelsLast : LayoutRule::kAsIs;
    case OpKind::kSoftmax:
    case OpKind::kReshape:
    case OpKind::kGemm:
    case OpKind::kMatmul:
    case OpKind::kPad:
      return LayoutRule::kAsIs;
    default:
      return LayoutRule::kFollow;
  }
}

const Table& table() {
  static const Table t = [] {
    Table t;
    register_conv(t);
    register_matmul(t);
    register_elementwise(t);
    register_quantize(t);
    return t;
  }();
  return t;
}

}  // namespace wnn::runtime::xnnpack
