// Runs the models of make_geometry_models.py (3-D conv/pool, Resize modes, MaxPool indices,
// MaxUnpool, GridSample, DFT/STFT, windows, all with non-default attributes; expected outputs
// from PyTorch's kernels) through the importer and the reference runtime.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"
#include "wnn/onnx/backend_test.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path& models_dir() {
  static const fs::path dir =
      testing::generate_models("make_geometry_models.py", "wnn_geometry_models");
  return dir;
}

class GeometryModel : public ::testing::TestWithParam<const char*> {};

TEST_P(GeometryModel, MatchesPyTorch) {
  const BackendTestResult r = run_backend_test((models_dir() / GetParam()).string());
  EXPECT_EQ(r.outcome, TestOutcome::kPass) << r.reason;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GeometryModel,
    ::testing::Values("conv3d_groups_strides_pads", "convtranspose3d_groups_output_padding",
                      "maxpool3d_ceil_dilation", "averagepool3d_count_include_pad",
                      "averagepool3d_ceil_exclude_pad", "maxpool_indices_pads_strides",
                      "maxunpool_strides", "resize_cubic_half_pixel", "resize_linear_align_corners",
                      "resize_nearest_asymmetric_floor", "resize_nearest_half_pixel_ceil",
                      "resize_linear_antialias", "resize_linear_align_corners_long",
                      "resize_cubic_long", "gridsample_bilinear_reflection_align0",
                      "gridsample_bicubic_zeros_align1", "gridsample_nearest_border_align0",
                      "dft_onesided_padded_axis2", "dft_inverse_truncated", "stft_window_step3",
                      "hannwindow_symmetric", "blackmanwindow_periodic"));

}  // namespace
}  // namespace wnn::onnx
