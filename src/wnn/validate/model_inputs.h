// Deterministic inputs that mean something to the model (docs/validation.md, "Inputs"): token
// ids inside the embedding table, masks of ones, position ids counting up, empty caches, images
// in [-1, 1]. The same model always gets the same tensors.
#pragma once

#include <optional>
#include <string>

#include "wnn/core/ops/schema.h"
#include "wnn/core/tensor.h"
#include "wnn/onnx/model.h"

namespace wnn::validate {

struct GeneratedInput {
  Tensor tensor;
  std::string rule;  // which rule made it, for the report: "token ids in [0, 30522)", ...
};

// The number of rows of the table that the graph input `name` indexes: the first dimension
// (along `axis`) of the initializer or Constant that a Gather reads with `name` as indices,
// possibly through Cast/Reshape/Unsqueeze/Squeeze/Flatten. nullopt when no such Gather exists.
std::optional<int64_t> embedding_rows(const onnx::ModelProto& model, const std::string& name);

// The value of graph input `name` of type `desc` (ONNX bools are uint8 with `onnx_bool`).
GeneratedInput generate_input(const onnx::ModelProto& model, const std::string& name,
                              const OperandDesc& desc, bool onnx_bool);

}  // namespace wnn::validate
