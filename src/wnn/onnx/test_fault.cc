#include "wnn/onnx/test_fault.h"

#include <cstdlib>

namespace wnn::onnx {

void crash_if_test_fault_requested(const std::string& model_path) {
  const char* match = std::getenv("WNN_TEST_CRASH_MATCH");
  if (match != nullptr && *match != '\0' && model_path.find(match) != std::string::npos) {
    std::abort();  // deliberate: simulates a converter crash (test-only, see test_fault.h)
  }
}

}  // namespace wnn::onnx
