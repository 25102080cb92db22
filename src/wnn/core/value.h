// Values of operator arguments and options: what the front ends hand the builder (RawValue,
// untyped, as written in a file) and what a node stores once the schema has typed it (Value).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "wnn/core/dtype.h"

namespace wnn {

// Index of an operand in its graph.
struct OperandId {
  uint32_t index = UINT32_MAX;
  bool operator==(const OperandId&) const = default;
  auto operator<=>(const OperandId&) const = default;
};

using OperandList = std::vector<OperandId>;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;
using StringList = std::vector<std::string>;

// A typed value, as stored in a node. monostate means "not given".
using Value = std::variant<std::monostate, bool, int64_t, double, std::string, IntList, FloatList,
                           StringList, DataType, OperandId, OperandList>;

// An untyped value as a front end read it. The builder coerces it to the parameter's kind:
// a Name may be an operand or a bare enum word, an integer may fill a float option, and so on.
struct RawValue {
  struct Name {
    std::string text;
  };
  using List = std::vector<RawValue>;
  using Object = std::vector<std::pair<std::string, RawValue>>;
  std::variant<std::monostate, bool, int64_t, double, std::string, Name, List, Object, OperandId,
               DataType>
      v;

  RawValue() = default;
  RawValue(bool b) : v(b) {}
  RawValue(int i) : v(int64_t(i)) {}
  RawValue(int64_t i) : v(i) {}
  RawValue(double d) : v(d) {}
  RawValue(const char* s) : v(std::string(s)) {}
  RawValue(std::string s) : v(std::move(s)) {}
  RawValue(Name n) : v(std::move(n)) {}
  RawValue(List l) : v(std::move(l)) {}
  RawValue(Object o) : v(std::move(o)) {}
  RawValue(OperandId id) : v(id) {}
  RawValue(DataType t) : v(t) {}
  RawValue(const std::vector<int64_t>& ints);
  RawValue(const std::vector<double>& floats);
  RawValue(const std::vector<OperandId>& ids);
  RawValue(const std::vector<std::string>& strings);

  // A short description of what was written, for error messages ("integer", "list").
  std::string kind_name() const;
};

}  // namespace wnn
