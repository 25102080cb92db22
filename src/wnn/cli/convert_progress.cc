#include "wnn/cli/convert_progress.h"

#include <fmt/format.h>

namespace wnn::cli {

namespace {
// A conversion quicker than this never shows a line; a shown line is redrawn at most this often.
constexpr auto kShowAfter = std::chrono::milliseconds(250);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

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
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kShowAfter || now - last_ < kRedrawEvery) return;
  last_ = now;
  const std::string s = text(nodes_done_, nodes_total_, bytes_done_, bytes_total_);
  // \033[K clears what a longer previous line left behind.
  std::fprintf(out_, "\r%s\033[K", s.c_str());
  std::fflush(out_);
  shown_ = true;
}

void ConvertProgress::done() {
  if (!shown_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

}  // namespace wnn::cli
