// Comparing wnn's outputs with the reference: the per-dtype tolerance profile, the pass rule
// |a - r| <= max(atol + rtol * |r|, floor) (NaN matches NaN, infinities match in sign; `floor` is
// k times the reference's noise floor, noise_floor.h, or 0) and the error metrics the report
// prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/core/tensor.h"
#include "wnn/onnx/model.h"

namespace wnn::validate {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  // An absolute allowance that replaces atol + rtol * |r| where it is larger: kNoiseFloorFactor
  // times the output's measured noise floor; 0 when none was measured. Floats only.
  double floor = 0;
  // Elements that may differ at all: kNoiseFloorFactor times the elements on which the
  // reference's own runs disagree. Integers and bools only (they have no distance to loosen).
  int64_t allowed_mismatches = 0;
};

// float16's machine epsilon, 2^-10: the gap between 1 and the next float16.
inline constexpr double kFloat16Epsilon = 0x1p-10;

// float32 1e-5/1e-4; float16 atol = kFloat16Epsilon, rtol = 10 * kFloat16Epsilon
// (docs/validation.md gives the reasoning); integers exact. `quantized` (from
// quantization_tolerance) replaces the float profiles.
Tolerance default_tolerance(DataType dtype, const std::optional<Tolerance>& quantized);

// The dtype whose profile judges each operand of a converted graph: float16 for a float value
// that depends on a float16 value some node computed (itself included), else its own dtype. A
// float32 output cast from a float16 body (keep_io_types) carries the body's float16 roundings,
// so its dtype alone would ask for a precision nothing before it had. Constants and graph inputs
// do not count: both sides read the same float16 values.
class ProfileDtypes {
 public:
  explicit ProfileDtypes(const Graph& g);
  DataType of(OperandId id) const;

 private:
  const Graph& graph_;
  std::vector<bool> float16_computed_;  // by operand index
};

// The profile a graph with com.microsoft MatMulNBits nodes needs, from their `bits` attribute
// (4 -> 1e-3/1e-3, 8 -> 2e-3/2e-3, the loosest when both occur); nullopt without such nodes.
std::optional<Tolerance> quantization_tolerance(const onnx::ModelProto& model);

// How the converted graph computes the model's MatMulNBits nodes, one line per accuracy level
// present: accuracy_level 4 reproduces ONNX Runtime's scheme (A quantized per block to int8,
// exact integer block products), so the comparison needs no tolerance for the activation
// quantization; 0 and 1 multiply in float32. Empty without such nodes.
std::vector<std::string> quantized_arithmetic(const onnx::ModelProto& model);

struct OutputMetrics {
  int64_t elements = 0;
  int64_t failing = 0;
  double failing_fraction = 0;
  int64_t failing_without_floor = 0;  // against atol + rtol * |r| alone
  double max_abs = 0;                 // over elements where both values are finite
  double mean_abs = 0;                // same
  double rmse = 0;                    // same
  // max over finite pairs of |a - r| / max(atol + rtol * |r|, floor): <= 1 passes (infinite
  // with a zero tolerance and any difference).
  double max_normalized = 0;
  std::optional<double> cosine;          // none for empty outputs
  std::optional<double> top1_agreement;  // fraction of rows whose argmax agrees
  bool pass = true;
  // Passes only because of the floor: some element is beyond atol + rtol * |r| (or, for
  // integers, differs).
  bool within_floor_only() const { return pass && failing_without_floor > 0; }
};

// Compares `actual` with `reference` (same dtype and shape, checked by the caller).
OutputMetrics compare_tensors(const ConstTensorView& actual, const ConstTensorView& reference,
                              const Tolerance& tol);

// The fraction of rows (all dims but the last) whose argmax over the last dimension is the same
// in both (first maximum wins; NaN never wins). 1 for outputs with no rows.
double top1_agreement(const ConstTensorView& actual, const ConstTensorView& reference);

// Whether an output's last dimension looks like class scores: a float output of rank 2 (or
// named *logits*) whose last dimension is at least 2.
bool looks_like_classes(const std::string& name, DataType dtype, const Shape& shape);

}  // namespace wnn::validate
