// conv2d and convTranspose2d: layouts, padding [beginH, endH, beginW, endW], strides,
// dilations, groups, output padding and sizes, exactly as the WebNN spec infers them.
#include "wnn/core/ops/conv.h"

#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn {

Conv2dGeometry conv_input_geometry(std::span<const int64_t> input, std::string_view layout) {
  check(input.size() == 4, "input must have rank 4, has rank {}", input.size());
  if (layout == "nhwc") return {input[0], input[3], input[1], input[2]};
  return {input[0], input[1], input[2], input[3]};
}

FilterGeometry conv_filter_geometry(std::span<const int64_t> filter, std::string_view layout) {
  check(filter.size() == 4, "filter must have rank 4, has rank {}", filter.size());
  // Each layout names the position of O, I, H and W.
  if (layout == "oihw" || layout == "") return {filter[0], filter[1], filter[2], filter[3]};
  if (layout == "hwio") return {filter[3], filter[2], filter[0], filter[1]};
  if (layout == "ohwi") return {filter[0], filter[3], filter[1], filter[2]};
  if (layout == "ihwo") return {filter[3], filter[0], filter[1], filter[2]};
  if (layout == "iohw") return {filter[1], filter[0], filter[2], filter[3]};
  if (layout == "hwoi") return {filter[2], filter[3], filter[0], filter[1]};
  fail("unknown filter layout '{}'", layout);
}

Shape conv_output_shape(std::string_view layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (layout == "nhwc") return {n, h, w, c};
  return {n, c, h, w};
}

int64_t conv_output_size(int64_t input, int64_t filter, int64_t pad_begin, int64_t pad_end,
                         int64_t stride, int64_t dilation, bool ceil_rounding) {
  const int64_t effective = (filter - 1) * dilation + 1;
  const int64_t span = input + pad_begin + pad_end - effective;
  check(span >= 0, "the effective filter size {} exceeds the padded input size {}", effective,
        input + pad_begin + pad_end);
  const int64_t q = ceil_rounding ? (span + stride - 1) / stride : span / stride;
  return q + 1;
}

namespace ops {

using namespace schema;

namespace {

struct ConvParams {
  IntList padding, strides, dilations;
  int64_t groups;
};

ConvParams read_conv_params(const Attributes& a) {
  ConvParams p{a.get_ints("padding"), a.get_ints("strides"), a.get_ints("dilations"),
               a.get_int("groups")};
  require_length(p.padding, 4, "padding");
  require_length(p.strides, 2, "strides");
  require_length(p.dilations, 2, "dilations");
  for (int64_t v : p.padding) check(v >= 0, "padding {} is negative", v);
  for (int64_t v : p.strides) check(v >= 1, "strides must be at least 1, got {}", v);
  for (int64_t v : p.dilations) check(v >= 1, "dilations must be at least 1, got {}", v);
  check(p.groups >= 1, "groups must be at least 1, got {}", p.groups);
  return p;
}

void check_bias(const InferContext& ctx, int64_t out_channels) {
  if (const auto bias = ctx.optional_operand("bias")) {
    check(bias->shape == Shape{out_channels}, "bias must have shape [{}], has {}", out_channels,
          shape_to_string(bias->shape));
  }
}

std::vector<ParamSpec> conv_common_options() {
  return {opt("padding", ParamKind::kIntList, IntList{0, 0, 0, 0},
              "[beginHeight, endHeight, beginWidth, endWidth]"),
          opt("strides", ParamKind::kIntList, IntList{1, 1}, "[height, width]"),
          opt("dilations", ParamKind::kIntList, IntList{1, 1}, "[height, width]")};
}

}  // namespace

void register_conv(std::vector<OpSchema>& t) {
  const DataTypeSet fl = dtypes::kFloat;
  {
    OpSchema s;
    s.kind = OpKind::kConv2d;
    s.name = "conv2d";
    s.family = "conv";
    s.doc = "2-D convolution";
    s.args = {operand("input", fl).with_rank(4), operand("filter", fl).with_rank(4)};
    s.options = conv_common_options();
    s.options.push_back(opt("groups", ParamKind::kInt, int64_t(1)));
    s.options.push_back(opt_enum("inputLayout", {"nchw", "nhwc"}, "nchw"));
    s.options.push_back(opt_enum("filterLayout", {"oihw", "hwio", "ohwi", "ihwo"}, "oihw"));
    s.options.push_back(opt_operand("bias", fl, "1-D [outputChannels]").with_rank(1));
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "filter", "bias"});
      const auto& a = ctx.attrs();
      const ConvParams p = read_conv_params(a);
      const auto in = conv_input_geometry(ctx.operand("input").shape, a.get_enum("inputLayout"));
      const auto f = conv_filter_geometry(ctx.operand("filter").shape, a.get_enum("filterLayout"));
      check(in.channels % p.groups == 0, "groups {} does not divide the {} input channels",
            p.groups, in.channels);
      check(in.channels / p.groups == f.input_channels,
            "input has {} channels, but filter expects {} per group x {} groups", in.channels,
            f.input_channels, p.groups);
      check(f.output_channels % p.groups == 0, "groups {} does not divide the {} output channels",
            p.groups, f.output_channels);
      check_bias(ctx, f.output_channels);
      const int64_t oh = conv_output_size(in.height, f.height, p.padding[0], p.padding[1],
                                          p.strides[0], p.dilations[0], false);
      const int64_t ow = conv_output_size(in.width, f.width, p.padding[2], p.padding[3],
                                          p.strides[1], p.dilations[1], false);
      return std::vector<OperandDesc>{
          {ctx.operand("input").dtype,
           conv_output_shape(a.get_enum("inputLayout"), in.batch, f.output_channels, oh, ow)}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kConvTranspose2d;
    s.name = "convTranspose2d";
    s.family = "conv";
    s.doc = "2-D transposed convolution";
    s.args = {operand("input", fl).with_rank(4), operand("filter", fl).with_rank(4)};
    s.options = conv_common_options();
    s.options.push_back(opt("outputPadding", ParamKind::kIntList, IntList{0, 0},
                            "extra rows and columns at the end, each < stride"));
    s.options.push_back(opt_computed("outputSizes", ParamKind::kIntList,
                                     "computed from the other options", "[height, width]"));
    s.options.push_back(opt("groups", ParamKind::kInt, int64_t(1)));
    s.options.push_back(opt_enum("inputLayout", {"nchw", "nhwc"}, "nchw"));
    s.options.push_back(opt_enum("filterLayout", {"iohw", "hwoi", "ohwi"}, "iohw"));
    s.options.push_back(opt_operand("bias", fl, "1-D [outputChannels]").with_rank(1));
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "filter", "bias"});
      const auto& a = ctx.attrs();
      const ConvParams p = read_conv_params(a);
      const auto in = conv_input_geometry(ctx.operand("input").shape, a.get_enum("inputLayout"));
      const auto f = conv_filter_geometry(ctx.operand("filter").shape, a.get_enum("filterLayout"));
      check(in.channels % p.groups == 0, "groups {} does not divide the {} input channels",
            p.groups, in.channels);
      check(in.channels == f.input_channels,
            "input has {} channels, but the filter's input-channel dimension is {}", in.channels,
            f.input_channels);
      const int64_t out_channels = f.output_channels * p.groups;
      check_bias(ctx, out_channels);
      const IntList out_pad = a.get_ints("outputPadding");
      require_length(out_pad, 2, "outputPadding");
      int64_t size[2];
      const int64_t in_size[2] = {in.height, in.width};
      const int64_t k[2] = {f.height, f.width};
      for (int i = 0; i < 2; ++i) {
        check(out_pad[i] >= 0 && out_pad[i] < p.strides[i],
              "outputPadding {} must be in [0, stride {})", out_pad[i], p.strides[i]);
        const int64_t effective = (k[i] - 1) * p.dilations[i] + 1;
        size[i] =
            (in_size[i] - 1) * p.strides[i] + effective - p.padding[2 * i] - p.padding[2 * i + 1];
        check(size[i] > 0, "output size {} is not positive", size[i]);
      }
      if (a.has("outputSizes")) {
        const IntList sizes = a.get_ints("outputSizes");
        require_length(sizes, 2, "outputSizes");
        for (int i = 0; i < 2; ++i) {
          check(sizes[i] >= size[i] && sizes[i] < size[i] + p.strides[i],
                "outputSizes[{}] = {} must be in [{}, {})", i, sizes[i], size[i],
                size[i] + p.strides[i]);
          size[i] = sizes[i];
        }
      } else {
        size[0] += out_pad[0];
        size[1] += out_pad[1];
      }
      return std::vector<OperandDesc>{
          {ctx.operand("input").dtype,
           conv_output_shape(a.get_enum("inputLayout"), in.batch, out_channels, size[0], size[1])}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace ops
}  // namespace wnn
