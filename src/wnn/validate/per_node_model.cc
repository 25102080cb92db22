#include "wnn/validate/per_node_model.h"

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/core/mapped_file.h"
#include "wnn/onnx/wire.h"

namespace wnn::validate {

namespace {
// Field numbers of onnx.proto3.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphOutput = 12;
constexpr uint32_t kValueInfoName = 1;
}  // namespace

std::string model_with_outputs(std::span<const std::byte> model,
                               const std::vector<std::string>& names) {
  // Protobuf merges repeated occurrences of a message field, so the outputs go into the last
  // graph field; appending fields to a message's end appends to its repeated fields in order.
  struct Field {
    size_t begin, end;
    bool graph;
  };
  std::vector<Field> fields;
  onnx::WireReader r(model, onnx::FieldPath{});
  for (;;) {
    const size_t begin = model.size() - r.remaining();
    if (!r.next()) break;
    const bool graph =
        r.field_number() == kModelGraph && r.wire_type() == onnx::WireType::kLengthDelimited;
    r.skip();
    fields.push_back({begin, model.size() - r.remaining(), graph});
  }
  size_t last_graph = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].graph) last_graph = i;
  }
  check(last_graph < fields.size(), "the model has no graph");

  onnx::WireWriter outputs;
  for (const auto& name : names) {
    onnx::WireWriter info;
    info.length_delimited(kValueInfoName, name);
    outputs.length_delimited(kGraphOutput, info.bytes());
  }
  onnx::WireWriter out;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto bytes = model.subspan(fields[i].begin, fields[i].end - fields[i].begin);
    if (i != last_graph) {
      out.raw(bytes);
      continue;
    }
    onnx::WireReader field(bytes, onnx::FieldPath{});
    field.next();
    const auto graph = field.read_bytes("graph");
    out.tag(kModelGraph, onnx::WireType::kLengthDelimited);
    out.varint(graph.size() + outputs.bytes().size());
    out.raw(graph);
    out.raw(std::as_bytes(std::span(outputs.bytes().data(), outputs.bytes().size())));
  }
  return out.take();
}

void write_model_with_outputs(const std::string& onnx_path, const std::vector<std::string>& names,
                              const std::string& copy_path) {
  const auto file = MappedFile::open(onnx_path);
  write_file_atomic(copy_path, model_with_outputs(file->bytes(), names));
}

}  // namespace wnn::validate
