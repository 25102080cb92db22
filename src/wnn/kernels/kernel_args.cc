#include "wnn/kernels/kernel.h"

#include "wnn/core/error.h"

namespace wnn::kernels {

std::pair<size_t, size_t> KernelArgs::locate(std::string_view name) const {
  const auto index = attrs_.schema().find_param(name);
  check_internal(index.has_value(), "'{}' has no parameter '{}'", attrs_.schema().name, name);
  size_t pos = 0;
  for (size_t i = 0; i < attrs_.size(); ++i) {
    const Value& v = attrs_.at(i);
    size_t count = 0;
    if (std::holds_alternative<OperandId>(v)) count = 1;
    if (const auto* list = std::get_if<OperandList>(&v)) count = list->size();
    if (i == *index) return {pos, count};
    pos += count;
  }
  return {pos, 0};
}

const ConstTensorView& KernelArgs::input(std::string_view name) const {
  const auto [pos, count] = locate(name);
  check_internal(count == 1 && pos < inputs_.size(), "'{}' of '{}' is not one given operand", name,
                 attrs_.schema().name);
  return inputs_[pos];
}

const ConstTensorView* KernelArgs::optional_input(std::string_view name) const {
  const auto [pos, count] = locate(name);
  if (count == 0) return nullptr;
  check_internal(pos < inputs_.size(), "operand '{}' out of range", name);
  return &inputs_[pos];
}

std::span<const ConstTensorView> KernelArgs::input_list(std::string_view name) const {
  const auto [pos, count] = locate(name);
  check_internal(pos + count <= inputs_.size(), "operand list '{}' out of range", name);
  return inputs_.subspan(pos, count);
}

}  // namespace wnn::kernels
