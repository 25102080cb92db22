// Fusion of elementwise nodes into the convolution or matmul before them, as oneDNN post-ops:
// bias adds, activations and residual adds then run inside the producer's kernel while its
// output is still in cache, instead of as separate passes over memory.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

// A unary op as a oneDNN eltwise algorithm.
struct Eltwise {
  dnnl::algorithm algo;
  float alpha = 0, beta = 0;
};
std::optional<Eltwise> eltwise_of(const Node& n);
// A binary (add, sub, mul, div) of a value and a one-element constant as the linear eltwise
// alpha * x + beta (x / c as x * (1 / c) when c is a power of two, so that it is exact), with
// x the node's other operand: oneDNN's binary primitive runs its reference implementation for
// a rank-0 or [1] second operand beside a blocked first one. Nullopt for anything else (c / x,
// x / 6, a broadcasting x). Only standalone binaries are lowered so: as a post-op the binary
// runs jit anyway, and a gemm:jit matmul given the linear post-ops instead computed wrong
// values (GroupQueryAttention's softcap in tests/onnx/test_contrib_attention.py; the cause in
// oneDNN 2.6 was not isolated).
struct ConstantLinear {
  OperandId x;
  Eltwise linear;
};
std::optional<ConstantLinear> constant_linear(const Graph& g, const Node& n);
dnnl::algorithm binary_of(OpKind op);
bool commutative(OpKind op);

// The oneDNN algorithm computing a written-out activation.
Eltwise activation_eltwise(const passes::ActivationChain& a);
// Activation chain `a` as one eltwise kernel on its x, writing its last node's value; marks its
// nodes fused.
void define_activation(RegionBuilder& b, const passes::ActivationChain& a);
// The activation chains (passes::match_activation) whose nodes are all in `region`.
ActivationChains find_activation_chains(const Graph& graph, const Region& region);
// The RMS normalization chains (passes::match_rms_norm) whose nodes are all in `region`.
RmsNormChains find_rms_norm_chains(const Graph& graph, const Region& region);

// Per producer node (conv2d, convTranspose2d, gemm, matmul) of a region: the chain of nodes
// that may run as its post-ops. Each link is the only reader of the value before it, that value
// is not a region output, and a binary link's other operand is available before the producer
// runs (a constant, a region input, or computed by an earlier node of the region).
// An activation chain (SiLU, mish, tanh-gelu) reading the producer's value, and all of that
// value's readers, is one link of its nodes (one eltwise post-op).
// A matmul's chain may pass one transpose (before any reshape, and only with fused binary or
// eltwise links after it: convnext's matmul, bias, permute to NCHW, layer-scale mul, residual
// add): the matmul writes its row-major bytes, which hold the transposed value as strides, and
// the links after it read their operands through the inverse permutation.
EpilogueCandidates plan_epilogues(const Graph& graph, const Region& region,
                                  const ActivationChains& activations);

// Post-ops for the first `count` links of a producer's chain, for a primitive whose dst has
// the logical dims `dst_dims`; `to_logical` maps a WebNN-layout desc into them (the NHWC
// conv case), or is empty.
// Maps a desc in WebNN's dims to the primitive's (a permutation for NHWC convs, a collapse of
// batch dims for matmuls run as one GEMM); empty for the identity.
using ToLogical = std::function<dnnl::memory::desc(const dnnl::memory::desc&)>;

struct BinaryInput {
  int arg = 0;                 // DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1
  OperandId operand;           // the binary node's other operand
  bool sum = false;            // a residual add run as the sum post-op (no arg)
  uint32_t node = 0;           // the binary node
  bool as_held = false;        // read in `stored` (else row-major, rank-padded)
  dnnl::memory::desc stored;   // its layout in WebNN's dims
  dnnl::memory::desc logical;  // the same bytes in the primitive's dims
};
struct Epilogue {
  dnnl::primitive_attr attr;
  OperandId output;  // the value the fused primitive writes
  // Its layout in its own dims when the chain passes a transpose (the producer's row-major
  // bytes, read transposed); empty when it is row-major.
  dnnl::memory::desc output_desc;
  std::vector<BinaryInput> binary_inputs;
  // The kernel writes over its sum residual's own memory (define_epilogue_output decided it),
  // so bind_epilogue adds no copy of the residual.
  bool residual_in_place = false;
};
// `base` carries the producer's own post-ops (gemm's c) and scales; the chain's follow them.
// `full_size_as`, when given, maps a full-size operand's row-major desc to the layout it is read
// in (a blocked conv reads residuals in its own blocking); else it is read as held.
// `residual_as_sum` makes a blocked conv's residual add the sum post-op too (the only form
// oneDNN's Winograd kernel takes).
Epilogue make_epilogue(RegionBuilder& b, const Node& producer, size_t count,
                       const ToLogical& to_logical, const dnnl::primitive_attr& base,
                       const ToLogical& full_size_as = {}, bool residual_as_sum = false);
// Binds the epilogue's binary operands into `args` and fills `dst_held` (the primitive's dst
// as the region holds it) with a residual added by the sum post-op. Adds steps: call once the
// primitive is final, right before adding its own step.
// The memory `producer`'s fused kernel writes `e.output` to, in layout `dst`: over its sum
// residual's own bytes when nothing reads them later (see define_epilogue_output in
// epilogue.cc), else new memory.
dnnl::memory define_epilogue_output(RegionBuilder& b, const Node& producer, Epilogue& e,
                                    const dnnl::memory::desc& dst);
void bind_epilogue(RegionBuilder& b, const Epilogue& e, const dnnl::memory& dst_held,
                   std::unordered_map<int, dnnl::memory>& args);

// Creates the primitive descriptor `make(attr)` with the longest prefix of the producer's
// chain that oneDNN accepts, marks those links fused, and returns it with its epilogue.
template <typename Make>
auto with_epilogue(RegionBuilder& b, const Node& producer, const ToLogical& to_logical,
                   dnnl::primitive_attr base, Make make, const ToLogical& full_size_as = {},
                   bool residual_as_sum = false) {
  const auto& chain = b.epilogue_candidates(producer);
  for (size_t k = chain.size();; --k) {
    try {
      Epilogue e = make_epilogue(b, producer, k, to_logical, base, full_size_as, residual_as_sum);
      auto pd = make(e.attr);
      for (size_t i = 0; i < k; ++i) b.mark_fused(chain[i]);
      return std::make_pair(std::move(pd), std::move(e));
    } catch (const dnnl::error&) {
      if (k == 0) throw;  // the unfused primitive itself: a real refusal
    }
  }
}

}  // namespace wnn::runtime::onednn
