// Data movement: Transpose, Expand, Tile, Concat, Split, Slice (negative steps through reverse),
// Pad, Where, Trilu and CumSum.
#include <algorithm>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void transpose(ConvertContext& c) {
  const size_t r = c.shape(0).size();
  IntList perm = c.attr_ints("perm").value_or(IntList{});
  if (perm.empty()) {
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  }
  c.set(0, c.op(K::kTranspose, {c.in(0)}, {{"permutation", perm}}, c.out_name(0)));
}

void expand(ConvertContext& c) {
  const Shape target = c.known_ints(1, "shape");
  auto out = broadcast_shapes(c.shape(0), target);
  check(out.has_value(), "Expand: {} does not broadcast with {}", shape_to_string(c.shape(0)),
        shape_to_string(target));
  c.set(0, c.op(K::kExpand, {c.in(0), RawValue(*out)}, {}, c.out_name(0)));
}

void tile(ConvertContext& c) {
  const IntList reps = c.known_ints(1, "repeats");
  c.set(0, c.op(K::kTile, {c.in(0), RawValue(reps)}, {}, c.out_name(0)));
}

void concat(ConvertContext& c) {
  auto axis = c.attr_int("axis");
  if (!axis) c.unsupported("Concat without 'axis'");
  // Shape vectors (known 1-D integer tensors) are joined right here, without a kernel.
  bool shape_vectors = true;
  std::vector<int64_t> joined;
  for (size_t i = 0; i < c.num_inputs() && shape_vectors; ++i) {
    if (!c.has_input(i)) continue;
    const Tensor* t = c.known(i);
    shape_vectors = t && t->dtype == DataType::kInt64 && t->shape.size() == 1;
    if (shape_vectors) {
      for (int64_t v : c.known_ints(i, "input")) joined.push_back(v);
    }
  }
  if (shape_vectors) {
    return c.set_known(0, make_int64_tensor({int64_t(joined.size())}, joined));
  }
  std::vector<OperandId> ins;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (c.has_input(i)) ins.push_back(c.in(i));
  }
  const int64_t a = normalize_axis(*axis, c.shape(0).size(), "Concat axis");
  c.set(0, c.op(K::kConcat, {RawValue(ins), a}, {}, c.out_name(0)));
}

void split(ConvertContext& c) {
  const Shape in = c.shape(0);
  const int64_t axis = normalize_dim_axis(c.attr_int("axis", 0), in, "Split axis");
  const int64_t dim = in[size_t(axis)];
  IntList sizes;
  if (c.opset() >= 13 && c.has_input(1)) {
    sizes = c.known_ints(1, "split");
  } else if (c.opset() < 13 && c.attr_ints("split")) {
    sizes = *c.attr_ints("split");
  } else {
    const int64_t n = c.opset() >= 18 ? c.attr_int("num_outputs", int64_t(c.num_outputs()))
                                      : int64_t(c.num_outputs());
    check(n > 0, "Split into {} outputs", n);
    // Since opset 18 an uneven split makes the last chunk smaller.
    const int64_t chunk = (dim + n - 1) / n;
    if (c.opset() < 18) check(dim % n == 0, "Split: {} does not divide into {}", dim, n);
    for (int64_t i = 0, left = dim; i < n; ++i, left -= chunk) {
      sizes.push_back(std::min(chunk, left));
    }
  }
  check(sizes.size() == c.num_outputs(), "Split: {} sizes for {} outputs", sizes.size(),
        c.num_outputs());
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    // WebNN's split takes positive sizes only: empty parts are empty slices.
    IntList begin(in.size(), 0), extent(in.begin(), in.end());
    for (size_t i = 0; i < sizes.size(); ++i) {
      extent[size_t(axis)] = sizes[i];
      c.set(i, c.op(K::kSlice, {c.in(0), RawValue(begin), RawValue(extent)}, {}, c.out_name(i)));
      begin[size_t(axis)] += sizes[i];
    }
    return;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < c.num_outputs(); ++i) names.push_back(c.out_name(i));
  auto outs = c.b().add(K::kSplit, {c.in(0), RawValue(sizes)}, {{"axis", axis}}, names);
  for (size_t i = 0; i < outs.size(); ++i) c.set(i, outs[i]);
}

void slice(ConvertContext& c) {
  const Shape in = c.shape(0);
  const size_t r = in.size();
  IntList starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts").value_or(IntList{});
    ends = c.attr_ints("ends").value_or(IntList{});
    axes = c.attr_ints("axes").value_or(IntList{});
  } else {
    starts = c.known_ints(1, "starts");
    ends = c.known_ints(2, "ends");
    if (c.has_input(3)) axes = c.known_ints(3, "axes");
    if (c.has_input(4)) steps = c.known_ints(4, "steps");
  }
  check(starts.size() == ends.size(), "Slice: {} starts, {} ends", starts.size(), ends.size());
  if (axes.empty()) axes = iota(0, int64_t(starts.size()));
  if (steps.empty()) steps.assign(starts.size(), 1);
  check(axes.size() == starts.size() && steps.size() == starts.size(),
        "Slice: starts, ends, axes and steps differ in length");
  IntList begin(r, 0), sizes(in.begin(), in.end()), strides(r, 1), reversed;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = size_t(normalize_axis(axes[i], r, "Slice axis"));
    const int64_t d = in[a], step = steps[i];
    check(step != 0, "Slice step is 0");
    auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v += d;
      return std::clamp(v, lo, hi);
    };
    if (step > 0) {
      const int64_t s = norm(starts[i], 0, d), e = norm(ends[i], 0, d);
      const int64_t n = e > s ? (e - s + step - 1) / step : 0;
      begin[a] = s;
      sizes[a] = n > 0 ? (n - 1) * step + 1 : 0;  // WebNN sizes are extents in the input
      strides[a] = step;
    } else {
      // Walk backwards from s to e (exclusive): on the reversed axis that is a forward walk
      // from d-1-s with step -step.
      const int64_t s = norm(starts[i], -1, d - 1), e = norm(ends[i], -1, d - 1);
      const int64_t n = s > e ? (s - e + (-step) - 1) / (-step) : 0;
      reversed.push_back(int64_t(a));
      begin[a] = n > 0 ? d - 1 - s : 0;
      sizes[a] = n > 0 ? (n - 1) * (-step) + 1 : 0;
      strides[a] = -step;
    }
  }
  OperandId x = c.in(0);
  if (!reversed.empty()) x = c.op(K::kReverse, {x}, {{"axes", reversed}});
  c.set(0, c.op(K::kSlice, {x, RawValue(begin), RawValue(sizes)}, {{"strides", strides}},
                c.out_name(0)));
}

void pad(ConvertContext& c) {
  const Shape in = c.shape(0);
  const size_t r = in.size();
  const std::string mode = c.attr_string("mode", "constant");
  IntList pads;
  double value = 0;
  IntList axes = iota(0, int64_t(r));
  if (c.opset() < 11) {
    pads = c.attr_ints("pads").value_or(IntList{});
    value = c.attr_float("value", 0.0);
  } else {
    pads = c.known_ints(1, "pads");
    if (c.has_input(2)) {
      auto v = c.known_floats(2, "constant_value");
      if (!v.empty()) value = v[0];
    }
    if (c.has_input(3)) {
      axes.clear();
      for (int64_t a : c.known_ints(3, "axes")) axes.push_back(normalize_axis(a, r, "Pad axis"));
    }
  }
  check(pads.size() == 2 * axes.size(), "Pad: {} pads for {} axes", pads.size(), axes.size());
  IntList begin(r, 0), end(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[size_t(axes[i])] = pads[i];
    end[size_t(axes[i])] = pads[i + axes.size()];
  }
  // Negative pads crop: slice first, then pad by the non-negative parts.
  OperandId x = c.in(0);
  bool crop = false;
  IntList s0(r, 0), sz(in.begin(), in.end());
  for (size_t i = 0; i < r; ++i) {
    if (begin[i] < 0) s0[i] = -begin[i], sz[i] += begin[i], begin[i] = 0, crop = true;
    if (end[i] < 0) sz[i] += end[i], end[i] = 0, crop = true;
  }
  if (crop) x = c.op(K::kSlice, {x, RawValue(s0), RawValue(sz)});
  std::string wmode;
  if (mode == "constant") {
    wmode = "constant";
  } else if (mode == "reflect") {
    wmode = "reflection";
  } else if (mode == "edge") {
    wmode = "edge";
  } else {
    c.unsupported("Pad mode '{}'", mode);
  }
  c.set(0, c.op(K::kPad, {x, RawValue(begin), RawValue(end)},
                {{"mode", RawValue::Name{wmode}}, {"value", value}}, c.out_name(0)));
}

void where(ConvertContext& c) {
  c.set(0, c.op(K::kWhere, {c.in(0), c.in(1), c.in(2)}, {}, c.out_name(0)));
}

void trilu(ConvertContext& c) {
  int64_t k = 0;
  if (c.has_input(1)) k = c.known_ints(1, "k").at(0);
  const bool upper = c.attr_int("upper", 1) != 0;
  c.set(0, c.op(K::kTriangular, {c.in(0)}, {{"upper", upper}, {"diagonal", k}}, c.out_name(0)));
}

void cumsum(ConvertContext& c) {
  const int64_t axis = normalize_axis(c.known_ints(1, "axis").at(0), c.shape(0).size(), "axis");
  c.set(0, c.op(K::kCumulativeSum, {c.in(0), axis},
                {{"exclusive", c.attr_int("exclusive", 0) != 0},
                 {"reversed", c.attr_int("reverse", 0) != 0}},
                c.out_name(0)));
}

// ReverseSequence: along time_axis, batch entry b reverses its first sequence_lens[b]
// elements and keeps the rest. The source index where(t < len, len - 1 - t, t) is computed
// from the lengths at run time and read with gatherElements.
void reverse_sequence(ConvertContext& c) {
  const Shape s = c.shape(0);
  const size_t r = s.size();
  const int64_t ta = normalize_axis(c.attr_int("time_axis", 0), r, "time_axis");
  const int64_t ba = normalize_axis(c.attr_int("batch_axis", 1), r, "batch_axis");
  check(ta != ba, "ReverseSequence: time_axis and batch_axis are both {}", ta);
  const int64_t steps = s[size_t(ta)];
  Shape ts(r, 1), bs(r, 1);
  ts[size_t(ta)] = steps;
  bs[size_t(ba)] = s[size_t(ba)];
  std::vector<int64_t> t(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) t[size_t(i)] = i;
  OperandId time = c.constant(make_int64_tensor(ts, t));
  OperandId len = c.reshape(c.op(K::kCast, {c.in(1), DataType::kInt64}), bs);
  OperandId back = c.op(K::kSub, {c.op(K::kSub, {len, c.constant(DataType::kInt64, {1.0})}), time});
  OperandId idx = c.op(K::kWhere, {c.op(K::kLesser, {time, len}), back, time});
  idx = c.op(K::kExpand, {idx, RawValue(s)});
  c.set(0, c.op(K::kGatherElements, {c.in(0), idx}, {{"axis", ta}}, c.out_name(0)));
}

// CenterCropPad: each listed axis is cropped or zero-padded to the target size around its
// center; the odd element goes to the end, as ONNX's reference does.
void center_crop_pad(ConvertContext& c) {
  const Shape s = c.shape(0);
  const size_t r = s.size();
  const IntList target = c.known_ints(1, "shape");
  IntList axes = c.attr_ints("axes").value_or(iota(0, int64_t(r)));
  check(target.size() == axes.size(), "CenterCropPad: {} sizes for {} axes", target.size(),
        axes.size());
  IntList start(r, 0), extent(s.begin(), s.end()), before(r, 0), after(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = size_t(normalize_axis(axes[i], r, "CenterCropPad axis"));
    const int64_t d = s[a], t = target[i];
    check(t >= 0, "CenterCropPad size {} is negative", t);
    if (t < d) {
      start[a] = (d - t) / 2;
      extent[a] = t;
    } else {
      before[a] = (t - d) / 2;
      after[a] = t - d - before[a];
    }
  }
  OperandId x = c.op(K::kSlice, {c.in(0), RawValue(start), RawValue(extent)});
  c.set(0, c.op(K::kPad, {x, RawValue(before), RawValue(after)}, {}, c.out_name(0)));
}

// DepthToSpace (DCR or CRD) and SpaceToDepth as reshape, transpose, reshape.
void depth_to_space(ConvertContext& c) {
  const Shape s = c.shape(0);
  check(s.size() == 4, "DepthToSpace needs 4-D input");
  auto bs = c.attr_int("blocksize");
  if (!bs) c.unsupported("DepthToSpace without blocksize");
  const int64_t b = *bs, n = s[0], ch = s[1], h = s[2], w = s[3];
  check(b > 0 && ch % (b * b) == 0, "blocksize {} does not divide {} channels", b, ch);
  const bool crd = c.attr_string("mode", "DCR") == "CRD";
  OperandId x = crd ? c.reshape(c.in(0), {n, ch / (b * b), b, b, h, w})
                    : c.reshape(c.in(0), {n, b, b, ch / (b * b), h, w});
  const IntList perm = crd ? IntList{0, 1, 4, 2, 5, 3} : IntList{0, 3, 4, 1, 5, 2};
  x = c.op(K::kTranspose, {x}, {{"permutation", perm}});
  c.set(0, c.reshape(x, {n, ch / (b * b), h * b, w * b}, c.out_name(0)));
}

void space_to_depth(ConvertContext& c) {
  const Shape s = c.shape(0);
  check(s.size() == 4, "SpaceToDepth needs 4-D input");
  auto bs = c.attr_int("blocksize");
  if (!bs) c.unsupported("SpaceToDepth without blocksize");
  const int64_t b = *bs, n = s[0], ch = s[1], h = s[2], w = s[3];
  check(b > 0 && h % b == 0 && w % b == 0, "blocksize {} does not divide {}x{}", b, h, w);
  OperandId x = c.reshape(c.in(0), {n, ch, h / b, b, w / b, b});
  x = c.op(K::kTranspose, {x}, {{"permutation", IntList{0, 3, 5, 1, 2, 4}}});
  c.set(0, c.reshape(x, {n, ch * b * b, h / b, w / b}, c.out_name(0)));
}

}  // namespace

void register_movement(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect, X = ConvertKind::kDecomposed;
  t.push_back({"", "Transpose", 1, kMaxOpset, transpose, D, true});
  t.push_back({"", "Expand", 8, kMaxOpset, expand, D, true});
  t.push_back({"", "Tile", 6, kMaxOpset, tile, D, true});
  t.push_back({"", "Concat", 4, kMaxOpset, concat, D, true});
  t.push_back({"", "Split", 2, kMaxOpset, split, D, true});
  t.push_back({"", "Slice", 1, kMaxOpset, slice, X, true});
  t.push_back({"", "Pad", 2, kMaxOpset, pad, D, true});
  t.push_back({"", "Where", 9, kMaxOpset, where, D, true});
  t.push_back({"", "Trilu", 14, kMaxOpset, trilu, D, true});
  t.push_back({"", "CumSum", 11, kMaxOpset, cumsum, D, true});
  t.push_back({"", "CenterCropPad", 18, kMaxOpset, center_crop_pad, X, true});
  t.push_back({"", "ReverseSequence", 10, kMaxOpset, reverse_sequence, X, true});
  t.push_back({"", "DepthToSpace", 1, kMaxOpset, depth_to_space, X, true});
  t.push_back({"", "SpaceToDepth", 1, kMaxOpset, space_to_depth, X, true});
}

}  // namespace wnn::onnx::ops
