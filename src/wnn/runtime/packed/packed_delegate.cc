#include "wnn/runtime/packed/packed_delegate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "wnn/core/derived_buffer.h"
#include "wnn/core/error.h"
#include "wnn/kernels/block_quantized_matmul.h"
#include "wnn/runtime/packed/packed_matmul_pattern.h"

namespace wnn::runtime::packed {

namespace {

using kernels::ActivationArithmetic;
using kernels::BlockQuantizedMatrix;

// One pattern's kernel: the weight packed as the kernel reads it, and where its operands live.
struct PackedStep {
  PackedMatmulPattern pattern;
  BlockQuantizedMatrix matrix;
  Buffer weight, scales, zero_points;  // keep the bytes `matrix` points into alive
  uint32_t a = 0, y = 0;               // operand indices
  std::optional<uint32_t> bias;
  int64_t scratch = -1;  // y's slot in a run's scratch when only the region reads it
};

// uint4 constants are held one element per byte (format/packed4.h); the kernel reads rows of
// two elements per byte, low nibble first (the layout of MatMulNBits B and of the file).
Buffer pack_rows(const Buffer& unpacked, int64_t elements) {
  Buffer out = Buffer::allocate_long_lived(size_t(elements / 2));
  const auto* src = reinterpret_cast<const uint8_t*>(unpacked.data());
  auto* dst = reinterpret_cast<uint8_t*>(out.mutable_data());
  for (int64_t i = 0; i < elements / 2; ++i) {
    dst[i] = uint8_t((src[2 * i] & 0x0F) | (src[2 * i + 1] << 4));
  }
  return out;
}

// The weight as the kernel reads it: the weights file's own packed bytes (mapped) when the
// constant was unpacked from them, else one packed copy per process, whichever sessions
// compile this constant (a decoder's prefill and decode graphs share their weights).
Buffer packed_rows(const Buffer& unpacked, int64_t elements) {
  if (auto file = derived_source(unpacked, unpacked4_kind(false, size_t(elements)))) {
    return *file;
  }
  return derived_buffer(unpacked, fmt::format("packed rows of uint4 {}", elements),
                        [&] { return pack_rows(unpacked, elements); });
}

class PackedRegion final : public CompiledRegion {
 public:
  PackedRegion(std::vector<PackedStep> steps, std::vector<size_t> scratch_sizes, int threads)
      : steps_(std::move(steps)), scratch_sizes_(std::move(scratch_sizes)), threads_(threads) {}

  void run(OperandData data) const override { run_steps(data, {}); }

  void run_profiled(OperandData data, std::span<double> step_ms) const override {
    run_steps(data, step_ms);
  }

  std::vector<RegionStepInfo> profile_steps() const override {
    std::vector<RegionStepInfo> out;
    for (const PackedStep& s : steps_) {
      RegionStepInfo info;
      info.node = s.pattern.gemm;
      for (uint32_t n : s.pattern.nodes) {
        if (n != s.pattern.gemm) info.fused.push_back(n);
      }
      info.kernel = fmt::format("{} {}-bit block {}{}", kernels::isa_name(isa_), s.matrix.bits,
                                s.matrix.block, s.pattern.int8_activations ? " int8 A" : "");
      out.push_back(std::move(info));
    }
    return out;
  }

 private:
  void run_steps(OperandData data, std::span<double> step_ms) const {
    std::vector<std::vector<float>> scratch(scratch_sizes_.size());
    for (size_t i = 0; i < scratch.size(); ++i) scratch[i].resize(scratch_sizes_[i]);
    std::map<uint32_t, const float*> inner;  // values only this region reads
    for (size_t i = 0; i < steps_.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      const PackedStep& s = steps_[i];
      auto read = [&](uint32_t id) {
        const auto it = inner.find(id);
        return it != inner.end() ? it->second : reinterpret_cast<const float*>(data[id]);
      };
      float* y = s.scratch >= 0 ? scratch[size_t(s.scratch)].data()
                                : reinterpret_cast<float*>(const_cast<std::byte*>(data[s.y]));
      kernels::block_quantized_matmul(
          read(s.a), s.pattern.m, s.matrix, s.bias ? read(*s.bias) : nullptr, y,
          s.pattern.int8_activations ? ActivationArithmetic::kInt8PerBlock
                                     : ActivationArithmetic::kFloat32,
          threads_, isa_);
      if (s.scratch >= 0) inner[s.y] = y;
      if (!step_ms.empty()) {
        step_ms[i] +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      }
    }
  }

  std::vector<PackedStep> steps_;
  std::vector<size_t> scratch_sizes_;
  int threads_ = 1;
  kernels::BlockMatmulIsa isa_ = kernels::best_block_matmul_isa();
};

bool may_belong(OpKind op) {
  switch (op) {
    case OpKind::kGemm:
    case OpKind::kSlice:
    case OpKind::kDequantizeLinear:
    case OpKind::kQuantizeLinear:
    case OpKind::kExpand:
    case OpKind::kReshape:
    case OpKind::kPad:
    case OpKind::kAbs:
    case OpKind::kReduceMax:
    case OpKind::kDiv:
    case OpKind::kMax:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view PackedDelegate::name() const { return "packed"; }

Support PackedDelegate::supports(const Graph& graph, const Node& node) const {
  if (!may_belong(node.op())) return Support::not_applicable();
  const uint32_t index = uint32_t(&node - graph.nodes().data());
  return pattern_containing(graph, index) ? Support::yes() : Support::not_applicable();
}

std::unique_ptr<CompiledRegion> PackedDelegate::compile(const Graph& graph, const Region& region,
                                                        const DelegateOptions& options) const {
  std::vector<PackedStep> steps;
  std::vector<size_t> scratch_sizes;
  std::vector<uint32_t> covered;
  for (uint32_t n : region.nodes) {
    if (graph.nodes()[n].op() != OpKind::kGemm) continue;
    auto p = match_packed_matmul(graph, n);
    check_internal(p.has_value(), "packed region node {} is a gemm the pattern does not match", n);
    PackedStep s;
    s.pattern = *p;
    BlockQuantizedMatrix& m = s.matrix;
    m.n = p->n;
    m.k = p->k;
    m.block = p->block;
    m.blocks = p->blocks;
    m.bits = p->bits;
    const Buffer& w = graph.constant_of(p->weight)->data;
    s.weight = p->bits == 4 ? packed_rows(w, p->n * p->blocks * p->block) : w;
    s.scales = graph.constant_of(p->scale)->data;
    m.data = reinterpret_cast<const uint8_t*>(s.weight.data());
    m.scales = reinterpret_cast<const float*>(s.scales.data());
    if (p->zero_point) {
      // uint4 zero points are held one per byte already, as the kernel reads them.
      s.zero_points = graph.constant_of(*p->zero_point)->data;
      m.zero_points = reinterpret_cast<const uint8_t*>(s.zero_points.data());
    }
    m.default_zero = p->uniform_zero;
    s.a = p->a.index;
    s.y = graph.nodes()[n].outputs[0].index;
    if (p->bias) s.bias = p->bias->index;
    const OperandId y = graph.nodes()[n].outputs[0];
    if (std::find(region.outputs.begin(), region.outputs.end(), y) == region.outputs.end()) {
      s.scratch = int64_t(scratch_sizes.size());
      scratch_sizes.push_back(size_t(p->m * p->n));
    }
    covered.insert(covered.end(), p->nodes.begin(), p->nodes.end());
    steps.push_back(std::move(s));
  }
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  check_internal(covered == region.nodes, "a packed region holds nodes outside its patterns");
  return std::make_unique<PackedRegion>(std::move(steps), std::move(scratch_sizes),
                                        options.threads);
}

}  // namespace wnn::runtime::packed
