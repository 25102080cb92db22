// gemm and matmul on oneDNN's matmul primitive. Transposes are strided views (no copy);
// a constant second operand is reordered once into the primitive's preferred layout.
#include <fmt/format.h>

#include <functional>
#include <numeric>
#include <optional>
#include <string>

#include "wnn/runtime/onednn/epilogue.h"
#include "wnn/runtime/onednn/integer_conv.h"
#include "wnn/runtime/onednn/views.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;

Support gemm_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  if (n.attrs.get_operand("c") && n.attrs.get_float("beta") != 1.0) {
    return Support::no(fmt::format("beta {} with c: oneDNN adds c unscaled after alpha",
                                   n.attrs.get_float("beta")));
  }
  return Support::yes();
}

// [rows, cols] read from a row-major [cols, rows] when transposed.
memory::desc matrix(int64_t rows, int64_t cols, bool transposed) {
  return memory::desc({rows, cols}, memory::data_type::f32,
                      transposed ? memory::dims{1, rows} : memory::dims{cols, 1});
}

void define_gemm(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& a = n.attrs;
  const OperandId A = *a.get_operand("a"), B = *a.get_operand("b");
  const bool ta = a.get_bool("aTranspose"), tb = a.get_bool("bTranspose");
  const auto& out = g.desc(n.outputs[0]).shape;
  const int64_t M = out[0], N = out[1];
  const int64_t K = ta ? g.desc(A).shape[0] : g.desc(A).shape[1];
  const memory::desc a_view = matrix(M, K, ta), b_view = matrix(K, N, tb);
  const bool b_const = b.is_constant(B);
  const memory::desc b_want =
      b_const ? memory::desc({K, N}, memory::data_type::f32, memory::format_tag::any) : b_view;
  const memory::desc dst_desc({M, N}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::primitive_attr attr;
  if (a.get_float("alpha") != 1.0) attr.set_output_scales(0, {float(a.get_float("alpha"))});
  const auto c = a.get_operand("c");
  memory::desc c_desc;
  if (c) {
    // c broadcasts to [M, N]: read it as 2-D with its missing leading dims as 1.
    const auto& cs = g.desc(*c).shape;
    memory::dims cd = cs.size() == 2   ? memory::dims{cs[0], cs[1]}
                      : cs.size() == 1 ? memory::dims{1, cs[0]}
                                       : memory::dims{1, 1};
    c_desc = memory::desc(cd, memory::data_type::f32, memory::format_tag::ab);
    dnnl::post_ops po;
    po.append_binary(dnnl::algorithm::binary_add, c_desc);
    attr.set_post_ops(po);
  }
  dnnl::matmul::desc d(a_view, b_want, dst_desc);
  auto [pd, epilogue] = with_epilogue(b, n, {}, attr, [&](const dnnl::primitive_attr& at) {
    return dnnl::matmul::primitive_desc(d, at, b.engine());
  });
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.view(A, a_view);
  args[DNNL_ARG_WEIGHTS] = b.convert(b.view(B, b_view), pd.weights_desc(), b_const);
  if (c) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = b.view(*c, c_desc);
  const memory dst = b.define_output(epilogue.output, b.plain_desc(epilogue.output));
  args[DNNL_ARG_DST] = b.alias(dst, dst_desc);  // the epilogue may end in another shape
  bind_epilogue(b, epilogue, dst, args);
  b.add_step(dnnl::matmul(pd), std::move(args));
}

Support matmul_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const size_t ra = g.desc(*n.attrs.get_operand("a")).shape.size();
  const size_t rb = g.desc(*n.attrs.get_operand("b")).shape.size();
  if (ra < 2 || rb < 2)
    return Support::no(fmt::format("rank {} x {}: oneDNN needs matrices", ra, rb));
  if (std::max(ra, rb) > DNNL_MAX_NDIMS) {
    return Support::no(fmt::format("rank {} above oneDNN's {}", std::max(ra, rb), DNNL_MAX_NDIMS));
  }
  return Support::yes();
}

// `shape` with leading 1s up to `rank`.
memory::dims padded(std::span<const int64_t> shape, size_t rank) {
  memory::dims d(rank - shape.size(), 1);
  d.insert(d.end(), shape.begin(), shape.end());
  return d;
}

// [d0, ..., dk, n] as [d0 * ... * dk, n] (a plain desc; others are left to oneDNN to refuse).
memory::desc collapse_rows(const memory::desc& d) {
  const memory::dims dims = d.dims();
  const int64_t rows =
      std::accumulate(dims.begin(), dims.end() - 1, int64_t(1), std::multiplies<int64_t>());
  return d.reshape({rows, dims.back()});
}

// Whether oneDNN runs a matmul over these (strided) descs on an optimized kernel: its reference
// kernel is many times slower than copying the operands to row-major first.
bool fast_matmul(const dnnl::engine& e, const memory::desc& a, const memory::desc& w,
                 const memory::desc& dst) {
  try {
    return !reference_kernel(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, w, dst), e));
  } catch (const dnnl::error&) {
    return false;
  }
}

// The strides that make a [.., M, N] matmul result land in a buffer holding it already
// transposed by the result's only reader, so that transpose (the heads' merge in attention)
// is free; empty when the result is read otherwise.
std::optional<StridedView> transposed_dst(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const OperandId out = n.outputs[0];
  if (!b.epilogue_candidates(n).empty() || b.is_region_output(out)) return std::nullopt;
  const auto readers = b.readers(out);
  if (readers.size() != 1) return std::nullopt;
  const Node& t = g.nodes()[readers[0]];
  if (t.op() != OpKind::kTranspose) return std::nullopt;
  const auto& shape = g.desc(out).shape;
  IntList perm = t.attrs.get_ints("permutation");
  if (perm.empty()) {
    for (size_t i = 0; i < shape.size(); ++i) perm.push_back(int64_t(shape.size() - 1 - i));
  }
  const auto& tshape = g.desc(t.outputs[0]).shape;
  const auto tstrides = contiguous_strides(tshape);
  StridedView v;
  v.dims = memory::dims(shape.begin(), shape.end());
  v.strides.assign(shape.size(), 0);
  for (size_t k = 0; k < perm.size(); ++k) v.strides[size_t(perm[k])] = tstrides[k];
  v.base = b.allocate(b.plain_desc(t.outputs[0]));
  return v;
}

void define_matmul(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (const IntegerConv* ic = b.integer_conv(uint32_t(&n - g.nodes().data())))
    return define_integer_matmul(b, n, *ic);
  const OperandId A = *n.attrs.get_operand("a"), B = *n.attrs.get_operand("b");
  const auto& out = g.desc(n.outputs[0]).shape;
  const size_t rank = out.size();
  const auto f32 = memory::data_type::f32;
  memory::dims ad = padded(g.desc(A).shape, rank), bd = padded(g.desc(B).shape, rank);
  memory::dims od(out.begin(), out.end());
  // A 2-D second operand shared by every batch: one GEMM over all rows of a ([197, 1, 768] x
  // [768, 2304] in ViT's attention runs 10x faster than as 197 batched row-vector products).
  const bool shared_b =
      rank > 2 && g.desc(B).shape.size() == 2 && std::equal(ad.begin(), ad.end() - 2, od.begin());
  ToLogical to_logical;
  if (shared_b) {
    ad = {element_count(g.desc(A).shape) / ad.back(), ad.back()};
    bd = {bd[rank - 2], bd[rank - 1]};
    od = {element_count(out) / od.back(), od.back()};
    to_logical = collapse_rows;
  }
  const bool b_const = b.is_constant(B);
  // Non-constant operands are read through their strided views (a transposed or scaled head
  // split costs no copy) when oneDNN has a fast kernel for those strides.
  StridedView va = b.strided_from_start(A), vb;
  if (!b_const) vb = b.strided_from_start(B);
  auto operand_desc = [&](const StridedView& v, const memory::dims& dims) {
    if (dims.size() >= v.dims.size()) return padded_desc(v, dims.size());
    const auto strides = reshape_strides(v.dims, v.strides, dims);
    if (!strides) return memory::desc();
    StridedView r = v;
    r.dims = dims;
    r.strides = *strides;
    return r.desc();
  };
  memory::desc a_desc = operand_desc(va, ad);
  memory::desc b_plain =
      b_const ? memory::desc(bd, f32, contiguous_strides(bd)) : operand_desc(vb, bd);
  std::optional<StridedView> tdst = shared_b ? std::nullopt : transposed_dst(b, n);
  memory::desc dst_desc =
      tdst ? tdst->desc() : memory::desc(od, f32, memory::dims(contiguous_strides(od)));
  const memory::desc b_want = b_const ? memory::desc(bd, f32, memory::format_tag::any) : b_plain;
  if (!a_desc || !b_plain || !fast_matmul(b.engine(), a_desc, b_want, dst_desc)) {
    // Row-major operands (the views copied once) and result.
    b.get(A, b.plain_desc(A));
    if (!b_const) b.get(B, b.plain_desc(B));
    va = b.strided(A);
    if (!b_const) vb = b.strided(B);
    a_desc = memory::desc(ad, f32, contiguous_strides(ad));
    if (!b_const) b_plain = memory::desc(bd, f32, contiguous_strides(bd));
    tdst.reset();
    dst_desc = memory::desc(od, f32, contiguous_strides(od));
  }
  dnnl::primitive_attr base;
  const float scale = va.scale * (b_const ? 1.0f : vb.scale);
  if (scale != 1) base.set_output_scales(0, {scale});
  dnnl::matmul::desc d(a_desc, b_const ? b_want : b_plain, dst_desc);
  auto [pd, epilogue] = with_epilogue(b, n, to_logical, base, [&](const dnnl::primitive_attr& at) {
    dnnl::matmul::primitive_desc pd(d, at, b.engine());
    // oneDNN 2.6 has no optimized batched matmul with a binary post-op broadcast over the
    // batch (an attention mask): such a link runs as its own kernel instead.
    if (at.get_post_ops().len() > 0 && reference_kernel(pd)) {
      throw dnnl::error(dnnl_unimplemented, "post-ops only on the reference matmul");
    }
    return pd;
  });
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.alias(va.base, a_desc);
  args[DNNL_ARG_WEIGHTS] =
      b_const ? b.convert(b.view(B, b_plain), pd.weights_desc(), true) : b.alias(vb.base, b_plain);
  if (tdst) {
    const memory dst = b.alias(tdst->base, dst_desc);
    args[DNNL_ARG_DST] = dst;
    b.set_view(epilogue.output, *tdst);
    b.add_step(dnnl::matmul(pd), std::move(args));
    return;
  }
  // Row-major, or (through a fused transpose) the same bytes seen in the transposed dims.
  const memory dst = b.define_output(
      epilogue.output, epilogue.output_desc ? epilogue.output_desc : b.plain_desc(epilogue.output));
  args[DNNL_ARG_DST] = b.alias(dst, dst_desc);  // collapsed rows, or an epilogue's reshape
  bind_epilogue(b, epilogue, dst, args);
  b.add_step(dnnl::matmul(pd), std::move(args));
}

}  // namespace

void register_matmul(Table& t) {
  t[size_t(OpKind::kGemm)] = {gemm_supports, define_gemm};
  t[size_t(OpKind::kMatmul)] = {matmul_supports, define_matmul};
}

}  // namespace wnn::runtime::onednn
