// The operator table: one OpSchema per WebNN operator. It declares the positional arguments
// and options (with kinds, spec defaults and accepted dtypes), and the shape and dtype
// inference of the WebNN spec. The builder, text and JSON formats, docs and conformance
// runner all read it; nothing else keeps a list of operators or options.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/dtype.h"
#include "wnn/core/ops/op_kind.h"
#include "wnn/core/shape.h"
#include "wnn/core/value.h"

namespace wnn {

struct OperandDesc {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  bool operator==(const OperandDesc&) const = default;
  std::string to_string() const;  // "float32[1, 3]"
  // Bytes of a tensor of this desc in memory (int4/uint4 unpacked, as dtype_size says).
  size_t byte_size() const { return size_t(element_count(shape)) * dtype_size(dtype); }
};

enum class ParamKind : uint8_t {
  kOperand,      // one operand
  kOperandList,  // sequence<MLOperand>
  kBool,
  kInt,           // long / unsigned long (an integer; range checked by inference)
  kFloat,         // double / float
  kNumber,        // MLNumber: an integer or a float, kept as written
  kIntList,       // sequence<long>
  kFloatList,     // sequence<float>
  kIntOrIntList,  // split's `splits`: unsigned long or sequence<unsigned long>
  kEnum,          // one of enum_values
  kEnumList,      // sequence of enum_values
  kDataType,      // MLOperandDataType
  kString,        // free text (label)
};
std::string_view param_kind_name(ParamKind kind);

// The ranks an operand may have, from the spec's tensor-limits tables ("any rank" is up to
// kMaxRank). The builder checks them before inference, so the table is the one statement of
// the rule and opSupportLimits(), `wnn ops` and the check cannot disagree.
struct RankRange {
  size_t min = 0;
  size_t max = kMaxRank;
  bool contains(size_t rank) const { return rank >= min && rank <= max; }
  bool operator==(const RankRange&) const = default;
};
std::string rank_range_to_string(RankRange r);  // "4", "2..8"

struct ParamSpec {
  std::string_view name;
  ParamKind kind = ParamKind::kOperand;
  // The spec default of an option; monostate when the default depends on the inputs, in which
  // case default_doc says what it is ("all axes"). Positional arguments have no default.
  Value default_value;
  std::string_view default_doc;
  std::vector<std::string_view> enum_values;  // kEnum, kEnumList
  DataTypeSet dtypes;                         // kOperand, kOperandList
  std::string_view doc;
  RankRange ranks;  // kOperand, kOperandList (each item)
  // kOperand: the name of an operand whose rank this one must equal (gatherElements' indices).
  std::string_view same_rank_as;

  // Builder-style setters for the schema tables: operand("input", fl).with_rank(4).
  ParamSpec with_rank(size_t rank) && { return std::move(*this).with_ranks(rank, rank); }
  ParamSpec with_ranks(size_t min, size_t max = kMaxRank) && {
    ranks = {min, max};
    return std::move(*this);
  }
  ParamSpec with_rank_of(std::string_view operand) && {
    same_rank_as = operand;
    return std::move(*this);
  }
};

class InferContext;
using InferFn = std::function<std::vector<OperandDesc>(const InferContext&)>;

struct OpSchema {
  OpKind kind{};
  std::string_view name;           // camelCase WebNN method name
  std::string_view family;         // the file it lives in: "conv", "reduce", ...
  std::string_view doc;            // one line
  std::vector<ParamSpec> args;     // positional, in WebNN's order
  std::vector<ParamSpec> options;  // the MLXxxOptions members, in canonical print order
  InferFn infer;
  // The ranks of the outputs, in order (the last one repeats for a list of outputs); empty when
  // every output has the rank range of the first operand parameter ("same as input").
  std::vector<RankRange> output_ranks;

  // Index among args, then options (options start at args.size()); nullopt when unknown.
  std::optional<size_t> find_param(std::string_view name) const;
  const ParamSpec& param(size_t index) const;
  size_t num_params() const { return args.size() + options.size(); }
  // The rank range of output `index` (see output_ranks).
  RankRange output_rank(size_t index) const;
};

// Every schema, indexed by OpKind.
std::span<const OpSchema> all_schemas();
const OpSchema& schema_of(OpKind kind);
// nullptr for an unknown name.
const OpSchema* find_schema(std::string_view name);
std::string_view op_name(OpKind kind);

// The typed parameters of one node: positional args then options, as the schema orders them.
// Getters take a parameter name, whether positional or option, and return the given value or
// the spec default. A name the schema does not have is a bug in wnn (internal error).
class Attributes {
 public:
  Attributes() = default;
  explicit Attributes(const OpSchema& schema);

  const OpSchema& schema() const { return *schema_; }
  OpKind op() const { return schema_->kind; }
  // Raw slot access in schema order; monostate when an option was not given.
  const Value& at(size_t index) const { return values_[index]; }
  void set(size_t index, Value v) { values_[index] = std::move(v); }
  size_t size() const { return values_.size(); }

  bool has(std::string_view name) const;          // given explicitly
  const Value& get(std::string_view name) const;  // given, else default (may be monostate)
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;  // kFloat or kNumber
  bool get_bool(std::string_view name) const;
  const std::string& get_enum(std::string_view name) const;
  IntList get_ints(std::string_view name) const;  // empty when absent with no default
  FloatList get_floats(std::string_view name) const;
  StringList get_strings(std::string_view name) const;
  DataType get_dtype(std::string_view name) const;
  std::optional<OperandId> get_operand(std::string_view name) const;
  const OperandList& get_operands(std::string_view name) const;
  // Every operand referenced, in parameter order (positional operands, lists, then options).
  std::vector<OperandId> operands() const;

 private:
  size_t index_of(std::string_view name) const;
  const OpSchema* schema_ = nullptr;
  std::vector<Value> values_;
};

// What an inference function sees: the attributes and the descriptors of the operands.
class InferContext {
 public:
  using DescLookup = std::function<const OperandDesc&(OperandId)>;
  InferContext(const Attributes& attrs, DescLookup lookup)
      : attrs_(attrs), lookup_(std::move(lookup)) {}

  const Attributes& attrs() const { return attrs_; }
  const OperandDesc& operand(std::string_view name) const;  // a required operand parameter
  std::optional<OperandDesc> optional_operand(std::string_view name) const;
  std::vector<OperandDesc> operand_list(std::string_view name) const;

 private:
  const Attributes& attrs_;
  DescLookup lookup_;
};

// Helpers the schema families share to build entries and check inference rules.
namespace schema {

ParamSpec operand(std::string_view name, DataTypeSet dtypes, std::string_view doc = {});
ParamSpec operand_list(std::string_view name, DataTypeSet dtypes, std::string_view doc = {});
ParamSpec arg(std::string_view name, ParamKind kind, std::string_view doc = {});
ParamSpec opt(std::string_view name, ParamKind kind, Value default_value,
              std::string_view doc = {});
ParamSpec opt_computed(std::string_view name, ParamKind kind, std::string_view default_doc,
                       std::string_view doc = {});
ParamSpec opt_enum(std::string_view name, std::vector<std::string_view> values,
                   std::string_view default_value, std::string_view doc = {});
ParamSpec opt_operand(std::string_view name, DataTypeSet dtypes, std::string_view doc = {});

// Throws unless every operand parameter's rank is in its ParamSpec::ranks and equals that of
// its same_rank_as operand. The builder runs it before infer.
void require_ranks(const InferContext& ctx);
// Throws unless every operand in `names` has the dtype of the first.
void require_same_dtype(const InferContext& ctx, std::initializer_list<std::string_view> names);
// An axis in [0, rank).
void require_axis(int64_t axis, size_t rank, std::string_view what);
// Axes unique and in [0, rank); returns them (all axes when absent and default_all).
IntList resolve_axes(const Attributes& attrs, std::string_view name, size_t rank);
// A list of exactly `size` entries.
void require_length(const IntList& list, size_t size, std::string_view what);

}  // namespace schema

// The per-family registration functions, each defined in core/ops/<family>.cc.
namespace ops {
void register_elementwise(std::vector<OpSchema>& table);
void register_activation(std::vector<OpSchema>& table);
void register_conv(std::vector<OpSchema>& table);
void register_pool(std::vector<OpSchema>& table);
void register_normalization(std::vector<OpSchema>& table);
void register_reduce(std::vector<OpSchema>& table);
void register_matmul(std::vector<OpSchema>& table);
void register_movement(std::vector<OpSchema>& table);
void register_gather(std::vector<OpSchema>& table);
void register_quantize(std::vector<OpSchema>& table);
void register_recurrent(std::vector<OpSchema>& table);
}  // namespace ops

}  // namespace wnn
