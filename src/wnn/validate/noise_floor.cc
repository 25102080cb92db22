#include "wnn/validate/noise_floor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "wnn/core/atomic_file.h"
#include "wnn/core/mapped_file.h"
#include "wnn/validate/reference_model.h"

namespace wnn::validate {

std::optional<NoiseFloorMode> parse_noise_floor_mode(std::string_view text) {
  for (NoiseFloorMode m : {NoiseFloorMode::kAuto, NoiseFloorMode::kAlways, NoiseFloorMode::kOff}) {
    if (text == noise_floor_mode_name(m)) return m;
  }
  return std::nullopt;
}

const char* noise_floor_mode_name(NoiseFloorMode mode) {
  switch (mode) {
    case NoiseFloorMode::kAuto:
      return "auto";
    case NoiseFloorMode::kAlways:
      return "always";
    case NoiseFloorMode::kOff:
      return "off";
  }
  return "?";
}

std::vector<ReferenceOptions> noise_floor_runs(const ReferenceOptions& base) {
  ReferenceOptions unoptimized = base;
  unoptimized.optimization = "disabled";
  ReferenceOptions threads = base;
  threads.threads = base.threads == 1 ? 2 : 1;
  return {unoptimized, threads};
}

std::string describe_run(const ReferenceOptions& run) {
  return fmt::format("optimization {}, {} thread{}", run.optimization, run.threads,
                     run.threads == 1 ? "" : "s");
}

NoiseFloorRuns run_noise_floor(const std::string& model_path, const std::vector<FeedTensor>& feeds,
                               const std::string& work_dir, const ReferenceOptions& base) {
  NoiseFloorRuns out;
  const auto run_one = [&](const std::string& path, const ReferenceOptions& options,
                           std::string label) {
    ReferenceRun run = run_ort_reference(path, feeds, work_dir, options);
    out.ms += run.ms;
    if (run.status != ReferenceRun::Status::kOk) {
      out.status = run.status;
      out.message = fmt::format("{}: {}", label, run.message);
      out.outputs.clear();
      return false;
    }
    out.runs.push_back(options);
    out.labels.push_back(std::move(label));
    out.outputs.push_back(std::move(run.outputs));
    return true;
  };
  for (const auto& options : noise_floor_runs(base)) {
    if (!run_one(model_path, options, describe_run(options))) return out;
  }

  FloatActivationsCopy copy = model_with_float_activations(MappedFile::open(model_path)->bytes());
  if (copy.changed == 0) return out;
  const int64_t changed = copy.changed;
  const std::string copy_path = work_dir + "/float-activations.onnx";
  write_file_atomic(copy_path, copy.bytes);
  copy = {};
  ReferenceOptions options = base;
  if (options.external_data_dir.empty()) {
    options.external_data_dir = std::filesystem::path(model_path).parent_path().string();
  }
  const bool ok = run_one(copy_path, options,
                          fmt::format("{} MatMulNBits at accuracy_level 0 (float activations), {}",
                                      changed, describe_run(options)));
  std::error_code ec;
  std::filesystem::remove(copy_path, ec);
  if (ok) out.int8_run = int(out.runs.size()) - 1;
  return out;
}

Tolerance with_noise_floor(Tolerance tol, DataType dtype, const NoiseFloor& floor) {
  if (is_float(dtype)) {
    tol.floor = std::max(kNoiseFloorFactor * floor.value,
                         kInt8ActivationsFactor * floor.int8_activations.value_or(0));
  } else {
    tol.allowed_mismatches =
        std::max(int64_t(kNoiseFloorFactor * double(floor.differing)),
                 int64_t(kInt8ActivationsFactor * double(floor.int8_differing)));
  }
  return tol;
}

std::optional<NoiseFloor> noise_floor_of(const std::string& name, const Tensor& reference,
                                         const NoiseFloorRuns& runs) {
  if (runs.status != ReferenceRun::Status::kOk || runs.outputs.empty()) return std::nullopt;
  NoiseFloor floor;
  for (size_t run = 0; run < runs.outputs.size(); ++run) {
    const auto& outputs = runs.outputs[run];
    const auto it = std::find_if(outputs.begin(), outputs.end(),
                                 [&](const runtime::NamedTensor& t) { return t.name == name; });
    if (it == outputs.end() || it->tensor.dtype != reference.dtype ||
        it->tensor.shape != reference.shape) {
      return std::nullopt;
    }
    const ConstTensorView alt = it->tensor.view(), ref = reference.view();
    double max_abs = 0;
    int64_t differing = 0;
    const int64_t n = ref.size();
    for (int64_t i = 0; i < n; ++i) {
      const double a = element_as_double(alt, i), r = element_as_double(ref, i);
      differing += !(a == r || (std::isnan(a) && std::isnan(r)));
      // Where the runs disagree on NaN or infinity no finite distance describes them: such
      // elements must still match exactly.
      if (std::isfinite(a) && std::isfinite(r)) max_abs = std::max(max_abs, std::fabs(a - r));
    }
    floor.per_run.push_back(max_abs);
    if (int(run) == runs.int8_run) {
      floor.int8_activations = max_abs;
      floor.int8_differing = differing;
    } else {
      floor.value = std::max(floor.value, max_abs);
      floor.differing = std::max(floor.differing, differing);
    }
  }
  return floor;
}

}  // namespace wnn::validate
