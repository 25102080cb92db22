#include "wnn/onnx/external_data.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;
using testing::elements;
using testing::error_of;

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "wnn_external_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    model_dir_ = root_ / "model";
    fs::create_directories(model_dir_ / "sub");
    // weights.bin: 8 bytes of header, then floats 1.5, -2, 0.25 and int64 -3.
    std::ofstream w(model_dir_ / "weights.bin", std::ios::binary);
    w.write("HEADER!!", 8);
    const float f[] = {1.5f, -2.0f, 0.25f};
    w.write(reinterpret_cast<const char*>(f), sizeof f);
    std::ofstream(model_dir_ / "sub" / "other.bin", std::ios::binary).write("\x07\xf9", 2);
    std::ofstream(root_ / "secret.bin", std::ios::binary).write("outside!", 8);
  }
  void TearDown() override { fs::remove_all(root_); }

  static TensorProto external(std::string location, std::vector<int64_t> dims,
                              OnnxType type = OnnxType::kFloat) {
    TensorProto t;
    t.name = "w";
    t.data_type = int32_t(type);
    t.dims = std::move(dims);
    t.data_location = 1;
    t.external_data = {{"location", std::move(location)}};
    return t;
  }

  fs::path root_, model_dir_;
};

TEST_F(ExternalData, RelativeFileWithOffsetIsAZeroCopyView) {
  const ExternalDataResolver r(model_dir_);
  TensorProto t = external("weights.bin", {3});
  t.external_data.push_back({"offset", "8"});
  t.external_data.push_back({"length", "12"});
  t.external_data.push_back({"checksum", "ignored"});
  const TensorData d = tensor_data(t, r);
  EXPECT_TRUE(d.zero_copy);
  EXPECT_EQ(elements<float>(d), (std::vector<float>{1.5f, -2.0f, 0.25f}));
  ASSERT_EQ(r.files().size(), 1u);
  EXPECT_EQ(fs::path(r.files()[0]).filename(), "weights.bin");
}

TEST_F(ExternalData, AbsentLengthReadsTheTensorSizeFromTheOffset) {
  const ExternalDataResolver r(model_dir_);
  TensorProto t = external("weights.bin", {2});
  t.external_data.push_back({"offset", "12"});
  EXPECT_EQ(elements<float>(tensor_data(t, r)), (std::vector<float>{-2.0f, 0.25f}));
}

TEST_F(ExternalData, SeveralFilesAreEachMappedOnce) {
  const ExternalDataResolver r = ExternalDataResolver::for_model((model_dir_ / "m.onnx").string());
  TensorProto a = external("weights.bin", {2});
  a.external_data.push_back({"offset", "8"});
  TensorProto b = external("sub/other.bin", {2}, OnnxType::kInt8);
  EXPECT_EQ(elements<int8_t>(tensor_data(b, r)), (std::vector<int8_t>{7, -7}));
  tensor_data(a, r);
  tensor_data(a, r);
  EXPECT_EQ(r.files().size(), 2u);
}

TEST_F(ExternalData, ParentDirectoryComponentIsRejected) {
  const ExternalDataResolver r(model_dir_);
  EXPECT_NE(error_of([&] {
              tensor_data(external("../secret.bin", {2}), r);
            }).find("location '../secret.bin' contains '..'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tensor_data(external("sub/../../secret.bin", {2}), r);
            }).find("contains '..'"),
            std::string::npos);
}

TEST_F(ExternalData, AbsolutePathIsRejected) {
  const ExternalDataResolver r(model_dir_);
  const std::string abs = (root_ / "secret.bin").string();
  EXPECT_NE(error_of([&] { tensor_data(external(abs, {2}), r); }).find("is an absolute path"),
            std::string::npos);
}

TEST_F(ExternalData, SymlinkEscapingTheDirectoryIsRejectedButOneInsideWorks) {
  fs::create_symlink(root_ / "secret.bin", model_dir_ / "escape.bin");
  fs::create_directory_symlink(root_, model_dir_ / "up");
  fs::create_symlink(model_dir_ / "weights.bin", model_dir_ / "alias.bin");
  const ExternalDataResolver r(model_dir_);
  EXPECT_NE(error_of([&] {
              tensor_data(external("escape.bin", {2}), r);
            }).find("outside the model's directory"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tensor_data(external("up/secret.bin", {2}), r);
            }).find("outside the model's directory"),
            std::string::npos);
  TensorProto t = external("alias.bin", {1});
  t.external_data.push_back({"offset", "16"});
  EXPECT_EQ(elements<float>(tensor_data(t, r)), (std::vector<float>{0.25f}));
}

TEST_F(ExternalData, RangesOutsideTheFileAreRejected) {
  const ExternalDataResolver r(model_dir_);
  TensorProto t = external("weights.bin", {3});  // 12 bytes; the file has 20
  t.external_data.push_back({"offset", "12"});
  EXPECT_NE(error_of([&] {
              tensor_data(t, r);
            }).find("external data of 12 bytes at offset 12 is outside 'weights.bin' (20 bytes)"),
            std::string::npos);
  t.external_data.back().second = "18446744073709551615";  // offset + size would wrap
  EXPECT_NE(error_of([&] { tensor_data(t, r); }).find("is outside"), std::string::npos);
}

TEST_F(ExternalData, LengthMustMatchAndNumbersMustParse) {
  const ExternalDataResolver r(model_dir_);
  TensorProto t = external("weights.bin", {3});
  t.external_data.push_back({"length", "8"});
  EXPECT_NE(error_of([&] { tensor_data(t, r); }).find("length 8 does not match the 12 bytes"),
            std::string::npos);
  t.external_data.back() = {"offset", "-8"};
  EXPECT_NE(error_of([&] { tensor_data(t, r); }).find("offset '-8' is not a non-negative"),
            std::string::npos);
}

TEST_F(ExternalData, MissingLocationFileOrDirectoryIsAnError) {
  const ExternalDataResolver r(model_dir_);
  TensorProto t = external("weights.bin", {1});
  t.external_data.clear();
  EXPECT_NE(error_of([&] { tensor_data(t, r); }).find("has no 'location'"), std::string::npos);
  EXPECT_NE(error_of([&] { tensor_data(external("missing.bin", {1}), r); }).find("cannot open"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tensor_data(external("weights.bin", {1}), ExternalDataResolver());
            }).find("needs the model's directory"),
            std::string::npos);
}

TEST_F(ExternalData, ZeroFillReadsMissingFilesAndShortRangesAsZeros) {
  ExternalDataResolver r(model_dir_);
  r.zero_fill_missing(true);
  EXPECT_EQ(elements<float>(tensor_data(external("missing.bin", {3}), r)),
            (std::vector<float>{0.0f, 0.0f, 0.0f}));
  TensorProto past_end = external("weights.bin", {3});  // the file has 20 bytes, not 16 + 12
  past_end.external_data.push_back({"offset", "16"});
  EXPECT_EQ(elements<float>(tensor_data(past_end, r)), (std::vector<float>{0.0f, 0.0f, 0.0f}));
  // Data that is there is still read, not zeroed.
  TensorProto present = external("weights.bin", {2});
  present.external_data.push_back({"offset", "12"});
  EXPECT_EQ(elements<float>(tensor_data(present, r)), (std::vector<float>{-2.0f, 0.25f}));
  EXPECT_EQ(r.zero_filled(), (std::vector<std::string>{"missing.bin", "weights.bin"}));
  // Names are checked even when nothing would be read.
  EXPECT_NE(error_of([&] { tensor_data(external("../secret.bin", {2}), r); }).find("'..'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { tensor_data(external("/etc/passwd", {2}), r); }).find("absolute"),
            std::string::npos);
}

TEST_F(ExternalData, HubSnapshotSymlinksMayReachTheRepositoryBlobsOnly) {
  // huggingface_hub's layout: snapshots/<commit>/<file> -> ../../blobs/<etag>.
  const fs::path repo = root_ / "models--org--m";
  const fs::path snapshot = repo / "snapshots" / "abc" / "onnx";
  fs::create_directories(snapshot);
  fs::create_directories(repo / "blobs");
  fs::copy_file(model_dir_ / "weights.bin", repo / "blobs" / "e1");
  fs::create_symlink("../../../blobs/e1", snapshot / "m.onnx_data");
  fs::create_symlink(root_ / "secret.bin", snapshot / "escape.bin");
  const ExternalDataResolver r(snapshot);
  TensorProto t = external("m.onnx_data", {1});
  t.external_data.push_back({"offset", "8"});
  EXPECT_EQ(elements<float>(tensor_data(t, r)), (std::vector<float>{1.5f}));
  EXPECT_NE(error_of([&] {
              tensor_data(external("escape.bin", {2}), r);
            }).find("outside the model's directory"),
            std::string::npos);
}

}  // namespace
}  // namespace wnn::onnx
