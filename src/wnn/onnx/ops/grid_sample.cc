// GridSample (2-D) decomposed into elementwise coordinate arithmetic and gatherElements over
// the flattened image: each output gathers its 1 (nearest), 4 (linear) or 16 (cubic) taps and
// sums them with run-time weights. Padding modes follow ONNX's reference: the coordinate is
// first brought back into range (border clamps, reflection reflects), then every tap is fetched
// through the padding (zeros contributes nothing, border clamps, reflection reflects).
#include "wnn/onnx/ops/float_ops.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

struct Tap {
  OperandId index;   // float, integer-valued, inside [0, size)
  OperandId weight;  // float, zero for taps the zeros padding drops
};

void grid_sample(ConvertContext& c) {
  const Shape xs = c.shape(0), gs = c.shape(1);
  if (xs.size() != 4) c.unsupported("GridSample of a {}-D image (2-D converts)", xs.size() - 2);
  check(gs.size() == 4 && gs[3] == 2 && gs[0] == xs[0], "GridSample: grid shape {} for input {}",
        shape_to_string(gs), shape_to_string(xs));
  const DataType dt = c.dtype(0);
  if (!is_float(dt) || c.dtype(1) != dt) c.unsupported("GridSample of {} values", dtype_name(dt));
  std::string mode = c.attr_string("mode", c.opset() < 20 ? "bilinear" : "linear");
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  const std::string padding = c.attr_string("padding_mode", "zeros");
  const bool align = c.attr_int("align_corners", 0) != 0;
  if (mode != "nearest" && mode != "linear" && mode != "cubic") c.unsupported("mode '{}'", mode);
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    c.unsupported("padding_mode '{}'", padding);
  }
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], P = gs[1] * gs[2];
  FloatOps s{c, dt};

  // Per axis (0: x over W, 1: y over H): the taps and their weights.
  auto axis_taps = [&](int64_t which, int64_t size) {
    OperandId g = c.op(K::kSlice, {c.in(1), RawValue(IntList{0, 0, 0, which}),
                                   RawValue(IntList{N, gs[1], gs[2], 1})});
    g = c.reshape(g, {N, 1, P});
    const double lo = align ? 0.0 : -0.5, hi = align ? double(size - 1) : double(size) - 0.5;
    // Denormalize: align_corners maps -1/1 to the corner pixels' centres, else to their edges.
    OperandId x = align
                      ? s.mul(s.add(g, s.k(1)), s.k(double(size - 1) / 2))
                      : s.mul(s.sub(s.mul(s.add(g, s.k(1)), s.k(double(size))), s.k(1)), s.k(0.5));
    if (mode == "nearest") x = c.op(K::kRoundEven, {x});
    if (padding == "border") {
      OperandId out = c.op(K::kLogicalOr, {s.lt(x, lo), s.gt(x, hi)});
      x = s.where(out, s.clamp(x, 0, double(size - 1)), x);
    } else if (padding == "reflection") {
      x = s.reflect(x, lo, hi);
    }
    std::vector<Tap> taps;
    auto add_tap = [&](OperandId idx, OperandId w) {
      if (padding == "zeros") {
        OperandId inside =
            c.op(K::kLogicalAnd, {c.op(K::kGreaterOrEqual, {idx, s.k(0)}),
                                  c.op(K::kLesserOrEqual, {idx, s.k(double(size - 1))})});
        w = s.where(inside, w, s.k(0));
      } else if (padding == "reflection") {
        idx = s.reflect(idx, lo, hi);
        // int() truncates toward zero.
        idx = s.where(s.lt(idx, 0), c.op(K::kCeil, {idx}), s.floor(idx));
      }
      taps.push_back({s.clamp(idx, 0, double(size - 1)), w});
    };
    if (mode == "nearest") {
      add_tap(x, s.k(1));
      return taps;
    }
    OperandId x0 = s.floor(x), t = s.sub(x, x0);
    if (mode == "linear") {
      add_tap(x0, s.sub(s.k(1), t));
      add_tap(s.add(x0, s.k(1)), t);
      return taps;
    }
    // Cubic convolution with A = -0.75 at distances 1 + t, t, 1 - t, 2 - t.
    const double A = -0.75;
    auto near = [&](OperandId d) {  // |d| <= 1
      return s.add(s.mul(s.mul(s.sub(s.mul(d, s.k(A + 2)), s.k(A + 3)), d), d), s.k(1));
    };
    auto far = [&](OperandId d) {  // 1 < |d| < 2
      OperandId v = s.add(s.mul(s.sub(s.mul(d, s.k(A)), s.k(5 * A)), d), s.k(8 * A));
      return s.sub(s.mul(v, d), s.k(4 * A));
    };
    OperandId one_minus = s.sub(s.k(1), t);
    const OperandId w[4] = {far(s.add(t, s.k(1))), near(t), near(one_minus),
                            far(s.add(one_minus, s.k(1)))};
    for (int i = 0; i < 4; ++i) add_tap(s.add(x0, s.k(double(i - 1))), w[i]);
    return taps;
  };
  const std::vector<Tap> tx = axis_taps(0, W), ty = axis_taps(1, H);

  OperandId image = c.reshape(c.in(0), {N, C, H * W});
  std::optional<OperandId> sum;
  for (const Tap& y : ty) {
    for (const Tap& x : tx) {
      OperandId flat = s.add(s.mul(y.index, s.k(double(W))), x.index);
      flat = c.op(K::kCast, {flat, RawValue(DataType::kInt32)});
      flat = c.op(K::kExpand, {flat, RawValue(Shape{N, C, P})});
      OperandId v = c.op(K::kGatherElements, {image, flat}, {{"axis", int64_t{2}}});
      v = s.mul(v, s.mul(y.weight, x.weight));
      sum = sum ? s.add(*sum, v) : v;
    }
  }
  c.set(0, c.reshape(*sum, {N, C, gs[1], gs[2]}, c.out_name(0)));
}

}  // namespace

void register_grid_sample(std::vector<Converter>& t) {
  t.push_back({"", "GridSample", 16, kMaxOpset, grid_sample, ConvertKind::kDecomposed});
}

}  // namespace wnn::onnx::ops
