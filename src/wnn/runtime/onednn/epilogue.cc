#include "wnn/runtime/onednn/epilogue.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "wnn/core/error.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::runtime::onednn {

using dnnl::memory;

std::optional<Eltwise> eltwise_of(const Node& n) {
  const auto& a = n.attrs;
  switch (n.op()) {
    case OpKind::kRelu:
      return Eltwise{dnnl::algorithm::eltwise_relu};
    case OpKind::kLeakyRelu:
      return Eltwise{dnnl::algorithm::eltwise_relu, float(a.get_float("alpha"))};
    case OpKind::kSigmoid:
      return Eltwise{dnnl::algorithm::eltwise_logistic};
    case OpKind::kTanh:
      return Eltwise{dnnl::algorithm::eltwise_tanh};
    case OpKind::kElu:
      return Eltwise{dnnl::algorithm::eltwise_elu, float(a.get_float("alpha"))};
    case OpKind::kGelu:
      return Eltwise{dnnl::algorithm::eltwise_gelu_erf};
    case OpKind::kHardSwish:
      return Eltwise{dnnl::algorithm::eltwise_hardswish};
    case OpKind::kClamp:
      return Eltwise{dnnl::algorithm::eltwise_clip_v2, float(a.get_float("minValue")),
                     float(a.get_float("maxValue"))};
    case OpKind::kAbs:
      return Eltwise{dnnl::algorithm::eltwise_abs};
    case OpKind::kSqrt:
      return Eltwise{dnnl::algorithm::eltwise_sqrt};
    case OpKind::kExp:
      return Eltwise{dnnl::algorithm::eltwise_exp};
    case OpKind::kLog:
      return Eltwise{dnnl::algorithm::eltwise_log};
    case OpKind::kSoftplus:
      return Eltwise{dnnl::algorithm::eltwise_soft_relu};
    case OpKind::kNeg:
      return Eltwise{dnnl::algorithm::eltwise_linear, -1.0f, 0.0f};
    case OpKind::kRoundEven:  // nearbyint (vroundps mode 0): half to even
      return Eltwise{dnnl::algorithm::eltwise_round};
    case OpKind::kLinear:
      return Eltwise{dnnl::algorithm::eltwise_linear, float(a.get_float("alpha")),
                     float(a.get_float("beta"))};
    default:
      break;
  }
  return std::nullopt;
}

Eltwise activation_eltwise(const passes::ActivationChain& a) {
  switch (a.kind) {
    case passes::Activation::kSilu:
      return {dnnl::algorithm::eltwise_swish, a.beta, 0.0f};
    case passes::Activation::kMish:
      return {dnnl::algorithm::eltwise_mish};
    case passes::Activation::kGeluTanh:
      return {dnnl::algorithm::eltwise_gelu_tanh};
  }
  return {};
}

namespace {

// The matches of `match` at the region's nodes whose nodes are all in the region, keyed by
// their first node; of two sharing a first node the longer (a gamma after the normalization).
template <typename Chains, typename Match>
Chains chains_in(const Graph& g, const Region& r, Match match) {
  const passes::Uses u = passes::uses_of(g);
  std::unordered_set<uint32_t> in_region(r.nodes.begin(), r.nodes.end());
  Chains chains;
  for (uint32_t n : r.nodes) {
    auto a = match(g, u, g.nodes()[n]);
    if (!a || !std::all_of(a->nodes.begin(), a->nodes.end(),
                           [&](uint32_t k) { return in_region.count(k) > 0; }))
      continue;
    auto& slot = chains[a->nodes.front()];
    if (slot.nodes.size() < a->nodes.size()) slot = std::move(*a);
  }
  return chains;
}

}  // namespace

ActivationChains find_activation_chains(const Graph& g, const Region& r) {
  return chains_in<ActivationChains>(g, r, passes::match_activation);
}

RmsNormChains find_rms_norm_chains(const Graph& g, const Region& r) {
  return chains_in<RmsNormChains>(g, r, passes::match_rms_norm);
}

std::optional<ConstantLinear> constant_linear(const Graph& g, const Node& n) {
  const OpKind op = n.op();
  if (op != OpKind::kAdd && op != OpKind::kSub && op != OpKind::kMul && op != OpKind::kDiv)
    return std::nullopt;
  const auto first = passes::scalar_constant(g, n.inputs[0]);
  const auto second = passes::scalar_constant(g, n.inputs[1]);
  if (first.has_value() == second.has_value()) return std::nullopt;  // none, or both constant
  const OperandId x = n.inputs[first ? 1 : 0];
  if (g.desc(x).shape != g.desc(n.outputs[0]).shape) return std::nullopt;
  const float c = first ? *first : *second;
  const auto linear = [&](float alpha, float beta) {
    return ConstantLinear{x, {dnnl::algorithm::eltwise_linear, alpha, beta}};
  };
  switch (op) {
    case OpKind::kAdd:
      return linear(1, c);
    case OpKind::kSub:
      return first ? linear(-1, c) : linear(1, -c);
    case OpKind::kMul:
      return linear(c, 0);
    default: {  // kDiv
      // Only by a power of two, whose reciprocal is exact: x * (1/c) differs from x / c by an
      // ulp otherwise, which flips a rounding in a following dynamic quantization (measured on
      // squeezenet1_1_qdyn_uint8: 68% of its logits moved past the tolerance).
      int exponent = 0;
      if (first || !std::isfinite(c) || std::frexp(c, &exponent) != 0.5f) return std::nullopt;
      return linear(1 / c, 0);
    }
  }
}

dnnl::algorithm binary_of(OpKind op) {
  switch (op) {
    case OpKind::kAdd:
      return dnnl::algorithm::binary_add;
    case OpKind::kSub:
      return dnnl::algorithm::binary_sub;
    case OpKind::kMul:
      return dnnl::algorithm::binary_mul;
    case OpKind::kDiv:
      return dnnl::algorithm::binary_div;
    case OpKind::kMax:
      return dnnl::algorithm::binary_max;
    case OpKind::kMin:
      return dnnl::algorithm::binary_min;
    default:
      break;
  }
  check_internal(false, "no oneDNN binary for {}", op_name(op));
  return {};
}

bool commutative(OpKind op) {
  return op == OpKind::kAdd || op == OpKind::kMul || op == OpKind::kMax || op == OpKind::kMin;
}

namespace {

bool is_producer(OpKind op) {
  return op == OpKind::kConv2d || op == OpKind::kConvTranspose2d || op == OpKind::kGemm ||
         op == OpKind::kMatmul;
}

bool is_binary(OpKind op) {
  return op == OpKind::kAdd || op == OpKind::kSub || op == OpKind::kMul || op == OpKind::kDiv ||
         op == OpKind::kMax || op == OpKind::kMin;
}

// reshape, identity, or a transpose that moves only unit dims: the same bytes in the same
// order, so a matmul's epilogue may run through it (the heads' output projection is reshaped
// and transposed before the residual add in exported attention).
bool same_order(const Graph& g, const Node& n) {
  if (n.op() == OpKind::kReshape || n.op() == OpKind::kIdentity) return true;
  if (n.op() != OpKind::kTranspose) return false;
  const auto& shape = g.desc(n.inputs[0]).shape;
  const auto perm = n.attrs.get_ints("permutation");
  if (perm.size() != shape.size()) return false;  // the default reversal: left alone
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (shape[size_t(axis)] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

// A transpose that really moves data (not same_order): a matmul may still write through it,
// its dst then holds the transposed value in the matmul's row-major bytes (convnext's permute
// back to NCHW before the layer scale and residual add).
bool moving_transpose(const Graph& g, const Node& n) {
  return n.op() == OpKind::kTranspose && !same_order(g, n) &&
         n.attrs.get_ints("permutation").size() == g.desc(n.inputs[0]).shape.size();
}

// `shape` with leading 1s up to `rank`.
memory::dims padded_dims(std::span<const int64_t> shape, size_t rank) {
  memory::dims d(rank - std::min(rank, shape.size()), 1);
  d.insert(d.end(), shape.begin(), shape.end());
  return d;
}

// The operand of binary node `n` that is not `value`.
OperandId other_operand(const Node& n, OperandId value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

}  // namespace

EpilogueCandidates plan_epilogues(const Graph& g, const Region& r,
                                  const ActivationChains& activations) {
  std::unordered_map<uint32_t, int> uses, producer_pos;
  std::unordered_map<uint32_t, uint32_t> reader;  // operand -> a reading node
  std::unordered_map<uint32_t, std::vector<uint32_t>> readers;
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    const Node& n = g.nodes()[r.nodes[k]];
    for (OperandId in : n.inputs) {
      ++uses[in.index];
      reader[in.index] = r.nodes[k];
      readers[in.index].push_back(r.nodes[k]);
    }
    for (OperandId out : n.outputs) producer_pos[out.index] = int(k);
  }
  std::unordered_map<uint32_t, int> pos;
  for (size_t k = 0; k < r.nodes.size(); ++k) pos[r.nodes[k]] = int(k);
  auto region_output = [&](OperandId id) {
    return std::find(r.outputs.begin(), r.outputs.end(), id) != r.outputs.end();
  };
  EpilogueCandidates plan;
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    const Node& p = g.nodes()[r.nodes[k]];
    if (!is_producer(p.op())) continue;
    const bool matmul_like = p.op() == OpKind::kMatmul || p.op() == OpKind::kGemm;
    std::vector<uint32_t> chain;
    OperandId value = p.outputs[0];
    bool reshaped = false, transposed = false;
    while (!region_output(value)) {
      const auto& out_shape = g.desc(value).shape;
      // An activation chain reading value, and all its readers, is one eltwise post-op (SiLU:
      // efficientnet_b0 spent 40% of its time in sigmoid and mul as separate passes).
      const passes::ActivationChain* act = nullptr;
      for (const auto& [first, a] : activations) {
        if (a.x != value) continue;
        int reads = 0;
        for (uint32_t k : a.nodes) {
          for (OperandId in : g.nodes()[k].inputs) reads += in == value;
        }
        if (reads == uses[value.index]) act = &a;
      }
      if (act) {
        chain.insert(chain.end(), act->nodes.begin(), act->nodes.end());
        value = g.nodes()[act->nodes.back()].outputs[0];
        continue;
      }
      if (uses[value.index] != 1) break;
      const uint32_t next = reader[value.index];
      const Node& c = g.nodes()[next];
      if (c.outputs.size() != 1) break;
      if (matmul_like && !transposed && same_order(g, c) && c.inputs[0] == value) {
        chain.push_back(next);
        value = c.outputs[0];
        reshaped = true;
        continue;
      }
      // One transpose, before any reshape: later links read their operands through its
      // inverse permutation (make_epilogue).
      if (p.op() == OpKind::kMatmul && !transposed && !reshaped && moving_transpose(g, c)) {
        chain.push_back(next);
        value = c.outputs[0];
        transposed = true;
        continue;
      }
      if (transposed && (c.op() == OpKind::kTranspose || same_order(g, c))) break;
      if (g.desc(c.outputs[0]).shape != out_shape) break;
      if (is_binary(c.op())) {
        const OperandId other = other_operand(c, value);
        if (other == value) break;
        if (!commutative(c.op()) && c.inputs[0] != value) break;
        // Available before the producer runs: not computed later in the region.
        if (auto it = producer_pos.find(other.index);
            it != producer_pos.end() && it->second > int(k))
          break;
        // A broadcast other operand must not be wider than the output (it never is here: the
        // output shape equals the producer's).
        if (g.desc(other).shape.size() > out_shape.size()) break;
        // After a reshape only a full-size operand: its broadcast would follow other dims.
        if (reshaped && g.desc(other).shape != out_shape) break;
      } else if (!(eltwise_of(c) || c.op() == OpKind::kHardSigmoid) || c.inputs[0] != value) {
        break;
      }
      chain.push_back(next);
      value = c.outputs[0];
    }
    // Trailing reshapes fuse nothing, unless they lead to a region output: then the kernel
    // writes the caller's buffer directly instead of a copy at the end.
    if (!region_output(value)) {
      while (!chain.empty() && same_order(g, g.nodes()[chain.back()])) chain.pop_back();
    }
    // A trailing transpose fuses nothing either, and its strided result would only cost its
    // readers a copy (attention's heads merge lands transposed through transposed_dst instead).
    if (!chain.empty() && moving_transpose(g, g.nodes()[chain.back()])) chain.pop_back();
    if (!chain.empty()) plan[r.nodes[k]] = std::move(chain);
  }
  return plan;
}

Epilogue make_epilogue(RegionBuilder& b, const Node& producer, size_t count,
                       const ToLogical& to_logical, const dnnl::primitive_attr& base,
                       const ToLogical& full_size_as, bool residual_as_sum) {
  const Graph& g = b.graph();
  Epilogue e;
  // A deep copy: get_post_ops() returns a view into the attr's own post-ops, so appending to
  // base's would leave this attempt's chain in `base` for the next, shorter attempt (measured:
  // the unfused retry of a refused chain still carried the refused post-ops).
  dnnl_primitive_attr_t clone = nullptr;
  dnnl::error::wrap_c_api(dnnl_primitive_attr_clone(&clone, base.get()), "cloning an attr");
  e.attr = dnnl::primitive_attr(clone);
  dnnl::post_ops po = e.attr.get_post_ops();
  const auto& chain = b.epilogue_candidates(producer);
  OperandId value = producer.outputs[0];
  const auto& producer_shape = g.desc(value).shape;
  const size_t rank = producer_shape.size();
  bool has_sum = false;   // oneDNN takes one sum post-op
  bool reshaped = false;  // past a same-order reshape: operands are full-size, read row-major
  // Past a moving transpose: permute_axes() argument from the current value's dims back to the
  // producer's, and the producer's row-major dst seen in the current value's dims.
  std::vector<int> to_producer;
  memory::desc transposed_dst;
  for (size_t i = 0; i < count; ++i) {
    const Node& c = g.nodes()[chain[i]];
    if (same_order(g, c)) {
      reshaped = true;
      value = c.outputs[0];
      continue;
    }
    if (moving_transpose(g, c)) {
      // Output axis k is input axis perm[k]: permute_axes(perm) maps the output's dims back,
      // its inverse maps the producer's row-major dst forward. Fused with nothing after it, it
      // would only leave a strided result for its readers to copy.
      if (i + 1 == count) throw dnnl::error(dnnl_unimplemented, "a transpose ending the prefix");
      const auto perm = c.attrs.get_ints("permutation");
      to_producer.assign(perm.begin(), perm.end());
      std::vector<int> forward(perm.size());
      for (size_t k = 0; k < perm.size(); ++k) forward[size_t(perm[k])] = int(k);
      transposed_dst = b.plain_desc(producer.outputs[0]).permute_axes(forward);
      value = c.outputs[0];
      continue;
    }
    if (const auto* a = b.activation_at(chain[i])) {
      // Fused whole or not at all: its nodes read x more than once.
      const size_t m = a->nodes.size();
      if (i + m > count) throw dnnl::error(dnnl_unimplemented, "an activation split by the prefix");
      const Eltwise el = activation_eltwise(*a);
      po.append_eltwise(1.0f, el.algo, el.alpha, el.beta);
      value = g.nodes()[a->nodes.back()].outputs[0];
      i += m - 1;
      continue;
    }
    if (c.op() == OpKind::kHardSigmoid) {
      // clamp(alpha * x + beta, 0, 1): two post-ops (oneDNN 2.6 has no such algorithm), as
      // mobilenet_v3's squeeze-excite gates after their conv (18 separate kernels otherwise).
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, float(c.attrs.get_float("alpha")),
                        float(c.attrs.get_float("beta")));
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip_v2, 0.0f, 1.0f);
    } else if (auto el = eltwise_of(c)) {
      po.append_eltwise(1.0f, el->algo, el->alpha, el->beta);
    } else {
      const OperandId other = other_operand(c, value);
      const auto& os = g.desc(other).shape;
      BinaryInput in;
      in.operand = other;
      in.node = chain[i];
      // A conv in a blocked region (layout_plan.h) reads a residual of its own layout as a
      // binary post-op at full speed (jit_1x1, jit_dw): no copy of the residual first (0.5 ms
      // and 22 kernels of regnet_x_400mf).
      const bool blocked_conv = producer.op() == OpKind::kConv2d &&
                                b.conv_layout() == ConvLayout::kBlocked && !residual_as_sum;
      // Matmul and gemm write row-major, where a full-size binary post-op is as fast and saves
      // the copy of the residual into dst.
      const bool plain_dst = producer.op() == OpKind::kMatmul || producer.op() == OpKind::kGemm;
      if (c.op() == OpKind::kAdd && os == g.desc(value).shape && !b.is_constant(other) &&
          !has_sum && !blocked_conv && !plain_dst) {
        // A residual add: oneDNN's sum post-op accumulates into dst, which is filled with the
        // residual first. Its binary post-op with a full-size NHWC operand runs on a slow
        // generic path (measured 9x slower on resnet18's 3x3 convs).
        has_sum = true;
        in.sum = true;
        po.append_sum(1.0f);
        e.binary_inputs.push_back(in);
        value = c.outputs[0];
        continue;
      }
      in.arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(po.len()) | DNNL_ARG_SRC_1;
      if (!to_producer.empty()) {
        // Through the transpose: a full-size operand is read in the dst's own (transposed)
        // layout, so a residual held that way (the previous block's fused output) needs no
        // copy; a broadcast one row-major. Either is then permuted into the producer's dims
        // (a per-channel scale becomes a [1, N] row of the GEMM).
        in.as_held = os == g.desc(value).shape && !b.is_constant(other);
        if (in.as_held) {
          in.stored = transposed_dst;
        } else {
          const memory::dims pd = padded_dims(os, rank);
          in.stored = memory::desc(pd, memory::data_type::f32, contiguous_strides(pd));
        }
        in.logical = in.stored.permute_axes(to_producer);
        if (to_logical) in.logical = to_logical(in.logical);
        po.append_binary(binary_of(c.op()), in.logical);
        e.binary_inputs.push_back(in);
        value = c.outputs[0];
        continue;
      }
      // A full-size operand is read in whatever layout it is held in; a broadcast one
      // row-major.
      in.as_held = !reshaped && os == g.desc(value).shape && !b.is_constant(other);
      if (in.as_held) {
        in.stored = full_size_as ? full_size_as(b.plain_desc(other)) : b.held_desc(other);
      } else {
        const memory::dims pd = padded_dims(os, reshaped ? os.size() : rank);
        in.stored = memory::desc(pd, memory::data_type::f32, contiguous_strides(pd));
      }
      in.logical =
          reshaped ? in.stored.reshape(memory::dims(producer_shape.begin(), producer_shape.end()))
                   : in.stored;
      if (to_logical) in.logical = to_logical(in.logical);
      po.append_binary(binary_of(c.op()), in.logical);
      e.binary_inputs.push_back(in);
    }
    value = c.outputs[0];
  }
  e.attr.set_post_ops(po);
  e.output = value;
  e.output_desc = transposed_dst;
  return e;
}

dnnl::memory define_epilogue_output(RegionBuilder& b, const Node& producer, Epilogue& e,
                                    const dnnl::memory::desc& dst) {
  // A residual add run as the sum post-op accumulates into dst, which must hold the residual
  // first: when nothing reads the residual after this kernel (resnet's block input, read by
  // the block's first conv and then only by this add), the kernel writes over it in place
  // instead of into a copy.
  const Graph& g = b.graph();
  const uint32_t producer_index = uint32_t(&producer - g.nodes().data());
  for (const auto& in : e.binary_inputs) {
    if (!in.sum || b.is_region_output(e.output) || b.held_desc(in.operand) != dst) continue;
    if (!b.overwritable(in.operand, producer_index, in.node)) continue;
    e.residual_in_place = true;
    return b.define_output_over(e.output, b.get(in.operand, dst), dst);
  }
  return b.define_output(e.output, dst);
}

void bind_epilogue(RegionBuilder& b, const Epilogue& e, const dnnl::memory& dst_held,
                   std::unordered_map<int, dnnl::memory>& args) {
  for (const auto& in : e.binary_inputs) {
    if (in.sum) {
      // dst starts as the residual, converted to dst's layout in the same pass; nothing to do
      // when dst is the residual's own memory (define_epilogue_output).
      if (e.residual_in_place) continue;
      dnnl::memory residual = b.get(in.operand, b.held_desc(in.operand));
      b.add_step(dnnl::reorder(residual, dst_held),
                 {{DNNL_ARG_FROM, residual}, {DNNL_ARG_TO, dst_held}});
      continue;
    }
    dnnl::memory m = in.as_held ? b.get(in.operand, in.stored) : b.view(in.operand, in.stored);
    args[in.arg] = b.alias(m, in.logical);
  }
}

}  // namespace wnn::runtime::onednn
