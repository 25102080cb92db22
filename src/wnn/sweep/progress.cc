#include "wnn/sweep/progress.h"

#include <fmt/format.h>

namespace wnn::sweep {

Progress::Progress(size_t total, bool tty, bool quiet, FILE* out)
    : total_(total), tty_(tty), quiet_(quiet), out_(out) {}

std::string Progress::bar(size_t done, size_t total, size_t passed, size_t failed, size_t expected,
                          double elapsed_seconds) {
  constexpr size_t kWidth = 30;
  const size_t filled = total == 0 ? kWidth : done * kWidth / total;
  std::string eta = "--";
  if (done > 0 && done < total) {
    const auto left = int64_t(elapsed_seconds / double(done) * double(total - done) + 0.5);
    eta = left >= 60 ? fmt::format("{}m{:02}s", left / 60, left % 60) : fmt::format("{}s", left);
  } else if (done == total) {
    eta = "0s";
  }
  std::string text = fmt::format("[{}{}] {}/{}  pass {}  fail {}", std::string(filled, '#'),
                                 std::string(kWidth - filled, '.'), done, total, passed, failed);
  if (expected > 0) text += fmt::format("  xfail {}", expected);
  return text + "  ETA " + eta;
}

std::string Progress::line(size_t done, size_t total, const EntryResult& r) {
  const char* word = "PASS";
  switch (r.outcome()) {
    case Outcome::kPass:
      word = "PASS";
      break;
    case Outcome::kFail:
      word = "FAIL";
      break;
    case Outcome::kExpectedFail:
      word = "XFAIL";
      break;
    case Outcome::kUnexpectedPass:
      word = "XPASS";
      break;
  }
  std::string text = fmt::format("[{}/{}] {} {} ({:.1f} s)", done, total, word, r.id, r.seconds);
  if (!r.passed) text += fmt::format(": {}: {}", r.stage, r.message);
  if (const std::string note = noise_floor_note(r); !note.empty()) text += " (" + note + ")";
  return text;
}

void Progress::finished(const EntryResult& r) {
  ++done_;
  if (r.is_red()) {
    ++failed_;
  } else {
    ++(r.passed ? passed_ : expected_);
  }
  if (quiet_) return;
  if (tty_) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(out_, "\r\033[K%s",
                 bar(done_, total_, passed_, failed_, expected_, elapsed).c_str());
  } else {
    std::fprintf(out_, "%s\n", line(done_, total_, r).c_str());
  }
  std::fflush(out_);
}

void Progress::done() {
  if (tty_ && !quiet_ && done_ > 0) std::fprintf(out_, "\n");
}

}  // namespace wnn::sweep
