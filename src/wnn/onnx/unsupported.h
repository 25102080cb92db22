// The ONNX operators WebNN cannot express, each with the documented reason. This is the one
// checked-in list the backend-test runner may skip on; everything else must convert or fail.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace wnn::onnx {

struct Inexpressible {
  std::string_view op_type;
  std::string_view category;  // strings, sequences, optional, control flow, ...
  std::string_view why;
};

std::span<const Inexpressible> inexpressible_ops();
// The categories the importer itself decides on (a run-time If's branches must be pure).
inline constexpr std::string_view kControlFlowCategory = "runtime control flow";
inline constexpr std::string_view kRandomnessCategory = "randomness";
// "category: why" for an op on the list; nullopt otherwise.
const Inexpressible* find_inexpressible(std::string_view op_type);

// Element types of model inputs and outputs WebNN has no operand type for (int16, uint16,
// bfloat16): a model that takes or returns them cannot keep its interface. Inside a model,
// initializers of these types are still converted where a wider type holds them exactly.
struct InexpressibleType {
  int32_t onnx_type;
  std::string_view why;
};
inline constexpr std::string_view kDataTypeCategory = "data type";
std::span<const InexpressibleType> inexpressible_io_types();
const InexpressibleType* find_inexpressible_io_type(int32_t onnx_type);

}  // namespace wnn::onnx
