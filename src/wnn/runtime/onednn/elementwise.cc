// Unary activations (eltwise), binary arithmetic with broadcasting (binary) and softmax, where
// oneDNN computes what WebNN specifies. Results keep the layout of their first input, so a
// chain after a convolution stays in the convolution's layout.
#include <fmt/format.h>

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/quantize_codes.h"
#include "wnn/passes/activation_chains.h"
#include "wnn/passes/pattern_match.h"
#include "wnn/runtime/onednn/epilogue.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::algorithm;
using dnnl::memory;

// `e` of `x`, in the layout `x` is held in, as node `n`'s result.
void define_eltwise_of(RegionBuilder& b, const Node& n, OperandId x, const Eltwise& e) {
  const memory::desc src = b.held_desc(x);
  dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, e.algo, src, e.alpha, e.beta);
  dnnl::eltwise_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(x, src);
  args[DNNL_ARG_DST] = b.define_output(n.outputs[0], pd.dst_desc());
  b.add_step(dnnl::eltwise_forward(pd), std::move(args));
}

void define_eltwise(RegionBuilder& b, const Node& n) {
  define_eltwise_of(b, n, n.inputs[0], *eltwise_of(n));
}

// hardSigmoid = clamp(alpha * x + beta, 0, 1): oneDNN 2.6 has no such algorithm, so two
// eltwise steps (linear, then clip) keep it inside the region.
void define_hard_sigmoid(RegionBuilder& b, const Node& n) {
  const memory::desc src = b.held_desc(n.inputs[0]);
  const auto alpha = float(n.attrs.get_float("alpha")), beta = float(n.attrs.get_float("beta"));
  dnnl::eltwise_forward::primitive_desc linear(
      {dnnl::prop_kind::forward_inference, algorithm::eltwise_linear, src, alpha, beta},
      b.engine());
  dnnl::eltwise_forward::primitive_desc clip(
      {dnnl::prop_kind::forward_inference, algorithm::eltwise_clip_v2, src, 0.0f, 1.0f},
      b.engine());
  memory tmp = b.allocate(linear.dst_desc());
  b.add_step(dnnl::eltwise_forward(linear),
             {{DNNL_ARG_SRC, b.get(n.inputs[0], src)}, {DNNL_ARG_DST, tmp}});
  memory dst = b.define_output(n.outputs[0], clip.dst_desc());
  b.add_step(dnnl::eltwise_forward(clip), {{DNNL_ARG_SRC, tmp}, {DNNL_ARG_DST, dst}});
}

bool in_rms_norm(const Graph& g, const Node& n) {
  return passes::rms_norm_containing(g, passes::uses_of(g), uint32_t(&n - g.nodes().data()))
      .has_value();
}

Support eltwise_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (g.desc(n.inputs[0]).shape.size() > DNNL_MAX_NDIMS)
    return Support::no("rank above oneDNN's 12");
  return Support::yes();
}

Support binary_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const auto& out = g.desc(n.outputs[0]).shape;
  if (out.size() > DNNL_MAX_NDIMS) return Support::no("rank above oneDNN's 12");
  if (constant_linear(g, n)) return Support::yes();
  const bool a_full = g.desc(n.inputs[0]).shape == out;
  const bool b_full = g.desc(n.inputs[1]).shape == out;
  if (!a_full && !(b_full && commutative(n.op())) && in_rms_norm(g, n))
    return Support::yes();  // 1 / sqrt(...) of an RMS normalization: one step with it
  if (!a_full && !(b_full && commutative(n.op()))) {
    return Support::no("the first operand broadcasts: oneDNN broadcasts only the second");
  }
  return Support::yes();
}

// Nodes only an RMS normalization chain runs (1 / s, reciprocal(s)): claimed inside a whole
// chain, which define_rms_norm computes; one the partition split from its chain is computed
// and refused (it goes back to the reference kernels).
void define_refused(RegionBuilder& b, const Node& n) {
  const OperandId y = n.inputs[n.op() == OpKind::kDiv ? 1 : 0];
  define_eltwise_of(b, n, y, {algorithm::eltwise_pow, 1, -1});
  b.refuse(fmt::format("{} outside a whole RMS normalization", op_name(n.op())));
}

Support reciprocal_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (in_rms_norm(g, n)) return Support::yes();
  return Support::no("only inside an RMS normalization chain");
}

memory::dims padded(std::span<const int64_t> shape, size_t rank) {
  memory::dims d(rank - shape.size(), 1);
  d.insert(d.end(), shape.begin(), shape.end());
  if (d.empty()) d.push_back(1);
  return d;
}

// DynamicQuantizeLinear's codes, cast(clamp(roundEven(x / scale) + zero_point, 0, 255), uint8)
// with a one-element scale and zero point, each node the only reader of the one before and no
// region output: one pass over x instead of five. The same float32 operations: the quotient,
// rounded half to even (adding and subtracting 2^23 with x's sign rounds to nearest even for
// |v| < 2^23; larger values are integers already), the add, the clamp and the conversion of an
// integer in [0, 255]. Defined at the div (the first node), the rest marked fused.
bool define_quantize_codes(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (n.op() != OpKind::kDiv) return false;
  const OperandId x = n.inputs[0], scale = n.inputs[1];
  if (element_count(g.desc(scale).shape) != 1 || g.desc(x).shape != g.desc(n.outputs[0]).shape)
    return false;
  auto next = [&](const Node& p, OpKind op) -> const Node* {
    const OperandId y = p.outputs[0];
    if (b.is_region_output(y)) return nullptr;
    const auto rs = b.readers(y);
    if (rs.size() != 1 || g.nodes()[rs[0]].op() != op) return nullptr;
    return &g.nodes()[rs[0]];
  };
  const Node* round = next(n, OpKind::kRoundEven);
  const Node* add = round ? next(*round, OpKind::kAdd) : nullptr;
  const Node* clamp = add ? next(*add, OpKind::kClamp) : nullptr;
  const Node* cast = clamp ? next(*clamp, OpKind::kCast) : nullptr;
  if (!cast || g.desc(cast->outputs[0]).dtype != DataType::kUint8) return false;
  if (clamp->attrs.get_float("minValue") != 0 || clamp->attrs.get_float("maxValue") != 255)
    return false;
  const OperandId r = round->outputs[0];
  if ((add->inputs[0] == r) == (add->inputs[1] == r)) return false;
  const OperandId zp = add->inputs[0] == r ? add->inputs[1] : add->inputs[0];
  if (element_count(g.desc(zp).shape) != 1 || g.desc(zp).dtype != DataType::kFloat32 ||
      g.desc(add->outputs[0]).shape != g.desc(x).shape)
    return false;
  // The zero point must be computed already (nodes are in topological order).
  const uint32_t self = uint32_t(&n - g.nodes().data());
  if (g.operand(zp).kind == OperandKind::kNodeOutput && g.operand(zp).producer > self) return false;
  // Read in the layout x is held in (the conv's channels-last output, not reordered row-major
  // first), the codes written in the same layout: the int8 conv reading them wants it too.
  const memory::desc layout = b.dense_desc(x);
  dnnl_memory_desc_t codes_layout = layout.data;
  codes_layout.data_type = dnnl_u8;
  const memory in = b.get(x, layout);
  const memory sm = b.get(scale, b.plain_desc(scale)), zm = b.get(zp, b.plain_desc(zp));
  const memory out = b.define_output(cast->outputs[0], memory::desc(codes_layout));
  for (const Node* f : {round, add, clamp, cast}) b.mark_fused(uint32_t(f - g.nodes().data()));
  const int64_t count = element_count(g.desc(x).shape);
  const int threads = omp_get_max_threads();
  b.add_function_step(
      [=] {
        const auto* xv = static_cast<const float*>(in.get_data_handle());
        const float s = *static_cast<const float*>(sm.get_data_handle());
        const float z = *static_cast<const float*>(zm.get_data_handle());
        auto* y = static_cast<uint8_t*>(out.get_data_handle());
        constexpr int64_t kChunk = 16384;
        const int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(threads) schedule(static) if (chunks > 1)
        for (int64_t c = 0; c < chunks; ++c) {
          const int64_t begin = c * kChunk;
          kernels::quantize_codes(xv + begin, std::min(kChunk, count - begin), s, z, y + begin);
        }
      },
      "quantize to uint8", "wnn:quantize");
  return true;
}

// Binary `algo` of x and y (x full-size, y full-size or broadcast) as node `n`'s result, in x's
// layout (with the result's data type: uint8 for a comparison).
void define_binary_of(RegionBuilder& b, const Node& n, algorithm algo, OperandId x, OperandId y) {
  const Graph& g = b.graph();
  const auto& out = g.desc(n.outputs[0]).shape;
  const memory::desc src0 = b.held_desc(x);
  // A full-size second operand is read in the first's layout: converting it to row-major
  // (as a broadcast one is read) cost a transposing reorder per SiLU in efficientnet_b0, and a
  // binary over mixed layouts runs on oneDNN's reference kernel.
  const bool y_full = g.desc(y).shape == out;
  const memory::dims yd = padded(g.desc(y).shape, std::max<size_t>(out.size(), 1));
  // A broadcast one is row-major, except a per-channel one beside a blocked first operand:
  // oneDNN's jit binary broadcasts it only from the same blocking (its reference kernel took
  // 35 ms on one squeeze-excitation mul of efficientnet_b0).
  const memory::desc y_plain(yd, memory::data_type::f32, contiguous_strides(yd));
  const auto blocked = blocked_activation_tag();
  const bool per_channel_blocked =
      yd.size() == 4 && src0 == memory::desc(src0.dims(), memory::data_type::f32, blocked) &&
      yd[1] == src0.dims()[1];
  const memory::desc src1 =
      y_full ? src0
             : (per_channel_blocked ? memory::desc(yd, memory::data_type::f32, blocked) : y_plain);
  dnnl_memory_desc_t dst = src0.data;
  dst.data_type = b.plain_desc(n.outputs[0]).data.data_type;
  dnnl::binary::desc d(algo, src0, src1, memory::desc(dst));
  dnnl::binary::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC_0] = b.get(x, src0);
  // Held with the broadcast dims already (a squeeze-excitation scale), it converts directly.
  args[DNNL_ARG_SRC_1] = y_full || b.held_desc(y).dims() == yd
                             ? b.get(y, src1)
                             : b.convert(b.view(y, y_plain), src1, b.is_constant(y));
  args[DNNL_ARG_DST] = b.define_output(n.outputs[0], pd.dst_desc());
  b.add_step(dnnl::binary(pd), std::move(args));
}

void define_binary(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (define_quantize_codes(b, n)) return;
  if (auto cl = constant_linear(g, n)) return define_eltwise_of(b, n, cl->x, cl->linear);
  OperandId x = n.inputs[0], y = n.inputs[1];
  const auto& out = g.desc(n.outputs[0]).shape;
  // A broadcast first operand of a non-commutative op is claimed only inside a chain defined
  // before it (an RMS norm's 1 / s).
  if (g.desc(x).shape != out && !commutative(n.op())) return define_refused(b, n);
  if (g.desc(x).shape != out) std::swap(x, y);  // commutative, checked by supports
  define_binary_of(b, n, binary_of(n.op()), x, y);
}

// equal and notEqual as oneDNN's binary_eq and binary_ne: the 1.0f or 0.0f they compute is
// written as uint8 1 or 0, and NaN compares as IEEE says (only notEqual holds). The ordered
// comparisons stay on the reference kernels: oneDNN 2.6's jit binary_gt gives NaN > b and
// a > NaN as true (measured; tests/unit/runtime/onednn_comparison_test.cc).
Support compare_supports(const Graph& g, const Node& n) {
  for (OperandId id : n.inputs) {
    if (g.desc(id).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, id));
  }
  const auto& out = g.desc(n.outputs[0]).shape;
  if (out.size() > DNNL_MAX_NDIMS) return Support::no("rank above oneDNN's 12");
  if (g.desc(n.inputs[0]).shape != out && g.desc(n.inputs[1]).shape != out)
    return Support::no("both operands broadcast: oneDNN broadcasts only the second");
  return Support::yes();
}

void define_compare(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  OperandId x = n.inputs[0], y = n.inputs[1];
  if (g.desc(x).shape != g.desc(n.outputs[0]).shape) std::swap(x, y);  // symmetric
  define_binary_of(b, n, n.op() == OpKind::kEqual ? algorithm::binary_eq : algorithm::binary_ne, x,
                   y);
}

// pow(x, 2) with a one-element constant exponent: eltwise_square, x * x, the correctly rounded
// square the reference kernel's powf gives. Other exponents stay on the reference kernels:
// oneDNN's general eltwise_pow does not promise powf's results (nor its edge cases, such as
// pow(-0, 0.5) = +0 against sqrt's -0). pow(x, 3) inside a tanh-gelu chain is claimed too: the
// chain runs as one eltwise_gelu_tanh (define_pow refuses it anywhere else).
Support pow_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (g.desc(n.inputs[0]).shape != g.desc(n.outputs[0]).shape || g.desc(n.inputs[0]).shape.empty())
    return Support::no("the base broadcasts or is a scalar");
  const auto exponent = passes::scalar_constant(g, n.inputs[1]);
  const uint32_t index = uint32_t(&n - g.nodes().data());
  if (exponent == 3.0f && passes::activation_containing(g, passes::uses_of(g), index))
    return Support::yes();
  if (exponent != 2.0f)
    return Support::no("the exponent is not the one-element constant 2 (nor 3 in a tanh-gelu)");
  if (g.desc(n.inputs[0]).shape.size() > DNNL_MAX_NDIMS)
    return Support::no("rank above oneDNN's 12");
  return Support::yes();
}

void define_pow(RegionBuilder& b, const Node& n) {
  if (passes::scalar_constant(b.graph(), n.inputs[1]) == 2.0f) {
    define_eltwise_of(b, n, n.inputs[0], {algorithm::eltwise_square, 0, 0});
    return;
  }
  // pow(x, 3) of a tanh-gelu whose chain the partition split: computed, and refused (the node
  // goes back to the reference kernels).
  define_eltwise_of(b, n, n.inputs[0], {algorithm::eltwise_pow, 1, 3});
  b.refuse("pow(x, 3) outside a whole tanh-gelu chain");
}

void define_softmax(RegionBuilder& b, const Node& n) {
  const memory::desc src = b.plain_desc(n.inputs[0]);
  const int axis = int(n.attrs.get_int("axis"));
  dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, src, axis);
  dnnl::softmax_forward::primitive_desc pd(d, b.engine());
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(n.inputs[0], src);
  args[DNNL_ARG_DST] = b.define_output(n.outputs[0], pd.dst_desc());
  b.add_step(dnnl::softmax_forward(pd), std::move(args));
}

// equal and where over single elements (DynamicQuantizeLinear's scale, where(max == min, 1,
// (max - min) / 255)) run as the reference kernel inside the region: oneDNN has no select, and
// leaving these scalars out split every dynamic quantization into several regions.
Support scalar_supports(const Graph& g, const Node& n) {
  for (const auto* ids : {&n.inputs, &n.outputs}) {
    for (OperandId id : *ids) {
      const auto& d = g.desc(id);
      if (element_count(d.shape) != 1)
        return Support::no(fmt::format("{} of {} elements (single elements only)", g.name_of(id),
                                       element_count(d.shape)));
      if (d.dtype != DataType::kFloat32 && d.dtype != DataType::kUint8)
        return Support::no(fmt::format("{} is {}", g.name_of(id), dtype_name(d.dtype)));
    }
  }
  return Support::yes();
}

void define_scalar_reference(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  struct Operand {
    DataType dtype;
    Shape shape;
    memory m;
  };
  std::vector<Operand> ins, outs;
  for (OperandId id : n.inputs)
    ins.push_back({g.desc(id).dtype, g.desc(id).shape, b.get(id, b.plain_desc(id))});
  for (OperandId id : n.outputs) {
    outs.push_back({g.desc(id).dtype, g.desc(id).shape, b.define_output(id, b.plain_desc(id))});
  }
  b.add_function_step(
      [node = n, ins, outs] {
        std::vector<ConstTensorView> iv;
        std::vector<TensorView> ov;
        for (const Operand& o : ins)
          iv.push_back({o.dtype, o.shape, static_cast<const std::byte*>(o.m.get_data_handle())});
        for (const Operand& o : outs)
          ov.push_back({o.dtype, o.shape, static_cast<std::byte*>(o.m.get_data_handle())});
        kernels::run_node(node, iv, ov);
      },
      std::string(op_name(n.op())), "wnn:one-element");
}

// equal of single elements (DynamicQuantizeLinear's range check) as the reference kernel run as
// a step (oneDNN's binary on one element is its reference implementation); larger ones as
// oneDNN's binary_eq (compare_supports), whose reason is the one given when both decline.
Support equal_supports(const Graph& g, const Node& n) {
  if (scalar_supports(g, n).ok) return Support::yes();
  return compare_supports(g, n);
}

void define_equal(RegionBuilder& b, const Node& n) {
  if (scalar_supports(b.graph(), n).ok) return define_scalar_reference(b, n);
  define_compare(b, n);
}

}  // namespace

void define_activation(RegionBuilder& b, const passes::ActivationChain& a) {
  const Node& root = b.graph().nodes()[a.nodes.back()];
  define_eltwise_of(b, root, a.x, activation_eltwise(a));
  for (uint32_t k : a.nodes) b.mark_fused(k);
}

void register_elementwise(Table& t) {
  t[size_t(OpKind::kWhere)] = {scalar_supports, define_scalar_reference};
  t[size_t(OpKind::kEqual)] = {equal_supports, define_equal};
  for (OpKind op : {OpKind::kRelu, OpKind::kLeakyRelu, OpKind::kSigmoid, OpKind::kTanh,
                    OpKind::kElu, OpKind::kGelu, OpKind::kHardSwish, OpKind::kClamp, OpKind::kAbs,
                    OpKind::kSqrt, OpKind::kExp, OpKind::kLog, OpKind::kNeg, OpKind::kLinear,
                    OpKind::kRoundEven, OpKind::kSoftplus}) {
    t[size_t(op)] = {eltwise_supports, define_eltwise};
  }
  for (OpKind op :
       {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kDiv, OpKind::kMax, OpKind::kMin}) {
    t[size_t(op)] = {binary_supports, define_binary};
  }
  t[size_t(OpKind::kNotEqual)] = {compare_supports, define_compare};
  t[size_t(OpKind::kPow)] = {pow_supports, define_pow};
  t[size_t(OpKind::kSoftmax)] = {eltwise_supports, define_softmax};
  t[size_t(OpKind::kHardSigmoid)] = {eltwise_supports, define_hard_sigmoid};
  t[size_t(OpKind::kReciprocal)] = {reciprocal_supports, define_refused};
}

}  // namespace wnn::runtime::onednn
