#include "wnn/runtime/thread_waiting.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <thread>

#include <fmt/format.h>

namespace wnn::runtime {

namespace {

// libgomp's GOMP_SPINCOUNT syntax: a decimal count with an optional k, M, G or T suffix, or
// "infinite"/"infinity". nullopt when libgomp would ignore the value.
std::optional<int64_t> parse_spin_count(const char* text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s == "infinite" || s == "infinity") return std::numeric_limits<int64_t>::max();
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str()) return std::nullopt;
  int64_t scale = 1;
  if (*end != '\0') {
    constexpr std::string_view kSuffixes = "kmgt";
    const size_t at = kSuffixes.find(*end);
    if (at == std::string_view::npos || end[1] != '\0') return std::nullopt;
    for (size_t i = 0; i <= at; ++i) scale *= 1000;
  }
  return int64_t(v) * scale;
}

inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace

OpenmpWaiting choose_openmp_waiting(int other_runnable, int cpus, double ns_per_spin) {
  if (cpus <= 1) return {"PASSIVE", 0, "one CPU: workers sleep between kernels"};
  if (other_runnable * 2 >= cpus) {
    return {"PASSIVE", 0,
            fmt::format("{} other task{} running on {} CPUs: workers sleep between kernels",
                        other_runnable, other_runnable == 1 ? "" : "s", cpus)};
  }
  const double spins = kSpinBudgetUs * 1000 / std::max(ns_per_spin, 0.1);
  const int64_t count = std::clamp<int64_t>(std::llround(spins), 1000, 100'000'000);
  return {"PASSIVE", count,
          fmt::format("idle machine: workers spin {:.0f} us ({} spins) between kernels, then "
                      "sleep",
                      kSpinBudgetUs, count)};
}

int other_runnable_tasks() {
  int fewest = std::numeric_limits<int>::max();
  for (int sample = 0; sample < 5; ++sample) {
    if (sample > 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::ifstream in("/proc/loadavg");
    double l1, l5, l15;
    int running = 0, total = 0;
    char slash = 0;
    if (!(in >> l1 >> l5 >> l15 >> running >> slash >> total) || slash != '/') return 0;
    fewest = std::min(fewest, running);
  }
  return std::max(0, fewest - 1);  // the reader itself is running
}

double measure_ns_per_spin() {
  std::atomic<int> flag{0};
  double best = std::numeric_limits<double>::max();
  constexpr int kSpins = 2000;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kSpins; ++i) {
      if (flag.load(std::memory_order_relaxed) != 0) break;
      spin_pause();
    }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / kSpins);
  }
  return best;
}

bool set_openmp_waiting_environment() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) {
    return false;
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const OpenmpWaiting w =
      choose_openmp_waiting(other_runnable_tasks(), int(std::max(1L, cpus)), measure_ns_per_spin());
  setenv("OMP_WAIT_POLICY", w.policy.c_str(), 1);
  setenv("GOMP_SPINCOUNT", std::to_string(w.spin_count).c_str(), 1);
  setenv("WNN_OPENMP_WAITING", w.reason.c_str(), 1);
  return true;
}

bool openmp_workers_spin(const char* wait_policy, const char* spin_count) {
  // -1: unset, or a value libgomp ignores.
  const int64_t count = spin_count == nullptr ? -1 : parse_spin_count(spin_count).value_or(-1);
  std::string policy = wait_policy == nullptr ? "" : wait_policy;
  std::transform(policy.begin(), policy.end(), policy.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (policy == "ACTIVE") return true;
  if (policy == "PASSIVE") return count > 0;
  return count != 0;
}

std::string describe_openmp_waiting() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* count = std::getenv("GOMP_SPINCOUNT");
  const char* reason = std::getenv("WNN_OPENMP_WAITING");
  const std::string settings = fmt::format("OMP_WAIT_POLICY={} GOMP_SPINCOUNT={}",
                                           policy ? policy : "(unset)", count ? count : "(unset)");
  if (reason != nullptr) return fmt::format("{} ({})", reason, settings);
  return fmt::format(
      "{}: {}", openmp_workers_spin(policy, count) ? "workers spin" : "workers sleep", settings);
}

}  // namespace wnn::runtime
