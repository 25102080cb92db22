#include "wnn/runtime/xnnpack/thread_pool.h"

#include <dlfcn.h>
#include <link.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "wnn/core/error.h"

namespace wnn::runtime::xnnpack {
namespace {

// Whether libXNNPACK.so.0 was loaded before the object holding wnn's pthreadpool definitions:
// then its imports were bound before ours existed (the Python module imported after torch,
// which links libXNNPACK and libpthreadpool itself) and XNNPACK calls libpthreadpool.
bool xnnpack_bound_before_us() {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&pthreadpool_create), &self) == 0) return false;
  struct Scan {
    const void* self_base;
    bool seen_self = false, xnnpack_first = false;
  } scan{self.dli_fbase};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) {
        auto& s = *static_cast<Scan*>(p);
        // The object's load address: its bias plus its lowest loaded segment (what dladdr's
        // dli_fbase gives, for the executable too, PIE or not).
        uintptr_t lowest = UINTPTR_MAX;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_LOAD)
            lowest = std::min<uintptr_t>(lowest, info->dlpi_phdr[i].p_vaddr & ~uintptr_t(4095));
        if (info->dlpi_addr + lowest == reinterpret_cast<uintptr_t>(s.self_base))
          s.seen_self = true;
        else if (info->dlpi_name && std::strstr(info->dlpi_name, "libXNNPACK.so"))
          s.xnnpack_first = true;
        return s.seen_self || s.xnnpack_first ? 1 : 0;
      },
      &scan);
  return scan.xnnpack_first;
}

std::shared_ptr<pthreadpool> make_pool(int threads) {
  if (xnnpack_bound_before_us()) {
    // Fall back to the real libpthreadpool that XNNPACK is bound to: a second pool again.
    if (void* lib = dlopen("libpthreadpool.so.0", RTLD_NOLOAD | RTLD_LAZY)) {
      auto create = reinterpret_cast<pthreadpool_t (*)(size_t)>(dlsym(lib, "pthreadpool_create"));
      auto destroy = reinterpret_cast<void (*)(pthreadpool_t)>(dlsym(lib, "pthreadpool_destroy"));
      if (create && destroy) return std::shared_ptr<pthreadpool>(create(size_t(threads)), destroy);
    }
  }
  return std::shared_ptr<pthreadpool>(pthreadpool_create(size_t(threads)), pthreadpool_destroy);
}

}  // namespace

std::shared_ptr<pthreadpool> shared_pool(int threads) {
  if (threads <= 1) return nullptr;
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<pthreadpool>> pools;
  std::lock_guard lock(mutex);
  std::weak_ptr<pthreadpool>& slot = pools[threads];
  if (auto pool = slot.lock()) return pool;
  std::shared_ptr<pthreadpool> pool = make_pool(threads);
  check(pool != nullptr, "cannot create a thread pool of {} threads for XNNPACK", threads);
  slot = pool;
  return pool;
}

}  // namespace wnn::runtime::xnnpack
