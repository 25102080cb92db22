#include "wnn/passes/frame_strided_conv.h"

#include <map>
#include <optional>
#include <tuple>

#include "wnn/core/builder.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

// The geometry of a conv the pass rewrites.
struct Framing {
  int64_t batch, length, stride, taps, frames, out_channels;
  OperandId input, filter;
  std::optional<OperandId> bias;
};

std::optional<Framing> match(const Graph& g, const Node& n) {
  if (n.op() != OpKind::kConv2d) return std::nullopt;
  const auto& a = n.attrs;
  if (a.get_enum("inputLayout") != "nchw" || a.get_enum("filterLayout") != "oihw" ||
      a.get_int("groups") != 1)
    return std::nullopt;
  const OperandId input = *a.get_operand("input"), filter = *a.get_operand("filter");
  const auto& x = g.desc(input);
  const auto& w = g.desc(filter);
  const auto& y = g.desc(n.outputs[0]);
  if (x.dtype != DataType::kFloat32 || w.dtype != DataType::kFloat32 || x.shape.size() != 4 ||
      w.shape.size() != 4 || x.shape[1] != 1 || x.shape[2] != 1 || w.shape[1] != 1 ||
      w.shape[2] != 1)
    return std::nullopt;
  const ConstantInfo* c =
      g.operand(filter).kind == OperandKind::kConstant ? g.constant_of(filter) : nullptr;
  if (c == nullptr || !c->bound()) return std::nullopt;
  const auto st = a.get_ints("strides"), dil = a.get_ints("dilations"), pad = a.get_ints("padding");
  if (st[0] != 1 || st[1] < 2 || dil[0] != 1 || dil[1] != 1) return std::nullopt;
  for (int64_t p : pad) {
    if (p != 0) return std::nullopt;
  }
  Framing f{x.shape[0], x.shape[3], st[1], w.shape[3], y.shape[3], w.shape[0], input, filter, {}};
  if (f.taps < kMinFramedTaps || f.length < f.taps || f.frames < 1) return std::nullopt;
  if (auto bias = a.get_operand("bias")) {
    if (g.desc(*bias).dtype != DataType::kFloat32) return std::nullopt;
    f.bias = *bias;
  }
  return f;
}

// The filter [O, 1, 1, K] as the matmul's [K, O] operand.
Tensor transposed_filter(const Graph& g, const Framing& f) {
  const auto* w = reinterpret_cast<const float*>(g.constant_of(f.filter)->data.data());
  Tensor t = Tensor::zeros(DataType::kFloat32, {f.taps, f.out_channels});
  float* out = t.mutable_view().as<float>();
  for (int64_t o = 0; o < f.out_channels; ++o) {
    for (int64_t k = 0; k < f.taps; ++k) out[k * f.out_channels + o] = w[o * f.taps + k];
  }
  return t;
}

// frames[n, f, k] = x[n, 0, 0, f * s + k] as [N * F, K]: x as rows of s samples, then the q = K / s
// whole rows and the first K mod s samples of the next one at each frame, side by side. Rows
// past the signal's end are zero padding; only taps past K would read them, and none do.
OperandId frames_of(GraphBuilder& b, const Graph& g, OperandId x, const Framing& f) {
  const int64_t q = f.taps / f.stride, r = f.taps % f.stride;
  const int64_t rows = f.frames + q - (r == 0 ? 1 : 0), used = rows * f.stride;
  if (f.length > used) {
    x = b.add1(OpKind::kSlice, {x, IntList{0, 0, 0, 0}, IntList{f.batch, 1, 1, used}}, {},
               fresh_name(g, b, "signal"));
  } else if (f.length < used) {
    x = b.add1(OpKind::kPad, {x, IntList{0, 0, 0, 0}, IntList{0, 0, 0, used - f.length}}, {},
               fresh_name(g, b, "signal"));
  }
  const OperandId grid = b.add1(OpKind::kReshape, {x, IntList{f.batch, rows, f.stride}}, {},
                                fresh_name(g, b, "signal_rows"));
  std::vector<OperandId> pieces;
  for (int64_t j = 0; j < q; ++j) {
    pieces.push_back(b.add1(OpKind::kSlice,
                            {grid, IntList{0, j, 0}, IntList{f.batch, f.frames, f.stride}}, {},
                            fresh_name(g, b, "frame_part")));
  }
  if (r > 0) {
    pieces.push_back(b.add1(OpKind::kSlice, {grid, IntList{0, q, 0}, IntList{f.batch, f.frames, r}},
                            {}, fresh_name(g, b, "frame_part")));
  }
  const OperandId frames =
      pieces.size() == 1
          ? pieces[0]
          : b.add1(OpKind::kConcat, {RawValue(pieces), int64_t(2)}, {}, fresh_name(g, b, "frames"));
  // As one [N * F, K] matrix: XNNPACK's matmul takes 2-D operands only.
  return b.add1(OpKind::kReshape, {frames, IntList{f.batch * f.frames, f.taps}}, {},
                fresh_name(g, b, "frame_rows"));
}

// The value `id` reshapes (through any chain of reshapes): convs whose inputs are reshapes of
// one signal (each Conv1d's import lifts its own) share one set of frames.
uint32_t reshaped_source(const Graph& g, OperandId id) {
  for (;;) {
    const auto& op = g.operand(id);
    if (op.kind != OperandKind::kNodeOutput) return id.index;
    const Node& p = g.nodes()[op.producer];
    if (p.op() != OpKind::kReshape) return id.index;
    id = p.inputs[0];
  }
}

}  // namespace

StridedConvFraming frame_strided_convs(const Graph& graph) {
  const Graph& g = graph;
  PatternRewriter rw(g);
  // Frames already emitted, per signal and geometry: the rewritten convs of one signal share them.
  using Key = std::tuple<uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
  auto frames = std::make_shared<std::map<Key, OperandId>>();
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const auto f = match(g, g.nodes()[n]);
    if (!f || !rw.claim({n})) continue;
    // The filter is not read: it becomes a transposed copy (unless others read it too).
    Replacement r;
    r.reads = {f->input};
    if (f->bias) r.reads.push_back(*f->bias);
    r.emit = [&g, f = *f, frames](GraphBuilder& b, const auto& map, const std::string& name) {
      const auto fresh = [&](const std::string& base) { return fresh_name(g, b, base); };
      const Key key{reshaped_source(g, f.input), f.batch, f.length, f.stride, f.taps, f.frames};
      auto it = frames->find(key);
      if (it == frames->end()) it = frames->emplace(key, frames_of(b, g, map(f.input), f)).first;
      const OperandId w = b.constant(fresh(name + "_filter_kxo"), transposed_filter(g, f));
      // [N * F, O], then [N, F, O] and [N, O, 1, F].
      OperandId y = b.add1(OpKind::kMatmul, {it->second, w}, {}, fresh(name + "_frames_by_filter"));
      if (f.bias) y = b.add1(OpKind::kAdd, {y, map(*f.bias)}, {}, fresh(name + "_biased"));
      y = b.add1(OpKind::kReshape, {y, IntList{f.batch, f.frames, f.out_channels}}, {},
                 fresh(name + "_fo"));
      y = b.add1(OpKind::kTranspose, {y}, {{"permutation", IntList{0, 2, 1}}},
                 fresh(name + "_ocf"));
      return b.add1(OpKind::kReshape, {y, IntList{f.batch, f.out_channels, 1, f.frames}}, {}, name);
    };
    rw.replace(n, std::move(r));
  }
  return rw.finish();
}

}  // namespace wnn::passes
