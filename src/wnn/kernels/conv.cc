// conv2d and convTranspose2d. Both canonicalise the input to NCHW and the filter to a fixed
// order, accumulate one output plane at a time in double (so the inner loop runs over
// contiguous rows and the result is within rounding of the exact sum), then write the output
// in the requested layout.
#include <algorithm>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/kernels/conv_fft.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

namespace {

struct ConvOptions {
  IntList padding, strides, dilations;
  int64_t groups;
  std::string layout, filter_layout;
};

ConvOptions read_options(const Attributes& a) {
  return {a.get_ints("padding"), a.get_ints("strides"),     a.get_ints("dilations"),
          a.get_int("groups"),   a.get_enum("inputLayout"), a.get_enum("filterLayout")};
}

// The first output index o >= 0 with o * stride + offset >= 0, and one past the last with
// o * stride + offset < limit, clamped to [0, count]: the outputs a filter tap reaches.
std::pair<int64_t, int64_t> valid_range(int64_t offset, int64_t stride, int64_t limit,
                                        int64_t count) {
  int64_t begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t end = limit - offset <= 0 ? 0 : (limit - offset - 1) / stride + 1;
  begin = std::min(begin, count);
  end = std::clamp(end, begin, count);
  return {begin, end};
}

// Both convolutions read their operands the same way: input in NCHW and filter in one canonical
// layout (OIHW for conv2d, IOHW for convTranspose2d), as float, plus the optional bias.
struct ConvOperands {
  ConvOptions o;
  Conv2dGeometry in, og;
  FilterGeometry f;
  int64_t out_dims[4];
  std::vector<float> x, w, bias;
};

ConvOperands read_operands(const KernelArgs& args, bool transposed) {
  ConvOperands c;
  c.o = read_options(args.attrs());
  const ConstTensorView& input = args.input("input");
  const ConstTensorView& filter = args.input("filter");
  c.in = conv_input_geometry(input.shape, c.o.layout);
  c.f = conv_filter_geometry(filter.shape, c.o.filter_layout);
  c.og = conv_input_geometry(args.output().shape, c.o.layout);
  const int64_t in_dims[4] = {c.in.batch, c.in.channels, c.in.height, c.in.width};
  const int64_t oihw[4] = {c.f.output_channels, c.f.input_channels, c.f.height, c.f.width};
  const int64_t iohw[4] = {c.f.input_channels, c.f.output_channels, c.f.height, c.f.width};
  const int64_t out_dims[4] = {c.og.batch, c.og.channels, c.og.height, c.og.width};
  std::copy(out_dims, out_dims + 4, c.out_dims);
  c.x = to_canonical(read_values<float>(input), input.shape, c.o.layout, "nchw", in_dims);
  c.w = to_canonical(read_values<float>(filter), filter.shape, c.o.filter_layout,
                     transposed ? "iohw" : "oihw", transposed ? iohw : oihw);
  c.bias = read_optional_values<float>(args.optional_input("bias"));
  return c;
}

void conv2d(const KernelArgs& args) {
  if (fft_conv_taps(args) > 0) return conv2d_fft(args);
  const ConvOperands c = read_operands(args, false);
  const auto& [o, in, og, f, out_dims, x, w, bias] = c;
  const TensorView& out = args.output();
  const int64_t OH = og.height, OW = og.width, H = in.height, W = in.width;
  const int64_t out_per_group = f.output_channels / o.groups;
  const int64_t in_per_group = f.input_channels;
  const int64_t sh = o.strides[0], sw = o.strides[1], dh = o.dilations[0], dw = o.dilations[1];
  std::vector<double> result(size_t(og.batch * og.channels * OH * OW));
  std::vector<double> plane(size_t(OH * OW));
  for (int64_t n = 0; n < og.batch; ++n) {
    for (int64_t oc = 0; oc < og.channels; ++oc) {
      std::fill(plane.begin(), plane.end(), bias.empty() ? 0.0 : double(bias[size_t(oc)]));
      const int64_t g = oc / out_per_group;
      for (int64_t ic = 0; ic < in_per_group; ++ic) {
        const float* xc = &x[size_t((n * in.channels + g * in_per_group + ic) * H * W)];
        const float* wc = &w[size_t((oc * in_per_group + ic) * f.height * f.width)];
        for (int64_t kh = 0; kh < f.height; ++kh) {
          const auto [oh0, oh1] = valid_range(kh * dh - o.padding[0], sh, H, OH);
          for (int64_t kw = 0; kw < f.width; ++kw) {
            const double wv = wc[kh * f.width + kw];
            const int64_t offset_w = kw * dw - o.padding[2];
            const auto [ow0, ow1] = valid_range(offset_w, sw, W, OW);
            for (int64_t oh = oh0; oh < oh1; ++oh) {
              const float* row = xc + (oh * sh + kh * dh - o.padding[0]) * W;
              double* acc = &plane[size_t(oh * OW)];
              for (int64_t ow = ow0; ow < ow1; ++ow) {
                acc[ow] += wv * double(row[ow * sw + offset_w]);
              }
            }
          }
        }
      }
      std::copy(plane.begin(), plane.end(), result.begin() + (n * og.channels + oc) * OH * OW);
    }
  }
  write_from_nchw(out, result, o.layout, out_dims);
}

void conv_transpose2d(const KernelArgs& args) {
  const ConvOperands c = read_operands(args, true);
  const auto& [o, in, og, f, out_dims, x, w, bias] = c;
  const TensorView& out = args.output();
  const int64_t OH = og.height, OW = og.width, H = in.height, W = in.width;
  const int64_t out_per_group = f.output_channels;
  const int64_t in_per_group = in.channels / o.groups;
  const int64_t sh = o.strides[0], sw = o.strides[1], dh = o.dilations[0], dw = o.dilations[1];
  std::vector<double> result(size_t(og.batch * og.channels * OH * OW));
  std::vector<double> plane(size_t(OH * OW));
  for (int64_t n = 0; n < og.batch; ++n) {
    for (int64_t oc = 0; oc < og.channels; ++oc) {
      std::fill(plane.begin(), plane.end(), bias.empty() ? 0.0 : double(bias[size_t(oc)]));
      const int64_t g = oc / out_per_group;
      const int64_t oc_in_group = oc % out_per_group;
      for (int64_t i = 0; i < in_per_group; ++i) {
        const int64_t ic = g * in_per_group + i;
        const float* xc = &x[size_t((n * in.channels + ic) * H * W)];
        const float* wc = &w[size_t((ic * out_per_group + oc_in_group) * f.height * f.width)];
        // Input (ih, iw) scatters to output (ih * s + k * d - pad_begin, ...).
        for (int64_t kh = 0; kh < f.height; ++kh) {
          const int64_t offset_h = kh * dh - o.padding[0];
          for (int64_t kw = 0; kw < f.width; ++kw) {
            const double wv = wc[kh * f.width + kw];
            const int64_t offset_w = kw * dw - o.padding[2];
            for (int64_t ih = 0; ih < H; ++ih) {
              const int64_t oh = ih * sh + offset_h;
              if (oh < 0 || oh >= OH) continue;
              const float* row = xc + ih * W;
              double* acc = &plane[size_t(oh * OW)];
              for (int64_t iw = 0; iw < W; ++iw) {
                const int64_t ow = iw * sw + offset_w;
                if (ow >= 0 && ow < OW) acc[ow] += wv * double(row[iw]);
              }
            }
          }
        }
      }
      std::copy(plane.begin(), plane.end(), result.begin() + (n * og.channels + oc) * OH * OW);
    }
  }
  write_from_nchw(out, result, o.layout, out_dims);
}

}  // namespace

void conv(const KernelArgs& a) {
  switch (a.attrs().op()) {
    case OpKind::kConv2d:
      return conv2d(a);
    case OpKind::kConvTranspose2d:
      return conv_transpose2d(a);
    default:
      check_internal(false, "conv kernel got '{}'", a.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
