// The progress line of `wnn convert` on big models: nodes converted, then weight bytes written,
// overwritten in place on stderr. Only on a TTY, never with --quiet or --json, and only once a
// conversion has run long enough to need one, so small models and pipes see nothing extra.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace wnn::cli {

class ConvertProgress {
 public:
  ConvertProgress(bool enabled, FILE* out = stderr) : enabled_(enabled), out_(out) {}
  ~ConvertProgress() { done(); }
  void nodes(size_t done, size_t total);
  void weights(uint64_t done, uint64_t total);
  // Clears the line (when one was printed) so the summary starts on a clean line.
  void done();

  // The line's text, without the carriage return (tests check it).
  static std::string text(size_t nodes_done, size_t nodes_total, uint64_t bytes_done,
                          uint64_t bytes_total);

 private:
  void show();
  bool enabled_;
  FILE* out_;
  bool shown_ = false;
  size_t nodes_done_ = 0, nodes_total_ = 0;
  uint64_t bytes_done_ = 0, bytes_total_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace wnn::cli
