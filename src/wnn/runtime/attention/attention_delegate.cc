#include "wnn/runtime/attention/attention_delegate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "wnn/core/error.h"
#include "wnn/runtime/attention/attention_pattern.h"

namespace wnn::runtime::attention {

namespace {

using kernels::View4;

class AttentionRegion final : public CompiledRegion {
 public:
  AttentionRegion(std::vector<AttentionPattern> steps, std::vector<OperandId> outputs, int threads)
      : steps_(std::move(steps)), outputs_(std::move(outputs)), threads_(threads) {}

  void run(OperandData data) const override { run_steps(data, {}); }
  void run_profiled(OperandData data, std::span<double> step_ms) const override {
    run_steps(data, step_ms);
  }

  std::vector<RegionStepInfo> profile_steps() const override {
    std::vector<RegionStepInfo> out;
    for (const AttentionPattern& p : steps_) {
      RegionStepInfo info;
      info.node = p.softmax;
      for (uint32_t n : p.nodes) {
        if (n != p.softmax) info.fused.push_back(n);
      }
      const auto& s = p.sizes;
      info.kernel =
          fmt::format("attention {}x{} heads ({} kv), {} queries x {} keys{}{}", s.batch, s.heads,
                      s.kv_heads, s.queries, s.keys, p.q_rotary ? ", rotary" : "",
                      p.k.past || p.k.index ? ", kv cache" : "");
      out.push_back(std::move(info));
    }
    return out;
  }

 private:
  void run_steps(OperandData data, std::span<double> step_ms) const {
    std::map<uint32_t, std::vector<float>> inner;  // values only this region reads
    auto read = [&](OperandId id) -> const float* {
      const auto it = inner.find(id.index);
      return it != inner.end() ? it->second.data() : reinterpret_cast<const float*>(data[id.index]);
    };
    auto write = [&](OperandId id, size_t elements) -> float* {
      if (std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end()) {
        return reinterpret_cast<float*>(const_cast<std::byte*>(data[id.index]));
      }
      auto& v = inner[id.index];
      v.resize(elements);
      return v.data();
    };
    auto view = [&](const StridedOperand& s) { return View4{read(s.base) + s.offset, s.strides}; };
    for (size_t i = 0; i < steps_.size(); ++i) {
      StepTimer timer(step_ms.empty() ? nullptr : &step_ms[i]);
      const AttentionPattern& p = steps_[i];
      const auto& s = p.sizes;
      const View4 k = place(p.k, s, data, read, write, view);
      const View4 v = place(p.v, s, data, read, write, view);
      std::vector<float> q_rotated;
      View4 q = view(p.q);
      if (p.q_rotary) {
        q_rotated.resize(size_t(s.batch * s.heads * s.queries * s.head_size));
        q = rotate(q, *p.q_rotary, s.batch, s.heads, s.queries, s.head_size, view,
                   q_rotated.data());
      }
      std::optional<View4> bias;
      if (p.bias) bias = view(*p.bias);
      float* out = write(p.out, size_t(s.batch * s.heads * s.queries * s.value_size));
      kernels::scaled_dot_product_attention(s, q, k, v, bias ? &*bias : nullptr, p.scale, out,
                                            p.out_strides, threads_);
    }
  }

  // x's rows rotated into `to` [batch, heads, rows, columns], viewed contiguously.
  template <typename View>
  static View4 rotate(View4 x, const Rotary& r, int64_t batch, int64_t heads, int64_t rows,
                      int64_t columns, const View& view, float* to) {
    const View4 cos = view(r.cos), sin = view(r.sin);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t t = 0; t < rows; ++t) {
          kernels::rotate_row(x.row(b, h, t), cos.row(b, h, t), sin.row(b, h, t), columns,
                              {r.dims ? r.dims : columns, r.adjacent, r.full_tables},
                              to + ((b * heads + h) * rows + t) * columns);
        }
      }
    }
    return {to, {heads * rows * columns, rows * columns, columns, 1}};
  }

  // The keys or values the attention reads: written (rotated, after the past, placed by the
  // index) when the pattern computes them, else read where they are.
  template <typename Read, typename Write, typename View>
  static View4 place(const KeyValues& kv, const kernels::AttentionSizes& s, OperandData data,
                     const Read& read, const Write& write, const View& view) {
    const int64_t b_count = s.batch, heads = s.kv_heads, cols = kv.columns, rows = s.keys;
    View4 fresh = view(kv.fresh);
    if (!kv.written) return fresh;
    const size_t elements = size_t(b_count * heads * rows * cols);
    float* full = write(kv.full, elements);
    const View4 full_view{full, {heads * rows * cols, rows * cols, cols, 1}};
    std::vector<float> rotated;
    if (kv.rotary) {
      const bool direct = !kv.past && !kv.index;  // the rotated rows are the value itself
      if (!direct) rotated.resize(size_t(b_count * heads * kv.fresh_rows * cols));
      fresh = rotate(fresh, *kv.rotary, b_count, heads, kv.fresh_rows, cols, view,
                     direct ? full : rotated.data());
    }
    if (!kv.rotary && !kv.past && !kv.index) {  // the new rows themselves, from their strides
      for (int64_t b = 0; b < b_count; ++b) {
        for (int64_t h = 0; h < heads; ++h) {
          for (int64_t t = 0; t < rows; ++t) {
            std::memcpy(full + ((b * heads + h) * rows + t) * cols, fresh.row(b, h, t),
                        size_t(cols) * sizeof(float));
          }
        }
      }
    }
    if (kv.past || kv.index) {
      const float* past = kv.past ? read(*kv.past) : nullptr;
      const int64_t available = kv.past_rows + kv.fresh_rows;
      const std::byte* index = kv.index ? data[kv.index->index] : nullptr;
      const bool wide = kv.index_is_64;
      for (int64_t t = 0; t < rows; ++t) {
        int64_t j = t;
        if (index) {
          j = wide ? reinterpret_cast<const int64_t*>(index)[t]
                   : int64_t(reinterpret_cast<const int32_t*>(index)[t]);
          if (j < 0) j += available;  // the gather's negative and out-of-range indices
          j = std::clamp<int64_t>(j, 0, available - 1);
        }
        for (int64_t b = 0; b < b_count; ++b) {
          for (int64_t h = 0; h < heads; ++h) {
            const float* src = j < kv.past_rows ? past + ((b * heads + h) * kv.past_rows + j) * cols
                                                : fresh.row(b, h, j - kv.past_rows);
            std::memcpy(full + ((b * heads + h) * rows + t) * cols, src,
                        size_t(cols) * sizeof(float));
          }
        }
      }
    }
    for (OperandId copy : kv.copies) std::memcpy(write(copy, elements), full, elements * 4);
    return full_view;
  }

  std::vector<AttentionPattern> steps_;
  std::vector<OperandId> outputs_;
  int threads_ = 1;
};

}  // namespace

std::string_view AttentionDelegate::name() const { return "attention"; }

std::unique_ptr<const GraphAnalysis> AttentionDelegate::analyze(const Graph& graph) const {
  auto out = std::make_unique<PatternNodes>();
  out->in.assign(graph.nodes().size(), false);
  for (const AttentionPattern& p : attention_patterns(graph)) {
    for (uint32_t n : p.nodes) out->in[n] = true;
  }
  return out;
}

Support AttentionDelegate::supports_in(const Graph& graph, const Node& node,
                                       const GraphAnalysis* analysis) const {
  return pattern_support(graph, node, analysis);
}

Support AttentionDelegate::supports(const Graph& graph, const Node& node) const {
  return supports_in(graph, node, analyze(graph).get());
}

std::unique_ptr<CompiledRegion> AttentionDelegate::compile(const Graph& graph, const Region& region,
                                                           const DelegateOptions& options) const {
  std::vector<AttentionPattern> steps;
  std::vector<uint32_t> covered;
  for (AttentionPattern& p : attention_patterns(graph)) {
    if (!std::binary_search(region.nodes.begin(), region.nodes.end(), p.softmax)) continue;
    end_output_at(graph, p, region.nodes);
    covered.insert(covered.end(), p.nodes.begin(), p.nodes.end());
    steps.push_back(std::move(p));
  }
  std::sort(covered.begin(), covered.end());
  check_internal(covered == region.nodes, "an attention region holds nodes outside its patterns");
  // What a step reads where it lies must be there when the region runs: a region input or a
  // constant, never a value of its own pattern that it does not write.
  for (const AttentionPattern& p : steps) {
    std::vector<OperandId> reads{p.q.base, p.k.fresh.base, p.v.fresh.base};
    if (p.bias) reads.push_back(p.bias->base);
    for (const std::optional<Rotary>* r : {&p.q_rotary, &p.k.rotary}) {
      if (*r) reads.insert(reads.end(), {(*r)->cos.base, (*r)->sin.base});
    }
    for (const KeyValues* kv : {&p.k, &p.v}) {
      if (kv->past) reads.push_back(*kv->past);
      if (kv->index) reads.push_back(*kv->index);
    }
    for (OperandId id : reads) {
      check_internal(
          graph.constant_of(id) != nullptr ||
              std::find(region.inputs.begin(), region.inputs.end(), id) != region.inputs.end(),
          "the attention step at '{}' reads '{}', which its region computes",
          graph.operand(graph.nodes()[p.softmax].outputs[0]).name, graph.operand(id).name);
    }
  }
  return std::make_unique<AttentionRegion>(std::move(steps), region.outputs, options.threads);
}

}  // namespace wnn::runtime::attention
