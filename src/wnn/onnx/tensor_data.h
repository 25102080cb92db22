// The elements of an ONNX TensorProto in wnn's memory form: a WebNN dtype, a shape and a Buffer
// that views the file when the stored bytes already are that form, and a converted copy when
// they are not (typed fields, double, bfloat16, packed 4-bit, misaligned raw data).
#pragma once

#include <optional>
#include <string>

#include "wnn/core/dtype.h"
#include "wnn/core/shape.h"
#include "wnn/core/tensor.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/model.h"

namespace wnn::onnx {

struct TensorData {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  Buffer data;             // element_count(shape) * dtype_size(dtype) bytes
  bool zero_copy = false;  // data views the model or external file
  // Set (with zero_copy) when `data` views bytes not aligned for the element type: only the
  // importer asks for such views (see tensor_data's keep_misaligned); typed reads need
  // aligned_copy_if_needed first.
  bool misaligned = false;
  // Set when the values changed type on the way in ("DOUBLE narrowed to float32"), so the
  // importer can warn instead of dropping precision silently.
  std::string conversion;
};

// The WebNN dtype an ONNX element type is held as: BOOL as uint8, DOUBLE and BFLOAT16 as
// float32. nullopt for types WebNN has no form for (UINT16, INT16, STRING, complex, float8).
std::optional<DataType> wnn_dtype_for(int32_t onnx_type);

// Bytes the elements take in raw_data or external data (4-bit types pack two per byte).
// Throws for types without a raw form.
uint64_t raw_byte_size(int32_t onnx_type, int64_t elements);

// Decodes `t`'s elements. Throws wnn::Error naming the tensor on an unsupported type, a count
// that does not match the dims, or external data that cannot be read.
// With keep_misaligned, raw data already in wnn's form is viewed even when it is not aligned
// for its element type (raw_data sits at arbitrary offsets in a .onnx file), so weights that
// are only written out are never copied; otherwise such data is copied to aligned memory.
TensorData tensor_data(const TensorProto& t, const ExternalDataResolver& external,
                       bool keep_misaligned = false);

// `data` itself when it is aligned for `dtype`, else an aligned copy (for typed reads and
// kernels; a misaligned typed pointer is undefined behaviour and breaks vectorized loops).
Buffer aligned_copy_if_needed(const Buffer& data, DataType dtype);

}  // namespace wnn::onnx
