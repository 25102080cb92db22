#include "wnn/runtime/onednn/views.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "wnn/core/error.h"

namespace wnn::runtime::onednn {

using dnnl::memory;

std::optional<memory::dims> reshape_strides(const memory::dims& dims, const memory::dims& strides,
                                            const memory::dims& new_dims) {
  // Unit dims carry no stride information: drop them, then match groups of old and new dims
  // with equal products. A group of old dims must be one contiguous run to be re-split.
  memory::dims od, os;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1) od.push_back(dims[i]), os.push_back(strides[i]);
  }
  memory::dims ns(new_dims.size(), 1);
  size_t oi = 0, ni = 0;
  while (oi < od.size() && ni < new_dims.size()) {
    int64_t np = new_dims[ni], op = od[oi];
    size_t nj = ni + 1, oj = oi + 1;
    while (np != op) {
      if (np < op) {
        if (nj >= new_dims.size()) return std::nullopt;
        np *= new_dims[nj++];
      } else {
        if (oj >= od.size()) return std::nullopt;
        op *= od[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (os[k] != od[k + 1] * os[k + 1]) return std::nullopt;
    }
    ns[nj - 1] = os[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * new_dims[k];
    oi = oj;
    ni = nj;
  }
  if (oi != od.size()) return std::nullopt;
  for (; ni < new_dims.size(); ++ni) {
    if (new_dims[ni] != 1) return std::nullopt;
  }
  return ns;
}

bool is_row_major(const StridedView& v) {
  if (v.offset != 0 || v.scale != 1) return false;
  int64_t expect = 1;
  for (size_t i = v.dims.size(); i-- > 0;) {
    if (v.dims[i] != 1 && v.strides[i] != expect) return false;
    expect *= v.dims[i];
  }
  return true;
}

bool same_addressing(const memory::desc& d, const memory::desc& want) {
  const auto& a = d.data;
  const auto& b = want.data;
  if (a.format_kind != dnnl_blocked || b.format_kind != dnnl_blocked || a.ndims != b.ndims ||
      a.data_type != b.data_type || a.offset0 != b.offset0 ||
      a.format_desc.blocking.inner_nblks != 0 || b.format_desc.blocking.inner_nblks != 0 ||
      a.extra.flags != b.extra.flags) {
    return false;
  }
  for (int i = 0; i < a.ndims; ++i) {
    if (a.dims[i] != b.dims[i] || a.padded_dims[i] != b.padded_dims[i]) return false;
    if (a.dims[i] != 1 && a.format_desc.blocking.strides[i] != b.format_desc.blocking.strides[i]) {
      return false;
    }
  }
  return true;
}

namespace {

memory::desc strided_desc(const memory::dims& dims, const memory::dims& strides, int64_t offset) {
  memory::desc d(dims, memory::data_type::f32, strides);
  d.data.offset0 = offset;
  return d;
}

}  // namespace

memory::desc StridedView::desc() const { return strided_desc(dims, strides, offset); }

memory::desc padded_desc(const StridedView& v, size_t rank) {
  const size_t extra = rank - std::min(rank, v.dims.size());
  memory::dims dims(extra, 1), strides(extra, 1);
  dims.insert(dims.end(), v.dims.begin(), v.dims.end());
  strides.insert(strides.end(), v.strides.begin(), v.strides.end());
  // A leading unit dim's stride is irrelevant to addressing; oneDNN still wants it no smaller
  // than the span below it, as a dense tensor's would be.
  int64_t span = 1;
  for (size_t i = extra; i < dims.size(); ++i) span = std::max(span, dims[i] * strides[i]);
  for (size_t i = 0; i < extra; ++i) strides[i] = span;
  return strided_desc(dims, strides, v.offset);
}

void RegionBuilder::set_view(OperandId id, StridedView v) {
  if (is_row_major(v)) {
    held_[id.index] = alias(v.base, plain_desc(id));
  } else {
    views_[id.index] = std::move(v);
  }
}

StridedView RegionBuilder::strided(OperandId id, bool held_strides) {
  if (auto it = views_.find(id.index); it != views_.end()) return it->second;
  // Held in a strided, unblocked layout (a conv's NHWC output): the view reads those strides,
  // so a channel shuffle's reshape and transpose need no copy into row-major first.
  if (auto it = held_.find(id.index); held_strides && it != held_.end()) {
    const auto& d = it->second.get_desc().data;
    if (d.format_kind == dnnl_blocked && d.format_desc.blocking.inner_nblks == 0 &&
        d.ndims == int(plain_desc(id).dims().size())) {
      StridedView v;
      v.base = it->second;
      v.dims = plain_desc(id).dims();
      v.strides.assign(d.format_desc.blocking.strides, d.format_desc.blocking.strides + d.ndims);
      v.offset = d.offset0;
      return v;
    }
  }
  return row_major(id);
}

StridedView RegionBuilder::strided_from_start(OperandId id) {
  // Measured: brg:avx512_core and gemm:jit read a [1, 1, 6] slice of a [1, 2, 6] input from the
  // buffer's start, so a DFT's imaginary half read the real one. Memory this region allocated
  // has its address fixed at compile time, so the window's start moves into the handle (no
  // copy: attention's K and V windows of a fused QKV product); a region input or output is
  // bound per run, so its windows are copied.
  StridedView v = strided(id);
  if (v.offset == 0) return v;
  if (is_external(v.base)) return row_major(id);
  auto* start = static_cast<float*>(v.base.get_data_handle()) + v.offset;
  v.offset = 0;
  v.base = memory(v.desc(), engine_, start);
  return v;
}

StridedView RegionBuilder::row_major(OperandId id) {
  const memory::desc plain = plain_desc(id);
  StridedView v;
  v.base = get(id, plain);
  v.dims = plain.dims();
  v.strides = memory::dims(contiguous_strides(v.dims));
  return v;
}

memory RegionBuilder::materialize(const StridedView& v, const memory& dst) {
  dnnl::primitive_attr attr;
  if (v.scale != 1) attr.set_output_scales(0, {v.scale});
  memory src = memory_of(v);
  dnnl::reorder::primitive_desc pd(engine_, src.get_desc(), engine_, dst.get_desc(), attr);
  add_step(dnnl::reorder(pd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
  return dst;
}

std::vector<uint32_t> RegionBuilder::readers(OperandId id) const {
  std::vector<uint32_t> out;
  for (uint32_t k : region_.nodes) {
    const auto& in = graph_.nodes()[k].inputs;
    if (std::find(in.begin(), in.end(), id) == in.end()) continue;
    out.push_back(k);
    // A mul folded into a conv's filter is read when the conv runs (channel_scale.h).
    for (const auto& [conv, cs] : channel_scales_) {
      if (cs.mul == k) out.push_back(conv);
    }
  }
  return out;
}

bool RegionBuilder::readable_strided(OperandId id) const {
  if (views_.count(id.index)) return true;
  auto it = held_.find(id.index);
  return it == held_.end() || it->second.get_desc() == plain_desc(id);
}

bool RegionBuilder::is_region_output(OperandId id) const {
  return std::find(region_.outputs.begin(), region_.outputs.end(), id) != region_.outputs.end();
}

namespace {

void define_transpose_view(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const size_t rank = g.desc(n.inputs[0]).shape.size();
  IntList perm = n.attrs.get_ints("permutation");
  if (perm.empty()) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(int64_t(rank - 1 - i));
  }
  StridedView v = b.strided(n.inputs[0], /*held_strides=*/true);
  StridedView out = v;
  for (size_t k = 0; k < rank; ++k) {
    out.dims[k] = v.dims[size_t(perm[k])];
    out.strides[k] = v.strides[size_t(perm[k])];
  }
  b.set_view(n.outputs[0], std::move(out));
}

// reshape and identity: the same elements in the same order.
void define_reshape_view(RegionBuilder& b, const Node& n) {
  const memory::dims new_dims = b.plain_desc(n.outputs[0]).dims();
  StridedView v = b.strided(n.inputs[0], /*held_strides=*/true);
  auto ns = reshape_strides(v.dims, v.strides, new_dims);
  if (!ns) {
    // Not expressible as strides over the view: materialise the input, then alias it.
    v = b.row_major(n.inputs[0]);
    ns = reshape_strides(v.dims, v.strides, new_dims);
    check_internal(ns.has_value(), "reshape of row-major '{}' has no strides",
                   b.graph().name_of(n.inputs[0]));
  }
  v.dims = new_dims;
  v.strides = *ns;
  b.set_view(n.outputs[0], std::move(v));
}

void define_slice_view(RegionBuilder& b, const Node& n) {
  const auto starts = n.attrs.get_ints("starts");
  StridedView v = b.strided(n.inputs[0], /*held_strides=*/true);
  for (size_t i = 0; i < starts.size(); ++i) v.offset += starts[i] * v.strides[i];
  v.dims = b.plain_desc(n.outputs[0]).dims();
  b.set_view(n.outputs[0], std::move(v));
}

// The scalar constant `id` holds, if it is one (finite and, for a divisor, nonzero).
std::optional<float> scalar_constant(const Graph& g, OperandId id) {
  if (g.operand(id).kind != OperandKind::kConstant || element_count(g.desc(id).shape) != 1) {
    return std::nullopt;
  }
  const ConstantInfo* c = g.constant_of(id);
  if (c == nullptr || c->data.size() < sizeof(float)) return std::nullopt;
  float f;
  std::memcpy(&f, c->data.data(), sizeof f);
  if (!std::isfinite(f)) return std::nullopt;
  return f;
}

DefineFn g_define_mul = nullptr, g_define_div = nullptr;

// Whether x * (1 / c) equals x / c for every float x: c a power of two whose reciprocal is a
// normal float. Otherwise the reciprocal is rounded and so is the product, one ulp off the
// quotient in about 40% of elements (measured on attention's x / sqrt(32)); that differs from
// ONNX Runtime, and before a dynamic quantization it moves roundings.
bool exact_reciprocal(float c) {
  int e = 0;
  return std::frexp(c, &e) == 0.5f && std::isnormal(1.0f / c);
}

// x * c and x / c with a scalar constant c on a value read row-major: a scaled view, which a
// matmul applies as its output scale and any other reader as part of the copy it needs anyway.
// A division only when its reciprocal is exact.
void define_scale_view(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const bool div = n.op() == OpKind::kDiv;
  const DefineFn fallback = div ? g_define_div : g_define_mul;
  OperandId x = n.inputs[0];
  auto c = scalar_constant(g, n.inputs[1]);
  if (!c && !div) {
    x = n.inputs[1];
    c = scalar_constant(g, n.inputs[0]);
  }
  if (!c || (div && !exact_reciprocal(std::fabs(*c))) ||
      g.desc(x).shape != g.desc(n.outputs[0]).shape || g.desc(x).shape.empty() ||
      !b.readable_strided(x)) {
    fallback(b, n);
    return;
  }
  StridedView v = b.strided(x);
  v.scale *= div ? 1.0f / *c : *c;
  b.set_view(n.outputs[0], std::move(v));
}

// gather of one constant index (ViT's class token, x[:, 0]): a slice of the input.
Support gather_supports(const Graph& g, const Node& n) {
  const OperandId input = n.inputs[0], indices = n.inputs[1];
  for (OperandId id : {input, n.outputs[0]}) {
    if (g.desc(id).dtype != DataType::kFloat32) return Support::no(reasons::dtype(g, n, id));
  }
  if (g.operand(indices).kind != OperandKind::kConstant ||
      element_count(g.desc(indices).shape) != 1) {
    return Support::no("indices are not one constant: only a single fixed index is a view");
  }
  const DataType dt = g.desc(indices).dtype;
  if (dt == DataType::kInt4 || dt == DataType::kUint4 || dt == DataType::kFloat32 ||
      dt == DataType::kFloat16) {
    return Support::no(reasons::dtype(g, n, indices));
  }
  if (g.desc(input).shape.empty() || element_count(g.desc(input).shape) == 0 ||
      g.desc(n.outputs[0]).shape.size() > DNNL_MAX_NDIMS) {
    return Support::no("an empty or scalar input");
  }
  return Support::yes();
}

void define_gather_view(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  const OperandId indices = n.inputs[1];
  const ConstantInfo* c = g.constant_of(indices);
  check_internal(c != nullptr && c->bound(), "gather indices '{}' are not bound",
                 g.name_of(indices));
  const auto& ishape = g.desc(indices).shape;
  const size_t axis = size_t(n.attrs.get_int("axis"));
  StridedView v = b.strided(n.inputs[0], /*held_strides=*/true);
  // As the reference kernels resolve it: negative from the end, out of range clamped.
  const int64_t extent = v.dims[axis];
  int64_t i = element_as_int64(ConstTensorView{g.desc(indices).dtype, ishape, c->data.data()}, 0);
  if (i < 0) i += extent;
  i = std::clamp<int64_t>(i, 0, extent - 1);
  v.offset += i * v.strides[axis];
  v.dims.erase(v.dims.begin() + ptrdiff_t(axis));
  v.strides.erase(v.strides.begin() + ptrdiff_t(axis));
  v.dims.insert(v.dims.begin() + ptrdiff_t(axis), ishape.begin(), ishape.end());
  v.strides.insert(v.strides.begin() + ptrdiff_t(axis), ishape.size(), 1);
  if (v.dims.empty()) v.dims = v.strides = {1};
  b.set_view(n.outputs[0], std::move(v));
}

}  // namespace

void register_views(Table& t) {
  t[size_t(OpKind::kGather)] = {gather_supports, define_gather_view};
  for (OpKind op : {OpKind::kReshape, OpKind::kIdentity})
    t[size_t(op)].define = define_reshape_view;
  t[size_t(OpKind::kTranspose)].define = define_transpose_view;
  t[size_t(OpKind::kSlice)].define = define_slice_view;
  g_define_mul = t[size_t(OpKind::kMul)].define;
  g_define_div = t[size_t(OpKind::kDiv)].define;
  t[size_t(OpKind::kMul)].define = define_scale_view;
  t[size_t(OpKind::kDiv)].define = define_scale_view;
}

}  // namespace wnn::runtime::onednn
