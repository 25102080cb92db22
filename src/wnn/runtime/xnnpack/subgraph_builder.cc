#include "wnn/runtime/xnnpack/subgraph_builder.h"

#include <fmt/format.h>
#include <pthreadpool.h>

#include <cstring>
#include <mutex>
#include <numeric>

#include "wnn/core/error.h"

namespace wnn::runtime::xnnpack {

namespace {

// `shape` padded with leading 1s to rank 4.
std::array<int64_t, 4> as_nchw(std::span<const int64_t> shape) {
  std::array<int64_t, 4> d{1, 1, 1, 1};
  std::copy(shape.begin(), shape.end(), d.begin() + (4 - shape.size()));
  return d;
}

// NCHW <-> NHWC copies for the region boundary.
void to_channels_last(const float* src, float* dst, std::array<int64_t, 4> d) {
  const int64_t N = d[0], C = d[1], HW = d[2] * d[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) dst[(n * HW + i) * C + c] = src[(n * C + c) * HW + i];
}
void from_channels_last(const float* src, float* dst, std::array<int64_t, 4> d) {
  const int64_t N = d[0], C = d[1], HW = d[2] * d[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) dst[(n * C + c) * HW + i] = src[(n * HW + i) * C + c];
}

struct PoolDeleter {
  void operator()(pthreadpool_t p) const { pthreadpool_destroy(p); }
};
struct RuntimeDeleter {
  void operator()(xnn_runtime_t r) const { xnn_delete_runtime(r); }
};

class XnnpackRegion final : public CompiledRegion {
 public:
  struct Boundary {
    uint32_t operand, value;
    bool input;
    std::array<int64_t, 4> nchw;                  // when staged
    std::unique_ptr<std::vector<float>> staging;  // channels-last copy, or null
  };
  XnnpackRegion(std::unique_ptr<pthreadpool, PoolDeleter> pool,
                std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime,
                std::vector<Boundary> boundaries,
                std::vector<std::unique_ptr<std::vector<float>>> owned)
      : pool_(std::move(pool)),
        runtime_(std::move(runtime)),
        boundaries_(std::move(boundaries)),
        owned_(std::move(owned)) {}

  void run(OperandData data) const override {
    std::lock_guard lock(mutex_);
    std::vector<xnn_external_value> ext;
    for (const Boundary& b : boundaries_) {
      auto* p = reinterpret_cast<float*>(const_cast<std::byte*>(data[b.operand]));
      if (b.staging) {
        if (b.input) to_channels_last(p, b.staging->data(), b.nchw);
        p = b.staging->data();
      }
      ext.push_back({b.value, p});
    }
    check_xnn(xnn_setup_runtime(runtime_.get(), ext.size(), ext.data()), "xnn_setup_runtime");
    check_xnn(xnn_invoke_runtime(runtime_.get()), "xnn_invoke_runtime");
    for (const Boundary& b : boundaries_) {
      if (b.staging && !b.input) {
        from_channels_last(b.staging->data(),
                           reinterpret_cast<float*>(const_cast<std::byte*>(data[b.operand])),
                           b.nchw);
      }
    }
  }

 private:
  std::unique_ptr<pthreadpool, PoolDeleter> pool_;
  std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime_;
  std::vector<Boundary> boundaries_;
  std::vector<std::unique_ptr<std::vector<float>>> owned_;
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
  owned_.push_back(std::make_unique<std::vector<float>>(std::move(data)));
  uint32_t id = 0;
  check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(),
                                    owned_.back()->data(), XNN_INVALID_VALUE_ID, 0, &id),
            "xnn_define_tensor_value (static)");
  return id;
}

uint32_t SubgraphBuilder::value(OperandId id) {
  if (auto it = values_.find(id.index); it != values_.end()) return it->second;
  const auto dims = held_dims(id);
  uint32_t v = 0;
  if (const ConstantInfo* c = graph_.constant_of(id)) {
    const float* src = reinterpret_cast<const float*>(c->data.data());
    const size_t count = size_t(element_count(graph_.desc(id).shape));
    std::vector<float> data(src, src + count);
    if (permuted(id)) {
      to_channels_last(src, data.data(), as_nchw(graph_.desc(id).shape));
    }
    v = static_value(std::move(data), dims);
  } else {
    // A region input: an external value, staged through a channels-last copy when permuted.
    const uint32_t ext = next_external_++;
    check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(),
                                      nullptr, ext, XNN_VALUE_FLAG_EXTERNAL_INPUT, &v),
              "xnn_define_tensor_value (input)");
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
  const auto dims = held_dims(id);
  const bool boundary =
      std::find(region_.outputs.begin(), region_.outputs.end(), id) != region_.outputs.end();
  uint32_t v = 0;
  check_xnn(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), nullptr,
                                    boundary ? next_external_++ : XNN_INVALID_VALUE_ID,
                                    boundary ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : 0, &v),
            "xnn_define_tensor_value (output)");
  if (boundary) boundaries_.push_back({id.index, v, false, permuted(id)});
  values_[id.index] = v;
  return v;
}

std::unique_ptr<CompiledRegion> SubgraphBuilder::finish(int threads) {
  std::unique_ptr<pthreadpool, PoolDeleter> pool(threads > 1 ? pthreadpool_create(size_t(threads))
                                                             : nullptr);
  xnn_runtime_t rt = nullptr;
  check_xnn(xnn_create_runtime_v2(subgraph_, pool.get(), 0, &rt), "xnn_create_runtime_v2");
  std::unique_ptr<xnn_runtime, RuntimeDeleter> runtime(rt);
  std::vector<XnnpackRegion::Boundary> bounds;
  for (const Boundary& b : boundaries_) {
    XnnpackRegion::Boundary rb{b.operand, b.value, b.input, {}, nullptr};
    if (b.permuted) {
      const OperandId id{b.operand};
      rb.nchw = as_nchw(graph_.desc(id).shape);
      rb.staging =
          std::make_unique<std::vector<float>>(size_t(element_count(graph_.desc(id).shape)));
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
    return t;
  }();
  return t;
}

}  // namespace wnn::runtime::xnnpack
