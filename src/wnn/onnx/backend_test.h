// The ONNX backend-test runner: a directory holding model.onnx and test_data_set_*/ with
// input_N.pb and output_N.pb is imported, run on the reference runtime and compared.
#pragma once

#include <string>

namespace wnn::onnx {

enum class TestOutcome { kPass, kFail, kSkip };

struct BackendTestResult {
  std::string name;
  TestOutcome outcome = TestOutcome::kPass;
  std::string reason;  // why it failed, or the documented category it was skipped for
};

// Floats match when |a - r| <= 1e-5 + 1e-3 |r| (NaN matches NaN); integers and bools exactly.
BackendTestResult run_backend_test(const std::string& dir);

}  // namespace wnn::onnx
