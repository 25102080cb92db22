// GraphBuilder: the only way to add inputs, constants, nodes and outputs to a Graph.
// Every add resolves its parameters against the operator table, validates dtypes, runs the
// spec's inference and only then appends: a failed add throws wnn::Error and leaves the graph
// exactly as it was.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn {

// One argument of a call: a parameter name (empty for positional) and its untyped value.
// `where` (for example "model.webnn:3:14") is added to any error about this argument.
struct CallArg {
  std::string name;
  RawValue value;
  std::string where;
};

// A builder-method call as a front end read it.
struct Call {
  std::string op;                    // camelCase WebNN name
  std::vector<CallArg> args;         // positional (empty name) first, then named
  std::vector<std::string> outputs;  // names for the results; empty to generate them
};

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& graph) : graph_(graph) {}

  OperandId input(std::string name, OperandDesc desc,
                  std::vector<std::optional<DynamicDim>> dynamic_dims = {});
  // A constant. Its data is bound later with Graph::bind_constant (weights) or, for inline
  // forms, with Graph::bind_inline_constants; pass `data` to bind it now.
  OperandId constant(std::string name, OperandDesc desc, ConstantInitKind init,
                     std::string key = {}, Value scalar = {}, std::vector<uint8_t> bytes = {},
                     Buffer data = {});
  // A constant holding `tensor`, stored as weights under its own name.
  OperandId constant(std::string name, const Tensor& tensor);

  std::vector<OperandId> add(const Call& call);
  // Convenience for C++ front ends: positional values, then named ones.
  std::vector<OperandId> add(OpKind op, std::vector<RawValue> positional,
                             std::vector<std::pair<std::string, RawValue>> named = {},
                             std::vector<std::string> output_names = {});
  // Single-output form.
  OperandId add1(OpKind op, std::vector<RawValue> positional,
                 std::vector<std::pair<std::string, RawValue>> named = {},
                 std::string output_name = {});

  void output(OperandId id);
  void output(std::string_view name);

  // Gives operand `id` a new name (checked like any new name); a constant's weights key stays.
  void rename(OperandId id, std::string name);

  // A name not yet used in the graph: `base`, else `base_1`, `base_2`, ...
  std::string unique_name(std::string_view base) const;
  Graph& graph() { return graph_; }

 private:
  void check_new_name(const std::string& name) const;
  OperandId append_operand(std::string name, OperandDesc desc, OperandKind kind);
  Graph& graph_;
};

// The closest of `candidates` to `word` by edit distance, or empty when nothing is close.
std::string_view closest_name(std::string_view word,
                              const std::vector<std::string_view>& candidates);

}  // namespace wnn
