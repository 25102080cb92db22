// How oneDNN's OpenMP workers wait between kernels, chosen once per process.
//
// Debian's oneDNN runs on libgomp. After each parallel kernel its workers either spin (and
// start the next kernel within a microsecond) or sleep on a futex (and cost 50-165 us to wake,
// more in a VM: more than most kernels of a small convnet take). libgomp reads its settings
// (OMP_WAIT_POLICY, GOMP_SPINCOUNT) once, when it loads, so they must be in the environment
// before the process starts: the CLI sets them and re-executes itself once (cli/main.cc).
//
// The choice (docs/benchmarks.md, "Thread waiting"): when the machine has spare cores, spin
// for a bounded time (kSpinBudgetUs) and then sleep; this bridges the gaps between the kernels
// of a run, as ONNX Runtime's spinning pool does, and still lets the workers sleep soon after a
// run ends. When other processes already keep the cores busy, a spinning worker burns the time
// slice the thread it waits for needs (measured 3-9x slower under load), so the workers sleep
// at once. A policy the user set is always respected.
#pragma once

#include <cstdint>
#include <string>

namespace wnn::runtime {

// Time the workers spin after a kernel before they sleep, when the machine is idle enough.
inline constexpr double kSpinBudgetUs = 100;

struct OpenmpWaiting {
  std::string policy;      // OMP_WAIT_POLICY
  int64_t spin_count = 0;  // GOMP_SPINCOUNT: spins before sleeping (0: sleep at once)
  std::string reason;      // one line for the user
};

// The decision, from `other_runnable` tasks seen running or ready on the machine besides the
// caller, the online `cpus`, and the cost of one spin (one pause instruction and a load).
OpenmpWaiting choose_openmp_waiting(int other_runnable, int cpus, double ns_per_spin);

// Tasks running or ready to run besides the caller: the fewest of a few samples of
// /proc/loadavg (a transient process does not count); 0 when it cannot be read.
int other_runnable_tasks();

// Nanoseconds one spin of libgomp's wait loop takes on this CPU (the best of a few short
// timings, about 0.1 ms in all).
double measure_ns_per_spin();

// When neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set, sets both per
// choose_openmp_waiting() on this machine and returns true: the caller must then re-execute
// itself, since libgomp has already read its environment. Returns false, changing nothing, when
// the user chose.
bool set_openmp_waiting_environment();

// Whether libgomp's workers spin between kernels under these environment values (null: unset),
// following libgomp's rules: ACTIVE spins; PASSIVE spins only for an explicit positive
// GOMP_SPINCOUNT; unset spins unless GOMP_SPINCOUNT is 0.
bool openmp_workers_spin(const char* wait_policy, const char* spin_count);

// The current environment's waiting, in words, for benchmark output ("spin then sleep (...)").
std::string describe_openmp_waiting();

}  // namespace wnn::runtime
