// The WebNN graph IR: named inputs, constants (backed by buffers that may view mapped files),
// nodes in topological order and named outputs, all in one flat namespace of operand names.
// Graphs are built only through GraphBuilder (builder.h), which validates and infers each node.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wnn/core/ops/schema.h"
#include "wnn/core/tensor.h"

namespace wnn {

enum class OperandKind : uint8_t { kInput, kConstant, kNodeOutput };

struct Operand {
  std::string name;
  OperandDesc desc;
  OperandKind kind = OperandKind::kNodeOutput;
  uint32_t producer = UINT32_MAX;  // node index for kNodeOutput
  uint32_t output_index = 0;       // which output of the producer
  uint32_t decl_index = 0;         // index into inputs() or constants() for those kinds
};

// A bounded dynamic dimension of an input: `dyn("batch", 16)`. The operand's static shape
// holds `max`; front ends resolve the dims before execution.
struct DynamicDim {
  std::string name;
  int64_t max = 0;
  bool operator==(const DynamicDim&) const = default;
};

struct InputInfo {
  OperandId id;
  std::vector<std::optional<DynamicDim>> dynamic_dims;  // empty, or one entry per dim
  bool is_dynamic() const;
};

// How a constant's bytes are given in the graph file.
enum class ConstantInitKind : uint8_t {
  kWeights,  // @weights("key"): a tensor in the weights file
  kScalar,   // @scalar(v): the declared shape filled with v
  kBytes,    // @bytes([...]): raw little-endian bytes inline
};

// The largest constant a @scalar declaration may expand to when bound. Weights constants are
// bounded by their file; a fill is bounded only by this, so a short hostile declaration cannot
// ask for terabytes. 4 GiB is far above any fill seen in exported models (masks, zeros).
inline constexpr size_t kMaxScalarFillBytes = size_t(1) << 32;

struct ConstantInfo {
  OperandId id;
  ConstantInitKind init = ConstantInitKind::kWeights;
  std::string key;             // kWeights
  Value scalar;                // kScalar: int64_t or double, as written
  std::vector<uint8_t> bytes;  // kBytes
  Buffer data;                 // the unpacked element data once bound; empty before
  bool bound() const { return data.data() != nullptr || data.size() > 0; }
};

struct Node {
  Attributes attrs;
  std::vector<OperandId> inputs;  // every operand read, in parameter order
  std::vector<OperandId> outputs;
  OpKind op() const { return attrs.op(); }
};

class Graph {
 public:
  std::string name = "model";
  bool quantized = false;  // '@quantized': keep int4/uint4/int8 tensors as they are

  const Operand& operand(OperandId id) const { return operands_.at(id.index); }
  const OperandDesc& desc(OperandId id) const { return operand(id).desc; }
  const std::string& name_of(OperandId id) const { return operand(id).name; }
  std::optional<OperandId> find(std::string_view name) const;

  std::span<const Operand> operands() const { return operands_; }
  std::span<const InputInfo> inputs() const { return inputs_; }
  std::span<const ConstantInfo> constants() const { return constants_; }
  std::span<const Node> nodes() const { return nodes_; }
  std::span<const OperandId> outputs() const { return outputs_; }
  bool is_output(OperandId id) const;
  const ConstantInfo* constant_of(OperandId id) const;

  // Binds a constant's element data (unpacked, dtype_size per element). Checks the length.
  void bind_constant(size_t constant_index, Buffer data);
  // Fills every kScalar and kBytes constant from its declaration. A @scalar fill above
  // kMaxScalarFillBytes is rejected naming the constant (see docs/robustness.md).
  void bind_inline_constants();
  bool has_dynamic_inputs() const;

 private:
  friend class GraphBuilder;
  std::vector<Operand> operands_;
  std::vector<InputInfo> inputs_;
  std::vector<ConstantInfo> constants_;
  std::vector<Node> nodes_;
  std::vector<OperandId> outputs_;
  std::unordered_map<std::string, OperandId> by_name_;
};

// Makes a scalar fill or inline-bytes buffer for a constant of `desc`.
Buffer materialize_inline_constant(const ConstantInfo& c, const OperandDesc& desc);

}  // namespace wnn
