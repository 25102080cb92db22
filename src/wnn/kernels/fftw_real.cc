#include "wnn/kernels/fftw_real.h"

#include <map>
#include <mutex>

#include "wnn/core/error.h"

namespace wnn::kernels {

int64_t next_fast_fft_size(int64_t n) {
  for (;; ++n) {
    int64_t m = n;
    for (int64_t p : {2, 3, 5}) {
      while (m % p == 0) m /= p;
    }
    if (m == 1) return n;
  }
}

RealBuffer real_buffer(int64_t n) {
  return RealBuffer(static_cast<float*>(fftwf_malloc(sizeof(float) * size_t(n))));
}

ComplexBuffer complex_buffer(int64_t n) {
  return ComplexBuffer(
      static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * size_t(n))));
}

namespace {

// The process's plans, destroyed at exit: a map of bare plan pointers dropped with the static
// would leave them allocated with nothing pointing at them (LeakSanitizer reports them).
struct PlanTable {
  std::mutex mutex;
  std::map<int64_t, RealFftPlans> plans;
  ~PlanTable() {
    for (auto& [length, p] : plans) {
      fftwf_destroy_plan(p.forward);
      fftwf_destroy_plan(p.inverse);
    }
  }
};

}  // namespace

const RealFftPlans& real_fft_plans(int64_t length) {
  static PlanTable table;
  auto& plans = table.plans;
  std::lock_guard lock(table.mutex);
  auto it = plans.find(length);
  if (it == plans.end()) {
    RealBuffer r = real_buffer(length);
    ComplexBuffer c = complex_buffer(length / 2 + 1);
    const RealFftPlans p{fftwf_plan_dft_r2c_1d(int(length), r.get(), c.get(), FFTW_ESTIMATE),
                         fftwf_plan_dft_c2r_1d(int(length), c.get(), r.get(), FFTW_ESTIMATE)};
    check_internal(p.forward != nullptr && p.inverse != nullptr, "FFTW planned no length {}",
                   length);
    it = plans.emplace(length, p).first;
  }
  return it->second;
}

}  // namespace wnn::kernels
