// TEST-ONLY fault switch. When the environment variable WNN_TEST_CRASH_MATCH is set and the
// path of an ONNX model being loaded (onnx::load_model, which `wnn convert` and `wnn validate`
// both go through) contains its value, the process calls std::abort(). The sweep
// tests (tests/sweep) use it to prove that an entry crashing its `wnn convert` / `wnn validate`
// subprocess is reported as a failure while the other entries complete. Nothing else reads it.
#pragma once

#include <string>

namespace wnn::onnx {

void crash_if_test_fault_requested(const std::string& model_path);

}  // namespace wnn::onnx
