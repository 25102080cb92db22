// Data movement: concat, expand, pad, reshape, reverse, slice, split, tile, transpose,
// triangular.
#include <numeric>
#include <set>

#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

OpSchema movement(OpKind kind, std::string_view name, std::string_view doc,
                  std::vector<ParamSpec> args, std::vector<ParamSpec> options, InferFn infer) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "movement";
  s.doc = doc;
  s.args = std::move(args);
  s.options = std::move(options);
  s.infer = std::move(infer);
  return s;
}

}  // namespace

void register_movement(std::vector<OpSchema>& t) {
  const DataTypeSet all = dtypes::kAll;
  t.push_back(movement(
      OpKind::kConcat, "concat", "join operands along axis",
      {operand_list("inputs", all).with_ranks(1), arg("axis", ParamKind::kInt)}, {},
      [](const InferContext& ctx) {
        const auto ins = ctx.operand_list("inputs");
        check(!ins.empty(), "inputs is empty");
        const int64_t axis = ctx.attrs().get_int("axis");
        require_axis(axis, ins[0].shape.size(), "axis");
        Shape out = ins[0].shape;
        for (size_t i = 1; i < ins.size(); ++i) {
          check(ins[i].dtype == ins[0].dtype, "inputs[{}] has data type {}, inputs[0] has {}", i,
                dtype_name(ins[i].dtype), dtype_name(ins[0].dtype));
          check(ins[i].shape.size() == out.size(), "inputs[{}] has rank {}, inputs[0] has {}", i,
                ins[i].shape.size(), out.size());
          for (size_t d = 0; d < out.size(); ++d) {
            if (int64_t(d) == axis) continue;
            check(ins[i].shape[d] == out[d], "inputs[{}] {} differs from inputs[0] {} off axis {}",
                  i, shape_to_string(ins[i].shape), shape_to_string(ins[0].shape), axis);
          }
          out[size_t(axis)] += ins[i].shape[size_t(axis)];
        }
        return std::vector<OperandDesc>{{ins[0].dtype, out}};
      }));
  t.push_back(movement(OpKind::kExpand, "expand", "broadcast input to newShape",
                       {operand("input", all), arg("newShape", ParamKind::kIntList)}, {},
                       [](const InferContext& ctx) {
                         const auto& in = ctx.operand("input");
                         const IntList shape = ctx.attrs().get_ints("newShape");
                         check(broadcasts_to(in.shape, shape),
                               "input {} does not broadcast to newShape {}",
                               shape_to_string(in.shape), shape_to_string(shape));
                         return std::vector<OperandDesc>{{in.dtype, shape}};
                       }));
  t.push_back(
      movement(OpKind::kPad, "pad", "pad each dimension at its beginning and end",
               {operand("input", all), arg("beginningPadding", ParamKind::kIntList),
                arg("endingPadding", ParamKind::kIntList)},
               {opt_enum("mode", {"constant", "edge", "reflection"}, "constant"),
                opt("value", ParamKind::kNumber, 0.0, "the fill of constant mode")},
               [](const InferContext& ctx) {
                 const auto& in = ctx.operand("input");
                 const IntList b = ctx.attrs().get_ints("beginningPadding");
                 const IntList e = ctx.attrs().get_ints("endingPadding");
                 require_length(b, in.shape.size(), "beginningPadding");
                 require_length(e, in.shape.size(), "endingPadding");
                 const std::string& mode = ctx.attrs().get_enum("mode");
                 Shape out = in.shape;
                 for (size_t i = 0; i < out.size(); ++i) {
                   check(b[i] >= 0 && e[i] >= 0, "padding of dimension {} is negative", i);
                   if (mode == "reflection") {
                     check(b[i] < in.shape[i] && e[i] < in.shape[i],
                           "reflection padding of dimension {} must be smaller than its size {}", i,
                           in.shape[i]);
                   }
                   if (mode == "edge" && (b[i] > 0 || e[i] > 0)) {
                     check(in.shape[i] > 0, "edge padding of the empty dimension {}", i);
                   }
                   out[i] += b[i] + e[i];
                 }
                 return std::vector<OperandDesc>{{in.dtype, out}};
               }));
  t.push_back(movement(OpKind::kReshape, "reshape", "same elements, new shape",
                       {operand("input", all), arg("newShape", ParamKind::kIntList)}, {},
                       [](const InferContext& ctx) {
                         const auto& in = ctx.operand("input");
                         const IntList shape = ctx.attrs().get_ints("newShape");
                         validate_shape(shape, "newShape");
                         check(element_count(shape) == element_count(in.shape),
                               "newShape {} has {} elements, input {} has {}",
                               shape_to_string(shape), element_count(shape),
                               shape_to_string(in.shape), element_count(in.shape));
                         return std::vector<OperandDesc>{{in.dtype, shape}};
                       }));
  t.push_back(movement(OpKind::kReverse, "reverse", "reverse the order of elements along axes",
                       {operand("input", all)},
                       {opt_computed("axes", ParamKind::kIntList, "all axes")},
                       [](const InferContext& ctx) {
                         const auto& in = ctx.operand("input");
                         resolve_axes(ctx.attrs(), "axes", in.shape.size());
                         return std::vector<OperandDesc>{in};
                       }));
  t.push_back(movement(
      OpKind::kSlice, "slice", "a strided window: sizes are extents, output is ceil(size/stride)",
      {operand("input", all), arg("starts", ParamKind::kIntList),
       arg("sizes", ParamKind::kIntList)},
      {opt_computed("strides", ParamKind::kIntList, "all 1")}, [](const InferContext& ctx) {
        const auto& in = ctx.operand("input");
        const size_t rank = in.shape.size();
        const IntList starts = ctx.attrs().get_ints("starts");
        const IntList sizes = ctx.attrs().get_ints("sizes");
        IntList strides =
            ctx.attrs().has("strides") ? ctx.attrs().get_ints("strides") : IntList(rank, 1);
        require_length(starts, rank, "starts");
        require_length(sizes, rank, "sizes");
        require_length(strides, rank, "strides");
        Shape out(rank);
        for (size_t i = 0; i < rank; ++i) {
          check(strides[i] >= 1, "strides[{}] = {} must be at least 1", i, strides[i]);
          check(starts[i] >= 0 && sizes[i] >= 0 && starts[i] <= in.shape[i] &&
                    sizes[i] <= in.shape[i] - starts[i],
                "starts[{}] = {} with sizes[{}] = {} leaves dimension {} of size {}", i, starts[i],
                i, sizes[i], i, in.shape[i]);
          out[i] = (sizes[i] + strides[i] - 1) / strides[i];
        }
        return std::vector<OperandDesc>{{in.dtype, out}};
      }));
  t.push_back(movement(
      OpKind::kSplit, "split", "split along axis into equal parts or the given sizes",
      {operand("input", all).with_ranks(1),
       arg("splits", ParamKind::kIntOrIntList, "count or sizes")},
      {opt("axis", ParamKind::kInt, int64_t(0))}, [](const InferContext& ctx) {
        const auto& in = ctx.operand("input");
        const int64_t axis = ctx.attrs().get_int("axis");
        require_axis(axis, in.shape.size(), "axis");
        const int64_t dim = in.shape[size_t(axis)];
        IntList sizes;
        const Value& splits = ctx.attrs().get("splits");
        if (const auto* count = std::get_if<int64_t>(&splits)) {
          check(*count >= 1 && *count <= 4096, "splits {} must be in [1, 4096]", *count);
          check(dim % *count == 0, "splits {} does not divide dimension {} of size {}", *count,
                axis, dim);
          sizes.assign(size_t(*count), dim / *count);
        } else {
          sizes = std::get<IntList>(splits);
          check(!sizes.empty() && sizes.size() <= 4096, "splits has {} entries", sizes.size());
          int64_t sum = 0;
          for (int64_t s : sizes) {
            check(s >= 1, "splits entry {} must be positive", s);
            sum += s;
          }
          check(sum == dim, "splits sum to {}, dimension {} has size {}", sum, axis, dim);
        }
        std::vector<OperandDesc> outs;
        for (int64_t s : sizes) {
          Shape shape = in.shape;
          shape[size_t(axis)] = s;
          outs.push_back({in.dtype, shape});
        }
        return outs;
      }));
  t.push_back(
      movement(OpKind::kTile, "tile", "repeat the input along each dimension",
               {operand("input", all), arg("repetitions", ParamKind::kIntList)}, {},
               [](const InferContext& ctx) {
                 const auto& in = ctx.operand("input");
                 const IntList reps = ctx.attrs().get_ints("repetitions");
                 require_length(reps, in.shape.size(), "repetitions");
                 Shape out = in.shape;
                 for (size_t i = 0; i < out.size(); ++i) {
                   check(reps[i] >= 1, "repetitions[{}] = {} must be at least 1", i, reps[i]);
                   check(out[i] == 0 || reps[i] <= kMaxElements / out[i], "repetitions overflow");
                   out[i] *= reps[i];
                 }
                 return std::vector<OperandDesc>{{in.dtype, out}};
               }));
  t.push_back(
      movement(OpKind::kTranspose, "transpose", "permute dimensions", {operand("input", all)},
               {opt_computed("permutation", ParamKind::kIntList, "reversed axes")},
               [](const InferContext& ctx) {
                 const auto& in = ctx.operand("input");
                 const size_t rank = in.shape.size();
                 IntList perm;
                 if (ctx.attrs().has("permutation")) {
                   perm = ctx.attrs().get_ints("permutation");
                 } else {
                   for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
                 }
                 require_length(perm, rank, "permutation");
                 std::set<int64_t> seen;
                 Shape out(rank);
                 for (size_t i = 0; i < rank; ++i) {
                   require_axis(perm[i], rank, "permutation entry");
                   check(seen.insert(perm[i]).second, "permutation lists axis {} twice", perm[i]);
                   out[i] = in.shape[size_t(perm[i])];
                 }
                 return std::vector<OperandDesc>{{in.dtype, out}};
               }));
  t.push_back(movement(
      OpKind::kTriangular, "triangular", "keep the upper or lower triangle of the last two dims",
      {operand("input", all).with_ranks(2)},
      {opt("upper", ParamKind::kBool, true), opt("diagonal", ParamKind::kInt, int64_t(0))},
      [](const InferContext& ctx) { return std::vector<OperandDesc>{ctx.operand("input")}; }));
}

}  // namespace wnn::ops
