#include "wnn/core/ops/schema.h"

#include <algorithm>
#include <set>

#include "wnn/core/error.h"

namespace wnn {

std::string OperandDesc::to_string() const {
  return fmt::format("{}{}", dtype_name(dtype), shape_to_string(shape));
}

std::string_view param_kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::kOperand:
      return "operand";
    case ParamKind::kOperandList:
      return "operand list";
    case ParamKind::kBool:
      return "boolean";
    case ParamKind::kInt:
      return "integer";
    case ParamKind::kFloat:
      return "number";
    case ParamKind::kNumber:
      return "number";
    case ParamKind::kIntList:
      return "integer list";
    case ParamKind::kFloatList:
      return "number list";
    case ParamKind::kIntOrIntList:
      return "integer or integer list";
    case ParamKind::kEnum:
      return "enum";
    case ParamKind::kEnumList:
      return "enum list";
    case ParamKind::kDataType:
      return "data type";
    case ParamKind::kString:
      return "string";
  }
  return "value";
}

namespace {

std::vector<OpSchema> build_table() {
  std::vector<OpSchema> table;
  ops::register_elementwise(table);
  ops::register_activation(table);
  ops::register_conv(table);
  ops::register_pool(table);
  ops::register_normalization(table);
  ops::register_reduce(table);
  ops::register_matmul(table);
  ops::register_movement(table);
  ops::register_gather(table);
  ops::register_quantize(table);
  ops::register_recurrent(table);
  for (auto& s : table) {
    // MLOperatorOptions.label applies to every operator.
    s.options.push_back(schema::opt("label", ParamKind::kString, Value{},
                                    "a name for diagnostics; no effect on results"));
  }
  std::sort(table.begin(), table.end(),
            [](const OpSchema& a, const OpSchema& b) { return a.kind < b.kind; });
  // Exactly one entry per OpKind, in enum order, so schema_of can index.
  check_internal(table.size() == size_t(kNumOps), "operator table has {} entries, expected {}",
                 table.size(), kNumOps);
  for (size_t i = 0; i < table.size(); ++i) {
    check_internal(size_t(table[i].kind) == i, "operator table entry {} is '{}', out of order", i,
                   table[i].name);
  }
  return table;
}

const std::vector<OpSchema>& table() {
  static const std::vector<OpSchema> t = build_table();
  return t;
}

}  // namespace

std::span<const OpSchema> all_schemas() { return table(); }
const OpSchema& schema_of(OpKind kind) { return table()[size_t(kind)]; }

std::string_view op_name(OpKind kind) {
  switch (kind) {
#define WNN_OP_NAME(e, n) \
  case OpKind::k##e:      \
    return n;
    WNN_OPS(WNN_OP_NAME)
#undef WNN_OP_NAME
  }
  return "?";
}

const OpSchema* find_schema(std::string_view name) {
  for (const auto& s : table()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::optional<size_t> OpSchema::find_param(std::string_view n) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name == n) return i;
  }
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i].name == n) return args.size() + i;
  }
  return std::nullopt;
}

const ParamSpec& OpSchema::param(size_t index) const {
  return index < args.size() ? args[index] : options[index - args.size()];
}

RankRange OpSchema::output_rank(size_t index) const {
  if (!output_ranks.empty()) return output_ranks[std::min(index, output_ranks.size() - 1)];
  for (size_t i = 0; i < num_params(); ++i) {
    const ParamSpec& p = param(i);
    if (p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList) return p.ranks;
  }
  return {};
}

std::string rank_range_to_string(RankRange r) {
  return r.min == r.max ? fmt::format("{}", r.min) : fmt::format("{}..{}", r.min, r.max);
}

// ---- Attributes ----

Attributes::Attributes(const OpSchema& schema) : schema_(&schema), values_(schema.num_params()) {}

size_t Attributes::index_of(std::string_view name) const {
  const auto i = schema_->find_param(name);
  check_internal(i.has_value(), "operator '{}' has no parameter '{}'", schema_->name, name);
  return *i;
}

bool Attributes::has(std::string_view name) const {
  return !std::holds_alternative<std::monostate>(values_[index_of(name)]);
}

const Value& Attributes::get(std::string_view name) const {
  const size_t i = index_of(name);
  if (!std::holds_alternative<std::monostate>(values_[i])) return values_[i];
  return schema_->param(i).default_value;
}

namespace {
template <typename T>
const T& get_as(const Attributes& a, std::string_view name) {
  const Value& v = a.get(name);
  const T* p = std::get_if<T>(&v);
  check_internal(p != nullptr, "parameter '{}' of '{}' is not set and has no default", name,
                 a.schema().name);
  return *p;
}
}  // namespace

int64_t Attributes::get_int(std::string_view name) const {
  const Value& v = get(name);
  if (const auto* d = std::get_if<double>(&v)) return int64_t(*d);
  return get_as<int64_t>(*this, name);
}
double Attributes::get_float(std::string_view name) const {
  const Value& v = get(name);
  if (const auto* i = std::get_if<int64_t>(&v)) return double(*i);
  return get_as<double>(*this, name);
}
bool Attributes::get_bool(std::string_view name) const { return get_as<bool>(*this, name); }
const std::string& Attributes::get_enum(std::string_view name) const {
  return get_as<std::string>(*this, name);
}
IntList Attributes::get_ints(std::string_view name) const {
  const Value& v = get(name);
  if (std::holds_alternative<std::monostate>(v)) return {};
  return get_as<IntList>(*this, name);
}
FloatList Attributes::get_floats(std::string_view name) const {
  const Value& v = get(name);
  if (std::holds_alternative<std::monostate>(v)) return {};
  return get_as<FloatList>(*this, name);
}
StringList Attributes::get_strings(std::string_view name) const {
  const Value& v = get(name);
  if (std::holds_alternative<std::monostate>(v)) return {};
  return get_as<StringList>(*this, name);
}
DataType Attributes::get_dtype(std::string_view name) const {
  return get_as<DataType>(*this, name);
}
std::optional<OperandId> Attributes::get_operand(std::string_view name) const {
  const Value& v = values_[index_of(name)];
  if (const auto* id = std::get_if<OperandId>(&v)) return *id;
  return std::nullopt;
}
const OperandList& Attributes::get_operands(std::string_view name) const {
  return get_as<OperandList>(*this, name);
}

std::vector<OperandId> Attributes::operands() const {
  std::vector<OperandId> out;
  for (const Value& v : values_) {
    if (const auto* id = std::get_if<OperandId>(&v)) out.push_back(*id);
    if (const auto* ids = std::get_if<OperandList>(&v))
      out.insert(out.end(), ids->begin(), ids->end());
  }
  return out;
}

// ---- InferContext ----

const OperandDesc& InferContext::operand(std::string_view name) const {
  const auto id = attrs_.get_operand(name);
  check_internal(id.has_value(), "operand '{}' of '{}' is missing", name, attrs_.schema().name);
  return lookup_(*id);
}

std::optional<OperandDesc> InferContext::optional_operand(std::string_view name) const {
  const auto id = attrs_.get_operand(name);
  if (!id) return std::nullopt;
  return lookup_(*id);
}

std::vector<OperandDesc> InferContext::operand_list(std::string_view name) const {
  std::vector<OperandDesc> out;
  for (OperandId id : attrs_.get_operands(name)) out.push_back(lookup_(id));
  return out;
}

// ---- schema helpers ----

namespace schema {

ParamSpec operand(std::string_view name, DataTypeSet dtypes, std::string_view doc) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamKind::kOperand;
  p.dtypes = dtypes;
  p.doc = doc;
  return p;
}
ParamSpec operand_list(std::string_view name, DataTypeSet dtypes, std::string_view doc) {
  ParamSpec p = operand(name, dtypes, doc);
  p.kind = ParamKind::kOperandList;
  return p;
}
ParamSpec arg(std::string_view name, ParamKind kind, std::string_view doc) {
  ParamSpec p;
  p.name = name;
  p.kind = kind;
  p.doc = doc;
  return p;
}
ParamSpec opt(std::string_view name, ParamKind kind, Value default_value, std::string_view doc) {
  ParamSpec p = arg(name, kind, doc);
  p.default_value = std::move(default_value);
  return p;
}
ParamSpec opt_computed(std::string_view name, ParamKind kind, std::string_view default_doc,
                       std::string_view doc) {
  ParamSpec p = arg(name, kind, doc);
  p.default_doc = default_doc;
  return p;
}
ParamSpec opt_enum(std::string_view name, std::vector<std::string_view> values,
                   std::string_view default_value, std::string_view doc) {
  ParamSpec p = arg(name, ParamKind::kEnum, doc);
  p.enum_values = std::move(values);
  if (!default_value.empty()) p.default_value = std::string(default_value);
  return p;
}
ParamSpec opt_operand(std::string_view name, DataTypeSet dtypes, std::string_view doc) {
  ParamSpec p = operand(name, dtypes, doc);
  p.default_doc = "absent";
  return p;
}

void require_ranks(const InferContext& ctx) {
  const OpSchema& s = ctx.attrs().schema();
  const auto require = [](const ParamSpec& p, size_t rank, std::string_view what) {
    if (p.ranks.min == p.ranks.max) {
      check(rank == p.ranks.min, "{} must have rank {}, has rank {}", what, p.ranks.min, rank);
    } else {
      check(p.ranks.contains(rank), "{} must have rank {}, has rank {}", what,
            p.ranks.max == kMaxRank ? fmt::format(">= {}", p.ranks.min)
                                    : fmt::format("in [{}, {}]", p.ranks.min, p.ranks.max),
            rank);
    }
  };
  for (size_t i = 0; i < s.num_params(); ++i) {
    const ParamSpec& p = s.param(i);
    if (p.kind == ParamKind::kOperandList) {
      const auto items = ctx.operand_list(p.name);
      for (size_t j = 0; j < items.size(); ++j) {
        require(p, items[j].shape.size(), fmt::format("{}[{}]", p.name, j));
      }
    }
    if (p.kind != ParamKind::kOperand) continue;
    const auto d = ctx.optional_operand(p.name);
    if (!d) continue;
    require(p, d->shape.size(), p.name);
    if (!p.same_rank_as.empty()) {
      const auto other = ctx.optional_operand(p.same_rank_as);
      check(!other || other->shape.size() == d->shape.size(),
            "{} has rank {}, {} has rank {} (they must match)", p.name, d->shape.size(),
            p.same_rank_as, other ? other->shape.size() : 0);
    }
  }
}

void require_same_dtype(const InferContext& ctx, std::initializer_list<std::string_view> names) {
  std::optional<DataType> first;
  std::string_view first_name;
  for (std::string_view n : names) {
    const auto d = ctx.optional_operand(n);
    if (!d) continue;
    if (!first) {
      first = d->dtype;
      first_name = n;
      continue;
    }
    check(d->dtype == *first, "'{}' has data type {} but '{}' has {} (they must match)", n,
          dtype_name(d->dtype), first_name, dtype_name(*first));
  }
}

void require_axis(int64_t axis, size_t rank, std::string_view what) {
  check(axis >= 0 && axis < int64_t(rank), "{} {} is out of range for rank {}", what, axis, rank);
}

IntList resolve_axes(const Attributes& attrs, std::string_view name, size_t rank) {
  if (!attrs.has(name) && std::holds_alternative<std::monostate>(attrs.get(name))) {
    IntList all(rank);
    for (size_t i = 0; i < rank; ++i) all[i] = int64_t(i);
    return all;
  }
  IntList axes = attrs.get_ints(name);
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    require_axis(a, rank, name);
    check(seen.insert(a).second, "{} lists axis {} twice", name, a);
  }
  return axes;
}

void require_length(const IntList& list, size_t size, std::string_view what) {
  check(list.size() == size, "{} has {} entries (expected {})", what, list.size(), size);
}

}  // namespace schema

}  // namespace wnn
