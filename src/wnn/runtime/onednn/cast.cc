// cast from a small integer type to float32 as a oneDNN reorder, which converts exactly (every
// int8, uint8 and int32 rounds to nearest as a static_cast does). It keeps a quantized model's
// uint8 codes inside the region, so that an int8 conv reading them (integer_conv.h) takes them
// as they are; a cast read by nothing else is folded away.
#include <fmt/format.h>

#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

namespace {

Support cast_supports(const Graph& g, const Node& n) {
  const DataType from = g.desc(n.inputs[0]).dtype, to = g.desc(n.outputs[0]).dtype;
  const bool exact =
      from == DataType::kUint8 || from == DataType::kInt8 || from == DataType::kInt32;
  if (to != DataType::kFloat32 || !exact) {
    return Support::no(fmt::format("cast from {} to {} (only int8, uint8 and int32 to float32)",
                                   dtype_name(from), dtype_name(to)));
  }
  return Support::yes();
}

void define_cast(RegionBuilder& b, const Node& n) {
  const dnnl::memory in = b.get(n.inputs[0], b.plain_desc(n.inputs[0]));
  const dnnl::memory out = b.define_output(n.outputs[0], b.plain_desc(n.outputs[0]));
  b.add_step(dnnl::reorder(in, out), {{DNNL_ARG_FROM, in}, {DNNL_ARG_TO, out}});
}

}  // namespace

void register_cast(Table& t) { t[size_t(OpKind::kCast)] = {cast_supports, define_cast}; }

}  // namespace wnn::runtime::onednn
