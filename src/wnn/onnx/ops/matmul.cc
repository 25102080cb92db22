// MatMul (rank-1 operands through reshape) and Gemm with every attribute, alpha=0 included.
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void matmul(ConvertContext& c) {
  Shape as = c.shape(0), bs = c.shape(1);
  OperandId a = c.in(0), b = c.in(1);
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  // numpy: a 1-D left operand is a row [1, K], a 1-D right one a column [K, 1]; the added dim
  // is removed from the result.
  if (a1) a = c.reshape(a, {1, as[0]});
  if (b1) b = c.reshape(b, {bs[0], 1});
  if (!a1 && !b1) return c.set(0, c.op(K::kMatmul, {a, b}, {}, c.out_name(0)));
  OperandId y = c.op(K::kMatmul, {a, b});
  Shape ys = c.b().graph().desc(y).shape;
  if (b1) ys.pop_back();
  if (a1) ys.erase(ys.end() - (b1 ? 1 : 2));
  c.set(0, c.reshape(y, ys, c.out_name(0)));
}

void gemm(ConvertContext& c) {
  std::vector<std::pair<std::string, RawValue>> named = {
      {"alpha", c.attr_float("alpha", 1.0)},
      {"beta", c.attr_float("beta", 1.0)},
      {"aTranspose", c.attr_int("transA", 0) != 0},
      {"bTranspose", c.attr_int("transB", 0) != 0}};
  if (c.has_input(2)) named.emplace_back("c", c.in(2));
  c.set(0, c.op(K::kGemm, {c.in(0), c.in(1)}, std::move(named), c.out_name(0)));
}

}  // namespace

void register_matmul(std::vector<Converter>& t) {
  t.push_back({"", "MatMul", 1, kMaxOpset, matmul, ConvertKind::kDirect, true});
  t.push_back({"", "Gemm", 6, kMaxOpset, gemm, ConvertKind::kDirect, false});
}

}  // namespace wnn::onnx::ops
