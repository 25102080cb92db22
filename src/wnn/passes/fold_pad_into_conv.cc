#include "wnn/passes/fold_pad_into_conv.h"

#include <optional>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

// The conv padding [top, bottom, left, right] `pad` adds, when it is a zero pad of the spatial
// dims of a conv input in `layout`.
std::optional<IntList> spatial_zero_padding(const Node& pad, const std::string& layout) {
  const auto& a = pad.attrs;
  if (a.get_enum("mode") != "constant" || a.get_float("value") != 0.0) return std::nullopt;
  const IntList begin = a.get_ints("beginningPadding"), end = a.get_ints("endingPadding");
  if (begin.size() != 4 || end.size() != 4) return std::nullopt;
  const size_t h = layout == "nchw" ? 2 : 1, w = h + 1, c = layout == "nchw" ? 1 : 3;
  for (size_t d : {size_t(0), c}) {
    if (begin[d] != 0 || end[d] != 0) return std::nullopt;
  }
  for (int64_t p : {begin[h], end[h], begin[w], end[w]}) {
    if (p < 0) return std::nullopt;
  }
  return IntList{begin[h], end[h], begin[w], end[w]};
}

}  // namespace

PadFolding fold_pads_into_convs(const Graph& graph) {
  const Graph& g = graph;
  const Uses u = uses_of(g);
  PatternRewriter rw(g);
  // Per operand, its readers once the folded convs read the pads' inputs instead.
  std::vector<int> readers_left(u.count.begin(), u.count.end());
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& conv = g.nodes()[n];
    if (conv.op() != OpKind::kConv2d) continue;
    const OperandId padded = *conv.attrs.get_operand("input");
    const Node* pad = producer(g, padded);
    if (!pad || pad->op() != OpKind::kPad || g.desc(padded).dtype != DataType::kFloat32) continue;
    const auto extra = spatial_zero_padding(*pad, conv.attrs.get_enum("inputLayout"));
    if (!extra || !rw.claim({n})) continue;
    IntList padding = conv.attrs.get_ints("padding");
    for (size_t k = 0; k < 4; ++k) padding[k] += (*extra)[k];
    Node copy = conv;
    copy.attrs.set(*copy.attrs.schema().find_param("padding"), padding);
    copy.attrs.set(*copy.attrs.schema().find_param("input"), pad->inputs[0]);
    rw.replace(n, {copy.attrs.operands(),
                   [&g, copy](GraphBuilder& b, const auto& map, const std::string&) {
                     return copy_node(g, copy, map, b)[0];
                   }});
    // A pad nothing reads any more goes (graph outputs count as readers in uses_of).
    if (--readers_left[padded.index] == 0) rw.drop(rw.index(pad));
  }
  return rw.finish();
}

}  // namespace wnn::passes
