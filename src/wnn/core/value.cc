#include "wnn/core/value.h"

namespace wnn {

RawValue::RawValue(const std::vector<int64_t>& ints) {
  List l;
  for (int64_t i : ints) l.emplace_back(i);
  v = std::move(l);
}
RawValue::RawValue(const std::vector<double>& floats) {
  List l;
  for (double d : floats) l.emplace_back(d);
  v = std::move(l);
}
RawValue::RawValue(const std::vector<OperandId>& ids) {
  List l;
  for (OperandId id : ids) l.emplace_back(id);
  v = std::move(l);
}
RawValue::RawValue(const std::vector<std::string>& strings) {
  List l;
  for (const auto& s : strings) l.emplace_back(s);
  v = std::move(l);
}

std::string RawValue::kind_name() const {
  switch (v.index()) {
    case 0:
      return "null";
    case 1:
      return "boolean";
    case 2:
      return "integer";
    case 3:
      return "number";
    case 4:
      return "string";
    case 5:
      return "name '" + std::get<Name>(v).text + "'";
    case 6:
      return "list";
    case 7:
      return "object";
    case 8:
      return "operand";
    case 9:
      return "data type";
  }
  return "value";
}

}  // namespace wnn
