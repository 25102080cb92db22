#include "wnn/runtime/xnnpack/thread_pool.h"

#include <pthreadpool.h>

#include <map>
#include <mutex>

#include "wnn/core/error.h"

namespace wnn::runtime::xnnpack {

std::shared_ptr<pthreadpool> shared_pool(int threads) {
  if (threads <= 1) return nullptr;
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<pthreadpool>> pools;
  std::lock_guard lock(mutex);
  std::weak_ptr<pthreadpool>& slot = pools[threads];
  if (auto pool = slot.lock()) return pool;
  std::shared_ptr<pthreadpool> pool(pthreadpool_create(size_t(threads)), pthreadpool_destroy);
  check(pool != nullptr, "cannot create a thread pool of {} threads for XNNPACK", threads);
  slot = pool;
  return pool;
}

}  // namespace wnn::runtime::xnnpack
