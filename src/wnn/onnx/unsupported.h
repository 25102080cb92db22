// The ONNX operators WebNN cannot express, each with the documented reason. This is the one
// checked-in list the backend-test runner may skip on; everything else must convert or fail.
#pragma once

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
// "category: why" for an op on the list; nullopt otherwise.
const Inexpressible* find_inexpressible(std::string_view op_type);

}  // namespace wnn::onnx
