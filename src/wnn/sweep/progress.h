// Sweep progress on stderr: on a terminal one redrawn bar (done/total, pass and fail counts,
// ETA); elsewhere (CI logs) one line per finished entry.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "wnn/sweep/result.h"

namespace wnn::sweep {

class Progress {
 public:
  Progress(size_t total, bool tty, bool quiet, FILE* out = stderr);
  void finished(const EntryResult& r);
  void done();  // ends the bar's line

  // The bar text for the given counts (tests check it).
  // `failed` counts unexpected failures and passes; `expected` the expected failures.
  static std::string bar(size_t done, size_t total, size_t passed, size_t failed, size_t expected,
                         double elapsed_seconds);
  static std::string line(size_t done, size_t total, const EntryResult& r);

 private:
  size_t total_, done_ = 0, passed_ = 0, failed_ = 0, expected_ = 0;
  bool tty_, quiet_;
  FILE* out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace wnn::sweep
