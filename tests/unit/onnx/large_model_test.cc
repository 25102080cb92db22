// A model over 2 GB (libprotobuf's limit), written as a sparse file: the protobuf header bytes,
// then a raw_data field whose 2.1 GB of content is a hole. Decoding must not read the payload.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "proto_writer.h"
#include "wnn/onnx/model.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx {
namespace {

using testing::ProtoWriter;

TEST(LargeModel, SparseModelOver2GBDecodesWithAZeroCopyInitializer) {
  constexpr uint64_t kPayload = 2'100'000'000;  // > INT32_MAX
  // Each enclosing message ends with the field that contains the payload, so the payload is the
  // file's tail and the lengths are known before it is "written".
  ProtoWriter init_head;
  init_head.int_field(1, int64_t(kPayload)).int_field(2, 2).bytes_field(8, "big");
  init_head.tag(9, 2).varint(kPayload);
  const uint64_t init_size = init_head.str().size() + kPayload;
  ProtoWriter graph_head;
  graph_head.bytes_field(2, "g").tag(5, 2).varint(init_size);
  const uint64_t graph_size = graph_head.str().size() + init_size;
  ProtoWriter model;
  model.int_field(1, 9).tag(7, 2).varint(graph_size).raw(graph_head.str()).raw(init_head.str());
  const uint64_t header = model.str().size();

  std::string path = (std::filesystem::temp_directory_path() / "wnn_large_XXXXXX").string();
  const int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, model.str().data(), header), ssize_t(header));
  ASSERT_EQ(ftruncate(fd, off_t(header + kPayload)), 0);
  close(fd);

  {
    const ModelProto m = load_model(path);
    EXPECT_EQ(m.ir_version, 9);
    ASSERT_EQ(m.graph.initializer.size(), 1u);
    const TensorProto& t = m.graph.initializer[0];
    EXPECT_EQ(t.name, "big");
    ASSERT_TRUE(t.raw_data.has_value());
    EXPECT_EQ(t.raw_data->size(), kPayload);
    const TensorData d = tensor_data(t, ExternalDataResolver::for_model(path));
    EXPECT_TRUE(d.zero_copy);
    EXPECT_EQ(d.data.data(), t.raw_data->data());
    EXPECT_EQ(d.data.size(), kPayload);
    EXPECT_EQ(d.data.data()[kPayload - 1], std::byte{0});  // touches one page of the hole
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace wnn::onnx
