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
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

const Node* producer_of(const Graph& g, OperandId id) {
  const Operand& o = g.operand(id);
  return o.kind == OperandKind::kNodeOutput ? &g.nodes()[o.producer] : nullptr;
}

// Whether `id` is one element holding an integer in [0, 255]: a cast from uint8 (through
// reshapes), or a constant with such a value.
bool uint8_valued_scalar(const Graph& g, OperandId id) {
  if (element_count(g.desc(id).shape) != 1 || g.desc(id).dtype != DataType::kFloat32) return false;
  for (;;) {
    if (g.operand(id).kind == OperandKind::kConstant) {
      const std::optional<float> v = passes::scalar_constant(g, id);
      return v && *v == std::floor(*v) && *v >= 0 && *v <= 255;
    }
    const Node* p = producer_of(g, id);
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
  const Node* p = producer_of(g, x);
  if (p && p->op() == OpKind::kSub && uint8_valued_scalar(g, p->inputs[1])) {
    r.zero_point = p->inputs[1];
    r.nodes.push_back(g.operand(x).producer);
    x = p->inputs[0];
    p = producer_of(g, x);
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
  IntegerConv c{centered->codes, centered->zero_point, std::vector<int32_t>(size_t(m)),
                centered->nodes, std::nullopt};
  for (int64_t o = 0; o < m; ++o) {
    const float* r = w + o * row;
    float lo = r[0], hi = r[0];
    double magnitude = 0;
    for (int64_t k = 0; k < row; ++k) {
      if (r[k] != std::floor(r[k]))
        return no(fmt::format("filter value {} is not an integer", double(r[k])));
      lo = std::min(lo, r[k]);
      hi = std::max(hi, r[k]);
    }
    if (hi - lo > 255) {
      return no(fmt::format("filter row {} spans [{}, {}], more than int8's 256 values", o,
                            double(lo), double(hi)));
    }
    // Shift a row that leaves int8 so that its lowest value becomes -128.
    const int32_t e = lo >= -128 && hi <= 127 ? 0 : int32_t(lo) + 128;
    for (int64_t k = 0; k < row; ++k) magnitude += std::abs(double(r[k]) - e);
    magnitude += double(std::abs(e)) * double(row);
    if (255 * magnitude > double(kInt32Limit))
      return no(fmt::format("filter row {} may overflow the int32 accumulator", o));
    c.shift[size_t(o)] = e;
  }
  return {std::move(c), {}};
}

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
  for (uint32_t k : r.nodes) {
    const Node& n = g.nodes()[k];
    if (n.op() != OpKind::kConv2d) continue;
    IntegerConvMatch mt = match_integer_conv(g, n);
    if (!mt.conv) continue;
    // The codes (and zero point) must be readable here: nodes of the region or its inputs.
    if (!std::all_of(mt.conv->cast_and_sub.begin(), mt.conv->cast_and_sub.end(),
                     [&](uint32_t p) { return in_region[p]; }))
      continue;
    if (accept && !accept(n, *mt.conv).empty()) continue;
    const OperandId y = n.outputs[0];
    const auto& ys = readers[y.index];
    if (ys.size() == 1 && g.nodes()[ys[0]].op() == OpKind::kCast &&
        g.desc(g.nodes()[ys[0]].outputs[0]).dtype == DataType::kInt32 &&
        std::find(r.outputs.begin(), r.outputs.end(), y) == r.outputs.end())
      mt.conv->int32_cast = ys[0];
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
  for (uint32_t k = 0; k < folded.size(); ++k) {
    if (folded[k]) plan.folded.push_back(k);
  }
  return plan;
}

namespace {

// The int8 primitive of conv2d `n`: its geometry, weights dims and descriptor.
struct Int8Conv {
  int64_t groups, m, og, og_run, m_run, row;
  bool shifted;
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
  const auto dst_type = k.shifted || c.int32_cast ? memory::data_type::s32 : memory::data_type::f32;
  const memory::desc src_any(src_dims, memory::data_type::u8, tag::any);
  const memory::desc w_any(k.wdims, memory::data_type::s8, tag::any);
  // The accumulators of a shifted conv are read back channels-last, the layout oneDNN's jit
  // int8 kernels write (a plain NCHW int32 destination sends it to its reference kernel).
  const memory::desc dst_desc(dst_dims, dst_type, k.shifted ? tag::nhwc : tag::any);
  dnnl::primitive_attr attr;
  if (c.zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
      dst_desc, {st[0], st[1]}, {dil[0] - 1, dil[1] - 1}, {pad[0], pad[2]}, {pad[1], pad[3]});
  k.pd = dnnl::convolution_forward::primitive_desc(d, attr, engine);
  return k;
}

}  // namespace

std::string integer_conv_kernel_refusal(const dnnl::engine& engine, const Graph& g, const Node& n,
                                        const IntegerConv& c) {
  try {
    const Int8Conv k = make_int8_conv(engine, g, n, c);
    if (reference_kernel(k.pd))
      return fmt::format("oneDNN's int8 convolution would run {}", k.pd.impl_info_str());
    return {};
  } catch (const dnnl::error& e) {
    return fmt::format("oneDNN has no int8 convolution for it ({})", e.what());
  }
}

void define_integer_conv(RegionBuilder& b, const Node& n, const IntegerConv& c) {
  const Graph& g = b.graph();
  const OperandId filter = *n.attrs.get_operand("filter");
  const OperandId output = c.int32_cast ? g.nodes()[*c.int32_cast].outputs[0] : n.outputs[0];
  const Shape& ys = g.desc(output).shape;
  Int8Conv k = make_int8_conv(b.engine(), g, n, c);
  const int64_t groups = k.groups, m = k.m, og = k.og, og_run = k.og_run, m_run = k.m_run,
                row = k.row;
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
  if (c.zero_point) {
    // The zero point is computed at run time (a dynamic quantization): converted to int32.
    const memory z = b.get(*c.zero_point, b.plain_desc(*c.zero_point));
    const memory::desc z32(z.get_desc().dims(), memory::data_type::s32,
                           memory::dims(z.get_desc().dims().size(), 1));
    const memory zi = b.allocate(z32);
    b.add_step(dnnl::reorder(z, zi), {{DNNL_ARG_FROM, z}, {DNNL_ARG_TO, zi}}, "zero point");
    args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] =
        b.alias(zi, memory::desc({1}, memory::data_type::s32, tag::x));
  }
  if (!shifted) {
    args[DNNL_ARG_DST] = b.define_output(output, pd.dst_desc());
    b.add_step(dnnl::convolution_forward(pd), std::move(args), "conv2d int8");
    return;
  }
  const memory acc = b.allocate(pd.dst_desc());
  args[DNNL_ARG_DST] = acc;
  b.add_step(dnnl::convolution_forward(pd), std::move(args), "conv2d int8");
  // out[o] = acc[o] + e[o] * box, summed in int64: the exact integer the float conv gives,
  // written as int32 for a folded cast, else rounded to float32 once; channels-last too, one
  // pixel's channels at a time.
  const int64_t pixels = ys[0] * ys[2] * ys[3];
  const bool as_int32 = c.int32_cast.has_value();
  const memory out = b.define_output(
      output, memory::desc({ys[0], m, ys[2], ys[3]},
                           as_int32 ? memory::data_type::s32 : memory::data_type::f32, tag::nhwc));
  std::vector<int32_t> shift = c.shift;
  const int threads = omp_get_max_threads();
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
      "int8 conv box-sum shift", "wnn:int32");
}

}  // namespace wnn::runtime::onednn
