#include "wnn/cli/convert_progress.h"

#include <fmt/format.h>

namespace wnn::cli {

namespace {
std::string mib(uint64_t bytes) { return fmt::format("{:.0f}", double(bytes) / (1 << 20)); }
}  // namespace

std::string ConvertProgress::text(size_t nodes_done, size_t nodes_total, uint64_t bytes_done,
                                  uint64_t bytes_total) {
  std::string s = fmt::format("wnn convert: nodes {}/{}", nodes_done, nodes_total);
  if (bytes_total > 0) {
    s += fmt::format(", weights {}/{} MiB written", mib(bytes_done), mib(bytes_total));
  }
  return s;
}

void ConvertProgress::nodes(size_t done, size_t total) {
  nodes_done_ = done;
  nodes_total_ = total;
  show();
}

void ConvertProgress::weights(uint64_t done, uint64_t total) {
  bytes_done_ = done;
  bytes_total_ = total;
  show();
}

void ConvertProgress::show() {
  if (line_.enabled()) line_.show(text(nodes_done_, nodes_total_, bytes_done_, bytes_total_));
}

}  // namespace wnn::cli
