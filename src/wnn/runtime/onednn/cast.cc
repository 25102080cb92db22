// cast as a oneDNN reorder where the conversion is exact: from int8, uint8 and int32 to
// float32 (every such value rounds to nearest as a static_cast does), and from float32 to an
// integer type where the value is provably an integer in range (a quantized model's int32
// product, its codes clamped to [0, 255]), so that rounding and saturation never act. It keeps a
// quantized model's data inside the region: the uint8 codes an int8 conv reads
// (integer_conv.h), its int32 result.
#include <fmt/format.h>
#include <omp.h>

#include "wnn/passes/integer_valued.h"
#include "wnn/passes/pattern_match.h"
#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

// An integer product carried in float32: a conv2d of an integer-valued input and filter, or a
// matmul of integer-valued operands. Its float32 sum of integers is an integer whatever its
// rounding (every float32 past 2^24 is one).
bool integer_product(const Graph& g, OperandId id) {
  const Node* p = passes::producer(g, id);
  if (p && p->op() == OpKind::kMatmul) {
    return passes::integer_valued(g, *p->attrs.get_operand("a")) &&
           passes::integer_valued(g, *p->attrs.get_operand("b"));
  }
  return p && p->op() == OpKind::kConv2d && !p->attrs.get_operand("bias") &&
         passes::integer_valued(g, *p->attrs.get_operand("input")) &&
         passes::integer_valued(g, *p->attrs.get_operand("filter"));
}

// A clamp to [0, 255] of an integer-valued operand (DynamicQuantizeLinear's codes), or the
// rounding of a clamp to [0, 255] (its zero point, roundEven(clamp(-min / scale, 0, 255))).
bool uint8_codes(const Graph& g, OperandId id) {
  const Node* p = passes::producer(g, id);
  const bool rounded =
      p && (p->op() == OpKind::kRoundEven || p->op() == OpKind::kFloor || p->op() == OpKind::kCeil);
  if (rounded) p = passes::producer(g, p->inputs[0]);
  return p && p->op() == OpKind::kClamp && p->attrs.get_float("minValue") >= 0 &&
         p->attrs.get_float("maxValue") <= 255 &&
         (rounded || passes::integer_valued(g, p->inputs[0]));
}

Support cast_supports(const Graph& g, const Node& n) {
  const OperandId in = n.inputs[0];
  const DataType from = g.desc(in).dtype, to = g.desc(n.outputs[0]).dtype;
  if (to == DataType::kFloat32 &&
      (from == DataType::kUint8 || from == DataType::kInt8 || from == DataType::kInt32))
    return Support::yes();
  if (from == DataType::kFloat32 && to == DataType::kInt32 && integer_product(g, in))
    return Support::yes();
  if (from == DataType::kFloat32 && to == DataType::kUint8 && uint8_codes(g, in))
    return Support::yes();
  return Support::no(fmt::format(
      "cast from {} to {} (only int8, uint8 and int32 to float32, and float32 that is a conv or "
      "matmul of integers to int32 or a clamp of integers to [0, 255] to uint8)",
      dtype_name(from), dtype_name(to)));
}

void define_cast(RegionBuilder& b, const Node& n) {
  const dnnl::memory in = b.get(n.inputs[0], b.plain_desc(n.inputs[0]));
  const dnnl::memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  const Graph& g = b.graph();
  if (g.desc(n.inputs[0]).dtype == DataType::kFloat32 &&
      g.desc(n.outputs[0]).dtype == DataType::kUint8) {
    // Integers in [0, 255] (cast_supports): a plain conversion. oneDNN's f32 -> u8 reorder
    // runs rnn_data_reorder, 1.5 ms for minilm_int8's [128, 1536] codes (7.5 ns an element).
    const int64_t count = element_count(g.desc(n.inputs[0]).shape);
    const int threads = omp_get_max_threads();
    b.add_function_step(
        [=] {
          const auto* x = static_cast<const float*>(in.get_data_handle());
          auto* y = static_cast<uint8_t*>(out.get_data_handle());
#pragma omp parallel for num_threads(threads) schedule(static) if (count > 16384)
          for (int64_t i = 0; i < count; ++i) y[i] = x[i] > 0 ? uint8_t(x[i]) : uint8_t(0);
        },
        "cast to uint8", "wnn:cast");
    return;
  }
  b.add_step(dnnl::reorder(in, out), {{DNNL_ARG_FROM, in}, {DNNL_ARG_TO, out}});
}

}  // namespace

void register_cast(Table& t) { t[size_t(OpKind::kCast)] = {cast_supports, define_cast}; }

}  // namespace wnn::runtime::onednn
