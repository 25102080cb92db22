// gemm and matmul.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

void register_matmul(std::vector<OpSchema>& t) {
  const DataTypeSet fl = dtypes::kFloat;
  {
    OpSchema s;
    s.kind = OpKind::kGemm;
    s.name = "gemm";
    s.family = "matmul";
    s.doc = "alpha * A' * B' + beta * C for rank-2 A and B";
    s.args = {operand("a", fl).with_rank(2), operand("b", fl).with_rank(2)};
    s.options = {opt_operand("c", fl, "broadcasts to [M, N]").with_ranks(0, 2),
                 opt("alpha", ParamKind::kFloat, 1.0), opt("beta", ParamKind::kFloat, 1.0),
                 opt("aTranspose", ParamKind::kBool, false),
                 opt("bTranspose", ParamKind::kBool, false)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"a", "b", "c"});
      const auto& a = ctx.operand("a");
      const auto& b = ctx.operand("b");
      const bool ta = ctx.attrs().get_bool("aTranspose");
      const bool tb = ctx.attrs().get_bool("bTranspose");
      const int64_t m = ta ? a.shape[1] : a.shape[0];
      const int64_t ka = ta ? a.shape[0] : a.shape[1];
      const int64_t kb = tb ? b.shape[1] : b.shape[0];
      const int64_t n = tb ? b.shape[0] : b.shape[1];
      check(ka == kb, "inner dimensions differ: a gives {}, b gives {}", ka, kb);
      if (const auto c = ctx.optional_operand("c")) {
        check(broadcasts_to(c->shape, Shape{m, n}), "c {} does not broadcast to [{}, {}]",
              shape_to_string(c->shape), m, n);
      }
      return std::vector<OperandDesc>{{a.dtype, {m, n}}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kMatmul;
    s.name = "matmul";
    s.family = "matmul";
    s.doc = "batched matrix product; batch dims broadcast";
    s.args = {operand("a", fl).with_ranks(2), operand("b", fl).with_ranks(2)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"a", "b"});
      const auto& a = ctx.operand("a");
      const auto& b = ctx.operand("b");
      const int64_t m = a.shape[a.shape.size() - 2];
      const int64_t k = a.shape.back();
      const int64_t kb = b.shape[b.shape.size() - 2];
      const int64_t n = b.shape.back();
      check(k == kb, "inner dimensions differ: a {} and b {}", shape_to_string(a.shape),
            shape_to_string(b.shape));
      const Shape ba(a.shape.begin(), a.shape.end() - 2);
      const Shape bb(b.shape.begin(), b.shape.end() - 2);
      auto batch = broadcast_shapes(ba, bb);
      check(batch.has_value(), "batch dimensions of {} and {} do not broadcast",
            shape_to_string(a.shape), shape_to_string(b.shape));
      batch->push_back(m);
      batch->push_back(n);
      return std::vector<OperandDesc>{{a.dtype, *batch}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
