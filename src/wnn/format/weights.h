// Weights files: Safetensors (memory-mapped, zero-copy, fully validated; packed 4-bit
// extension), the legacy webnn-graph `.weights` + manifest (read only), and lookup of the
// weights file beside a graph. Readers return element data ready for Graph::bind_constant.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/core/mapped_file.h"

namespace wnn::format {

// A stored tensor as the file declares it.
struct StoredTensor {
  std::string key;
  std::string file_dtype;  // as written: "F32", "BF16", "U8", ...
  Shape shape;
  Buffer bytes;  // a view into the mapping
};

// Where constants' bytes come from.
class WeightsSource {
 public:
  virtual ~WeightsSource() = default;
  virtual const std::string& path() const = 0;
  // The stored tensor for `key`: exact key first, then the forms rustnn rewrites keys to
  // ('.' -> '_', '::' -> '__'). nullptr when absent.
  virtual const StoredTensor* find(const std::string& key) const = 0;
  // Element data for a constant of `desc` stored under `key`: checks dtype, shape and byte
  // length; widens BF16 to float32; unpacks packed 4-bit. Zero-copy when the stored form is
  // the memory form. Throws naming the key on any mismatch or when the key is missing.
  virtual Buffer load(const std::string& key, const OperandDesc& desc) const = 0;
  virtual std::vector<const StoredTensor*> tensors() const = 0;  // in file order
};

class SafetensorsReader : public WeightsSource {
 public:
  // Maps `path` and validates the whole header (see docs/formats.md).
  static std::unique_ptr<SafetensorsReader> open(const std::string& path);
  // Validates a whole Safetensors file held in `bytes` (which the reader keeps alive; tensors
  // view it). `name` stands for the path in errors. open() maps the file and calls this.
  static std::unique_ptr<SafetensorsReader> from_bytes(Buffer bytes, const std::string& name);
  const std::string& path() const override;
  const StoredTensor* find(const std::string& key) const override;
  Buffer load(const std::string& key, const OperandDesc& desc) const override;
  std::vector<const StoredTensor*> tensors() const override;
  const std::map<std::string, std::string>& metadata() const;
  bool packed4() const;  // __metadata__ has "rustnn.webnn.packed4": "1"

 private:
  SafetensorsReader() = default;
  struct State;
  std::shared_ptr<State> state_;
};

// Legacy webnn-graph `.weights` (WGWT magic) with its `*.manifest.json`. Read leniently.
std::unique_ptr<WeightsSource> open_legacy_weights(const std::string& weights_path);

// Opens the weights for the graph at `graph_path`: `explicit_path` if given, else beside the
// graph `model.safetensors`, `<stem>.safetensors`, `<stem>.weights`, `model.weights`.
// Returns nullptr when none exists.
std::unique_ptr<WeightsSource> open_weights_for(const std::string& graph_path,
                                                const std::optional<std::string>& explicit_path);

// A tensor to write: element data in memory form (int4/uint4 unpacked, one per byte).
struct TensorToWrite {
  std::string key;
  DataType dtype;
  Shape shape;
  Buffer data;
};

// Writes a Safetensors file: keys sorted, data 64-byte aligned, int4/uint4 packed with the
// rustnn marker, streamed from each buffer; written to a temporary file, fsynced, renamed.
// `on_progress(bytes written, total data bytes)` is called as the data streams out (for a
// progress line); it may be empty.
using WriteProgress = std::function<void(uint64_t done, uint64_t total)>;
void write_safetensors(const std::string& path, std::span<const TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       const WriteProgress& on_progress = {});

// .npy (NumPy format 1.0-3.0) for single tensors.
Tensor read_npy(const std::string& path);
Tensor parse_npy(std::span<const std::byte> bytes, const std::string& name);
void write_npy(const std::string& path, const ConstTensorView& tensor);

}  // namespace wnn::format
