// A compact way to state inference cases: operands as "name: f32[1, 2]" declarations and a
// call with positional operand names and named options, built through the real builder.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"

namespace wnn::testing {

struct Decl {
  std::string name;
  DataType dtype;
  Shape shape;
};

inline CallArg pos(const std::string& name) { return {"", RawValue::Name{name}, ""}; }
inline CallArg pos_list(const std::vector<std::string>& names) {
  RawValue::List l;
  for (const auto& n : names) l.push_back(RawValue::Name{n});
  return {"", RawValue(std::move(l)), ""};
}
inline CallArg named(const std::string& name, RawValue v) { return {name, std::move(v), ""}; }
inline CallArg named_operand(const std::string& name, const std::string& operand) {
  return {name, RawValue::Name{operand}, ""};
}

struct InferCase {
  std::string op;
  std::vector<Decl> operands;
  std::vector<CallArg> args;
};

// Builds the operands as inputs and adds the call; returns the output descriptors.
inline std::vector<OperandDesc> infer(const InferCase& c, Graph& g) {
  GraphBuilder b(g);
  for (const auto& d : c.operands) b.input(d.name, {d.dtype, d.shape});
  Call call{c.op, c.args, {}};
  std::vector<OperandDesc> out;
  for (OperandId id : b.add(call)) out.push_back(g.desc(id));
  return out;
}

// The error message of a call expected to be rejected, and a check that it left the graph
// exactly as it was.
inline std::string rejection(const InferCase& c) {
  Graph g;
  GraphBuilder b(g);
  for (const auto& d : c.operands) b.input(d.name, {d.dtype, d.shape});
  const size_t operands_before = g.operands().size();
  try {
    b.add(Call{c.op, c.args, {}});
  } catch (const Error& e) {
    EXPECT_EQ(g.operands().size(), operands_before) << "a failed add changed the graph";
    EXPECT_TRUE(g.nodes().empty()) << "a failed add appended a node";
    return e.what();
  }
  ADD_FAILURE() << c.op << " was accepted";
  return {};
}

}  // namespace wnn::testing
