// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, decomposed: gatherElements picks each
// target's score, weights and ignore_index become a per-element weight, and the reductions
// follow ONNX (mean divides by the sum of the weights actually used).
#include "wnn/onnx/ops/common.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// The loss of log-probabilities `x` ([N, C, d...]) against target input `ti`, written as
// output 0 with reduction and weights (input `wi`, may be absent).
void nll(ConvertContext& c, OperandId x, size_t ti, size_t wi) {
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    c.unsupported("reduction '{}'", reduction);
  }
  const Shape ts = c.shape(ti);
  const DataType xdt = c.b().graph().desc(x).dtype;
  const DataType tdt = c.dtype(ti);
  OperandId t = c.in(ti);
  std::optional<OperandId> keep;  // 1 where the element counts, 0 where ignored
  if (auto ii = c.attr_int("ignore_index")) {
    OperandId mask = c.op(K::kEqual, {t, c.constant(tdt, {double(*ii)})});
    t = c.op(K::kWhere, {mask, c.constant(tdt, {0.0}), t});
    keep = c.op(K::kWhere, {mask, c.constant(xdt, {0.0}), c.constant(xdt, {1.0})});
  }
  Shape idx_shape = ts;
  idx_shape.insert(idx_shape.begin() + 1, 1);
  OperandId picked = c.op(K::kGatherElements, {x, c.reshape(t, idx_shape)}, {{"axis", 1}});
  OperandId loss = c.op(K::kNeg, {c.reshape(picked, ts)});
  std::optional<OperandId> w;
  if (c.has_input(wi)) w = c.op(K::kGather, {c.in(wi), t}, {{"axis", 0}});
  if (keep) w = w ? c.op(K::kMul, {*w, *keep}) : *keep;
  if (w) loss = c.op(K::kMul, {loss, *w});
  const IntList all = iota(0, int64_t(ts.size()));
  const std::vector<std::pair<std::string, RawValue>> to_scalar = {{"axes", all},
                                                                   {"keepDimensions", false}};
  if (reduction == "none") {
    loss = c.op(K::kIdentity, {loss}, {}, c.out_name(0));
  } else if (reduction == "sum") {
    loss = c.op(K::kReduceSum, {loss}, to_scalar, c.out_name(0));
  } else if (w) {
    OperandId total = c.op(K::kReduceSum, {loss}, to_scalar);
    loss = c.op(K::kDiv, {total, c.op(K::kReduceSum, {*w}, to_scalar)}, {}, c.out_name(0));
  } else {
    loss = c.op(K::kReduceMean, {loss}, to_scalar, c.out_name(0));
  }
  c.set(0, loss);
}

void nll_loss(ConvertContext& c) { nll(c, c.in(0), 1, 2); }

void softmax_cross_entropy(ConvertContext& c) {
  OperandId lp = log_softmax(c, c.in(0), 1, c.out_name(1));
  if (c.wants_output(1)) c.set(1, lp);
  nll(c, lp, 1, 2);
}

}  // namespace

void register_loss(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "NegativeLogLikelihoodLoss", 12, kMaxOpset, nll_loss, X});
  t.push_back({"", "SoftmaxCrossEntropyLoss", 12, kMaxOpset, softmax_cross_entropy, X});
}

}  // namespace wnn::onnx::ops
