#include "wnn/onnx/model.h"

#include <array>

#include "wnn/core/error.h"
#include "wnn/core/mapped_file.h"
#include "wnn/onnx/test_fault.h"
#include "wnn/onnx/wire.h"

namespace wnn::onnx {
namespace {

// Typed tensor fields hold one entry per element; they are bounded only by the file size (at
// most 8 bytes of memory per byte of varint), so the limit here is generous.
constexpr size_t kMaxTypedElements = size_t(1) << 40;

// Appends one element of a repeated message field, decoded by `decode(reader)`.
template <typename T, typename Decode>
void append_message(WireReader& r, std::string_view name, std::vector<T>& out, Decode decode) {
  if (out.size() >= kMaxRepeated) {
    r.fail_field(name, fmt::format("more than {} elements", kMaxRepeated));
  }
  WireReader sub = r.message(name, int64_t(out.size()));
  out.push_back(decode(sub));
}

TypeProto type_of_kind(TypeProto::Kind kind) {
  TypeProto t;
  t.kind = kind;
  return t;
}

void append_string(WireReader& r, std::string_view name, std::vector<std::string>& out) {
  if (out.size() >= kMaxRepeated) {
    r.fail_field(name, fmt::format("more than {} elements", kMaxRepeated));
  }
  out.push_back(r.read_string(name));
}

class Decoder {
 public:
  explicit Decoder(std::shared_ptr<const void> owner) : owner_(std::move(owner)) {}

  std::pair<std::string, std::string> string_pair(WireReader r) {
    std::pair<std::string, std::string> kv;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          kv.first = r.read_string("key");
          break;
        case 2:
          kv.second = r.read_string("value");
          break;
        default:
          r.skip();
      }
    }
    return kv;
  }

  OperatorSetId opset(WireReader r) {
    OperatorSetId o;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          o.domain = r.read_string("domain");
          break;
        case 2:
          o.version = r.read_int64("version");
          break;
        default:
          r.skip();
      }
    }
    return o;
  }

  TensorProto tensor(WireReader r) {
    TensorProto t;
    const auto pair = [this](WireReader& s) { return string_pair(s); };
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          r.append_int64s("dims", t.dims, kMaxDims);
          break;
        case 2:
          t.data_type = r.read_int32("data_type");
          break;
        case 3:
          r.skip();
          t.has_segment = true;
          break;
        case 4:
          r.append_floats("float_data", t.float_data, kMaxTypedElements);
          break;
        case 5:
          r.append_int32s("int32_data", t.int32_data, kMaxTypedElements);
          break;
        case 6:
          r.read_bytes("string_data");
          ++t.string_data_count;
          break;
        case 7:
          r.append_int64s("int64_data", t.int64_data, kMaxTypedElements);
          break;
        case 8:
          t.name = r.read_string("name");
          break;
        case 9: {
          const auto b = r.read_bytes("raw_data");
          t.raw_data = Buffer::view(owner_, b.data(), b.size());
          break;
        }
        case 10:
          r.append_doubles("double_data", t.double_data, kMaxTypedElements);
          break;
        case 11:
          r.append_uint64s("uint64_data", t.uint64_data, kMaxTypedElements);
          break;
        case 13:
          append_message(r, "external_data", t.external_data, pair);
          break;
        case 14:
          t.data_location = r.read_int32("data_location");
          break;
        default:
          r.skip();
      }
    }
    return t;
  }

  SparseTensorProto sparse_tensor(WireReader r) {
    SparseTensorProto s;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          s.values = tensor(r.message("values"));
          break;
        case 2:
          s.indices = tensor(r.message("indices"));
          break;
        case 3:
          r.append_int64s("dims", s.dims, kMaxDims);
          break;
        default:
          r.skip();
      }
    }
    return s;
  }

  Dimension dimension(WireReader r) {
    Dimension d;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          d.value = r.read_int64("dim_value");
          d.param.clear();  // a oneof: the last one written wins
          break;
        case 2:
          d.param = r.read_string("dim_param");
          d.value.reset();
          break;
        default:
          r.skip();
      }
    }
    return d;
  }

  // TypeProto.Tensor and TypeProto.SparseTensor share their layout.
  void tensor_type(WireReader r, TypeProto& t) {
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          t.elem_type = r.read_int32("elem_type");
          break;
        case 2: {
          t.has_shape = true;
          t.dims.clear();
          WireReader shape = r.message("shape");
          while (shape.next()) {
            if (shape.field_number() != 1) {
              shape.skip();
              continue;
            }
            if (t.dims.size() >= kMaxDims) {
              shape.fail_field("dim", fmt::format("more than {} dimensions", kMaxDims));
            }
            append_message(shape, "dim", t.dims, [this](WireReader& s) { return dimension(s); });
          }
          break;
        }
        default:
          r.skip();
      }
    }
  }

  // Sequence, map and optional types are recorded by kind only: the importer handles tensors.
  TypeProto type(WireReader r) {
    TypeProto t;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          t = type_of_kind(TypeProto::Kind::kTensor);
          tensor_type(r.message("tensor_type"), t);
          break;
        case 8:
          t = type_of_kind(TypeProto::Kind::kSparseTensor);
          tensor_type(r.message("sparse_tensor_type"), t);
          break;
        case 4:
          r.skip();
          t = type_of_kind(TypeProto::Kind::kSequence);
          break;
        case 5:
          r.skip();
          t = type_of_kind(TypeProto::Kind::kMap);
          break;
        case 9:
          r.skip();
          t = type_of_kind(TypeProto::Kind::kOptional);
          break;
        default:
          r.skip();
      }
    }
    return t;
  }

  ValueInfoProto value_info(WireReader r) {
    ValueInfoProto v;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          v.name = r.read_string("name");
          break;
        case 2:
          v.type = type(r.message("type"));
          break;
        default:
          r.skip();
      }
    }
    return v;
  }

  AttributeProto attribute(WireReader r, int depth) {
    AttributeProto a;
    const auto sub_graph = [this, depth](WireReader& s) {
      return std::make_shared<GraphProto>(graph(s, depth + 1));
    };
    const auto sub_tensor = [this](WireReader& s) { return tensor(s); };
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          a.name = r.read_string("name");
          break;
        case 2:
          a.f = r.read_float("f");
          break;
        case 3:
          a.i = r.read_int64("i");
          break;
        case 4:
          a.s = r.read_string("s");
          break;
        case 5:
          a.t = tensor(r.message("t"));
          break;
        case 6: {
          WireReader g = r.message("g");
          a.g = sub_graph(g);
          break;
        }
        case 7:
          r.append_floats("floats", a.floats, kMaxTypedElements);
          break;
        case 8:
          r.append_int64s("ints", a.ints, kMaxTypedElements);
          break;
        case 9:
          append_string(r, "strings", a.strings);
          break;
        case 10:
          append_message(r, "tensors", a.tensors, sub_tensor);
          break;
        case 11:
          append_message(r, "graphs", a.graphs, sub_graph);
          break;
        case 20:
          a.type = AttributeProto::Type(r.read_int32("type"));
          break;
        case 21:
          a.ref_attr_name = r.read_string("ref_attr_name");
          break;
        default:
          r.skip();  // doc_string, sparse tensors and type protos
      }
    }
    return a;
  }

  NodeProto node(WireReader r, int depth) {
    NodeProto n;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          append_string(r, "input", n.input);
          break;
        case 2:
          append_string(r, "output", n.output);
          break;
        case 3:
          n.name = r.read_string("name");
          break;
        case 4:
          n.op_type = r.read_string("op_type");
          break;
        case 5:
          append_message(r, "attribute", n.attribute,
                         [this, depth](WireReader& s) { return attribute(s, depth); });
          break;
        case 7:
          n.domain = r.read_string("domain");
          break;
        default:
          r.skip();
      }
    }
    return n;
  }

  GraphProto graph(WireReader r, int depth) {
    if (depth > kMaxGraphDepth) {
      r.fail_field("", fmt::format("subgraphs nested deeper than {}", kMaxGraphDepth));
    }
    GraphProto g;
    const auto values = [this](WireReader& s) { return value_info(s); };
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          append_message(r, "node", g.node,
                         [this, depth](WireReader& s) { return node(s, depth); });
          break;
        case 2:
          g.name = r.read_string("name");
          break;
        case 5:
          append_message(r, "initializer", g.initializer,
                         [this](WireReader& s) { return tensor(s); });
          break;
        case 11:
          append_message(r, "input", g.input, values);
          break;
        case 12:
          append_message(r, "output", g.output, values);
          break;
        case 13:
          append_message(r, "value_info", g.value_info, values);
          break;
        case 15:
          append_message(r, "sparse_initializer", g.sparse_initializer,
                         [this](WireReader& s) { return sparse_tensor(s); });
          break;
        default:
          r.skip();
      }
    }
    return g;
  }

  FunctionProto function(WireReader r) {
    FunctionProto f;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          f.name = r.read_string("name");
          break;
        case 4:
          append_string(r, "input", f.input);
          break;
        case 5:
          append_string(r, "output", f.output);
          break;
        case 6:
          append_string(r, "attribute", f.attribute);
          break;
        case 7:
          append_message(r, "node", f.node, [this](WireReader& s) { return node(s, 1); });
          break;
        case 9:
          append_message(r, "opset_import", f.opset_import,
                         [this](WireReader& s) { return opset(s); });
          break;
        case 10:
          f.domain = r.read_string("domain");
          break;
        default:
          r.skip();
      }
    }
    return f;
  }

  ModelProto model(WireReader r) {
    ModelProto m;
    m.graph_missing = true;
    while (r.next()) {
      switch (r.field_number()) {
        case 1:
          m.ir_version = r.read_int64("ir_version");
          break;
        case 2:
          m.producer_name = r.read_string("producer_name");
          break;
        case 3:
          m.producer_version = r.read_string("producer_version");
          break;
        case 4:
          m.domain = r.read_string("domain");
          break;
        case 5:
          m.model_version = r.read_int64("model_version");
          break;
        case 7: {
          WireReader g = r.message("graph");
          m.graph = graph(g, 0);
          m.graph_missing = false;
          break;
        }
        case 8:
          append_message(r, "opset_import", m.opset_import,
                         [this](WireReader& s) { return opset(s); });
          break;
        case 14:
          append_message(r, "metadata_props", m.metadata_props,
                         [this](WireReader& s) { return string_pair(s); });
          break;
        case 20:
          r.skip();
          ++m.training_info_count;
          break;
        case 25:
          append_message(r, "functions", m.functions,
                         [this](WireReader& s) { return function(s); });
          break;
        default:
          r.skip();
      }
    }
    return m;
  }

 private:
  std::shared_ptr<const void> owner_;
};

}  // namespace

std::string onnx_type_name(int32_t data_type) {
  static constexpr std::array<const char*, 23> kNames = {
      "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
      "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4"};
  if (data_type >= 0 && size_t(data_type) < kNames.size()) return kNames[size_t(data_type)];
  return fmt::format("TYPE_{}", data_type);
}

std::string type_to_string(const TypeProto& t) {
  switch (t.kind) {
    case TypeProto::Kind::kNone:
      return "unknown";
    case TypeProto::Kind::kSequence:
      return "sequence";
    case TypeProto::Kind::kMap:
      return "map";
    case TypeProto::Kind::kOptional:
      return "optional";
    case TypeProto::Kind::kTensor:
    case TypeProto::Kind::kSparseTensor:
      break;
  }
  std::string out = onnx_type_name(t.elem_type);
  if (t.kind == TypeProto::Kind::kSparseTensor) out = "sparse " + out;
  if (!t.has_shape) return out + "[?]";
  out += '[';
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i > 0) out += ',';
    const Dimension& d = t.dims[i];
    out += d.value ? std::to_string(*d.value) : d.param.empty() ? "?" : d.param;
  }
  return out + ']';
}

const AttributeProto* NodeProto::find_attribute(std::string_view attr_name) const {
  for (const auto& a : attribute) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

ModelProto decode_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner) {
  return Decoder(std::move(owner)).model(WireReader(bytes, FieldPath{}));
}

TensorProto decode_tensor(std::span<const std::byte> bytes, std::shared_ptr<const void> owner) {
  return Decoder(std::move(owner)).tensor(WireReader(bytes, FieldPath{}));
}

// MappedFile's own errors already name the path; decoding errors get it as context.
ModelProto load_model(const std::string& path) {
  crash_if_test_fault_requested(path);  // test-only, see test_fault.h
  const auto file = MappedFile::open(path);
  return with_error_context(path, [&] { return decode_model(file->bytes(), file); });
}

TensorProto load_tensor(const std::string& path) {
  const auto file = MappedFile::open(path);
  return with_error_context(path, [&] { return decode_tensor(file->bytes(), file); });
}

}  // namespace wnn::onnx
