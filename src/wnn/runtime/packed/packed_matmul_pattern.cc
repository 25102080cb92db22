#include "wnn/runtime/packed/packed_matmul_pattern.h"

#include <algorithm>
#include <limits>

#include "wnn/passes/pattern_match.h"

namespace wnn::runtime::packed {

namespace {

using passes::producer;

uint32_t index_of(const Graph& g, const Node* n) { return uint32_t(n - g.nodes().data()); }

bool is_constant(const Graph& g, OperandId id) {
  return g.operand(id).kind == OperandKind::kConstant && g.constant_of(id)->bound();
}

bool all_zero_bytes(const Graph& g, OperandId id) {
  const Buffer& b = g.constant_of(id)->data;
  return std::all_of(b.data(), b.data() + b.size(), [](std::byte x) { return x == std::byte{0}; });
}

// A slice taking [0, 0] .. `sizes` of a rank-2 value, unit strides.
bool is_leading_slice(const Node& s) {
  const IntList starts = s.attrs.get_ints("starts"), strides = s.attrs.get_ints("strides");
  return starts == IntList{0, 0} &&
         std::all_of(strides.begin(), strides.end(), [](int64_t v) { return v == 1; });
}

// A zero point: a constant of the weight's dtype and scale's shape, or expand(one-element
// constant).
bool match_zero_point(const Graph& g, OperandId z, const OperandDesc& scale_desc, DataType dtype,
                      PackedMatmulPattern& p) {
  if (g.desc(z).dtype != dtype || g.desc(z).shape != scale_desc.shape) return false;
  if (is_constant(g, z)) {
    // One value everywhere (an expanded scalar, folded into a constant) is the kernel's uniform
    // zero point: no per-block zero points to read. uint4 and uint8 are held one per byte.
    const Buffer& b = g.constant_of(z)->data;
    const bool uniform = b.size() > 0 && std::all_of(b.data(), b.data() + b.size(),
                                                     [&](std::byte x) { return x == b.data()[0]; });
    if (uniform) {
      p.uniform_zero = int(std::to_integer<uint8_t>(b.data()[0]));
    } else {
      p.zero_point = z;
    }
    return true;
  }
  const Node* e = producer(g, z, OpKind::kExpand);
  if (!e || !is_constant(g, e->inputs[0]) || element_count(g.desc(e->inputs[0]).shape) != 1) {
    return false;
  }
  p.uniform_zero = int(element_as_int64(
      {dtype, g.desc(e->inputs[0]).shape, g.constant_of(e->inputs[0])->data.data()}, 0));
  p.nodes.push_back(index_of(g, e));
  return true;
}

// The accuracy_level 4 form in front of the gemm's A (onnx/ops/quantized_matmul.cc,
// block_quantized_activation); on a match, p.a is the float A it quantizes.
bool match_int8_activations(const Graph& g, OperandId a, PackedMatmulPattern& p) {
  std::vector<uint32_t> nodes;
  const int64_t kp = p.blocks * p.block;
  OperandId v = a;
  if (kp != p.k) {
    const Node* s = producer(g, v, OpKind::kSlice);
    if (!s || !is_leading_slice(*s)) return false;
    nodes.push_back(index_of(g, s));
    v = s->inputs[0];
  }
  const Node* flat = producer(g, v, OpKind::kReshape);
  if (!flat || g.desc(v).shape != Shape{p.m, kp}) return false;
  const Node* dq = producer(g, flat->inputs[0], OpKind::kDequantizeLinear);
  if (!dq) return false;
  const Node* q = producer(g, dq->inputs[0], OpKind::kQuantizeLinear);
  if (!q || q->inputs[1] != dq->inputs[1] || q->inputs[2] != dq->inputs[2]) return false;
  const OperandId x3 = q->inputs[0], scale = q->inputs[1], zero = q->inputs[2];
  if (g.desc(x3).shape != Shape{p.m, p.blocks, p.block} || g.desc(x3).dtype != DataType::kFloat32 ||
      g.desc(zero).dtype != DataType::kInt8) {
    return false;
  }
  if (is_constant(g, zero)) {
    if (!all_zero_bytes(g, zero)) return false;
  } else {
    const Node* e = producer(g, zero, OpKind::kExpand);
    if (!e || !is_constant(g, e->inputs[0]) || !all_zero_bytes(g, e->inputs[0])) return false;
    nodes.push_back(index_of(g, e));
  }
  const Node* lower = producer(g, scale, OpKind::kMax);
  if (!lower) return false;
  const OperandId quotient = lower->inputs[0];
  if (!passes::near(passes::scalar_constant(g, lower->inputs[1]),
                    double(std::numeric_limits<float>::min()))) {
    return false;
  }
  const Node* div = producer(g, quotient, OpKind::kDiv);
  if (!div || !passes::near(passes::scalar_constant(g, div->inputs[1]), 127)) return false;
  const Node* rmax = producer(g, div->inputs[0], OpKind::kReduceMax);
  if (!rmax || rmax->attrs.get_ints("axes") != IntList{2} ||
      !rmax->attrs.get_bool("keepDimensions")) {
    return false;
  }
  const Node* abs = producer(g, rmax->inputs[0], OpKind::kAbs);
  if (!abs || abs->inputs[0] != x3) return false;
  const Node* split = producer(g, x3, OpKind::kReshape);
  if (!split) return false;
  OperandId x = split->inputs[0];
  if (kp != p.k) {
    const Node* pad = producer(g, x, OpKind::kPad);
    if (!pad || pad->attrs.get_ints("beginningPadding") != IntList{0, 0} ||
        pad->attrs.get_ints("endingPadding") != IntList{0, kp - p.k} ||
        pad->attrs.get_enum("mode") != "constant" || pad->attrs.get_float("value") != 0.0) {
      return false;
    }
    nodes.push_back(index_of(g, pad));
    x = pad->inputs[0];
  }
  if (g.desc(x).shape != Shape{p.m, p.k} || g.desc(x).dtype != DataType::kFloat32) return false;
  for (const Node* n : {flat, dq, q, lower, div, rmax, abs, split}) nodes.push_back(index_of(g, n));
  p.nodes.insert(p.nodes.end(), nodes.begin(), nodes.end());
  p.a = x;
  p.int8_activations = true;
  return true;
}

std::optional<PackedMatmulPattern> match_structure(const Graph& g, uint32_t gemm);

// Whether every value a pattern node computes, but the gemm's result, is read only inside it, or
// by another pattern's gemm whose pattern holds the same node: gemms reading one A share its
// activation quantization (after passes/share_values), and each kernel quantizes A itself. That
// other pattern must keep its own values inside too (checked one level deep: its readers' own
// patterns are then only matched), or its gemm would run elsewhere and read a value no kernel
// computed.
bool inner_values_stay_inside(const Graph& g, const PackedMatmulPattern& p, int depth = 0) {
  const auto readers = passes::readers_of(g);
  for (uint32_t n : p.nodes) {
    if (n == p.gemm) continue;
    for (OperandId out : g.nodes()[n].outputs) {
      if (g.is_output(out)) return false;
      for (uint32_t r : readers[out.index]) {
        if (std::binary_search(p.nodes.begin(), p.nodes.end(), r)) continue;
        if (g.nodes()[r].op() != OpKind::kGemm) return false;
        const auto other = match_structure(g, r);
        if (!other || !other->int8_activations ||
            !std::binary_search(other->nodes.begin(), other->nodes.end(), n) ||
            (depth == 0 && !inner_values_stay_inside(g, *other, 1))) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

namespace {

// The pattern's ops, shapes and constants, whoever else reads its values.
std::optional<PackedMatmulPattern> match_structure(const Graph& g, uint32_t gemm) {
  const Node& mm = g.nodes()[gemm];
  if (mm.op() != OpKind::kGemm || !mm.attrs.get_bool("bTranspose") ||
      mm.attrs.get_bool("aTranspose") || mm.attrs.get_float("alpha") != 1.0 ||
      mm.attrs.get_float("beta") != 1.0) {
    return std::nullopt;
  }
  PackedMatmulPattern p;
  p.gemm = gemm;
  p.nodes.push_back(gemm);
  const OperandDesc& y = g.desc(mm.outputs[0]);
  if (y.dtype != DataType::kFloat32) return std::nullopt;
  p.m = y.shape[0];
  p.n = y.shape[1];
  p.k = g.desc(mm.inputs[0]).shape[1];
  OperandId b = mm.inputs[1];
  if (const Node* s = producer(g, b, OpKind::kSlice)) {
    if (!is_leading_slice(*s)) return std::nullopt;
    p.nodes.push_back(index_of(g, s));
    b = s->inputs[0];
  }
  const Node* dq = producer(g, b, OpKind::kDequantizeLinear);
  if (!dq) return std::nullopt;
  p.nodes.push_back(index_of(g, dq));
  p.weight = dq->inputs[0];
  p.scale = dq->inputs[1];
  const OperandDesc& w = g.desc(p.weight);
  const OperandDesc& s = g.desc(p.scale);
  if ((w.dtype != DataType::kUint4 && w.dtype != DataType::kUint8) || w.shape.size() != 2 ||
      !is_constant(g, p.weight) || s.dtype != DataType::kFloat32 || !is_constant(g, p.scale) ||
      s.shape.size() != 2 || w.shape[0] != p.n || s.shape[0] != p.n || s.shape[1] < 1 ||
      w.shape[1] % s.shape[1] != 0) {
    return std::nullopt;
  }
  p.bits = w.dtype == DataType::kUint4 ? 4 : 8;
  p.blocks = s.shape[1];
  p.block = w.shape[1] / p.blocks;
  // The kernels walk blocks in steps of 16 elements; K pads at most the last block.
  if (p.block % 16 != 0 || p.k > w.shape[1] || w.shape[1] - p.k >= p.block) return std::nullopt;
  if (!match_zero_point(g, dq->inputs[2], s, w.dtype, p)) return std::nullopt;
  if (mm.inputs.size() > 2) {
    const OperandDesc& c = g.desc(mm.inputs[2]);
    if (c.dtype != DataType::kFloat32 || (c.shape != Shape{p.n} && c.shape != Shape{1, p.n})) {
      return std::nullopt;
    }
    p.bias = mm.inputs[2];
  }
  if (!match_int8_activations(g, mm.inputs[0], p)) p.a = mm.inputs[0];
  if (g.desc(p.a).dtype != DataType::kFloat32) return std::nullopt;
  std::sort(p.nodes.begin(), p.nodes.end());
  return p;
}

}  // namespace

std::optional<PackedMatmulPattern> match_packed_matmul(const Graph& g, uint32_t gemm) {
  auto p = match_structure(g, gemm);
  if (!p || !inner_values_stay_inside(g, *p)) return std::nullopt;
  return p;
}

std::optional<PackedMatmulPattern> pattern_containing(const Graph& g, uint32_t node) {
  const auto nodes = g.nodes();
  // The longest way from a pattern node to its gemm is the accuracy_level 4 form's pad ..
  // slice chain (10 nodes).
  uint32_t at = node;
  for (int step = 0; step < 12 && nodes[at].op() != OpKind::kGemm; ++step) {
    if (nodes[at].outputs.size() != 1 || g.is_output(nodes[at].outputs[0])) return std::nullopt;
    const OperandId out = nodes[at].outputs[0];
    std::optional<uint32_t> reader;
    for (uint32_t r = at + 1; r < nodes.size(); ++r) {
      if (std::find(nodes[r].inputs.begin(), nodes[r].inputs.end(), out) == nodes[r].inputs.end()) {
        continue;
      }
      // The activation quantization's scale and input each have two readers, both inside:
      // follow the later one (the gemm side), since the pattern is matched from the gemm anyway.
      reader = r;
    }
    if (!reader) return std::nullopt;
    at = *reader;
  }
  if (nodes[at].op() != OpKind::kGemm) return std::nullopt;
  auto p = match_packed_matmul(g, at);
  if (!p || !std::binary_search(p->nodes.begin(), p->nodes.end(), node)) return std::nullopt;
  return p;
}

}  // namespace wnn::runtime::packed
