// 3-D Conv and ConvTranspose decomposed onto their 2-D WebNN forms. Depth is folded into the
// batch: a 3-D convolution is a 2-D convolution over depth-gathered input whose kD taps are
// stacked as extra input channels; a 3-D transposed convolution computes every depth tap's
// 2-D result as extra output channels and sums them into place with a constant 0/1 matrix.
#include "wnn/onnx/ops/axis_map.h"
#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {

using K = OpKind;

namespace {
std::vector<std::pair<std::string, RawValue>> conv2d_options(const SpatialNd& s, int64_t groups) {
  // ONNX pads [d0, h0, w0, d1, h1, w1] -> WebNN [h0, h1, w0, w1].
  const IntList& p = s.pads;
  return {{"padding", IntList{p[1], p[4], p[2], p[5]}},
          {"strides", IntList{s.strides[1], s.strides[2]}},
          {"dilations", IntList{s.dilations[1], s.dilations[2]}},
          {"groups", groups}};
}
}  // namespace

void conv3d(ConvertContext& c) {
  const Shape xs = c.shape(0), ws = c.shape(1);
  const int64_t N = xs[0], C = xs[1], D = xs[2], H = xs[3], W = xs[4];
  const int64_t M = ws[0], kD = ws[2];
  const int64_t g = c.attr_int("group", 1);
  check(g > 0 && C % g == 0 && M % g == 0, "Conv: group {} does not divide {} and {}", g, C, M);
  const SpatialNd s = read_spatial_nd(c, {D, H, W}, {ws[2], ws[3], ws[4]});
  const int64_t sd = s.strides[0], dd = s.dilations[0], pd0 = s.pads[0];
  const int64_t Dout = (D + pd0 + s.pads[3] - (kD - 1) * dd - 1) / sd + 1;
  check(Dout > 0, "Conv: empty depth output");

  // [N, D, C, H, W], zero-padded in depth, then gathered to [N, Dout, kD, C, H, W].
  OperandId x = c.op(K::kTranspose, {c.in(0)}, {{"permutation", IntList{0, 2, 1, 3, 4}}});
  if (pd0 || s.pads[3]) {
    x = c.op(K::kPad,
             {x, RawValue(IntList{0, pd0, 0, 0, 0}), RawValue(IntList{0, s.pads[3], 0, 0, 0})});
  }
  std::vector<int64_t> idx;
  for (int64_t od = 0; od < Dout; ++od) {
    for (int64_t kd = 0; kd < kD; ++kd) idx.push_back(od * sd + kd * dd);
  }
  x = c.op(K::kGather, {x, c.constant(make_int64_tensor({Dout, kD}, idx))}, {{"axis", int64_t{1}}});
  // Channels ordered [group, kd, channel-in-group], matching the reshaped filter below.
  if (g > 1) {
    x = c.reshape(x, {N, Dout, kD, g, C / g, H, W});
    x = c.op(K::kTranspose, {x}, {{"permutation", IntList{0, 1, 3, 2, 4, 5, 6}}});
  }
  x = c.reshape(x, {N * Dout, kD * C, H, W});
  // Filter [M, C/g, kD, kH, kW] -> [M, kD * C/g, kH, kW].
  OperandId w = c.op(K::kTranspose, {c.in(1)}, {{"permutation", IntList{0, 2, 1, 3, 4}}});
  w = c.reshape(w, {M, kD * ws[1], ws[3], ws[4]});
  auto named = conv2d_options(s, g);
  if (c.has_input(2)) named.emplace_back("bias", c.in(2));
  OperandId y = c.op(K::kConv2d, {x, w}, std::move(named));
  const Shape ys = c.b().graph().desc(y).shape;
  y = c.reshape(y, {N, Dout, M, ys[2], ys[3]});
  c.set(0, c.op(K::kTranspose, {y}, {{"permutation", IntList{0, 2, 1, 3, 4}}}, c.out_name(0)));
}

void conv_transpose3d(ConvertContext& c, const SpatialNd& s, const IntList& out_pad) {
  const Shape xs = c.shape(0), ws = c.shape(1);
  const int64_t N = xs[0], C = xs[1], D = xs[2], H = xs[3], W = xs[4];
  const int64_t g = c.attr_int("group", 1);
  const int64_t Mg = ws[1], kD = ws[2], M = Mg * g;
  const int64_t sd = s.strides[0], dd = s.dilations[0], pd0 = s.pads[0];
  const int64_t Dout = (D - 1) * sd + (kD - 1) * dd + 1 + out_pad[0] - pd0 - s.pads[3];
  check(Dout > 0, "ConvTranspose: empty depth output");

  // Every depth tap as its own output channel: filter [C, M/g, kD, kH, kW] read as
  // [C, M/g * kD, kH, kW] gives channels ordered [group, m, kd] = [M, kD].
  OperandId x = c.op(K::kTranspose, {c.in(0)}, {{"permutation", IntList{0, 2, 1, 3, 4}}});
  x = c.reshape(x, {N * D, C, H, W});
  OperandId w = c.reshape(c.in(1), {C, Mg * kD, ws[3], ws[4]});
  const IntList& p = s.pads;
  OperandId z = c.op(K::kConvTranspose2d, {x, w},
                     {{"padding", IntList{p[1], p[4], p[2], p[5]}},
                      {"strides", IntList{s.strides[1], s.strides[2]}},
                      {"dilations", IntList{s.dilations[1], s.dilations[2]}},
                      {"outputPadding", IntList{out_pad[1], out_pad[2]}},
                      {"groups", g}});
  const Shape zs = c.b().graph().desc(z).shape;
  const int64_t Ho = zs[2], Wo = zs[3];
  // [N, D, M, kD, Ho, Wo] -> [N, M, Ho, Wo, kD * D], then out depth od collects id, kd with
  // id * sd + kd * dd - pd0 == od.
  z = c.reshape(z, {N, D, M, kD, Ho, Wo});
  z = c.op(K::kTranspose, {z}, {{"permutation", IntList{0, 2, 4, 5, 3, 1}}});
  const Shape zt = {N, M, Ho, Wo, kD * D};
  z = c.reshape(z, zt);
  std::vector<double> m(size_t(Dout * kD * D), 0.0);
  for (int64_t kd = 0; kd < kD; ++kd) {
    for (int64_t id = 0; id < D; ++id) {
      const int64_t od = id * sd + kd * dd - pd0;
      if (od >= 0 && od < Dout) m[size_t(od * kD * D + kd * D + id)] = 1.0;
    }
  }
  OperandId y = matmul_along_axis(c, z, zt, 4, Dout, m);
  const bool bias = c.has_input(2);
  y = c.op(K::kTranspose, {y}, {{"permutation", IntList{0, 1, 4, 2, 3}}},
           bias ? "" : c.out_name(0));
  if (bias) y = c.op(K::kAdd, {y, c.reshape(c.in(2), {1, M, 1, 1, 1})}, {}, c.out_name(0));
  c.set(0, y);
}

}  // namespace wnn::onnx::ops
