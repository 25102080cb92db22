#include "wnn/runtime/packed/packed_delegate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

#include "wnn/core/derived_buffer.h"
#include "wnn/core/error.h"
#include "wnn/format/packed4.h"
#include "wnn/kernels/block_quantized_matmul.h"
#include "wnn/kernels/decoder_elementwise.h"
#include "wnn/runtime/packed/decoder_elementwise_pattern.h"
#include "wnn/runtime/packed/packed_matmul_pattern.h"

namespace wnn::runtime::packed {

namespace {

using kernels::ActivationArithmetic;
using kernels::BlockQuantizedMatrix;

// uint4 constants are held one element per byte (format/packed4.h); the kernel reads rows of
// two elements per byte, low nibble first: the file's layout, format::pack4's.
Buffer pack_rows(const Buffer& unpacked, int64_t elements) {
  Buffer out = Buffer::allocate_long_lived(format::packed4_size(size_t(elements)));
  format::pack4(std::span(unpacked.data(), size_t(elements)), false,
                std::span(out.mutable_data(), out.size()), "a packed matmul's weight");
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

// Every pattern of a graph the packed delegate runs, each node in one pattern at most: the
// block-quantized matmuls, the RMS norms producing their A, and silu(gate) * up over the
// outputs of two of them. analyze() and compile() both take them from here, so they agree.
struct Patterns {
  std::vector<PackedMatmulPattern> matmuls;
  std::vector<RmsNormPattern> norms;
  std::vector<SiluMulPattern> silus;
};

Patterns packed_patterns(const Graph& g) {
  Patterns out;
  const Wiring w(g);
  std::vector<bool> claimed(g.nodes().size(), false);
  auto claim = [&](const std::vector<uint32_t>& nodes) {
    if (std::any_of(nodes.begin(), nodes.end(), [&](uint32_t n) { return claimed[n]; })) {
      return false;
    }
    for (uint32_t n : nodes) claimed[n] = true;
    return true;
  };
  std::vector<bool> gemm_of_pattern(g.nodes().size(), false);
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].op() != OpKind::kGemm) continue;
    auto p = match_packed_matmul(g, n);
    // Gemms reading one A share its quantization nodes: each pattern lists them.
    if (!p) continue;
    for (uint32_t m : p->nodes) claimed[m] = true;
    gemm_of_pattern[n] = true;
    out.matmuls.push_back(std::move(*p));
  }
  const std::vector<bool> in_matmul = claimed;
  std::vector<bool> normed(g.operands().size(), false);
  for (const PackedMatmulPattern& p : out.matmuls) {
    if (normed[p.a.index]) continue;
    normed[p.a.index] = true;
    if (auto norm = match_rms_norm(g, w, p.a); norm && claim(norm->nodes)) {
      out.norms.push_back(std::move(*norm));
    }
  }
  auto from_packed_gemm = [&](OperandId v) {
    const Node* n = passes::producer(g, v, OpKind::kGemm);
    return n && gemm_of_pattern[size_t(n - g.nodes().data())];
  };
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].op() != OpKind::kSigmoid) continue;
    auto silu = match_silu_mul(g, w, n, in_matmul);
    if (silu && from_packed_gemm(silu->gate) && from_packed_gemm(silu->up) && claim(silu->nodes)) {
      out.silus.push_back(std::move(*silu));
    }
  }
  return out;
}

// One step of a packed region: a matmul kernel, an RMS norm or a SiLU-gated product.
struct PackedStep {
  enum class Kind { kMatmul, kRmsNorm, kSiluMul };
  PackedStep(Kind k, uint32_t n, std::vector<uint32_t> all)
      : kind(k), node(n), nodes(std::move(all)) {}
  Kind kind;
  uint32_t node;                 // the node a profile names
  std::vector<uint32_t> nodes;   // every node the step computes, sorted
  std::vector<uint32_t> reads;   // operand indices
  std::vector<uint32_t> writes;  // operand indices; the first is the result
  // Per write: its slot in a run's scratch, or kRegionOutput, or kSameAsSum (a copy of the
  // norm's sum that only this region reads: the sum's own buffer).
  std::vector<int64_t> slots;
  // kMatmul
  PackedMatmulPattern pattern;
  BlockQuantizedMatrix matrix;
  Buffer weight, scales, zero_points;  // keep the bytes `matrix` points into alive
  // kRmsNorm: writes are y, then the sum and its copies when there is a residual.
  RmsNormPattern norm;
  Buffer gamma;
  // kSiluMul
  SiluMulPattern silu;
};
constexpr int64_t kRegionOutput = -1;
constexpr int64_t kSameAsSum = -2;

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
      info.node = s.node;
      for (uint32_t n : s.nodes) {
        if (n != s.node) info.fused.push_back(n);
      }
      switch (s.kind) {
        case PackedStep::Kind::kMatmul:
          info.kernel = fmt::format("{} {}-bit block {}{}", kernels::isa_name(isa_), s.matrix.bits,
                                    s.matrix.block, s.pattern.int8_activations ? " int8 A" : "");
          break;
        case PackedStep::Kind::kRmsNorm:
          info.kernel = fmt::format("rms norm {}x{}{}", s.norm.rows, s.norm.hidden,
                                    s.norm.residual ? " after the residual add" : "");
          break;
        case PackedStep::Kind::kSiluMul:
          info.kernel = fmt::format("silu(gate) * up, {} elements", s.silu.elements);
          break;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

 private:
  void run_steps(OperandData data, std::span<double> step_ms) const {
    std::vector<std::vector<float>> scratch(scratch_sizes_.size());
    for (size_t i = 0; i < scratch.size(); ++i) scratch[i].resize(scratch_sizes_[i]);
    std::map<uint32_t, const float*> inner;  // values only this region reads
    auto read = [&](uint32_t id) {
      const auto it = inner.find(id);
      return it != inner.end() ? it->second : reinterpret_cast<const float*>(data[id]);
    };
    auto out = [&](const PackedStep& s, size_t w) {
      const int64_t slot = s.slots[w];
      float* p = slot >= 0 ? scratch[size_t(slot)].data()
                           : reinterpret_cast<float*>(const_cast<std::byte*>(data[s.writes[w]]));
      if (slot >= 0) inner[s.writes[w]] = p;
      return p;
    };
    for (size_t i = 0; i < steps_.size(); ++i) {
      StepTimer timer(step_ms.empty() ? nullptr : &step_ms[i]);
      const PackedStep& s = steps_[i];
      switch (s.kind) {
        case PackedStep::Kind::kMatmul:
          kernels::block_quantized_matmul(
              read(s.reads[0]), s.pattern.m, s.matrix,
              s.pattern.bias ? read(s.pattern.bias->index) : nullptr, out(s, 0),
              s.pattern.int8_activations ? ActivationArithmetic::kInt8PerBlock
                                         : ActivationArithmetic::kFloat32,
              threads_, isa_);
          break;
        case PackedStep::Kind::kRmsNorm: {
          const RmsNormPattern& n = s.norm;
          float* y = out(s, 0);
          float* sum = n.residual ? out(s, 1) : nullptr;
          kernels::rms_norm(read(n.a.index), n.residual ? read(n.residual->index) : nullptr, sum,
                            reinterpret_cast<const float*>(s.gamma.data()), n.epsilon, n.rows,
                            n.hidden, y, threads_);
          for (size_t w = 2; w < s.writes.size(); ++w) {
            if (s.slots[w] == kSameAsSum) {
              inner[s.writes[w]] = sum;
            } else {
              std::memcpy(out(s, w), sum, size_t(n.rows * n.hidden) * sizeof(float));
            }
          }
          break;
        }
        case PackedStep::Kind::kSiluMul:
          kernels::silu_mul(read(s.silu.gate.index), read(s.silu.up.index), s.silu.elements,
                            out(s, 0), threads_);
          break;
      }
    }
  }

  std::vector<PackedStep> steps_;
  std::vector<size_t> scratch_sizes_;
  int threads_ = 1;
  kernels::BlockMatmulIsa isa_ = kernels::best_block_matmul_isa();
};

PackedStep matmul_step(const Graph& graph, const PackedMatmulPattern& p) {
  PackedStep s(PackedStep::Kind::kMatmul, p.gemm, p.nodes);
  s.pattern = p;
  BlockQuantizedMatrix& m = s.matrix;
  m.n = p.n;
  m.k = p.k;
  m.block = p.block;
  m.blocks = p.blocks;
  m.bits = p.bits;
  const Buffer& w = graph.constant_of(p.weight)->data;
  s.weight = p.bits == 4 ? packed_rows(w, p.n * p.blocks * p.block) : w;
  s.scales = graph.constant_of(p.scale)->data;
  m.data = reinterpret_cast<const uint8_t*>(s.weight.data());
  m.scales = reinterpret_cast<const float*>(s.scales.data());
  if (p.zero_point) {
    // uint4 zero points are held one per byte already, as the kernel reads them.
    s.zero_points = graph.constant_of(*p.zero_point)->data;
    m.zero_points = reinterpret_cast<const uint8_t*>(s.zero_points.data());
  }
  m.default_zero = p.uniform_zero;
  s.reads = {p.a.index};
  if (p.bias) s.reads.push_back(p.bias->index);
  s.writes = {graph.nodes()[p.gemm].outputs[0].index};
  return s;
}

PackedStep norm_step(const Graph& graph, const RmsNormPattern& p) {
  PackedStep s(PackedStep::Kind::kRmsNorm, p.reduce, p.nodes);
  s.norm = p;
  s.gamma = graph.constant_of(p.gamma)->data;
  s.reads = {p.a.index};
  if (p.residual) s.reads.push_back(p.residual->index);
  s.writes = {p.y.index};
  if (p.residual) {
    s.writes.push_back(p.sum->index);
    for (OperandId c : p.sum_copies) s.writes.push_back(c.index);
  }
  return s;
}

PackedStep silu_step(const SiluMulPattern& p) {
  PackedStep s(PackedStep::Kind::kSiluMul, p.sigmoid, p.nodes);
  s.silu = p;
  s.reads = {p.gate.index, p.up.index};
  s.writes = {p.y.index};
  return s;
}

// `steps` in an order where each step runs after the steps writing what it reads (the
// patterns' own node order, when that already is one).
std::vector<PackedStep> in_dependency_order(std::vector<PackedStep> steps) {
  std::sort(steps.begin(), steps.end(), [](const PackedStep& a, const PackedStep& b) {
    return a.nodes.back() < b.nodes.back();
  });
  std::map<uint32_t, size_t> writer;
  for (size_t i = 0; i < steps.size(); ++i) {
    for (uint32_t w : steps[i].writes) writer[w] = i;
  }
  std::vector<PackedStep> out;
  std::vector<int> state(steps.size(), 0);  // 0 new, 1 visiting, 2 placed
  std::function<void(size_t)> place = [&](size_t i) {
    if (state[i] == 2) return;
    check_internal(state[i] == 0, "packed steps depend on each other in a cycle");
    state[i] = 1;
    for (uint32_t r : steps[i].reads) {
      if (const auto it = writer.find(r); it != writer.end() && it->second != i) place(it->second);
    }
    state[i] = 2;
    out.push_back(std::move(steps[i]));
  };
  for (size_t i = 0; i < steps.size(); ++i) place(i);
  return out;
}

}  // namespace

std::string_view PackedDelegate::name() const { return "packed"; }

std::unique_ptr<const GraphAnalysis> PackedDelegate::analyze(const Graph& graph) const {
  auto out = std::make_unique<PatternNodes>();
  out->in.assign(graph.nodes().size(), false);
  const Patterns p = packed_patterns(graph);
  auto mark = [&](const std::vector<uint32_t>& nodes) {
    for (uint32_t n : nodes) out->in[n] = true;
  };
  for (const auto& m : p.matmuls) mark(m.nodes);
  for (const auto& n : p.norms) mark(n.nodes);
  for (const auto& s : p.silus) mark(s.nodes);
  return out;
}

Support PackedDelegate::supports_in(const Graph& graph, const Node& node,
                                    const GraphAnalysis* analysis) const {
  return pattern_support(graph, node, analysis);
}

Support PackedDelegate::supports(const Graph& graph, const Node& node) const {
  return supports_in(graph, node, analyze(graph).get());
}

std::unique_ptr<CompiledRegion> PackedDelegate::compile(const Graph& graph, const Region& region,
                                                        const DelegateOptions& options) const {
  const Patterns patterns = packed_patterns(graph);
  auto inside = [&](const std::vector<uint32_t>& nodes) {
    return std::binary_search(region.nodes.begin(), region.nodes.end(), nodes.back());
  };
  std::vector<PackedStep> steps;
  for (const auto& p : patterns.matmuls) {
    if (inside({p.gemm})) steps.push_back(matmul_step(graph, p));
  }
  for (const auto& p : patterns.norms) {
    if (inside(p.nodes)) steps.push_back(norm_step(graph, p));
  }
  for (const auto& p : patterns.silus) {
    if (inside(p.nodes)) steps.push_back(silu_step(p));
  }
  std::vector<uint32_t> covered;
  for (const PackedStep& s : steps) covered.insert(covered.end(), s.nodes.begin(), s.nodes.end());
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  check_internal(covered == region.nodes, "a packed region holds nodes outside its patterns");

  steps = in_dependency_order(std::move(steps));
  std::vector<size_t> scratch_sizes;
  const auto is_output = [&](uint32_t id) {
    return std::any_of(region.outputs.begin(), region.outputs.end(),
                       [&](OperandId o) { return o.index == id; });
  };
  for (PackedStep& s : steps) {
    for (size_t w = 0; w < s.writes.size(); ++w) {
      const uint32_t id = s.writes[w];
      if (is_output(id)) {
        s.slots.push_back(kRegionOutput);
      } else if (s.kind == PackedStep::Kind::kRmsNorm && w >= 2) {
        s.slots.push_back(kSameAsSum);
      } else {
        s.slots.push_back(int64_t(scratch_sizes.size()));
        scratch_sizes.push_back(size_t(element_count(graph.desc(OperandId{id}).shape)));
      }
    }
  }
  return std::make_unique<PackedRegion>(std::move(steps), std::move(scratch_sizes),
                                        options.threads);
}

}  // namespace wnn::runtime::packed
