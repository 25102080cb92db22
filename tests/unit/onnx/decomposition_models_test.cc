// Runs the models of make_decomposition_models.py (expected outputs from numpy) through the
// importer and the reference runtime: the decomposed converters with non-default attributes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "wnn/onnx/backend_test.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path& models_dir() {
  static const fs::path dir = [] {
    fs::path d =
        fs::temp_directory_path() / ("wnn_decomposition_models_" + std::to_string(::getpid()));
    const std::string cmd = "/usr/bin/python3 " WNN_SOURCE_DIR
                            "/tests/unit/onnx/make_decomposition_models.py " +
                            d.string() + " 2>/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return d;
  }();
  return dir;
}

class DecomposedModel : public ::testing::TestWithParam<const char*> {};

TEST_P(DecomposedModel, MatchesNumpy) {
  const BackendTestResult r = run_backend_test((models_dir() / GetParam()).string());
  EXPECT_EQ(r.outcome, TestOutcome::kPass) << r.reason;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecomposedModel,
    ::testing::Values("asin_extremes", "acos_extremes", "atan_extremes", "topk_smallest_axis0",
                      "topk_long_axis_ties_and_inf", "einsum_ellipsis_matmul",
                      "einsum_trace_then_outer", "einsum_broadcast_batch_private_label",
                      "einsum_three_operands", "bitshift_left_uint32", "bitshift_right_uint32",
                      "det_batched_3x3", "scatter_elements_max_axis0_partial",
                      "scatter_elements_mul_axis0_partial", "scatternd_min_duplicates",
                      "gathernd_batch_dims1", "rnn_reverse_ragged_leakyrelu_batch_major",
                      "lstm_runtime_peepholes", "lstm_bidirectional_batch_major",
                      "gru_linear_before_reset_batch_major", "qlinearmatmul_per_column",
                      "bitwise_and_int8", "bitwise_or_int8", "bitwise_xor_int8",
                      "bitwise_not_uint32", "bitwise_not_int8", "center_crop_pad_axes",
                      "rms_normalization_axis1_epsilon"));

}  // namespace
}  // namespace wnn::onnx
