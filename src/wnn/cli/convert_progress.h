// The progress line of `wnn convert` on big models: nodes converted, then weight bytes written,
// overwritten in place on stderr. Only on a TTY, never with --quiet or --json, and only once a
// conversion has run long enough to need one, so small models and pipes see nothing extra.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "wnn/cli/progress_line.h"

namespace wnn::cli {

class ConvertProgress {
 public:
  ConvertProgress(bool enabled, FILE* out = stderr) : line_(enabled, out) {}
  void nodes(size_t done, size_t total);
  void weights(uint64_t done, uint64_t total);
  // Clears the line (when one was printed) so the summary starts on a clean line.
  void done() { line_.done(); }

  // The line's text, without the carriage return (tests check it).
  static std::string text(size_t nodes_done, size_t nodes_total, uint64_t bytes_done,
                          uint64_t bytes_total);

 private:
  void show();
  ProgressLine line_;
  size_t nodes_done_ = 0, nodes_total_ = 0;
  uint64_t bytes_done_ = 0, bytes_total_ = 0;
};

}  // namespace wnn::cli
