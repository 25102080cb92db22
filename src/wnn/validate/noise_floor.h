// The reference's noise floor: how far ONNX Runtime's own answer moves when only its arithmetic
// changes (graph optimizations disabled, another thread count). An ill-conditioned output can
// move further than the dtype tolerance allows; wnn's answer is then judged against k times that
// movement instead (compare.h, Tolerance::floor), so a difference no larger than ORT's own
// disagreement with itself is not reported as a conversion bug. Integer and bool values (an
// Equal or ArgMax of noisy floats) have no distance to loosen: they may differ on k times as
// many elements as ORT's runs disagree on.
//
// A graph with int8 activations (MatMulNBits at accuracy_level 4, reference_model.h) has one
// more source of difference that no arithmetic run shows: ORT quantizes each block of those
// nodes' inputs to int8, and wnn does the same, but a float32 rounding difference upstream (far
// below the dtype tolerance) can move an input across a rounding boundary. The whole int8 step
// then goes on through the rest of the graph. So such a graph gets one more run, a copy with
// those nodes at accuracy_level 0 (ORT's float path): its distance from the reference is the
// int8 activation quantization's whole effect on each value, and wnn passes within
// kInt8ActivationsFactor times it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/validate/compare.h"
#include "wnn/validate/reference.h"

namespace wnn::validate {

enum class NoiseFloorMode {
  kAuto,    // measured when a float output (or --per-node value) fails the dtype tolerance
  kAlways,  // measured on every validation, recorded in the report
  kOff,     // never: the dtype tolerance alone decides
};
std::optional<NoiseFloorMode> parse_noise_floor_mode(std::string_view text);
const char* noise_floor_mode_name(NoiseFloorMode mode);

// k: an element passes when |a - r| <= max(atol + rtol |r|, k * floor). wnn is a third
// implementation beside the two ORT configurations, so its distance to the reference may exceed
// the distance between them: up to 3.75x on the values measured beyond the dtype tolerance
// (outputs and --per-node intermediates of the dev models and the test fixtures), while
// deliberately wrong conversions land 700x to 370000x above the floor (docs/validation.md).
inline constexpr double kNoiseFloorFactor = 4;
// On the bench decoder (docs/validation.md) wnn's difference is 0.14x to 0.24x of this floor
// on the outputs that need it; a wrong scale or block layout is many times the floor.
inline constexpr double kInt8ActivationsFactor = 1;

// The runs compared with the reference run (made with `base`): graph optimizations disabled at
// `base`'s thread count, and `base`'s optimization level with another thread count (2 when
// `base` has 1, else 1).
std::vector<ReferenceOptions> noise_floor_runs(const ReferenceOptions& base);
// "optimization disabled, 1 thread", "optimization all, 2 threads".
std::string describe_run(const ReferenceOptions& run);

struct NoiseFloor {
  double value = 0;             // the largest of per_run over the arithmetic runs
  std::vector<double> per_run;  // max |alt - ref| over elements finite in both, per run
  int64_t differing = 0;        // the most elements an arithmetic run gives another value for
  // With int8 activations: the accuracy_level 0 run's max |alt - ref| and differing elements.
  std::optional<double> int8_activations;
  int64_t int8_differing = 0;
};

// `tol` loosened by k times `floor` (and kInt8ActivationsFactor times its int8 activation
// floor, where larger): the absolute allowance for floats, the number of elements that may
// differ for integers and bools.
Tolerance with_noise_floor(Tolerance tol, DataType dtype, const NoiseFloor& floor);

struct NoiseFloorRuns {
  ReferenceRun::Status status = ReferenceRun::Status::kOk;
  std::string message;  // the first failing run's message (kOrtFailed / kUnavailable)
  std::vector<ReferenceOptions> runs;
  std::vector<std::string> labels;  // per run: describe_run, and what the model copy changed
  int int8_run = -1;                // the accuracy_level 0 run's index, or -1
  std::vector<std::vector<runtime::NamedTensor>> outputs;  // per run
  double ms = 0;                                           // all runs together
};
// Runs `model_path` once per noise_floor_runs(base) on `feeds`, then, when it has int8
// activations, a copy of it at accuracy_level 0 (written to `work_dir`, its external data
// resolved from base.external_data_dir or else beside `model_path`). Stops at the first
// failure.
NoiseFloorRuns run_noise_floor(const std::string& model_path, const std::vector<FeedTensor>& feeds,
                               const std::string& work_dir, const ReferenceOptions& base);

// The floor of output `name`, whose reference value is `reference`: nullopt
// when some run lacks it or gives it another dtype or shape.
std::optional<NoiseFloor> noise_floor_of(const std::string& name, const Tensor& reference,
                                         const NoiseFloorRuns& runs);

}  // namespace wnn::validate
