// Pooling (average, L2, max) and resample2d: 4-D spatial operators with a layout.
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

OpSchema pool(OpKind kind, std::string_view name, std::string_view doc, DataTypeSet dtypes) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "pool";
  s.doc = doc;
  s.args = {operand("input", dtypes).with_rank(4)};
  s.options = {
      opt_computed("windowDimensions", ParamKind::kIntList, "the input's height and width",
                   "[height, width]"),
      opt("padding", ParamKind::kIntList, IntList{0, 0, 0, 0},
          "[beginHeight, endHeight, beginWidth, endWidth]"),
      opt("strides", ParamKind::kIntList, IntList{1, 1}),
      opt("dilations", ParamKind::kIntList, IntList{1, 1}),
      opt_enum("layout", {"nchw", "nhwc"}, "nchw"),
      opt_enum("outputShapeRounding", {"floor", "ceil"}, "floor"),
      opt_computed("outputSizes", ParamKind::kIntList, "computed with outputShapeRounding",
                   "[height, width]; overrides outputShapeRounding"),
  };
  s.infer = [](const InferContext& ctx) {
    const auto& a = ctx.attrs();
    const auto& input = ctx.operand("input");
    const std::string& layout = a.get_enum("layout");
    const auto in = conv_input_geometry(input.shape, layout);
    IntList window =
        a.has("windowDimensions") ? a.get_ints("windowDimensions") : IntList{in.height, in.width};
    const IntList padding = a.get_ints("padding");
    const IntList strides = a.get_ints("strides");
    const IntList dilations = a.get_ints("dilations");
    require_length(window, 2, "windowDimensions");
    require_length(padding, 4, "padding");
    require_length(strides, 2, "strides");
    require_length(dilations, 2, "dilations");
    for (int64_t v : window) check(v >= 1, "windowDimensions must be at least 1, got {}", v);
    for (int64_t v : padding) check(v >= 0, "padding {} is negative", v);
    for (int64_t v : strides) check(v >= 1, "strides must be at least 1, got {}", v);
    for (int64_t v : dilations) check(v >= 1, "dilations must be at least 1, got {}", v);
    const int64_t sizes_in[2] = {in.height, in.width};
    int64_t out[2];
    for (int i = 0; i < 2; ++i) {
      const int64_t floor_size =
          conv_output_size(sizes_in[i], window[i], padding[2 * i], padding[2 * i + 1], strides[i],
                           dilations[i], false);
      const int64_t ceil_size =
          conv_output_size(sizes_in[i], window[i], padding[2 * i], padding[2 * i + 1], strides[i],
                           dilations[i], true);
      out[i] = a.get_enum("outputShapeRounding") == "ceil" ? ceil_size : floor_size;
      if (a.has("outputSizes")) {
        const IntList sizes = a.get_ints("outputSizes");
        require_length(sizes, 2, "outputSizes");
        check(sizes[i] == floor_size || sizes[i] == ceil_size,
              "outputSizes[{}] = {} must be {} (floor) or {} (ceil)", i, sizes[i], floor_size,
              ceil_size);
        out[i] = sizes[i];
      }
    }
    return std::vector<OperandDesc>{
        {input.dtype, conv_output_shape(layout, in.batch, in.channels, out[0], out[1])}};
  };
  return s;
}

}  // namespace

void register_pool(std::vector<OpSchema>& t) {
  t.push_back(pool(OpKind::kAveragePool2d, "averagePool2d",
                   "mean over each window; padded cells are not counted", dtypes::kFloat));
  t.push_back(pool(OpKind::kL2Pool2d, "l2Pool2d", "sqrt of the sum of squares over each window",
                   dtypes::kFloat));
  t.push_back(pool(OpKind::kMaxPool2d, "maxPool2d", "maximum over each window",
                   {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kUint8}));
  {
    OpSchema s;
    s.kind = OpKind::kResample2d;
    s.name = "resample2d";
    s.family = "pool";
    s.doc = "resize two axes by nearest-neighbor or linear sampling (half-pixel centres)";
    s.args = {operand("input", dtypes::kFloat).with_rank(4)};
    s.options = {
        opt_enum("mode", {"nearest-neighbor", "linear"}, "nearest-neighbor"),
        opt("scales", ParamKind::kFloatList, FloatList{1.0, 1.0}, "scale per resized axis"),
        opt_computed("sizes", ParamKind::kIntList, "computed from scales",
                     "output size per resized axis; overrides scales"),
        opt("axes", ParamKind::kIntList, IntList{2, 3}, "the two axes resized"),
    };
    s.infer = [](const InferContext& ctx) {
      const auto& a = ctx.attrs();
      const auto& input = ctx.operand("input");
      const IntList axes = a.get_ints("axes");
      require_length(axes, 2, "axes");
      for (int64_t ax : axes) require_axis(ax, 4, "axes entry");
      check(axes[0] != axes[1], "axes lists axis {} twice", axes[0]);
      Shape out = input.shape;
      if (a.has("sizes")) {
        const IntList sizes = a.get_ints("sizes");
        require_length(sizes, 2, "sizes");
        for (int i = 0; i < 2; ++i) {
          check(sizes[i] >= 1, "sizes must be positive, got {}", sizes[i]);
          out[size_t(axes[i])] = sizes[i];
        }
      } else {
        const FloatList scales = a.get_floats("scales");
        check(scales.size() == 2, "scales has {} entries (expected 2)", scales.size());
        for (int i = 0; i < 2; ++i) {
          check(scales[i] > 0 && std::isfinite(scales[i]), "scales must be positive, got {}",
                scales[i]);
          const double size = std::floor(double(input.shape[size_t(axes[i])]) * scales[i]);
          check(size >= 1 && size < double(kMaxElements), "scale {} gives output size {}",
                scales[i], size);
          out[size_t(axes[i])] = int64_t(size);
        }
      }
      return std::vector<OperandDesc>{{input.dtype, out}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
