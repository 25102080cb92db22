// Conv and ConvTranspose, 1-D (lifted to 2-D), 2-D and 3-D (conv3d.cc), with every spatial
// attribute.
#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

IntList spatial_of(const Shape& s) { return IntList(s.begin() + 2, s.end()); }

// The filter has the input's rank (N, C and the spatial dims against M, C / group and the
// kernel's): everything after reads its dims by the input's count.
void check_filter_rank(ConvertContext& c, const Shape& xs, const Shape& ws) {
  check(ws.size() == xs.size(), "{}: filter of shape {} for an input of shape {}", c.node().op_type,
        shape_to_string(ws), shape_to_string(xs));
}

}  // namespace

OperandId conv_from_attributes(ConvertContext& c, OperandId x_in, OperandId w_in,
                               std::optional<OperandId> bias, std::string name,
                               std::optional<int64_t> groups) {
  const Shape xs = c.b().graph().desc(x_in).shape, ws = c.b().graph().desc(w_in).shape;
  if (xs.size() != 3 && xs.size() != 4) c.unsupported("{} of rank {}", c.node().op_type, xs.size());
  check_filter_rank(c, xs, ws);
  IntList kernel = c.attr_ints("kernel_shape").value_or(spatial_of(ws));
  Spatial2d s = read_spatial(c, spatial_of(xs), kernel);
  std::vector<std::pair<std::string, RawValue>> named = {
      {"padding", s.padding},
      {"strides", s.strides},
      {"dilations", s.dilations},
      {"groups", groups.value_or(c.attr_int("group", 1))}};
  if (bias) named.emplace_back("bias", *bias);
  const bool one_d = xs.size() == 3;
  OperandId x = lift_1d(c, x_in, xs), w = lift_1d(c, w_in, ws);
  OperandId y = c.op(K::kConv2d, {x, w}, std::move(named), one_d ? "" : name);
  if (one_d) {
    const Shape ys = c.b().graph().desc(y).shape;
    y = c.reshape(y, {ys[0], ys[1], ys[3]}, name);
  }
  return y;
}

namespace {

void conv(ConvertContext& c) {
  if (c.shape(0).size() == 5) {
    check_filter_rank(c, c.shape(0), c.shape(1));
    return conv3d(c);
  }
  std::optional<OperandId> bias;
  if (c.has_input(2)) bias = c.in(2);
  c.set(0, conv_from_attributes(c, c.in(0), c.in(1), bias, c.out_name(0)));
}

void conv_transpose(ConvertContext& c) {
  const Shape xs = c.shape(0), ws = c.shape(1);
  if (xs.size() < 3 || xs.size() > 5) c.unsupported("ConvTranspose of rank {}", xs.size());
  check_filter_rank(c, xs, ws);
  const size_t n = xs.size() - 2;
  const IntList in = spatial_of(xs);
  const IntList kernel = c.attr_ints("kernel_shape").value_or(spatial_of(ws));
  const IntList strides = c.attr_ints("strides").value_or(IntList(n, 1));
  const IntList dil = c.attr_ints("dilations").value_or(IntList(n, 1));
  IntList out_pad = c.attr_ints("output_padding").value_or(IntList(n, 0));
  IntList pads = c.attr_ints("pads").value_or(IntList(2 * n, 0));
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  auto output_shape = c.attr_ints("output_shape");
  if (output_shape && output_shape->size() == n + 2) {
    output_shape = IntList(output_shape->begin() + 2, output_shape->end());
  }
  check(kernel.size() == n && strides.size() == n && dil.size() == n && out_pad.size() == n &&
            pads.size() == 2 * n && (!output_shape || output_shape->size() == n),
        "ConvTranspose: kernel_shape/strides/dilations/output_padding/pads/output_shape do not "
        "match {} spatial dims",
        n);
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    c.unsupported("auto_pad '{}'", auto_pad);
  }
  if (auto_pad == "VALID") pads.assign(2 * n, 0);
  if (output_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    IntList target(n);
    for (size_t i = 0; i < n; ++i) {
      target[i] = output_shape ? (*output_shape)[i] : in[i] * strides[i];
      const int64_t full = strides[i] * (in[i] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1;
      const int64_t total = full - target[i];
      if (total < 0) {
        // The requested size is larger than the padding-free output: the extra goes into
        // output_padding (what ONNX Runtime does).
        out_pad[i] += -total;
        pads[i] = pads[i + n] = 0;
      } else if (auto_pad == "SAME_UPPER") {
        pads[i] = total / 2;
        pads[i + n] = total - total / 2;
      } else {
        pads[i] = total - total / 2;
        pads[i + n] = total / 2;
      }
    }
  }
  if (n == 3) return conv_transpose3d(c, {strides, dil, pads}, out_pad);
  IntList padding, st, dl, op;
  if (n == 1) {
    padding = {0, 0, pads[0], pads[1]};
    st = {1, strides[0]};
    dl = {1, dil[0]};
    op = {0, out_pad[0]};
  } else {
    padding = {pads[0], pads[2], pads[1], pads[3]};
    st = strides;
    dl = dil;
    op = out_pad;
  }
  std::vector<std::pair<std::string, RawValue>> named = {{"padding", padding},
                                                         {"strides", st},
                                                         {"dilations", dl},
                                                         {"outputPadding", op},
                                                         {"groups", c.attr_int("group", 1)}};
  if (c.has_input(2)) named.emplace_back("bias", c.in(2));
  const bool one_d = n == 1;
  OperandId x = lift_1d(c, c.in(0), xs), w = lift_1d(c, c.in(1), ws);
  OperandId y = c.op(K::kConvTranspose2d, {x, w}, std::move(named), one_d ? "" : c.out_name(0));
  if (one_d) {
    const Shape ys = c.b().graph().desc(y).shape;
    y = c.reshape(y, {ys[0], ys[1], ys[3]}, c.out_name(0));
  }
  c.set(0, y);
}

}  // namespace

void register_conv(std::vector<Converter>& t) {
  t.push_back({"", "Conv", 1, kMaxOpset, conv, ConvertKind::kDirect, false});
  t.push_back({"", "ConvTranspose", 1, kMaxOpset, conv_transpose, ConvertKind::kDirect, false});
}

}  // namespace wnn::onnx::ops
