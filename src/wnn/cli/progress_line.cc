#include "wnn/cli/progress_line.h"

namespace wnn::cli {

namespace {
// Work quicker than this never shows a line; a shown line is redrawn at most this often.
constexpr auto kShowAfter = std::chrono::milliseconds(250);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
}  // namespace

void ProgressLine::show(const std::string& text) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kShowAfter || now - last_ < kRedrawEvery) return;
  last_ = now;
  // \033[K clears what a longer previous line left behind.
  std::fprintf(out_, "\r%s\033[K", text.c_str());
  std::fflush(out_);
  shown_ = true;
}

void ProgressLine::done() {
  if (!shown_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

}  // namespace wnn::cli
