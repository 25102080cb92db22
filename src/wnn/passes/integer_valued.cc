#include "wnn/passes/integer_valued.h"

#include <cmath>

#include "wnn/core/tensor.h"

namespace wnn::passes {
namespace {

bool integer_constant(const Graph& g, OperandId id) {
  const ConstantInfo* c = g.constant_of(id);
  if (c == nullptr || !c->bound()) return false;
  const OperandDesc& d = g.desc(id);
  const ConstTensorView v{d.dtype, d.shape, c->data.data()};
  const int64_t count = v.size();
  for (int64_t i = 0; i < count; ++i) {
    const double x = element_as_double(v, i);
    if (!std::isfinite(x) || x != std::floor(x)) return false;
  }
  return true;
}

// `depth` bounds the walk: the chains that matter are a few ops long.
bool integer_valued_at(const Graph& g, OperandId id, int depth) {
  const OperandDesc& d = g.desc(id);
  if (!is_float(d.dtype)) return true;
  const Operand& op = g.operand(id);
  if (op.kind == OperandKind::kConstant) return integer_constant(g, id);
  if (op.kind != OperandKind::kNodeOutput || depth == 0) return false;
  const Node& n = g.nodes()[op.producer];
  auto all_inputs = [&] {
    for (OperandId in : n.inputs) {
      if (!integer_valued_at(g, in, depth - 1)) return false;
    }
    return true;
  };
  switch (n.op()) {
    case OpKind::kCast:
      return !is_float(g.desc(n.inputs[0]).dtype) || all_inputs();
    case OpKind::kFloor:
    case OpKind::kCeil:
    case OpKind::kRoundEven:
      return true;
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kNeg:
    case OpKind::kAbs:
    case OpKind::kMin:
    case OpKind::kMax:
    case OpKind::kRelu:
    case OpKind::kReshape:
    case OpKind::kTranspose:
    case OpKind::kConcat:
    case OpKind::kSlice:
    case OpKind::kExpand:
    case OpKind::kIdentity:
      return all_inputs();
    default:
      return false;
  }
}

}  // namespace

bool integer_valued(const Graph& g, OperandId id) { return integer_valued_at(g, id, 8); }

}  // namespace wnn::passes
