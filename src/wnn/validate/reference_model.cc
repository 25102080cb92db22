#include "wnn/validate/reference_model.h"

#include <optional>

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
constexpr uint32_t kGraphNode = 1;
constexpr uint32_t kNodeOpType = 4;
constexpr uint32_t kNodeAttribute = 5;
constexpr uint32_t kNodeDomain = 7;
constexpr uint32_t kAttributeName = 1;
constexpr uint32_t kAttributeInt = 3;

// Where one varint value lies in the model's bytes.
struct VarintSpan {
  const std::byte* begin;
  const std::byte* end;
};

// The accuracy_level attribute's value of one NodeProto, and where it lies; none when the node
// is not one quantizes_activations holds for.
std::optional<VarintSpan> int8_activation_level(onnx::WireReader node) {
  std::string op_type, domain;
  std::optional<VarintSpan> level;
  int64_t value = 0;
  while (node.next()) {
    switch (node.field_number()) {
      case kNodeOpType:
        op_type = node.read_string("op_type");
        break;
      case kNodeDomain:
        domain = node.read_string("domain");
        break;
      case kNodeAttribute: {
        onnx::WireReader attribute = node.message("attribute");
        std::string name;
        std::optional<VarintSpan> i;
        int64_t i_value = 0;
        while (attribute.next()) {
          if (attribute.field_number() == kAttributeName) {
            name = attribute.read_string("name");
          } else if (attribute.field_number() == kAttributeInt &&
                     attribute.wire_type() == onnx::WireType::kVarint) {
            const std::byte* begin = attribute.cursor();
            i_value = attribute.read_int64("i");
            i = VarintSpan{begin, attribute.cursor()};
          } else {
            attribute.skip();
          }
        }
        if (name == "accuracy_level" && i) {
          level = i;
          value = i_value;
        }
        break;
      }
      default:
        node.skip();
    }
  }
  if (!level || !quantizes_activations(op_type, domain, value)) return std::nullopt;
  return level;
}
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

FloatActivationsCopy model_with_float_activations(std::span<const std::byte> model) {
  std::vector<VarintSpan> levels;
  onnx::WireReader r(model, onnx::FieldPath{});
  while (r.next()) {
    if (r.field_number() != kModelGraph || r.wire_type() != onnx::WireType::kLengthDelimited) {
      r.skip();
      continue;
    }
    onnx::WireReader graph = r.message("graph");
    for (int64_t index = 0; graph.next();) {
      if (graph.field_number() != kGraphNode) {
        graph.skip();
        continue;
      }
      if (auto level = int8_activation_level(graph.message("node", index++))) {
        levels.push_back(*level);
      }
    }
  }
  FloatActivationsCopy out;
  out.changed = int64_t(levels.size());
  if (levels.empty()) return out;
  out.bytes.assign(reinterpret_cast<const char*>(model.data()), model.size());
  for (const VarintSpan& v : levels) {
    // Zero in the varint's own length: continuation bytes of 0x80, then 0x00.
    const size_t begin = size_t(v.begin - model.data()), end = size_t(v.end - model.data());
    for (size_t i = begin; i < end; ++i) out.bytes[i] = char(i + 1 < end ? 0x80 : 0x00);
  }
  return out;
}

void write_model_with_outputs(const std::string& onnx_path, const std::vector<std::string>& names,
                              const std::string& copy_path) {
  const auto file = MappedFile::open(onnx_path);
  write_file_atomic(copy_path, model_with_outputs(file->bytes(), names));
}

}  // namespace wnn::validate
