// The reference's noise floor: how far ONNX Runtime's own answer moves when only its arithmetic
// changes (graph optimizations disabled, another thread count). An ill-conditioned output can
// move further than the dtype tolerance allows; wnn's answer is then judged against k times that
// movement instead (compare.h, Tolerance::floor), so a difference no larger than ORT's own
// disagreement with itself is not reported as a conversion bug. Integer and bool values (an
// Equal or ArgMax of noisy floats) have no distance to loosen: they may differ on k times as
// many elements as ORT's runs disagree on.
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

// The runs compared with the reference run (made with `base`): graph optimizations disabled at
// `base`'s thread count, and `base`'s optimization level with another thread count (2 when
// `base` has 1, else 1).
std::vector<ReferenceOptions> noise_floor_runs(const ReferenceOptions& base);
// "optimization disabled, 1 thread", "optimization all, 2 threads".
std::string describe_run(const ReferenceOptions& run);

struct NoiseFloor {
  double value = 0;             // the largest of per_run
  std::vector<double> per_run;  // max |alt - ref| over elements finite in both, per run
  int64_t differing = 0;        // the most elements any run gives another value for
};

// `tol` loosened by k times `floor`: the absolute allowance for floats, the number of elements
// that may differ for integers and bools.
Tolerance with_noise_floor(Tolerance tol, DataType dtype, const NoiseFloor& floor);

struct NoiseFloorRuns {
  ReferenceRun::Status status = ReferenceRun::Status::kOk;
  std::string message;  // the first failing run's message (kOrtFailed / kUnavailable)
  std::vector<ReferenceOptions> runs;
  std::vector<std::vector<runtime::NamedTensor>> outputs;  // per run
  double ms = 0;                                           // all runs together
};
// Runs `model_path` once per noise_floor_runs(base) on `feeds`; stops at the first failure.
NoiseFloorRuns run_noise_floor(const std::string& model_path, const std::vector<FeedTensor>& feeds,
                               const std::string& work_dir, const ReferenceOptions& base);

// The floor of output `name`, whose reference value is `reference`: nullopt
// when some run lacks it or gives it another dtype or shape.
std::optional<NoiseFloor> noise_floor_of(const std::string& name, const Tensor& reference,
                                         const NoiseFloorRuns& runs);

}  // namespace wnn::validate
