// gru, gruCell, lstm and lstmCell.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

void expect_shape(const InferContext& ctx, std::string_view name, const Shape& shape) {
  if (const auto d = ctx.optional_operand(name)) {
    check(d->shape == shape, "{} must have shape {}, has {}", name, shape_to_string(shape),
          shape_to_string(d->shape));
  }
}

ParamSpec activations_option(StringList defaults) {
  ParamSpec p = opt("activations", ParamKind::kEnumList, std::move(defaults),
                    "gate activations (relu, sigmoid, tanh)");
  p.enum_values = {"relu", "sigmoid", "tanh"};
  return p;
}

// Shared by gru and lstm: input [steps, batch, inputSize] (the schema checks the ranks);
// weights per direction.
struct RecurrentDims {
  int64_t steps, batch, input_size, hidden, directions;
};

RecurrentDims recurrent_dims(const InferContext& ctx, int64_t gates) {
  const auto& a = ctx.attrs();
  const auto& in = ctx.operand("input");
  const int64_t steps = a.get_int("steps");
  const int64_t hidden = a.get_int("hiddenSize");
  check(steps >= 1 && steps == in.shape[0], "steps {} must equal the input's first dimension {}",
        steps, in.shape[0]);
  check(hidden >= 1 && hidden <= (int64_t(1) << 30), "hiddenSize {} out of range", hidden);
  const int64_t nd = a.get_enum("direction") == "both" ? 2 : 1;
  const int64_t batch = in.shape[1];
  const int64_t input_size = in.shape[2];
  expect_shape(ctx, "weight", {nd, gates * hidden, input_size});
  expect_shape(ctx, "recurrentWeight", {nd, gates * hidden, hidden});
  expect_shape(ctx, "bias", {nd, gates * hidden});
  expect_shape(ctx, "recurrentBias", {nd, gates * hidden});
  expect_shape(ctx, "initialHiddenState", {nd, batch, hidden});
  return {steps, batch, input_size, hidden, nd};
}

struct CellDims {
  int64_t batch, input_size, hidden;
};

CellDims cell_dims(const InferContext& ctx, int64_t gates) {
  const auto& in = ctx.operand("input");
  const int64_t hidden = ctx.attrs().get_int("hiddenSize");
  check(hidden >= 1 && hidden <= (int64_t(1) << 30), "hiddenSize {} out of range", hidden);
  const int64_t batch = in.shape[0];
  expect_shape(ctx, "weight", {gates * hidden, in.shape[1]});
  expect_shape(ctx, "recurrentWeight", {gates * hidden, hidden});
  expect_shape(ctx, "hiddenState", {batch, hidden});
  expect_shape(ctx, "bias", {gates * hidden});
  expect_shape(ctx, "recurrentBias", {gates * hidden});
  return {batch, in.shape[1], hidden};
}

void check_activation_count(const InferContext& ctx, size_t count) {
  const StringList acts = ctx.attrs().get_strings("activations");
  check(acts.size() == count, "activations has {} entries (expected {})", acts.size(), count);
}

}  // namespace

void register_recurrent(std::vector<OpSchema>& t) {
  const DataTypeSet fl = dtypes::kFloat;
  const auto direction = opt_enum("direction", {"forward", "backward", "both"}, "forward");
  {
    OpSchema s;
    s.kind = OpKind::kGru;
    s.name = "gru";
    s.family = "recurrent";
    s.doc = "gated recurrent unit over a sequence; outputs [hidden] or [hidden, sequence]";
    s.args = {operand("input", fl).with_rank(3), operand("weight", fl).with_rank(3),
              operand("recurrentWeight", fl).with_rank(3), arg("steps", ParamKind::kInt),
              arg("hiddenSize", ParamKind::kInt)};
    s.options = {opt_operand("bias", fl).with_rank(2),
                 opt_operand("recurrentBias", fl).with_rank(2),
                 opt_operand("initialHiddenState", fl).with_rank(3),
                 opt("resetAfter", ParamKind::kBool, true),
                 opt("returnSequence", ParamKind::kBool, false),
                 direction,
                 opt_enum("layout", {"zrn", "rzn"}, "zrn"),
                 activations_option({"sigmoid", "tanh"})};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "weight", "recurrentWeight", "bias", "recurrentBias",
                               "initialHiddenState"});
      check_activation_count(ctx, 2);
      const auto d = recurrent_dims(ctx, 3);
      const DataType dt = ctx.operand("input").dtype;
      std::vector<OperandDesc> outs = {{dt, {d.directions, d.batch, d.hidden}}};
      if (ctx.attrs().get_bool("returnSequence")) {
        outs.push_back({dt, {d.steps, d.directions, d.batch, d.hidden}});
      }
      return outs;
    };
    s.output_ranks = {RankRange{3, 3}, RankRange{4, 4}};
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kGruCell;
    s.name = "gruCell";
    s.family = "recurrent";
    s.doc = "one gated recurrent unit step";
    s.args = {operand("input", fl).with_rank(2), operand("weight", fl).with_rank(2),
              operand("recurrentWeight", fl).with_rank(2), operand("hiddenState", fl).with_rank(2),
              arg("hiddenSize", ParamKind::kInt)};
    s.options = {
        opt_operand("bias", fl).with_rank(1), opt_operand("recurrentBias", fl).with_rank(1),
        opt("resetAfter", ParamKind::kBool, true), opt_enum("layout", {"zrn", "rzn"}, "zrn"),
        activations_option({"sigmoid", "tanh"})};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(
          ctx, {"input", "weight", "recurrentWeight", "hiddenState", "bias", "recurrentBias"});
      check_activation_count(ctx, 2);
      const auto d = cell_dims(ctx, 3);
      return std::vector<OperandDesc>{{ctx.operand("input").dtype, {d.batch, d.hidden}}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kLstm;
    s.name = "lstm";
    s.family = "recurrent";
    s.doc = "long short-term memory over a sequence; outputs [hidden, cell] (+ sequence)";
    s.args = {operand("input", fl).with_rank(3), operand("weight", fl).with_rank(3),
              operand("recurrentWeight", fl).with_rank(3), arg("steps", ParamKind::kInt),
              arg("hiddenSize", ParamKind::kInt)};
    s.options = {opt_operand("bias", fl).with_rank(2),
                 opt_operand("recurrentBias", fl).with_rank(2),
                 opt_operand("peepholeWeight", fl).with_rank(2),
                 opt_operand("initialHiddenState", fl).with_rank(3),
                 opt_operand("initialCellState", fl).with_rank(3),
                 opt("returnSequence", ParamKind::kBool, false),
                 direction,
                 opt_enum("layout", {"iofg", "ifgo"}, "iofg"),
                 activations_option({"sigmoid", "tanh", "tanh"})};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "weight", "recurrentWeight", "bias", "recurrentBias",
                               "peepholeWeight", "initialHiddenState", "initialCellState"});
      check_activation_count(ctx, 3);
      const auto d = recurrent_dims(ctx, 4);
      expect_shape(ctx, "peepholeWeight", {d.directions, 3 * d.hidden});
      expect_shape(ctx, "initialCellState", {d.directions, d.batch, d.hidden});
      const DataType dt = ctx.operand("input").dtype;
      std::vector<OperandDesc> outs = {{dt, {d.directions, d.batch, d.hidden}},
                                       {dt, {d.directions, d.batch, d.hidden}}};
      if (ctx.attrs().get_bool("returnSequence")) {
        outs.push_back({dt, {d.steps, d.directions, d.batch, d.hidden}});
      }
      return outs;
    };
    s.output_ranks = {RankRange{3, 3}, RankRange{3, 3}, RankRange{4, 4}};
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kLstmCell;
    s.name = "lstmCell";
    s.family = "recurrent";
    s.doc = "one long short-term memory step; outputs [hidden, cell]";
    s.args = {operand("input", fl).with_rank(2),           operand("weight", fl).with_rank(2),
              operand("recurrentWeight", fl).with_rank(2), operand("hiddenState", fl).with_rank(2),
              operand("cellState", fl).with_rank(2),       arg("hiddenSize", ParamKind::kInt)};
    s.options = {opt_operand("bias", fl).with_rank(1),
                 opt_operand("recurrentBias", fl).with_rank(1),
                 opt_operand("peepholeWeight", fl).with_rank(1),
                 opt_enum("layout", {"iofg", "ifgo"}, "iofg"),
                 activations_option({"sigmoid", "tanh", "tanh"})};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "weight", "recurrentWeight", "hiddenState", "cellState",
                               "bias", "recurrentBias", "peepholeWeight"});
      check_activation_count(ctx, 3);
      const auto d = cell_dims(ctx, 4);
      expect_shape(ctx, "cellState", {d.batch, d.hidden});
      expect_shape(ctx, "peepholeWeight", {3 * d.hidden});
      const DataType dt = ctx.operand("input").dtype;
      return std::vector<OperandDesc>{{dt, {d.batch, d.hidden}}, {dt, {d.batch, d.hidden}}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
