// One progress line on stderr, overwritten in place: only when enabled (a TTY, not --quiet or
// --json), only once the work has run long enough to need one, and redrawn at a bounded rate,
// so small models and pipes see nothing extra.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace wnn::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled, FILE* out = stderr) : enabled_(enabled), out_(out) {}
  ~ProgressLine() { done(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  bool enabled() const { return enabled_; }
  // Shows `text` (when enabled, past the start delay and not redrawn too recently).
  void show(const std::string& text);
  // Clears the line (when one was printed) so what follows starts on a clean line.
  void done();

 private:
  bool enabled_;
  FILE* out_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace wnn::cli
