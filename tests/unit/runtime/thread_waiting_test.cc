// How the OpenMP workers wait: the per-machine choice, libgomp's reading of the environment, and
// the probes the choice is made from.
#include "wnn/runtime/thread_waiting.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

namespace wnn::runtime {
namespace {

TEST(ThreadWaiting, IdleMachineSpinsForTheBudgetThenSleeps) {
  static_assert(kSpinBudgetUs == 100, "the expectations below are for a 100 us budget");
  // 20 ns per spin: 100 us is 5,000 spins.
  const OpenmpWaiting w = choose_openmp_waiting(0, 2, 20.0);
  EXPECT_EQ(w.policy, "PASSIVE");
  EXPECT_EQ(w.spin_count, 5000);
  EXPECT_NE(w.reason.find("idle machine"), std::string::npos) << w.reason;
  EXPECT_NE(w.reason.find("5000 spins"), std::string::npos) << w.reason;
  // A slower pause spins fewer times for the same time.
  EXPECT_EQ(choose_openmp_waiting(0, 2, 40.0).spin_count, 2500);
  // Three busy tasks leave half of eight CPUs free: still spin.
  EXPECT_EQ(choose_openmp_waiting(3, 8, 10.0).spin_count, 10000);
}

TEST(ThreadWaiting, BusyMachineSleepsAtOnce) {
  const OpenmpWaiting one = choose_openmp_waiting(1, 2, 20.0);
  EXPECT_EQ(one.policy, "PASSIVE");
  EXPECT_EQ(one.spin_count, 0);
  EXPECT_NE(one.reason.find("1 other task running on 2 CPUs"), std::string::npos) << one.reason;
  EXPECT_EQ(choose_openmp_waiting(4, 8, 10.0).spin_count, 0);
  EXPECT_NE(choose_openmp_waiting(9, 2, 10.0).reason.find("9 other tasks"), std::string::npos);
  // One CPU: there are no workers worth keeping awake.
  EXPECT_EQ(choose_openmp_waiting(0, 1, 20.0).spin_count, 0);
}

TEST(ThreadWaiting, SpinCountStaysWithinSaneBounds) {
  EXPECT_EQ(choose_openmp_waiting(0, 2, 1e6).spin_count, 1000);     // absurdly slow timing
  EXPECT_EQ(choose_openmp_waiting(0, 2, 0.0).spin_count, 1000000);  // timer too coarse: 0.1 ns
}

TEST(ThreadWaiting, FollowsLibgompRules) {
  EXPECT_TRUE(openmp_workers_spin(nullptr, nullptr));  // libgomp's default spins 300,000
  EXPECT_FALSE(openmp_workers_spin("PASSIVE", nullptr));
  EXPECT_FALSE(openmp_workers_spin("passive", "0"));
  EXPECT_TRUE(openmp_workers_spin("PASSIVE", "10000"));
  EXPECT_TRUE(openmp_workers_spin("PASSIVE", "10k"));
  EXPECT_TRUE(openmp_workers_spin("PASSIVE", "Infinity"));
  EXPECT_FALSE(openmp_workers_spin("PASSIVE", "often"));  // ignored by libgomp: PASSIVE's 0
  EXPECT_TRUE(openmp_workers_spin(nullptr, "often"));     // ignored: the default spin
  EXPECT_FALSE(openmp_workers_spin(nullptr, "0"));
  EXPECT_TRUE(openmp_workers_spin("ACTIVE", "0"));
  EXPECT_FALSE(openmp_workers_spin("PASSIVE", "2x"));  // an unknown suffix is ignored too
}

TEST(ThreadWaiting, MeasuresAPlausibleSpinCost) {
  const double ns = measure_ns_per_spin();
  EXPECT_GT(ns, 0.0);
  EXPECT_LT(ns, 10000.0);  // a pause instruction takes nanoseconds, not microseconds
}

TEST(ThreadWaiting, CountsABusyThreadAsRunnable) {
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const int others = other_runnable_tasks();
  stop = true;
  busy.join();
  EXPECT_GE(others, 1);
}

// Restores one environment variable when it goes out of scope.
class SavedEnv {
 public:
  explicit SavedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) value_ = v;
  }
  ~SavedEnv() {
    if (value_) {
      setenv(name_, value_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> value_;
};

TEST(ThreadWaiting, SetsTheEnvironmentOnlyWhenTheUserDidNot) {
  SavedEnv policy("OMP_WAIT_POLICY"), count("GOMP_SPINCOUNT"), reason("WNN_OPENMP_WAITING");
  setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  unsetenv("GOMP_SPINCOUNT");
  EXPECT_FALSE(set_openmp_waiting_environment());
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "ACTIVE");
  EXPECT_EQ(std::getenv("GOMP_SPINCOUNT"), nullptr);

  unsetenv("OMP_WAIT_POLICY");
  setenv("GOMP_SPINCOUNT", "500", 1);
  EXPECT_FALSE(set_openmp_waiting_environment());
  EXPECT_EQ(std::getenv("OMP_WAIT_POLICY"), nullptr);

  unsetenv("GOMP_SPINCOUNT");
  unsetenv("WNN_OPENMP_WAITING");
  EXPECT_TRUE(set_openmp_waiting_environment());
  ASSERT_NE(std::getenv("OMP_WAIT_POLICY"), nullptr);
  ASSERT_NE(std::getenv("GOMP_SPINCOUNT"), nullptr);
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "PASSIVE");
  const std::string described = describe_openmp_waiting();
  EXPECT_NE(described.find(std::string("GOMP_SPINCOUNT=") + std::getenv("GOMP_SPINCOUNT")),
            std::string::npos)
      << described;
  EXPECT_NE(described.find(std::getenv("WNN_OPENMP_WAITING")), std::string::npos) << described;
}

TEST(ThreadWaiting, DescribesASettingTheUserChose) {
  SavedEnv policy("OMP_WAIT_POLICY"), count("GOMP_SPINCOUNT"), reason("WNN_OPENMP_WAITING");
  unsetenv("WNN_OPENMP_WAITING");
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  unsetenv("GOMP_SPINCOUNT");
  EXPECT_EQ(describe_openmp_waiting(),
            "workers sleep: OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=(unset)");
  setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  EXPECT_EQ(describe_openmp_waiting(),
            "workers spin: OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=(unset)");
}

}  // namespace
}  // namespace wnn::runtime
