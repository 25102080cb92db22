// TEMPORARY, delete when the format-weights branch is merged: weak stand-ins for the two
// weights.h functions model.cc calls, so this branch links on its own. They are weak and sort
// after the real sources in the archive, so the real definitions win if both are present.
#include "wnn/core/error.h"
#include "wnn/format/weights.h"

namespace wnn::format {

[[gnu::weak]] std::unique_ptr<WeightsSource> open_weights_for(const std::string& graph_path,
                                                              const std::optional<std::string>&) {
  fail("{}: reading weights is not built into this wnn (format-weights not merged)", graph_path);
}

[[gnu::weak]] void write_safetensors(const std::string& path, std::span<const TensorToWrite>,
                                     const std::map<std::string, std::string>&) {
  fail("{}: writing weights is not built into this wnn (format-weights not merged)", path);
}

}  // namespace wnn::format
