// Pooling beyond what WebNN's 2-D pools give directly: 3-D MaxPool and AveragePool (the 2-D
// pool over [N, C*D, H, W], then depth through a constant gather or averaging matrix), MaxPool's
// Indices output (every window tap gathered, then argMax), and MaxUnpool (a scatter into zeros).
#include <cmath>
#include <limits>

#include "wnn/onnx/ops/axis_map.h"
#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {

using K = OpKind;

namespace {

IntList kernel_of(ConvertContext& c) {
  auto kernel = c.attr_ints("kernel_shape");
  if (!kernel) c.unsupported("pooling without kernel_shape");
  return *kernel;
}

}  // namespace

void pool3d(ConvertContext& c, OpKind kind) {
  const Shape xs = c.shape(0);
  const int64_t N = xs[0], C = xs[1], D = xs[2], H = xs[3], W = xs[4];
  if (kind == K::kL2Pool2d) c.unsupported("3-D LpPool");
  const IntList kernel = kernel_of(c);
  const SpatialNd s = read_spatial_nd(c, {D, H, W}, kernel);
  const bool ceil = c.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = c.attr_int("count_include_pad", 0) != 0;
  const IntList& p = s.pads;
  // Height and width: WebNN's 2-D pool over the depth slices.
  OperandId x = c.reshape(c.in(0), {N, C * D, H, W});
  Spatial2d hw{
      {s.strides[1], s.strides[2]}, {s.dilations[1], s.dilations[2]}, {p[1], p[4], p[2], p[5]}};
  bool ceil_hw = ceil;
  if (ceil && !(kind == K::kAveragePool2d && include_pad) &&
      ceil_as_floor_padding(hw, {H, W}, {kernel[1], kernel[2]})) {
    ceil_hw = false;
  }
  IntList padding = hw.padding;
  if (kind == K::kAveragePool2d && include_pad && (p[1] || p[2] || p[4] || p[5])) {
    if (ceil) c.unsupported("count_include_pad=1 with ceil_mode=1");
    x = c.op(K::kPad,
             {x, RawValue(IntList{0, 0, p[1], p[2]}), RawValue(IntList{0, 0, p[4], p[5]})});
    padding = {0, 0, 0, 0};
  }
  OperandId y = c.op(kind, {x},
                     {{"windowDimensions", IntList{kernel[1], kernel[2]}},
                      {"padding", padding},
                      {"strides", IntList{s.strides[1], s.strides[2]}},
                      {"dilations", IntList{s.dilations[1], s.dilations[2]}},
                      {"outputShapeRounding", RawValue::Name{ceil_hw ? "ceil" : "floor"}}});
  const Shape ys = c.b().graph().desc(y).shape;
  const Shape y5 = {N, C, D, ys[2], ys[3]};
  y = c.reshape(y, y5);
  // Depth: the window's cells inside the input.
  const int64_t kd = kernel[0], sd = s.strides[0], dd = s.dilations[0];
  const int64_t Dout = pooled_length(D, kd, sd, dd, p[0], p[3], ceil);
  if (kind == K::kMaxPool2d) {
    // Taps outside the input repeat a tap inside, which leaves the maximum unchanged.
    std::vector<int64_t> idx;
    for (int64_t od = 0; od < Dout; ++od) {
      std::vector<int64_t> cells;
      for (int64_t k = 0; k < kd; ++k) {
        const int64_t i = od * sd + k * dd - p[0];
        if (i >= 0 && i < D) cells.push_back(i);
      }
      check(!cells.empty(), "MaxPool: a depth window holds no input");
      for (int64_t k = 0; k < kd; ++k) {
        const int64_t i = od * sd + k * dd - p[0];
        idx.push_back(i >= 0 && i < D ? i : cells[0]);
      }
    }
    y = c.op(K::kGather, {y, c.constant(make_int64_tensor({Dout, kd}, idx))},
             {{"axis", int64_t{2}}});
    return c.set(0, c.op(K::kReduceMax, {y}, {{"axes", IntList{3}}, {"keepDimensions", false}},
                         c.out_name(0)));
  }
  std::vector<double> m(size_t(Dout * D), 0.0);
  for (int64_t od = 0; od < Dout; ++od) {
    int64_t count = 0;
    for (int64_t k = 0; k < kd; ++k) {
      const int64_t i = od * sd + k * dd - p[0];
      count += include_pad ? (i >= -p[0] && i < D + p[3]) : (i >= 0 && i < D);
    }
    for (int64_t k = 0; k < kd; ++k) {
      const int64_t i = od * sd + k * dd - p[0];
      if (i >= 0 && i < D) m[size_t(od * D + i)] += 1.0 / double(count);
    }
  }
  c.set(0, matmul_along_axis(c, y, y5, 2, Dout, m, c.out_name(0)));
}

void max_pool_with_indices(ConvertContext& c) {
  const Shape xs = c.shape(0);
  if (xs.size() != 4) c.unsupported("MaxPool's Indices output of a {}-D pool", xs.size() - 2);
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  const IntList kernel = kernel_of(c);
  const SpatialNd s = read_spatial_nd(c, {H, W}, kernel);
  const bool ceil = c.attr_int("ceil_mode", 0) != 0;
  const bool column_major = c.attr_int("storage_order", 0) != 0;
  const IntList& p = s.pads;
  const int64_t Ho = pooled_length(H, kernel[0], s.strides[0], s.dilations[0], p[0], p[2], ceil);
  const int64_t Wo = pooled_length(W, kernel[1], s.strides[1], s.dilations[1], p[1], p[3], ceil);
  const int64_t kh = kernel[0], kw = kernel[1], K_ = kh * kw;
  // Pad with the lowest value so that padding never wins, far enough for every window.
  const int64_t end_h =
      std::max<int64_t>(0, (Ho - 1) * s.strides[0] + (kh - 1) * s.dilations[0] + 1 - H - p[0]);
  const int64_t end_w =
      std::max<int64_t>(0, (Wo - 1) * s.strides[1] + (kw - 1) * s.dilations[1] + 1 - W - p[1]);
  OperandId x = c.in(0);
  if (p[0] || p[1] || end_h || end_w) {
    x = c.op(K::kPad,
             {x, RawValue(IntList{0, 0, p[0], p[1]}), RawValue(IntList{0, 0, end_h, end_w})},
             {{"value", -std::numeric_limits<double>::infinity()}});
  }
  std::vector<int64_t> rows, cols;
  for (int64_t o = 0; o < Ho; ++o) {
    for (int64_t k = 0; k < kh; ++k) rows.push_back(o * s.strides[0] + k * s.dilations[0]);
  }
  for (int64_t o = 0; o < Wo; ++o) {
    for (int64_t k = 0; k < kw; ++k) cols.push_back(o * s.strides[1] + k * s.dilations[1]);
  }
  // [N, C, Ho, kh, Wp] -> [N, C, Ho, kh, Wo, kw] -> [N, C, Ho, Wo, kh * kw]
  x = c.op(K::kGather, {x, c.constant(make_int64_tensor({Ho, kh}, rows))}, {{"axis", int64_t{2}}});
  x = c.op(K::kGather, {x, c.constant(make_int64_tensor({Wo, kw}, cols))}, {{"axis", int64_t{4}}});
  x = c.op(K::kTranspose, {x}, {{"permutation", IntList{0, 1, 2, 4, 3, 5}}});
  x = c.reshape(x, {N, C, Ho, Wo, K_});
  c.set(0,
        c.op(K::kReduceMax, {x}, {{"axes", IntList{4}}, {"keepDimensions", false}}, c.out_name(0)));
  // The tap that wins (the first on ties, as ONNX scans the window) mapped to its flat index.
  OperandId arg = c.op(K::kArgMax, {x, RawValue(int64_t{4})},
                       {{"keepDimensions", true}, {"outputDataType", DataType::kInt64}});
  std::vector<int64_t> table;
  for (int64_t oh = 0; oh < Ho; ++oh) {
    for (int64_t ow = 0; ow < Wo; ++ow) {
      for (int64_t i = 0; i < kh; ++i) {
        for (int64_t j = 0; j < kw; ++j) {
          const int64_t h =
              std::clamp<int64_t>(oh * s.strides[0] + i * s.dilations[0] - p[0], 0, H - 1);
          const int64_t w =
              std::clamp<int64_t>(ow * s.strides[1] + j * s.dilations[1] - p[1], 0, W - 1);
          table.push_back(column_major ? w * H + h : h * W + w);
        }
      }
    }
  }
  OperandId t = c.constant(make_int64_tensor({1, 1, Ho, Wo, K_}, table));
  t = c.op(K::kExpand, {t, RawValue(Shape{N, C, Ho, Wo, K_})});
  OperandId idx =
      c.reshape(c.op(K::kGatherElements, {t, arg}, {{"axis", int64_t{4}}}), {N, C, Ho, Wo});
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < N * C; ++i) offsets.push_back(i * H * W);
  c.set(1, c.op(K::kAdd, {idx, c.constant(make_int64_tensor({N, C, 1, 1}, offsets))}, {},
                c.out_name(1)));
}

void max_unpool(ConvertContext& c) {
  const Shape xs = c.shape(0);
  const size_t n = xs.size() - 2;
  const IntList kernel = kernel_of(c);
  const IntList strides = c.attr_ints("strides").value_or(IntList(n, 1));
  const IntList pads = c.attr_ints("pads").value_or(IntList(2 * n, 0));
  // Indices address the default output; output_shape pads that at the end (as ONNX Runtime
  // and the reference do).
  Shape inferred = xs;
  for (size_t i = 0; i < n; ++i) {
    inferred[i + 2] = (xs[i + 2] - 1) * strides[i] - pads[i] - pads[i + n] + kernel[i];
  }
  Shape out = inferred;
  if (c.has_input(2)) {
    out = c.known_ints(2, "output_shape");
    check(out.size() == xs.size(), "MaxUnpool: output_shape has rank {}", out.size());
  }
  IntList grow(out.size(), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    grow[i] = out[i] - inferred[i];
    check(grow[i] >= 0, "MaxUnpool: output_shape {} is smaller than the default {}",
          shape_to_string(out), shape_to_string(inferred));
  }
  int64_t total = 1, count = 1;
  for (auto d : inferred) total *= d;
  for (auto d : xs) count *= d;
  OperandId zeros = c.op(K::kExpand, {c.constant(c.dtype(0), {0.0}), RawValue(Shape{total})});
  OperandId idx = c.reshape(c.in(1), {count});
  OperandId y =
      c.op(K::kScatterElements, {zeros, idx, c.reshape(c.in(0), {count})}, {{"axis", int64_t{0}}});
  const bool padded = out != inferred;
  y = c.reshape(y, inferred, padded ? "" : c.out_name(0));
  if (padded) {
    y = c.op(K::kPad, {y, RawValue(IntList(out.size(), 0)), RawValue(grow)}, {}, c.out_name(0));
  }
  c.set(0, y);
}

}  // namespace wnn::onnx::ops
