// MaxPool, AveragePool (count_include_pad through explicit zero padding), LpPool with p=2, and
// the global pools; 1-D pools are lifted to 2-D.
#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void pool(ConvertContext& c, OpKind kind) {
  const Shape xs = c.shape(0);
  if (c.wants_output(1)) return max_pool_with_indices(c);
  if (xs.size() == 5) return pool3d(c, kind);
  if (xs.size() != 3 && xs.size() != 4) c.unsupported("{}-D pooling", int(xs.size()) - 2);
  const IntList in(xs.begin() + 2, xs.end());
  auto kernel = c.attr_ints("kernel_shape");
  if (!kernel) c.unsupported("pooling without kernel_shape");
  Spatial2d s = read_spatial(c, in, *kernel);
  bool ceil = c.attr_int("ceil_mode", 0) != 0;
  const bool one_d = xs.size() == 3;
  IntList window = one_d ? IntList{1, (*kernel)[0]} : *kernel;
  const IntList in2 = one_d ? IntList{1, xs[2]} : IntList{xs[2], xs[3]};
  const bool ceil_included_pad =
      ceil && kind == K::kAveragePool2d && c.attr_int("count_include_pad", 0) != 0;
  if (ceil && !ceil_included_pad && ceil_as_floor_padding(s, in2, window)) ceil = false;
  OperandId x = lift_1d(c, c.in(0), xs);
  if (kind == K::kL2Pool2d) {
    const int64_t p = c.attr_int("p", 2);
    if (p != 2) c.unsupported("LpPool p={} (WebNN has p=2)", p);
  }
  if (kind == K::kAveragePool2d && c.attr_int("count_include_pad", 0) != 0) {
    const bool padded = std::any_of(s.padding.begin(), s.padding.end(), [](auto v) { return v; });
    if (padded) {
      if (ceil) c.unsupported("count_include_pad=1 with ceil_mode=1");
      // Counting the pad cells equals averaging over an input explicitly padded with zeros.
      const IntList& p = s.padding;
      x = c.op(K::kPad,
               {x, RawValue(IntList{0, 0, p[0], p[2]}), RawValue(IntList{0, 0, p[1], p[3]})});
      s.padding = {0, 0, 0, 0};
    }
  }
  OperandId y = c.op(kind, {x},
                     {{"windowDimensions", window},
                      {"padding", s.padding},
                      {"strides", s.strides},
                      {"dilations", s.dilations},
                      {"outputShapeRounding", RawValue::Name{ceil ? "ceil" : "floor"}}},
                     one_d ? "" : c.out_name(0));
  if (one_d) {
    const Shape ys = c.b().graph().desc(y).shape;
    y = c.reshape(y, {ys[0], ys[1], ys[3]}, c.out_name(0));
  }
  c.set(0, y);
}

void global_pool(ConvertContext& c, OpKind kind) {
  const Shape xs = c.shape(0);
  if (xs.size() < 3) c.unsupported("global pooling of rank {}", xs.size());
  if (xs.size() == 4) return c.set(0, c.op(kind, {c.in(0)}, {}, c.out_name(0)));
  // Other ranks reduce over every spatial axis.
  const OpKind r = kind == K::kMaxPool2d ? K::kReduceMax : K::kReduceMean;
  c.set(0, c.op(r, {c.in(0)}, {{"axes", iota(2, int64_t(xs.size()))}, {"keepDimensions", true}},
                c.out_name(0)));
}

}  // namespace

void register_pool(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect;
  t.push_back({"", "MaxPool", 1, kMaxOpset, [](ConvertContext& c) { pool(c, K::kMaxPool2d); }, D});
  t.push_back(
      {"", "AveragePool", 1, kMaxOpset, [](ConvertContext& c) { pool(c, K::kAveragePool2d); }, D});
  t.push_back({"", "MaxUnpool", 9, kMaxOpset, max_unpool, ConvertKind::kDecomposed});
  t.push_back({"", "LpPool", 1, kMaxOpset, [](ConvertContext& c) { pool(c, K::kL2Pool2d); }, D});
  t.push_back({"", "GlobalAveragePool", 1, kMaxOpset,
               [](ConvertContext& c) { global_pool(c, K::kAveragePool2d); }, D});
  t.push_back({"", "GlobalMaxPool", 1, kMaxOpset,
               [](ConvertContext& c) { global_pool(c, K::kMaxPool2d); }, D});
}

}  // namespace wnn::onnx::ops
