// The converter registry: one entry per (domain, op_type, since..until opset) range, each a
// function that emits WebNN nodes for one ONNX node through a ConvertContext. Dispatch picks
// the entry whose range holds the model's opset for the node's domain; there is no fallback to
// a namesake of another domain or version.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/onnx/model.h"

namespace wnn::onnx {

inline constexpr int64_t kMaxOpset = 23;
inline constexpr std::string_view kMsDomain = "com.microsoft";

// Thrown by a converter for a node (or attribute value) WebNN cannot express or wnn does not
// convert yet. The importer collects these and reports all of them together.
class UnsupportedError : public Error {
 public:
  // `category` is set when WebNN cannot express the node at all ("training", "randomness",
  // ...; see unsupported.h); empty when wnn just does not convert it.
  explicit UnsupportedError(std::string reason, std::string category = {})
      : Error(std::move(reason)), category_(std::move(category)) {}
  const std::string& category() const { return category_; }

 private:
  std::string category_;
};

// The importer's view of every ONNX value: a WebNN operand, a known constant tensor, or both.
struct ValueSlot {
  std::optional<OperandId> operand;
  std::optional<Tensor> known;
};

class ValueTable {
 public:
  ValueTable(GraphBuilder& b, NameMapper& names) : b_(b), names_(names) {}
  bool has(const std::string& name) const { return slots_.count(name) > 0; }
  ValueSlot& slot(const std::string& name);
  void set_operand(const std::string& name, OperandId id) { slots_[name].operand = id; }
  void set_known(const std::string& name, Tensor t) { slots_[name].known = std::move(t); }
  // The operand of `name`, adding a weights constant for a known value on first use.
  OperandId operand(const std::string& name);
  GraphBuilder& builder() { return b_; }
  NameMapper& names() { return names_; }

 private:
  GraphBuilder& b_;
  NameMapper& names_;
  std::map<std::string, ValueSlot> slots_;
};

class ConvertContext {
 public:
  ConvertContext(const NodeProto& node, int64_t opset, ValueTable& values)
      : node_(node), opset_(opset), values_(values) {}

  const NodeProto& node() const { return node_; }
  int64_t opset() const { return opset_; }
  GraphBuilder& b() { return values_.builder(); }

  // Inputs. An omitted optional input ("" or past the end) is absent.
  size_t num_inputs() const { return node_.input.size(); }
  bool has_input(size_t i) const { return i < node_.input.size() && !node_.input[i].empty(); }
  OperandId in(size_t i);
  // The known constant value of input i, or nullptr when it is only known at run time.
  const Tensor* known(size_t i);
  OperandDesc desc(size_t i);
  Shape shape(size_t i) { return desc(i).shape; }
  DataType dtype(size_t i) { return desc(i).dtype; }
  // Input i as integers; unsupported (naming `what`) when it is not a known constant.
  std::vector<int64_t> known_ints(size_t i, std::string_view what);
  std::vector<double> known_floats(size_t i, std::string_view what);

  // Attributes: nullopt when absent, which is never the same as 0.
  const AttributeProto* attr(std::string_view name) const { return node_.find_attribute(name); }
  std::optional<int64_t> attr_int(std::string_view name) const;
  int64_t attr_int(std::string_view name, int64_t def) const {
    return attr_int(name).value_or(def);
  }
  std::optional<double> attr_float(std::string_view name) const;
  double attr_float(std::string_view name, double def) const {
    return attr_float(name).value_or(def);
  }
  std::optional<std::vector<int64_t>> attr_ints(std::string_view name) const;
  std::optional<std::vector<double>> attr_floats(std::string_view name) const;
  std::optional<std::string> attr_string(std::string_view name) const;
  std::string attr_string(std::string_view name, std::string def) const {
    return attr_string(name).value_or(std::move(def));
  }

  // Outputs.
  size_t num_outputs() const { return node_.output.size(); }
  bool wants_output(size_t i) const { return i < node_.output.size() && !node_.output[i].empty(); }
  // The operand name output i should get ("" when it is not wanted).
  std::string out_name(size_t i);
  void set(size_t i, OperandId id);
  void set_known(size_t i, Tensor t);

  // Builder shorthands. The last node of a conversion passes out_name(i) as its name.
  OperandId op(OpKind k, std::vector<RawValue> positional,
               std::vector<std::pair<std::string, RawValue>> named = {}, std::string name = {}) {
    return b().add1(k, std::move(positional), std::move(named), std::move(name));
  }
  // A constant operand (weights) of `values` cast to dtype, with shape (scalar by default).
  OperandId constant(DataType dtype, std::vector<double> values, Shape shape = {});
  OperandId constant(const Tensor& t);
  OperandId reshape(OperandId x, const Shape& shape, std::string name = {});

  template <typename... Args>
  [[noreturn]] void unsupported(fmt::format_string<Args...> format, Args&&... args) const {
    throw UnsupportedError(fmt::format(format, std::forward<Args>(args)...));
  }
  // For what WebNN cannot express at all, with the documented category.
  template <typename... Args>
  [[noreturn]] void inexpressible(std::string category, fmt::format_string<Args...> format,
                                  Args&&... args) const {
    throw UnsupportedError(fmt::format(format, std::forward<Args>(args)...), std::move(category));
  }

 private:
  const std::string& input_name(size_t i) const;
  const NodeProto& node_;
  int64_t opset_;
  ValueTable& values_;
};

enum class ConvertKind : uint8_t { kDirect, kDecomposed, kFolded, kUnsupported };
std::string_view convert_kind_name(ConvertKind k);

using ConvertFn = std::function<void(ConvertContext&)>;

struct Converter {
  Converter(std::string_view domain_, std::string_view op_type_, int64_t since_, int64_t until_,
            ConvertFn fn_, ConvertKind kind_ = ConvertKind::kDirect, bool foldable_ = false,
            std::string_view note_ = {})
      : domain(domain_),
        op_type(op_type_),
        since(since_),
        until(until_),
        fn(std::move(fn_)),
        kind(kind_),
        foldable(foldable_),
        note(note_) {}
  std::string_view domain;  // "" for ai.onnx
  std::string_view op_type;
  int64_t since = 1;
  int64_t until = kMaxOpset;
  ConvertFn fn;
  ConvertKind kind = ConvertKind::kDirect;
  // Pure and cheap on small known inputs: evaluated at import time when every input is known.
  bool foldable = false;
  std::string_view note;  // for kUnsupported: the reason
};

std::span<const Converter> all_converters();
// The entry for (domain, op, opset); nullptr when none holds that version.
const Converter* find_converter(std::string_view domain, std::string_view op_type, int64_t opset);
// The domain key: "ai.onnx" and "" are the default domain.
std::string_view canonical_domain(std::string_view domain);

// Small helpers shared by the converter families.
int64_t normalize_axis(int64_t axis, size_t rank, std::string_view what);
// normalize_axis for an axis that indexes one of `shape`'s dims (a scalar has none).
int64_t normalize_dim_axis(int64_t axis, const Shape& shape, std::string_view what);
Tensor make_tensor(DataType dtype, Shape shape, std::span<const double> values);
Tensor make_int64_tensor(Shape shape, std::span<const int64_t> values);
IntList iota(int64_t begin, int64_t end);

// Family registration, one per ops/<family>.cc.
namespace ops {
void register_elementwise(std::vector<Converter>& t);
void register_activation(std::vector<Converter>& t);
void register_conv(std::vector<Converter>& t);
void register_pool(std::vector<Converter>& t);
void register_normalization(std::vector<Converter>& t);
void register_matmul(std::vector<Converter>& t);
void register_shape(std::vector<Converter>& t);
void register_movement(std::vector<Converter>& t);
void register_reduce(std::vector<Converter>& t);
void register_gather(std::vector<Converter>& t);
void register_misc(std::vector<Converter>& t);
void register_inexpressible(std::vector<Converter>& t);
void register_loss(std::vector<Converter>& t);
void register_onehot(std::vector<Converter>& t);
void register_norm_extra(std::vector<Converter>& t);
void register_contrib(std::vector<Converter>& t);
void register_quantized_matmul(std::vector<Converter>& t);
void register_attention(std::vector<Converter>& t);
void register_recurrent(std::vector<Converter>& t);
void register_resize(std::vector<Converter>& t);
void register_signal(std::vector<Converter>& t);
void register_grid_sample(std::vector<Converter>& t);
void register_roi_align(std::vector<Converter>& t);
void register_inverse_trig(std::vector<Converter>& t);
void register_topk(std::vector<Converter>& t);
void register_einsum(std::vector<Converter>& t);
void register_quantized(std::vector<Converter>& t);
void register_det(std::vector<Converter>& t);
void register_bitwise(std::vector<Converter>& t);
}  // namespace ops

}  // namespace wnn::onnx
