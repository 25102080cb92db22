// The ONNX model as decoded from its protobuf bytes: plain structs mirroring onnx.proto3, with
// every tensor payload (raw_data) a zero-copy Buffer view that keeps the file mapping alive.
// Decoding checks structure and bounds only; the importer decides what it supports.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "wnn/core/tensor.h"

namespace wnn::onnx {

// Limits that keep a hostile file from asking for unbounded memory or recursion. ONNX allows
// more dims than WebNN; the importer rejects ranks above kMaxRank with a clear message.
inline constexpr size_t kMaxDims = 64;
inline constexpr int kMaxGraphDepth = 32;
inline constexpr size_t kMaxRepeated = size_t(1) << 24;  // nodes, initializers, values, ...

using StringPairs = std::vector<std::pair<std::string, std::string>>;

// TensorProto.DataType values.
enum class OnnxType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3Fn = 17,
  kFloat8E4M3Fnuz = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2Fnuz = 20,
  kUint4 = 21,
  kInt4 = 22,
};
// "FLOAT", "INT64", ...; "TYPE_<n>" for values this reader does not know.
std::string onnx_type_name(int32_t data_type);

struct TensorProto {
  std::string name;
  std::vector<int64_t> dims;
  int32_t data_type = 0;
  // Present (even if empty) only when the raw_data field was in the file.
  std::optional<Buffer> raw_data;
  std::vector<float> float_data;
  std::vector<int32_t> int32_data;
  std::vector<int64_t> int64_data;
  std::vector<double> double_data;
  std::vector<uint64_t> uint64_data;
  size_t string_data_count = 0;  // strings are unsupported in WebNN: only counted
  int32_t data_location = 0;     // 0 DEFAULT, 1 EXTERNAL
  StringPairs external_data;     // location, offset, length, checksum
  bool has_segment = false;      // a chunked tensor: unsupported, but never silently read

  bool is_external() const { return data_location == 1; }
};

struct SparseTensorProto {
  TensorProto values;
  TensorProto indices;
  std::vector<int64_t> dims;
};

struct Dimension {
  std::optional<int64_t> value;  // dim_value
  std::string param;             // dim_param; empty when unset
};

struct TypeProto {
  enum class Kind { kNone, kTensor, kSparseTensor, kSequence, kMap, kOptional };
  Kind kind = Kind::kNone;
  int32_t elem_type = 0;   // tensor and sparse tensor only
  bool has_shape = false;  // absent shape means unknown rank, [] with has_shape a scalar
  std::vector<Dimension> dims;

  bool is_tensor() const { return kind == Kind::kTensor; }
};
std::string type_to_string(const TypeProto& t);  // "FLOAT[1,3,N]", "sequence", ...

struct ValueInfoProto {
  std::string name;
  TypeProto type;
};

struct GraphProto;

struct AttributeProto {
  enum class Type : int32_t {
    kUndefined = 0,
    kFloat = 1,
    kInt = 2,
    kString = 3,
    kTensor = 4,
    kGraph = 5,
    kFloats = 6,
    kInts = 7,
    kStrings = 8,
    kTensors = 9,
    kGraphs = 10,
    kSparseTensor = 11,
    kSparseTensors = 12,
    kTypeProto = 13,
    kTypeProtos = 14,
  };
  std::string name;
  std::string ref_attr_name;  // set inside functions: refers to the caller's attribute
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::optional<TensorProto> t;
  std::shared_ptr<GraphProto> g;  // shared_ptr: GraphProto is incomplete here
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorProto> tensors;
  std::vector<std::shared_ptr<GraphProto>> graphs;
};

struct NodeProto {
  std::string name;
  std::string op_type;
  std::string domain;              // "" and "ai.onnx" are the default domain
  std::vector<std::string> input;  // "" marks an omitted optional input
  std::vector<std::string> output;
  std::vector<AttributeProto> attribute;

  const AttributeProto* find_attribute(std::string_view name) const;
};

struct GraphProto {
  std::string name;
  std::vector<NodeProto> node;
  std::vector<TensorProto> initializer;
  std::vector<SparseTensorProto> sparse_initializer;  // decoded so the importer can reject
  std::vector<ValueInfoProto> input;
  std::vector<ValueInfoProto> output;
  std::vector<ValueInfoProto> value_info;
};

struct OperatorSetId {
  std::string domain;
  int64_t version = 0;
};

// A model-local function (ModelProto.functions, IR 8+).
struct FunctionProto {
  std::string name;
  std::string domain;
  std::vector<std::string> input;
  std::vector<std::string> output;
  std::vector<std::string> attribute;
  std::vector<NodeProto> node;
  std::vector<OperatorSetId> opset_import;
};

struct ModelProto {
  int64_t ir_version = 0;
  std::vector<OperatorSetId> opset_import;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  GraphProto graph;
  // Set by decode_model when the file has no graph field (an empty file, for one); a model
  // built in code has its graph.
  bool graph_missing = false;
  StringPairs metadata_props;
  std::vector<FunctionProto> functions;
  size_t training_info_count = 0;  // training graphs are not imported
};

// Decodes a ModelProto from `bytes`. raw_data Buffers view `bytes` and hold `owner`, which
// must own the memory `bytes` points into (a MappedFile, for instance).
ModelProto decode_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner);
// A standalone TensorProto, like the backend tests' input_0.pb files.
TensorProto decode_tensor(std::span<const std::byte> bytes, std::shared_ptr<const void> owner);

// Maps `path` and decodes it. Errors name the file and the field path.
ModelProto load_model(const std::string& path);
TensorProto load_tensor(const std::string& path);

}  // namespace wnn::onnx
