#include "wnn/runtime/onednn/integer_conv.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "wnn/core/ops/conv.h"
#include "wnn/passes/pattern_match.h"
#include "wnn/runtime/onednn/epilogue.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

// Whether `id` is one element holding an integer in [0, 255]: a cast from uint8 (through
// reshapes), or a constant with such a value.
bool uint8_valued_scalar(const Graph& g, OperandId id) {
  if (element_count(g.desc(id).shape) != 1 || g.desc(id).dtype != DataType::kFloat32) return false;
  for (;;) {
    if (g.operand(id).kind == OperandKind::kConstant) {
      const std::optional<float> v = passes::scalar_constant(g, id);
      return v && *v == std::floor(*v) && *v >= 0 && *v <= 255;
    }
    const Node* p = passes::producer(g, id);
    if (!p) return false;
    if (p->op() == OpKind::kReshape || p->op() == OpKind::kIdentity) {
      id = p->inputs[0];
      continue;
    }
    return p->op() == OpKind::kCast && g.desc(p->inputs[0]).dtype == DataType::kUint8;
  }
}

// The uint8 tensor cast to float32 that `x` is (or that x is minus a zero point).
struct CenteredCodes {
  OperandId codes;
  std::optional<OperandId> zero_point;
  std::vector<uint32_t> nodes;
};
std::optional<CenteredCodes> centered_codes(const Graph& g, OperandId x) {
  CenteredCodes r;
  const Node* p = passes::producer(g, x);
  if (p && p->op() == OpKind::kSub && uint8_valued_scalar(g, p->inputs[1])) {
    r.zero_point = p->inputs[1];
    r.nodes.push_back(g.operand(x).producer);
    x = p->inputs[0];
    p = passes::producer(g, x);
  }
  if (!p || p->op() != OpKind::kCast || g.desc(p->inputs[0]).dtype != DataType::kUint8)
    return std::nullopt;
  r.nodes.push_back(g.operand(x).producer);
  r.codes = p->inputs[0];
  return r;
}

// The largest |accumulator| oneDNN's int32 sums may reach: 255 per source element.
constexpr int64_t kInt32Limit = std::numeric_limits<int32_t>::max();

}  // namespace

namespace {

// The shift e of each of `m` output channels whose `row` integer weights are at(o, k): 0 when
// the channel fits int8, else what moves its lowest value to -128; the reason when a weight is
// no integer, a channel spans more than 256 values or its int32 sums may overflow.
template <typename At>
std::string plan_shifts(int64_t m, int64_t row, std::string_view what, At at,
                        std::vector<int32_t>& shift) {
  shift.assign(size_t(m), 0);
  for (int64_t o = 0; o < m; ++o) {
    float lo = at(o, 0), hi = lo;
    for (int64_t k = 0; k < row; ++k) {
      const float v = at(o, k);
      if (v != std::floor(v)) return fmt::format("{} value {} is not an integer", what, double(v));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (hi - lo > 255) {
      return fmt::format("{} {} spans [{}, {}], more than int8's 256 values", what, o, double(lo),
                         double(hi));
    }
    // Shift a channel that leaves int8 so that its lowest value becomes -128.
    const int32_t e = lo >= -128 && hi <= 127 ? 0 : int32_t(lo) + 128;
    double magnitude = double(std::abs(e)) * double(row);
    for (int64_t k = 0; k < row; ++k) magnitude += std::abs(double(at(o, k)) - e);
    if (255 * magnitude > double(kInt32Limit))
      return fmt::format("{} {} may overflow the int32 accumulator", what, o);
    shift[size_t(o)] = e;
  }
  return {};
}

}  // namespace

IntegerConvMatch match_integer_conv(const Graph& g, const Node& n) {
  auto no = [](std::string why) { return IntegerConvMatch{std::nullopt, std::move(why)}; };
  const auto& a = n.attrs;
  if (n.op() != OpKind::kConv2d) return no("not a conv2d");
  if (a.get_operand("bias")) return no("a bias (the importer's products have none)");
  if (a.get_enum("inputLayout") != "nchw" || a.get_enum("filterLayout") != "oihw")
    return no(fmt::format("layouts {}/{} (nchw/oihw only)", a.get_enum("inputLayout"),
                          a.get_enum("filterLayout")));
  const auto centered = centered_codes(g, *a.get_operand("input"));
  if (!centered) return no("the input is not a uint8 tensor cast to float32 (minus a zero point)");
  const OperandId filter = *a.get_operand("filter");
  const ConstantInfo* fc = g.constant_of(filter);
  if (g.operand(filter).kind != OperandKind::kConstant || !fc || !fc->bound())
    return no("the filter is not a bound constant");
  const Shape& ws = g.desc(filter).shape;
  const int64_t m = ws[0], row = ws[1] * ws[2] * ws[3];
  const float* w = reinterpret_cast<const float*>(fc->data.data());
  IntegerConv c{centered->codes, centered->zero_point, {},
                centered->nodes, std::nullopt,         std::nullopt};
  std::string why = plan_shifts(
      m, row, "filter row", [&](int64_t o, int64_t k) { return w[o * row + k]; }, c.shift);
  if (!why.empty()) return no(std::move(why));
  return {std::move(c), {}};
}

IntegerConvMatch match_integer_matmul(const Graph& g, const Node& n) {
  auto no = [](std::string why) { return IntegerConvMatch{std::nullopt, std::move(why)}; };
  if (n.op() != OpKind::kMatmul) return no("not a matmul");
  const OperandId a = *n.attrs.get_operand("a"), bw = *n.attrs.get_operand("b");
  if (g.desc(a).shape.size() < 2) return no("a 1-D first operand");
  const auto centered = centered_codes(g, a);
  if (!centered) return no("a is not a uint8 tensor cast to float32 (minus a zero point)");
  const ConstantInfo* bc = g.constant_of(bw);
  if (g.operand(bw).kind != OperandKind::kConstant || !bc || !bc->bound())
    return no("b is not a bound constant");
  const Shape& bs = g.desc(bw).shape;
  if (bs.size() != 2) return no(fmt::format("b of rank {} (a [K, N] weight only)", bs.size()));
  const int64_t k = bs[0], cols = bs[1];
  const float* w = reinterpret_cast<const float*>(bc->data.data());
  IntegerConv c{centered->codes, centered->zero_point, {},
                centered->nodes, std::nullopt,         std::nullopt};
  std::string why = plan_shifts(
      cols, k, "column", [&](int64_t o, int64_t r) { return w[r * cols + o]; }, c.shift);
  if (!why.empty()) return no(std::move(why));
  return {std::move(c), {}};
}

namespace {

// A float32 operand along the channels of a product of shape `shape` (axis `axis`: the last of
// a matmul, 1 of a conv's NCHW output): that many elements on that axis and ones on the others,
// right-aligned as broadcasting reads it ([N], [1, N]; [M, 1, 1], [1, M, 1, 1]), or with
// `one_ok` a single element.
bool per_channel(const Graph& g, OperandId id, const Shape& shape, size_t axis, bool one_ok) {
  const auto& d = g.desc(id);
  if (d.dtype != DataType::kFloat32) return false;
  if (one_ok && element_count(d.shape) == 1) return true;
  if (d.shape.size() > shape.size() || shape.size() - d.shape.size() > axis) return false;
  const int64_t channels = shape[axis];
  return d.shape[axis - (shape.size() - d.shape.size())] == channels &&
         element_count(d.shape) == channels;
}

// After the int32 product `i32`: cast to float32, mul by a scale, and maybe add a constant
// bias (each the only reader of the one before and no region output), ONNX Runtime's
// dequantization of MatMulInteger and ConvInteger; the scale and bias hold one value per
// channel (axis `axis` of the product) or, the scale, one in all; the shape stays the product's.
template <typename OnlyReader>
std::optional<IntegerConv::Dequantize> match_dequantize(const Graph& g, OperandId i32, size_t axis,
                                                        const OnlyReader& only_reader) {
  const Shape& shape = g.desc(i32).shape;
  const auto t = only_reader(i32);
  if (!t || g.nodes()[*t].op() != OpKind::kCast ||
      g.desc(g.nodes()[*t].outputs[0]).dtype != DataType::kFloat32)
    return std::nullopt;
  const OperandId f = g.nodes()[*t].outputs[0];
  // `other` of binary node q beside `v`, when q's result keeps v's shape.
  auto other = [&](uint32_t q, OperandId v) -> std::optional<OperandId> {
    const Node& b = g.nodes()[q];
    if (b.inputs.size() != 2 || (b.inputs[0] == v) == (b.inputs[1] == v)) return std::nullopt;
    if (g.desc(b.outputs[0]).shape != shape) return std::nullopt;
    return b.inputs[0] == v ? b.inputs[1] : b.inputs[0];
  };
  const auto m = only_reader(f);
  if (!m || g.nodes()[*m].op() != OpKind::kMul) return std::nullopt;
  const auto scale = other(*m, f);
  if (!scale || !per_channel(g, *scale, shape, axis, true)) return std::nullopt;
  IntegerConv::Dequantize d{*scale, std::nullopt, *m};
  const OperandId y = g.nodes()[*m].outputs[0];
  if (const auto a = only_reader(y); a && g.nodes()[*a].op() == OpKind::kAdd) {
    const auto bias = other(*a, y);
    if (bias && g.operand(*bias).kind == OperandKind::kConstant &&
        per_channel(g, *bias, shape, axis, false)) {
      d.bias = *bias;
      d.last = *a;
    }
  }
  return d;
}

}  // namespace

IntegerConvPlan plan_integer_convs(const Graph& g, const Region& r,
                                   const AcceptIntegerConv& accept) {
  static const bool enabled = [] {
    const char* v = std::getenv("WNN_ONEDNN_INT8");
    return v == nullptr || std::string_view(v) != "0";
  }();
  IntegerConvPlan plan;
  if (!enabled) return plan;
  std::vector<bool> in_region(g.nodes().size(), false);
  for (uint32_t k : r.nodes) in_region[k] = true;
  std::unordered_map<uint32_t, std::vector<uint32_t>> readers;  // operand -> region nodes
  for (uint32_t k : r.nodes) {
    for (OperandId in : g.nodes()[k].inputs) readers[in.index].push_back(k);
  }
  std::vector<uint32_t> folded_early;  // dequantized products and their casts and mul
  for (uint32_t k : r.nodes) {
    const Node& n = g.nodes()[k];
    if (n.op() != OpKind::kConv2d && n.op() != OpKind::kMatmul) continue;
    IntegerConvMatch mt =
        n.op() == OpKind::kConv2d ? match_integer_conv(g, n) : match_integer_matmul(g, n);
    if (!mt.conv) continue;
    // The codes (and zero point) must be readable here: nodes of the region or its inputs.
    if (!std::all_of(mt.conv->cast_and_sub.begin(), mt.conv->cast_and_sub.end(),
                     [&](uint32_t p) { return in_region[p]; }))
      continue;
    const auto only_reader = [&](OperandId v) -> std::optional<uint32_t> {
      const auto& vs = readers[v.index];
      if (vs.size() != 1 || std::find(r.outputs.begin(), r.outputs.end(), v) != r.outputs.end())
        return std::nullopt;
      return vs[0];
    };
    const auto cast_to = [&](std::optional<uint32_t> q, DataType to) {
      return q && g.nodes()[*q].op() == OpKind::kCast &&
             g.desc(g.nodes()[*q].outputs[0]).dtype == to;
    };
    const auto i32 = only_reader(n.outputs[0]);
    if (cast_to(i32, DataType::kInt32)) mt.conv->int32_cast = *i32;
    if (mt.conv->int32_cast) {
      const size_t channel_axis =
          n.op() == OpKind::kConv2d ? 1 : g.desc(n.outputs[0]).shape.size() - 1;
      mt.conv->dequantize =
          match_dequantize(g, g.nodes()[*i32].outputs[0], channel_axis, only_reader);
    }
    if (accept && !accept(n, *mt.conv).empty()) {
      // The dequantization's output scales or bias may be what has no fast kernel.
      if (!mt.conv->dequantize) continue;
      mt.conv->dequantize.reset();
      if (!accept(n, *mt.conv).empty()) continue;
    }
    if (mt.conv->dequantize) {
      plan.deferred[mt.conv->dequantize->last] = k;
      folded_early.push_back(k);
      for (uint32_t q = *only_reader(g.nodes()[*i32].outputs[0]); q != mt.conv->dequantize->last;
           q = *only_reader(g.nodes()[q].outputs[0]))
        folded_early.push_back(q);
    }
    plan.convs.emplace(k, std::move(*mt.conv));
  }
  // A cast or sub is folded away when every reader is an int8 conv that reads past it.
  std::vector<bool> folded(g.nodes().size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [conv, c] : plan.convs) {
      for (uint32_t p : c.cast_and_sub) {
        if (folded[p]) continue;
        const OperandId y = g.nodes()[p].outputs[0];
        if (std::find(r.outputs.begin(), r.outputs.end(), y) != r.outputs.end()) continue;
        const auto& ys = readers[y.index];
        const bool dead = std::all_of(ys.begin(), ys.end(),
                                      [&](uint32_t q) { return plan.convs.count(q) || folded[q]; });
        if (dead) folded[p] = changed = true;
      }
    }
  }
  for (const auto& [conv, c] : plan.convs) {
    if (c.int32_cast) folded[*c.int32_cast] = true;
  }
  for (uint32_t q : folded_early) folded[q] = true;
  for (uint32_t k = 0; k < folded.size(); ++k) {
    if (folded[k]) plan.folded.push_back(k);
  }
  return plan;
}

namespace {

// The shape of `count` values along the channels of a product of rank `rank` (axis 1 of a
// conv's NCHW output, the last of a matmul's [rows, N]), as a binary post-op's second operand.
memory::desc channel_desc(int64_t count, size_t rank) {
  return rank == 4 ? memory::desc({1, count, 1, 1}, memory::data_type::f32, tag::abcd)
                   : memory::desc({1, count}, memory::data_type::f32, tag::ab);
}

// A dequantization in the primitive: oneDNN converts the int32 sum to float32, then runs the
// post-ops, a binary mul by the scale and a binary add of the bias, ONNX Runtime's Cast, Mul and
// Add with the same two roundings. (Run-time output scales instead sent oneDNN's matmul to
// gemm:jit, which packs the weights on every run: 0.55 ms per [5, 384] x [384, 1536] of
// minilm_int8, against brgemm's jit kernel with post-ops.)
// `activation`, when given, follows as an eltwise post-op (the FFN's gelu after its
// dequantized up projection): one pass over the product fewer.
void set_dequantize_post_ops(const Graph& g, const IntegerConv::Dequantize& d, int64_t channels,
                             size_t rank, dnnl::primitive_attr& attr,
                             const std::optional<Eltwise>& activation = std::nullopt) {
  dnnl::post_ops po;
  po.append_binary(dnnl::algorithm::binary_mul,
                   channel_desc(element_count(g.desc(d.scale).shape), rank));
  if (d.bias) po.append_binary(dnnl::algorithm::binary_add, channel_desc(channels, rank));
  if (activation) po.append_eltwise(1.0f, activation->algo, activation->alpha, activation->beta);
  attr.set_post_ops(po);
}

// The int8 primitive of conv2d `n`: its geometry, weights dims and descriptor.
struct Int8Conv {
  int64_t groups, m, og, og_run, m_run, row;
  bool shifted, fused_dequantize;
  memory::dims wdims;
  dnnl::convolution_forward::primitive_desc pd;
};

Int8Conv make_int8_conv(const dnnl::engine& engine, const Graph& g, const Node& n,
                        const IntegerConv& c) {
  const auto& a = n.attrs;
  const Shape& xs = g.desc(c.codes).shape;
  const Shape& ys = g.desc(n.outputs[0]).shape;
  const Shape& ws = g.desc(*a.get_operand("filter")).shape;
  Int8Conv k{};
  k.groups = a.get_int("groups"), k.m = ws[0], k.og = k.m / k.groups;
  k.row = ws[1] * ws[2] * ws[3];
  k.shifted = std::any_of(c.shift.begin(), c.shift.end(), [](int32_t e) { return e != 0; });
  // With a shift, each group gets one more output channel: the box sum of its input (ones).
  // Grouped, the channels per group are rounded up to whole blocks of 16 (zero filters): with
  // 257 of them oneDNN ran its gemm-based kernel, 6x slower on resnet18's chunked products.
  k.og_run = k.og;
  if (k.shifted) k.og_run = k.groups == 1 ? k.og + 1 : (k.og + 1 + 15) / 16 * 16;
  k.m_run = k.groups * k.og_run;
  const auto pad = a.get_ints("padding"), st = a.get_ints("strides"), dil = a.get_ints("dilations");
  k.wdims = k.groups == 1 ? memory::dims{k.m_run, ws[1], ws[2], ws[3]}
                          : memory::dims{k.groups, k.og_run, ws[1], ws[2], ws[3]};
  const memory::dims src_dims = {xs[0], xs[1], xs[2], xs[3]};
  const memory::dims dst_dims = {ys[0], k.m_run, ys[2], ys[3]};
  // The dequantization runs in the primitive unless shifted (then in the recombination).
  k.fused_dequantize = c.dequantize && !k.shifted;
  const auto dst_type = k.shifted || (c.int32_cast && !k.fused_dequantize) ? memory::data_type::s32
                                                                           : memory::data_type::f32;
  const memory::desc src_any(src_dims, memory::data_type::u8, tag::any);
  const memory::desc w_any(k.wdims, memory::data_type::s8, tag::any);
  // The accumulators of a shifted conv are read back channels-last, the layout oneDNN's jit
  // int8 kernels write (a plain NCHW int32 destination sends it to its reference kernel).
  const memory::desc dst_desc(dst_dims, dst_type, k.shifted ? tag::nhwc : tag::any);
  dnnl::primitive_attr attr;
  if (c.zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (k.fused_dequantize) set_dequantize_post_ops(g, *c.dequantize, k.m, 4, attr);
  dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
      dst_desc, {st[0], st[1]}, {dil[0] - 1, dil[1] - 1}, {pad[0], pad[2]}, {pad[1], pad[3]});
  k.pd = dnnl::convolution_forward::primitive_desc(d, attr, engine);
  return k;
}

// Why oneDNN cannot serve an int8 kernel `make` builds (empty: it can): it has none, or only
// its reference implementation.
template <typename Make>
std::string int8_kernel_refusal(const char* kernel, Make make) {
  try {
    const auto k = make();
    if (reference_kernel(k.pd))
      return fmt::format("oneDNN's int8 {} would run {}", kernel, k.pd.impl_info_str());
    return {};
  } catch (const dnnl::error& e) {
    return fmt::format("oneDNN has no int8 {} for it ({})", kernel, e.what());
  }
}

}  // namespace

std::string integer_conv_kernel_refusal(const dnnl::engine& engine, const Graph& g, const Node& n,
                                        const IntegerConv& c) {
  return int8_kernel_refusal("convolution", [&] { return make_int8_conv(engine, g, n, c); });
}

namespace {

// The run-time zero point of the codes as oneDNN's int32 source zero point argument.
void bind_zero_point(RegionBuilder& b, const IntegerConv& c,
                     std::unordered_map<int, memory>& args) {
  if (!c.zero_point) return;
  // The zero point is computed at run time (a dynamic quantization): converted to int32.
  const memory z = b.get(*c.zero_point, b.plain_desc(*c.zero_point));
  const memory::desc z32(z.get_desc().dims(), memory::data_type::s32,
                         memory::dims(z.get_desc().dims().size(), 1));
  const memory zi = b.allocate(z32);
  b.add_step(dnnl::reorder(z, zi), {{DNNL_ARG_FROM, z}, {DNNL_ARG_TO, zi}}, "zero point");
  args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] =
      b.alias(zi, memory::desc({1}, memory::data_type::s32, tag::x));
}

// out[p, o] = acc[p, o'] + e[o] * acc[p, box] for `pixels` rows of `groups` groups of `og`
// channels (`og_run` per group in acc, the box sum at og): summed in int64, the exact integer
// the float product gives, written as int32 (a folded cast) or rounded to float32 once.
// With `scale` (one element or one per channel) and `bias` (none, or one per channel), the
// float32 value is then dequantized: float32(int32) * scale + bias, two roundings as in
// ONNX Runtime's Cast, Mul and Add.
struct Dequantizing {
  memory scale;  // empty: none
  int64_t scale_count = 0;
  memory bias;  // empty: none
};
// The scale and bias of `c`'s dequantization (none without one), and with `fused` bound as the
// primitive's post-op operands (set_dequantize_post_ops).
Dequantizing bind_dequantize(RegionBuilder& b, const IntegerConv& c, int64_t channels, size_t rank,
                             bool fused, std::unordered_map<int, memory>& args) {
  Dequantizing dq;
  if (!c.dequantize) return dq;
  const OperandId sc = c.dequantize->scale;
  dq.scale_count = element_count(b.graph().desc(sc).shape);
  dq.scale = b.alias(b.get(sc, b.plain_desc(sc)),
                     memory::desc({dq.scale_count}, memory::data_type::f32, tag::x));
  if (const auto bias = c.dequantize->bias) {
    dq.bias = b.alias(b.get(*bias, b.plain_desc(*bias)),
                      memory::desc({channels}, memory::data_type::f32, tag::x));
  }
  if (fused) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
        b.alias(dq.scale, channel_desc(dq.scale_count, rank));
    if (dq.bias) {
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] =
          b.alias(dq.bias, channel_desc(channels, rank));
    }
  }
  return dq;
}

void add_shift_recombination(RegionBuilder& b, const memory& acc, const memory& out, int64_t pixels,
                             int64_t groups, int64_t og, int64_t og_run, std::vector<int32_t> shift,
                             bool as_int32, Dequantizing dq = {}) {
  const int64_t m = groups * og, m_run = groups * og_run;
  const int threads = omp_get_max_threads();
  if (dq.scale) {
    b.add_function_step(
        [=] {
          const auto* s = static_cast<const int32_t*>(acc.get_data_handle());
          const auto* sc = static_cast<const float*>(dq.scale.get_data_handle());
          const auto* bias =
              dq.bias ? static_cast<const float*>(dq.bias.get_data_handle()) : nullptr;
          auto* y = static_cast<float*>(out.get_data_handle());
          const bool per_channel = dq.scale_count > 1;
#pragma omp parallel for num_threads(threads) schedule(static)
          for (int64_t p = 0; p < pixels; ++p) {
            const int32_t* in = s + p * m_run;
            float* dst = y + p * m;
            for (int64_t gi = 0; gi < groups; ++gi) {
              const int64_t box = in[gi * og_run + og];
              for (int64_t o = 0; o < og; ++o) {
                const int64_t oc = gi * og + o;
                const int64_t v = int64_t(in[gi * og_run + o]) + shift[size_t(oc)] * box;
                const float scaled = float(int32_t(v)) * sc[per_channel ? oc : 0];
                dst[oc] = bias ? scaled + bias[oc] : scaled;
              }
            }
          }
        },
        "int8 box-sum shift, dequantize", "wnn:int32");
    return;
  }
  auto recombine = [=](auto* y) {
    const auto* s = static_cast<const int32_t*>(acc.get_data_handle());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t p = 0; p < pixels; ++p) {
      const int32_t* in = s + p * m_run;
      auto* dst = y + p * m;
      for (int64_t gi = 0; gi < groups; ++gi) {
        const int64_t box = in[gi * og_run + og];
        for (int64_t o = 0; o < og; ++o) {
          const int64_t oc = gi * og + o;
          using T = std::remove_reference_t<decltype(*dst)>;
          dst[oc] = T(int64_t(in[gi * og_run + o]) + shift[size_t(oc)] * box);
        }
      }
    }
  };
  b.add_function_step(
      [=] {
        if (as_int32) {
          recombine(static_cast<int32_t*>(out.get_data_handle()));
        } else {
          recombine(static_cast<float*>(out.get_data_handle()));
        }
      },
      "int8 box-sum shift", "wnn:int32");
}

}  // namespace

void define_integer_conv(RegionBuilder& b, const Node& n, const IntegerConv& c) {
  const Graph& g = b.graph();
  const OperandId filter = *n.attrs.get_operand("filter");
  const OperandId output = c.dequantize   ? g.nodes()[c.dequantize->last].outputs[0]
                           : c.int32_cast ? g.nodes()[*c.int32_cast].outputs[0]
                                          : n.outputs[0];
  const Shape& ys = g.desc(output).shape;
  Int8Conv k = make_int8_conv(b.engine(), g, n, c);
  const int64_t groups = k.groups, m = k.m, og = k.og, og_run = k.og_run, row = k.row;
  const bool shifted = k.shifted;
  const auto& pd = k.pd;

  // The int8 weights [G, OG', I, H, W], built once.
  const memory::desc wplain(k.wdims, memory::data_type::s8, groups == 1 ? tag::oihw : tag::goihw);
  memory wmem = b.allocate(wplain);
  {
    auto* dst = static_cast<int8_t*>(wmem.get_data_handle());
    const float* src = reinterpret_cast<const float*>(g.constant_of(filter)->data.data());
    for (int64_t gi = 0; gi < groups; ++gi) {
      for (int64_t o = 0; o < og_run; ++o) {
        int8_t* out = dst + (gi * og_run + o) * row;
        if (o >= og) {
          std::fill(out, out + row, int8_t(o == og ? 1 : 0));
          continue;
        }
        const int64_t oc = gi * og + o;
        for (int64_t i = 0; i < row; ++i)
          out[i] = int8_t(int32_t(src[oc * row + i]) - c.shift[size_t(oc)]);
      }
    }
  }

  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(c.codes, pd.src_desc());
  args[DNNL_ARG_WEIGHTS] = b.convert(wmem, pd.weights_desc(), true);
  bind_zero_point(b, c, args);
  const Dequantizing dq = bind_dequantize(b, c, m, 4, k.fused_dequantize, args);
  if (!shifted) {
    args[DNNL_ARG_DST] = b.define_output(output, pd.dst_desc());
    b.add_step(dnnl::convolution_forward(pd), std::move(args),
               c.dequantize ? "conv2d int8, dequantize" : "conv2d int8");
    return;
  }
  const memory acc = b.allocate(pd.dst_desc());
  args[DNNL_ARG_DST] = acc;
  b.add_step(dnnl::convolution_forward(pd), std::move(args), "conv2d int8");
  const bool as_int32 = c.int32_cast.has_value() && !c.dequantize;
  const memory out = b.define_output(
      output, memory::desc({ys[0], m, ys[2], ys[3]},
                           as_int32 ? memory::data_type::s32 : memory::data_type::f32, tag::nhwc));
  // Channels-last, one pixel's channels at a time.
  add_shift_recombination(b, acc, out, ys[0] * ys[2] * ys[3], groups, og, og_run, c.shift, as_int32,
                          dq);
}

namespace {

// The int8 primitive of matmul `n`: A's rows collapsed, [rows, K] x [K, N (+1)].
struct Int8Matmul {
  int64_t rows, k, n, n_run;
  bool shifted, fused_dequantize;
  dnnl::matmul::primitive_desc pd;
};

Int8Matmul make_int8_matmul(const dnnl::engine& engine, const Graph& g, const Node& n,
                            const IntegerConv& c,
                            const std::optional<Eltwise>& activation = std::nullopt) {
  const Shape& bs = g.desc(*n.attrs.get_operand("b")).shape;
  Int8Matmul k{};
  k.k = bs[0], k.n = bs[1];
  k.rows = element_count(g.desc(c.codes).shape) / k.k;
  k.shifted = std::any_of(c.shift.begin(), c.shift.end(), [](int32_t e) { return e != 0; });
  // With a shift, one more column of ones: the row sums of the centered codes.
  k.n_run = k.n + (k.shifted ? 1 : 0);
  // The dequantization runs in the primitive (output scales, a binary add) unless shifted.
  k.fused_dequantize = c.dequantize && !k.shifted;
  const auto dst_type = k.shifted || (c.int32_cast && !k.fused_dequantize) ? memory::data_type::s32
                                                                           : memory::data_type::f32;
  const memory::desc src({k.rows, k.k}, memory::data_type::u8, tag::ab);
  const memory::desc w_any({k.k, k.n_run}, memory::data_type::s8, tag::any);
  const memory::desc dst({k.rows, k.n_run}, dst_type, tag::ab);
  dnnl::primitive_attr attr;
  if (c.zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (k.fused_dequantize) set_dequantize_post_ops(g, *c.dequantize, k.n, 2, attr, activation);
  k.pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, w_any, dst), attr, engine);
  return k;
}

// The unary node that alone reads the dequantized product (not a region output), as an
// eltwise post-op of the int8 matmul: the FFN's gelu.
const Node* activation_after(RegionBuilder& b, OperandId product) {
  if (b.is_region_output(product)) return nullptr;
  const auto rs = b.readers(product);
  if (rs.size() != 1) return nullptr;
  const Node& a = b.graph().nodes()[rs[0]];
  return eltwise_of(a) && a.inputs.size() == 1 && a.inputs[0] == product ? &a : nullptr;
}

}  // namespace

std::string integer_matmul_kernel_refusal(const dnnl::engine& engine, const Graph& g, const Node& n,
                                          const IntegerConv& c) {
  return int8_kernel_refusal("matmul", [&] { return make_int8_matmul(engine, g, n, c); });
}

void define_integer_matmul(RegionBuilder& b, const Node& n, const IntegerConv& c) {
  const Graph& g = b.graph();
  OperandId output = c.dequantize   ? g.nodes()[c.dequantize->last].outputs[0]
                     : c.int32_cast ? g.nodes()[*c.int32_cast].outputs[0]
                                    : n.outputs[0];
  Int8Matmul k = make_int8_matmul(b.engine(), g, n, c);
  // An activation after the dequantization runs in the same kernel, unless that would take
  // oneDNN off its jit kernel.
  if (const Node* act = k.fused_dequantize ? activation_after(b, output) : nullptr) {
    Int8Matmul with = make_int8_matmul(b.engine(), g, n, c, eltwise_of(*act));
    if (!reference_kernel(with.pd)) {
      k = std::move(with);
      b.mark_fused(uint32_t(act - g.nodes().data()));
      output = act->outputs[0];
    }
  }
  const auto& pd = k.pd;
  // The int8 weights [K, N (+1)], built once.
  memory wmem = b.allocate(memory::desc({k.k, k.n_run}, memory::data_type::s8, tag::ab));
  {
    auto* dst = static_cast<int8_t*>(wmem.get_data_handle());
    const float* src =
        reinterpret_cast<const float*>(g.constant_of(*n.attrs.get_operand("b"))->data.data());
    for (int64_t r = 0; r < k.k; ++r) {
      for (int64_t o = 0; o < k.n; ++o)
        dst[r * k.n_run + o] = int8_t(int32_t(src[r * k.n + o]) - c.shift[size_t(o)]);
      if (k.shifted) dst[r * k.n_run + k.n] = 1;
    }
  }
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.alias(b.get(c.codes, b.plain_desc(c.codes)), pd.src_desc());
  args[DNNL_ARG_WEIGHTS] = b.convert(wmem, pd.weights_desc(), true);
  bind_zero_point(b, c, args);
  const Dequantizing dq = bind_dequantize(b, c, k.n, 2, k.fused_dequantize, args);
  const bool as_int32 = c.int32_cast.has_value() && !c.dequantize;
  const memory out = b.define_output(output, b.plain_desc(output));
  if (!k.shifted) {
    args[DNNL_ARG_DST] = b.alias(out, pd.dst_desc());
    b.add_step(dnnl::matmul(pd), std::move(args),
               c.dequantize ? "matmul int8, dequantize" : "matmul int8");
    return;
  }
  const memory acc = b.allocate(pd.dst_desc());
  args[DNNL_ARG_DST] = acc;
  b.add_step(dnnl::matmul(pd), std::move(args), "matmul int8");
  add_shift_recombination(b, acc, out, k.rows, 1, k.n, k.n_run, c.shift, as_int32, dq);
}

}  // namespace wnn::runtime::onednn
